import Foundation

/// A stream of bytes: a file, standard input, or a decoder wrapping another source.
public protocol ByteSource: AnyObject {
    /// The input's name for messages (a path, or `-`).
    var name: String { get }
    /// Reads up to `buffer.count` bytes into `buffer`; returns how many, 0 only at the end.
    func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int
}

/// Bytes of a file or of standard input, read with POSIX `read(2)`.
public final class FileByteSource: ByteSource {
    public let name: String
    private let fd: Int32
    private let ownsDescriptor: Bool

    /// Opens `path` for reading; `-` is standard input.
    /// - Throws: `.missingInput` when the file does not exist, cannot be opened, or is a directory.
    public init(path: String) throws {
        name = path
        if path == "-" {
            fd = 0
            ownsDescriptor = false
            return
        }
        let opened = open(path, O_RDONLY | O_CLOEXEC)
        guard opened >= 0 else {
            let err = errno
            let reason = err == ENOENT ? "no such file" : String(cString: strerror(err))
            throw VinyardError(.missingInput, "\(path): cannot open input: \(reason)")
        }
        var info = stat()
        if fstat(opened, &info) == 0, (info.st_mode & S_IFMT) == S_IFDIR {
            close(opened)
            throw VinyardError(.missingInput, "\(path): is a directory, not an input file")
        }
        fd = opened
        ownsDescriptor = true
    }

    deinit { if ownsDescriptor { close(fd) } }

    /// True when this is a regular file (it can be read twice by opening it again).
    public var isRegularFile: Bool {
        var info = stat()
        return fstat(fd, &info) == 0 && (info.st_mode & S_IFMT) == S_IFREG
    }

    public func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        guard let base = buffer.baseAddress, buffer.count > 0 else { return 0 }
        while true {
            let n = Foundation.read(fd, base, buffer.count)
            if n >= 0 { return n }
            if errno == EINTR { continue }
            throw VinyardError(.io, "\(name): read failed: \(String(cString: strerror(errno)))")
        }
    }
}

/// Some bytes already read (to sniff the content), then the rest of a source.
public final class PrefixedByteSource: ByteSource {
    private var prefix: [UInt8]
    private var offset = 0
    private let rest: any ByteSource
    public var name: String { rest.name }

    public init(prefix: [UInt8], rest: any ByteSource) {
        self.prefix = prefix
        self.rest = rest
    }

    public func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        if !prefix.isEmpty {
            let n = min(buffer.count, prefix.count - offset)
            prefix.withUnsafeBytes { src in
                buffer.copyMemory(from: UnsafeRawBufferPointer(rebasing: src[offset..<offset + n]))
            }
            offset += n
            if offset == prefix.count { prefix = [] ; offset = 0 }
            return n
        }
        return try rest.read(into: buffer)
    }
}

/// Decompresses a gzip stream (all members of a multi-member stream) from another source.
/// A truncated or corrupt stream throws `.malformedInput` naming the file and the compressed
/// byte offset.
public final class GzipByteSource: ByteSource {
    public var name: String { source.name }
    private let source: any ByteSource
    private let inflater: Inflater
    private var input: [UInt8]
    private var inPos = 0
    private var inEnd = 0
    /// Compressed bytes consumed so far (across members).
    private var compressedOffset = 0
    private enum State { case inMember, betweenMembers, done }
    private var state = State.inMember

    public init(source: any ByteSource, chunkSize: Int = 256 * 1024) throws {
        self.source = source
        do { inflater = try Inflater() } catch { throw VinyardError(.io, "\(source.name): cannot start gzip decoder", cause: error) }
        input = [UInt8](repeating: 0, count: chunkSize)
    }

    private func corrupt(_ reason: String, at offset: Int) -> VinyardError {
        VinyardError(.malformedInput, "\(name): corrupt gzip stream at byte \(offset) (\(reason))")
    }

    public func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        while true {
            if state == .done { return 0 }
            if inPos == inEnd {
                inPos = 0
                inEnd = try input.withUnsafeMutableBytes { try source.read(into: $0) }
                if inEnd == 0 {
                    if state == .inMember { throw corrupt("truncated: unexpected end of data", at: compressedOffset) }
                    state = .done
                    return 0
                }
            }
            if state == .betweenMembers {
                guard input[inPos] == 0x1f else {
                    throw corrupt("trailing data after the last gzip member", at: compressedOffset)
                }
                inflater.reset()
                state = .inMember
            }
            let result: (consumed: Int, produced: Int, end: Bool)
            do {
                result = try input.withUnsafeBytes { raw in
                    try inflater.inflate(input: UnsafeRawBufferPointer(rebasing: raw[inPos..<inEnd]), output: buffer)
                }
            } catch let error as ZlibError {
                throw corrupt(error.message, at: compressedOffset + inflater.consumedBeforeError)
            }
            inPos += result.consumed
            compressedOffset += result.consumed
            if result.end { state = .betweenMembers }
            if result.produced > 0 { return result.produced }
            if result.consumed == 0 && !result.end && inPos < inEnd {
                throw corrupt("decoder made no progress", at: compressedOffset)
            }
        }
    }
}
