import Foundation
import Synchronization

/// Output files written beside their place and moved there when complete, so that a run that
/// fails or is interrupted part-way never leaves a truncated file that looks finished (nor
/// overwrites the one that was there). The staging files of the process are listed here so a
/// signal handler can remove them (``removeAll()``).
public enum StagedOutputs {
    private static let staged = Mutex<Set<String>>([])

    /// Where a file output is written until it is complete: a hidden file in the output's
    /// directory (same file system, so the move is a rename), keeping its name's ending (`.gz`).
    /// Nil for standard output and for an existing output that is not a regular file (a FIFO, a
    /// device: replacing it would be wrong), or a directory that cannot be written (the output's
    /// own error then names the output).
    public static func stagingPath(for output: String) -> String? {
        guard output != "-" else { return nil }
        var info = stat()
        // (A symbolic link is written through, not replaced: `lstat` says it is no regular file.)
        if lstat(output, &info) == 0, (info.st_mode & S_IFMT) != S_IFREG { return nil }
        let url = URL(fileURLWithPath: output)
        let directory = url.deletingLastPathComponent()
        guard access(directory.path, W_OK) == 0 else { return nil }
        return directory.appendingPathComponent(".vinyard-\(getpid())-\(url.lastPathComponent)").path
    }

    /// Moves a complete staging file to `path` (`rename`), first giving it the permissions of the
    /// file it replaces: a file the user had made private (mode 600) became readable by all (644,
    /// the staging file's). Returns `rename`'s result (errno set on failure).
    public static func moveIntoPlace(_ staging: String, _ path: String) -> Int32 {
        var info = stat()
        if stat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG {
            // (Not set-user-ID or set-group-ID: the new file is the running user's.)
            _ = chmod(staging, info.st_mode & 0o1777)
        }
        return rename(staging, path)
    }

    public static func register(_ path: String) { _ = staged.withLock { $0.insert(path) } }
    public static func unregister(_ path: String) { _ = staged.withLock { $0.remove(path) } }

    /// Removes every staging file not yet moved into place (on SIGINT or SIGTERM); true when
    /// there was one.
    @discardableResult
    public static func removeAll() -> Bool {
        let paths = staged.withLock { $0 }
        for path in paths { unlink(path) }
        return !paths.isEmpty
    }
}

/// A file output written to its staging file and moved into place by ``close()``; dropped
/// without ``close()`` (an error ended the run), the staging file is removed.
public final class StagedFileSink: ByteSink {
    private let path: String
    private let staging: String?
    private let inner: any ByteSink
    private var committed = false
    /// Bytes put before everything written, when ``close()`` moves the file into place: for what
    /// is known only at the end (a rejects file meeting a Windows-1252 row needs a byte order
    /// mark first). A `.gz` output gets them as a gzip member of their own. Not for an output
    /// written in place (standard output, a FIFO): see ``canPrefix``.
    public var prefix: [UInt8] = []
    /// Whether ``prefix`` can be honoured (the output is staged).
    public var canPrefix: Bool { staging != nil }

    /// - Throws: `.cantCreate` when the output cannot be created.
    public init(path: String) throws {
        self.path = path
        staging = StagedOutputs.stagingPath(for: path)
        if let staging { StagedOutputs.register(staging) }
        do {
            inner = try openOutput(path: staging ?? path, shownAs: path)
        } catch {
            if let staging { StagedOutputs.unregister(staging) }
            throw error
        }
    }

    public func write(_ bytes: UnsafeRawBufferPointer) throws { try inner.write(bytes) }

    public func close() throws {
        try inner.close()
        guard let staging, !committed else { return }
        committed = true
        defer { StagedOutputs.unregister(staging) }
        if !prefix.isEmpty {
            do {
                try Self.prepend(prefix, to: staging, shownAs: path)
            } catch {
                unlink(staging)
                throw error
            }
        }
        guard StagedOutputs.moveIntoPlace(staging, path) == 0 else {
            let reason = String(cString: strerror(errno))
            unlink(staging)
            throw VinyardError(.io, "\(path): cannot move the output into place: \(reason)")
        }
    }

    /// Rewrites `staging` as `bytes` (through ``openOutput(path:shownAs:)``, so gzip for a `.gz`
    /// name) followed by its own bytes as they are.
    private static func prepend(_ bytes: [UInt8], to staging: String, shownAs name: String) throws {
        let url = URL(fileURLWithPath: staging)
        let joined = url.deletingLastPathComponent().appendingPathComponent(".prefix" + url.lastPathComponent).path
        StagedOutputs.register(joined)
        defer { StagedOutputs.unregister(joined) }
        var input: Int32 = -1
        var output: Int32 = -1
        defer {
            if input >= 0 { Foundation.close(input) }
            if output >= 0 { Foundation.close(output) }
        }
        do {
            let head = try openOutput(path: joined, shownAs: name)
            try bytes.withUnsafeBytes { try head.write($0) }
            try head.close()
            input = open(staging, O_RDONLY | O_CLOEXEC)
            output = open(joined, O_WRONLY | O_APPEND | O_CLOEXEC)
            guard input >= 0, output >= 0 else {
                throw VinyardError(.io, "\(name): cannot rewrite the output: \(String(cString: strerror(errno)))")
            }
            var chunk = [UInt8](repeating: 0, count: 1 << 20)
            while true {
                let n = chunk.withUnsafeMutableBytes { read(input, $0.baseAddress, $0.count) }
                if n < 0 {
                    if errno == EINTR { continue }
                    throw VinyardError(.io, "\(name): cannot rewrite the output: \(String(cString: strerror(errno)))")
                }
                if n == 0 { break }
                try chunk.withUnsafeBytes { try FileByteSink.writeAll(UnsafeRawBufferPointer(rebasing: $0[0..<n]), to: output, name: name) }
            }
            guard rename(joined, staging) == 0 else {
                throw VinyardError(.io, "\(name): cannot rewrite the output: \(String(cString: strerror(errno)))")
            }
        } catch {
            unlink(joined)
            throw error
        }
    }

    deinit {
        guard let staging, !committed else { return }
        unlink(staging)
        StagedOutputs.unregister(staging)
    }
}
