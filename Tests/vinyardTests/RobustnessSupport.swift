import Foundation
import Testing
import VinyardKit

/// A small deterministic pseudo-random generator (SplitMix64) for reproducible test data.
struct SplitMix64: RandomNumberGenerator {
    private var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// Starts `vinyard` without waiting for it; its output goes to /dev/null.
func startVinyard(_ arguments: [String]) throws -> Process {
    let process = Process()
    process.executableURL = vinyardBinary
    process.arguments = arguments
    process.standardOutput = FileHandle.nullDevice
    process.standardError = FileHandle.nullDevice
    process.standardInput = FileHandle.nullDevice
    try process.run()
    return process
}

/// Polls `condition` every `interval` seconds until it holds (true) or `timeout` passes (false).
func waitUntil(timeout: Double, interval: Double = 0.002, _ condition: () -> Bool) -> Bool {
    let deadline = Date().addingTimeInterval(timeout)
    while Date() < deadline {
        if condition() { return true }
        Thread.sleep(forTimeInterval: interval)
    }
    return condition()
}

/// How far process `pid` has read into the file at `path`: the offset of its descriptor on that
/// file (Linux `/proc/PID/fdinfo`), or nil when it has none open (not yet, or no `/proc`).
func readOffset(pid: Int32, path: String) -> Int64? {
    let fdDir = "/proc/\(pid)/fd"
    let target = URL(fileURLWithPath: path).resolvingSymlinksInPath().path
    guard let fds = try? FileManager.default.contentsOfDirectory(atPath: fdDir) else { return nil }
    for fd in fds {
        guard let link = try? FileManager.default.destinationOfSymbolicLink(atPath: "\(fdDir)/\(fd)"),
            link == target,
            let info = try? String(contentsOfFile: "/proc/\(pid)/fdinfo/\(fd)", encoding: .utf8)
        else { continue }
        for line in info.split(separator: "\n") where line.hasPrefix("pos:") {
            return Int64(line.dropFirst(4).trimmingCharacters(in: .whitespaces))
        }
    }
    return nil
}

/// The size of the file at `path`, or 0 when it does not exist.
func fileSize(_ path: String) -> Int64 {
    ((try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? NSNumber)?.int64Value ?? 0
}

/// What a database holds, for before/after comparisons: row counts and content checksums of the
/// tables, and the import runs.
struct DatabaseState: Equatable, CustomStringConvertible {
    var values: [String: String] = [:]

    init(_ path: String) throws {
        let store = try VinyardStore(path: path, readOnly: true)
        let c = store.connection
        let tables = Set(
            try ["vehicles", "locations", "import_runs", "rejects", "findings", "duplicates"].filter {
                try c.scalarInt("SELECT count(*) FROM sqlite_master WHERE type='table' AND name='\($0)'") == 1
            })
        for table in ["vehicles", "locations"] where tables.contains(table) {
            values[table] = try c.scalarText("SELECT count(*) || ':' || total(_hash) || ':' || total(_run_id) FROM \(table)")
        }
        for table in ["rejects", "findings", "duplicates"] where tables.contains(table) {
            values[table] = try c.scalarText("SELECT count(*) || ':' || total(run_id) FROM \(table)")
        }
        if tables.contains("import_runs") {
            values["import_runs"] = try c.scalarText(
                "SELECT count(*) || ':' || total(inserted) || ':' || group_concat(status) FROM import_runs")
        }
    }

    func count(_ table: String) -> Int {
        guard let v = values[table], let n = v.split(separator: ":").first else { return 0 }
        return Int(n) ?? 0
    }

    var description: String { values.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ") }
}

/// `PRAGMA integrity_check` of the database at `path`.
func integrityCheck(_ path: String) throws -> String? {
    let store = try VinyardStore(path: path, readOnly: true)
    return try store.connection.scalarText("PRAGMA integrity_check")
}

/// Fleet files generated once per test process and shared by the tests that need volume.
enum GeneratedFiles {
    /// A directory removed when the process exits (best effort: it lives under the temp dir).
    static let directory: URL? = try? makeTemporaryDirectory()

    /// Generates `rows` fleet rows with `seed` (5 % dirty) into the shared directory, once.
    static func fleet(rows: Int, seed: Int) throws -> String {
        let dir = try #require(directory)
        let path = dir.appendingPathComponent("fleet-\(rows)-\(seed).csv").path
        lock.lock()
        defer { lock.unlock() }
        if FileManager.default.fileExists(atPath: path) { return path }
        let partial = path + ".part"
        let r = try runVinyard(
            ["generate", "--rows", String(rows), "--seed", String(seed), "--dirty", "0.05", "-o", partial], timeout: 120)
        try #require(r.status == 0, "generate failed: \(r.stderr)")
        try FileManager.default.moveItem(atPath: partial, toPath: path)
        return path
    }

    private static let lock = NSLock()
}
