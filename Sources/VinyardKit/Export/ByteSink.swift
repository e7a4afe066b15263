import Foundation

/// A destination for bytes: a file, standard output, or a gzip encoder wrapping another sink.
public protocol ByteSink: AnyObject {
    func write(_ bytes: UnsafeRawBufferPointer) throws
    /// Flushes and closes; the sink is unusable afterwards.
    func close() throws
}

/// A buffered file or standard output (`-`), written with POSIX `write(2)`.
public final class FileByteSink: ByteSink {
    public let name: String
    private let fd: Int32
    private let ownsDescriptor: Bool
    private var buffer: [UInt8] = []
    private let capacity = 256 * 1024
    private var closed = false

    /// Creates (or truncates) `path`; `-` is standard output. `shownAs` names the output in
    /// errors when `path` is its staging file (see ``StagedOutputs``).
    /// - Throws: `.cantCreate` when the file cannot be created.
    public init(path: String, shownAs: String? = nil) throws {
        name = path == "-" ? "standard output" : shownAs ?? path
        buffer.reserveCapacity(capacity)
        if path == "-" {
            fd = 1
            ownsDescriptor = false
            return
        }
        let opened = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard opened >= 0 else {
            throw VinyardError(.cantCreate, "\(name): cannot create output: \(String(cString: strerror(errno)))")
        }
        fd = opened
        ownsDescriptor = true
    }

    deinit {
        if !closed {
            try? flush()
            if ownsDescriptor { Foundation.close(fd) }
        }
    }

    public func write(_ bytes: UnsafeRawBufferPointer) throws {
        if buffer.count + bytes.count > capacity { try flush() }
        if bytes.count >= capacity {
            try writeAll(bytes)
        } else {
            buffer.append(contentsOf: bytes)
        }
    }

    private func flush() throws {
        guard !buffer.isEmpty else { return }
        try buffer.withUnsafeBytes { try writeAll($0) }
        buffer.removeAll(keepingCapacity: true)
    }

    private func writeAll(_ bytes: UnsafeRawBufferPointer) throws {
        try Self.writeAll(bytes, to: fd, name: name)
    }

    /// Writes all of `bytes` to descriptor `fd` with `write(2)`, again after an interruption.
    /// - Throws: `.io` naming `name` when a write fails.
    static func writeAll(_ bytes: UnsafeRawBufferPointer, to fd: Int32, name: String) throws {
        guard var p = bytes.baseAddress else { return }
        var left = bytes.count
        while left > 0 {
            let n = Foundation.write(fd, p, left)
            if n < 0 {
                if errno == EINTR { continue }
                throw VinyardError(.io, "\(name): write failed: \(String(cString: strerror(errno)))")
            }
            p += n
            left -= n
        }
    }

    public func close() throws {
        guard !closed else { return }
        closed = true
        try flush()
        if ownsDescriptor, Foundation.close(fd) != 0 {
            throw VinyardError(.io, "\(name): close failed: \(String(cString: strerror(errno)))")
        }
    }
}

extension FileByteSink {
    /// Writes `text` to standard output, unbuffered by stdio: a failure (a full disk, a closed
    /// descriptor) throws `.io` instead of being lost or trapping.
    public static func writeStandardOutput(_ text: String) throws {
        let sink = try FileByteSink(path: "-")
        var text = text
        try text.withUTF8 { try sink.write(UnsafeRawBufferPointer($0)) }
        try sink.close()
    }
}

/// Compresses everything written into one gzip member on another sink.
public final class GzipByteSink: ByteSink {
    private let sink: any ByteSink
    private let deflater: Deflater
    private var scratch = [UInt8](repeating: 0, count: 256 * 1024)
    private var pending: [UInt8] = []
    private var closed = false

    public init(sink: any ByteSink, level: Int32 = 6) throws {
        self.sink = sink
        do { deflater = try Deflater(level: level) } catch { throw VinyardError(.io, "cannot start gzip encoder", cause: error) }
        pending.reserveCapacity(256 * 1024)
    }

    public func write(_ bytes: UnsafeRawBufferPointer) throws {
        pending.append(contentsOf: bytes)
        if pending.count >= 256 * 1024 { try compress(finish: false) }
    }

    private func compress(finish: Bool) throws {
        let sink = self.sink
        try pending.withUnsafeBytes { input in
            try scratch.withUnsafeMutableBytes { out in
                try deflater.deflate(input, finish: finish, scratch: out) { try sink.write($0) }
            }
        }
        pending.removeAll(keepingCapacity: true)
    }

    public func close() throws {
        guard !closed else { return }
        closed = true
        try compress(finish: true)
        try sink.close()
    }
}

/// Opens an output for writing: `-` is standard output; a path ending in `.gz` is gzip-compressed.
/// - Throws: `.cantCreate` when the file cannot be created.
public func openOutput(path: String, shownAs: String? = nil) throws -> any ByteSink {
    let file = try FileByteSink(path: path, shownAs: shownAs)
    return path.lowercased().hasSuffix(".gz") ? try GzipByteSink(sink: file) : file
}
