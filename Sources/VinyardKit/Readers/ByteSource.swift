import Foundation
import Synchronization

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
            throw VinyardError(
                .missingInput, "\(path): cannot open input: \(reason)" + (err == ENOENT ? "; check the path" : ""))
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

    /// Fails as ``init(path:)`` would for a missing, unreadable or directory input, without
    /// reading it. A named pipe is not opened: opening it takes the writer's connection, and
    /// closing it again left the real read waiting forever for a writer that had gone.
    public static func check(path: String) throws {
        guard path != "-" else { return }
        var info = stat()
        if stat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFIFO {
            guard access(path, R_OK) == 0 else {
                throw VinyardError(.missingInput, "\(path): cannot open input: \(String(cString: strerror(errno)))")
            }
            return
        }
        _ = try FileByteSource(path: path)
    }

    /// True when this is a regular file (it can be read twice by opening it again).
    public var isRegularFile: Bool {
        var info = stat()
        return fstat(fd, &info) == 0 && (info.st_mode & S_IFMT) == S_IFREG
    }

    /// The file's size when it is a regular file; nil otherwise.
    public var regularFileSize: Int64? {
        var info = stat()
        guard fstat(fd, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { return nil }
        return Int64(info.st_size)
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

/// Passes another source's bytes through, counting them and hashing them (a fast 64-bit hash, not a
/// cryptographic one: it tells a re-import of the same bytes, for `import_runs`), for progress and
/// provenance.
public final class CountingByteSource: ByteSource {
    public var name: String { source.name }
    private let source: any ByteSource
    /// Bytes read so far.
    public private(set) var count: Int64 = 0
    private var hash: UInt64 = 0x9E37_79B9_7F4A_7C15
    private var pending: UInt64 = 0
    private var pendingBytes = 0

    public init(_ source: any ByteSource) { self.source = source }

    public func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        let n = try source.read(into: buffer)
        guard n > 0 else { return n }
        count += Int64(n)
        mix(UnsafeRawBufferPointer(rebasing: buffer[0..<n]))
        return n
    }

    /// The content hash of everything read so far, as 16 hex digits.
    public var hexDigest: String {
        var h = hash ^ UInt64(truncatingIfNeeded: count)
        if pendingBytes > 0 { h = Self.round(h, pending) }
        h ^= h >> 33
        h = h &* 0xFF51_AFD7_ED55_8CCD
        h ^= h >> 33
        let s = String(h, radix: 16)
        return String(repeating: "0", count: 16 - s.count) + s
    }

    @inline(__always) private static func round(_ h: UInt64, _ w: UInt64) -> UInt64 {
        var x = (h ^ w) &* 0x9FB2_1C65_1E98_DF25
        x ^= x >> 29
        return x
    }

    private func mix(_ bytes: UnsafeRawBufferPointer) {
        var i = 0
        let n = bytes.count
        // Finish a partial word from the last read, byte by byte.
        while pendingBytes > 0, pendingBytes < 8, i < n {
            pending |= UInt64(bytes[i]) << (8 * UInt64(pendingBytes))
            pendingBytes += 1
            i += 1
        }
        if pendingBytes == 8 {
            hash = Self.round(hash, pending)
            pending = 0
            pendingBytes = 0
        }
        var h = hash
        while i + 8 <= n {
            h = Self.round(h, bytes.loadUnaligned(fromByteOffset: i, as: UInt64.self))
            i += 8
        }
        hash = h
        while i < n {
            pending |= UInt64(bytes[i]) << (8 * UInt64(pendingBytes))
            pendingBytes += 1
            i += 1
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
/// byte offset. Zero bytes after the last member (block padding from tape or some archivers) end
/// the stream, as `gzip -d` reads them; anything else after the padding is corrupt.
public final class GzipByteSource: ByteSource {
    public var name: String { source.name }
    private let source: any ByteSource
    private let inflater: Inflater
    private var input: [UInt8]
    private var inPos = 0
    private var inEnd = 0
    /// Compressed bytes consumed so far (across members).
    private var compressedOffset = 0
    private enum State { case inMember, betweenMembers, padding, done }
    private var state = State.inMember

    public init(source: any ByteSource, chunkSize: Int = 256 * 1024) throws {
        self.source = source
        do { inflater = try Inflater() } catch { throw VinyardError(.io, "\(source.name): cannot start gzip decoder", cause: error) }
        input = [UInt8](repeating: 0, count: chunkSize)
    }

    private func corrupt(_ reason: String, at offset: Int) -> VinyardError {
        VinyardError(
            .malformedInput,
            "\(name): corrupt gzip stream at byte \(offset) (\(reason)); the file is damaged or cut short: download or export it again")
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
            if state == .betweenMembers && input[inPos] == 0 { state = .padding }
            if state == .padding {
                if let bad = input[inPos..<inEnd].firstIndex(where: { $0 != 0 }) {
                    throw corrupt("trailing data after the zero padding", at: compressedOffset + bad - inPos)
                }
                compressedOffset += inEnd - inPos
                inPos = inEnd
                continue
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

/// Bytes in memory as a ``ByteSource`` (a string or a buffer a caller already holds), handing out
/// at most `chunk` bytes per read — tests and fuzzers use small chunks so that records, gzip members
/// and BOMs straddle reads.
public final class MemoryByteSource: ByteSource {
    public let name: String
    private let bytes: [UInt8]
    private var offset = 0
    private let chunk: Int

    public init(_ bytes: [UInt8], name: String = "memory", chunk: Int = 1 << 20) {
        self.bytes = bytes
        self.name = name
        self.chunk = max(1, chunk)
    }

    public convenience init(_ text: String, name: String = "memory", chunk: Int = 1 << 20) {
        self.init(Array(text.utf8), name: name, chunk: chunk)
    }

    public func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        let n = min(buffer.count, bytes.count - offset, chunk)
        guard n > 0 else { return 0 }
        bytes.withUnsafeBytes { buffer.copyMemory(from: UnsafeRawBufferPointer(rebasing: $0[offset..<offset + n])) }
        offset += n
        return n
    }
}

/// What identifies a regular file's contents cheaply: device, inode, size and modification time.
public struct FileSnapshot: Equatable, Sendable {
    let device: UInt64, inode: UInt64, size: Int64, seconds: Int, nanoseconds: Int

    /// The snapshot of the regular file at `path` (following links); nil for anything else.
    public static func of(path: String) -> FileSnapshot? {
        var info = stat()
        guard stat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { return nil }
        return FileSnapshot(
            device: UInt64(info.st_dev), inode: UInt64(info.st_ino), size: Int64(info.st_size),
            seconds: info.st_mtim.tv_sec, nanoseconds: info.st_mtim.tv_nsec)
    }
}

/// The snapshot of each input file as it was first opened in this process, so a command that
/// reads an input again (`convert`'s second pass, an import's replaced records) can tell that
/// it changed in between: an input rewritten mid-run gave other vehicles' records as the raw
/// records of replaced rows, and an empty second pass (found by audit).
public enum InputSnapshots {
    private static let snapshots = Mutex<[String: FileSnapshot]>([:])

    /// Records `path`'s snapshot unless one is recorded already.
    static func recordFirst(_ path: String) {
        guard path != "-", let snapshot = FileSnapshot.of(path: path) else { return }
        snapshots.withLock { if $0[path] == nil { $0[path] = snapshot } }
    }

    /// True when `path` is still the file first opened (or was never recorded).
    public static func unchanged(_ path: String) -> Bool {
        guard let first = snapshots.withLock({ $0[path] }) else { return true }
        return FileSnapshot.of(path: path) == first
    }
}
