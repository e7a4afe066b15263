import Foundation

/// A progress line on standard error for long work: bytes read of total (for files), percent,
/// records per second and ETA, refreshed at most 10 times a second and cleared when done.
/// It draws only when standard error is a terminal and it is enabled (not `--quiet`).
public final class ProgressLine: @unchecked Sendable {
    private let enabled: Bool
    private var label = ""
    private var totalBytes: Int64?
    private var records = 0
    private var start = Date()
    private var lastDraw = Date.distantPast
    private var drawn = false
    private let minInterval: TimeInterval = 0.1

    /// - Parameter enabled: false for `--quiet`; the line is also off when standard error is not a
    ///   terminal (piped or redirected).
    public init(enabled: Bool) {
        self.enabled = enabled && isatty(STDERR_FILENO) == 1
    }

    /// A line for a command that writes rows to `output` (`-`: standard output): off as well
    /// when those rows go to the same terminal, where the line would break into them.
    public convenience init(enabled: Bool, output: String) {
        self.init(enabled: enabled && !(output == "-" && isatty(STDOUT_FILENO) == 1))
    }

    /// Whether anything will be drawn.
    public var isActive: Bool { enabled }

    /// Starts a new input.
    public func begin(_ label: String, totalBytes: Int64?) {
        self.label = label
        self.totalBytes = totalBytes
        records = 0
        start = Date()
    }

    /// Reports progress, once per batch of records rather than per record (reads the clock each
    /// time; draws at most 10 times a second).
    public func update(records: Int, bytesRead: Int64) {
        guard enabled else { return }
        self.records = records
        draw(bytesRead: bytesRead)
    }

    /// Reports rows written where no byte count applies (an export): rows and rows per second.
    public func update(records: Int) {
        guard enabled else { return }
        self.records = records
        draw(bytesRead: nil)
    }

    private func draw(bytesRead: Int64?) {
        let now = Date()
        guard now.timeIntervalSince(lastDraw) >= minInterval else { return }
        lastDraw = now
        let elapsed = max(now.timeIntervalSince(start), 0.001)
        let rate = Double(records) / elapsed
        var line = "\(label)  \(Self.grouped(records)) records  \(Self.grouped(Int(rate)))/s"
        if let bytesRead, let total = totalBytes, total > 0 {
            let fraction = min(1, Double(bytesRead) / Double(total))
            let eta = fraction > 0 ? elapsed * (1 - fraction) / fraction : 0
            line += String(
                format: "  %@ / %@  %3.0f%%  ETA %@", Self.bytes(bytesRead), Self.bytes(total), fraction * 100,
                Self.duration(eta))
        } else if let bytesRead {
            line += "  " + Self.bytes(bytesRead)
        }
        StandardError.write(("\r\u{1B}[K" + line))
        drawn = true
    }

    /// Clears the line.
    public func finish() {
        guard enabled, drawn else { return }
        StandardError.write("\r\u{1B}[K")
        drawn = false
    }

    static func grouped(_ n: Int) -> String {
        let s = String(n)
        var out = ""
        for (i, ch) in s.reversed().enumerated() {
            if i > 0, i % 3 == 0 { out.append(",") }
            out.append(ch)
        }
        return String(out.reversed())
    }

    static func bytes(_ n: Int64) -> String {
        let d = Double(n)
        if d >= 1e9 { return String(format: "%.2f GB", d / 1e9) }
        if d >= 1e6 { return String(format: "%.1f MB", d / 1e6) }
        if d >= 1e3 { return String(format: "%.0f kB", d / 1e3) }
        return "\(n) B"
    }

    static func duration(_ s: Double) -> String {
        s >= 60 ? String(format: "%dm%02ds", Int(s) / 60, Int(s) % 60) : String(format: "%.0fs", s)
    }
}
