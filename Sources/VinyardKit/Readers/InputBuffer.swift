/// A sliding window over a ``ByteSource`` that readers parse in place. Bytes before `start` are
/// consumed; `fill()` moves the unconsumed tail to the front and reads more, growing the window
/// geometrically only while one record does not fit.
final class InputBuffer {
    private(set) var storage: [UInt8]
    /// First unconsumed byte.
    var start = 0
    /// End of the valid bytes.
    private(set) var end = 0
    /// True once the source reported its end.
    private(set) var eof = false
    /// Absolute input offset of `storage[0]`.
    private(set) var base = 0
    let source: any ByteSource
    /// The largest record (or JSON element) accepted, in bytes.
    let maxRecordBytes: Int

    init(source: any ByteSource, chunkSize: Int = 256 * 1024, maxRecordBytes: Int) {
        self.source = source
        self.maxRecordBytes = maxRecordBytes
        storage = [UInt8](repeating: 0, count: chunkSize)
    }

    var available: Int { end - start }

    /// Reads more bytes (at least one unless at the end). Returns false at the end of input.
    /// - Throws: `.malformedInput` when the unconsumed bytes exceed `maxRecordBytes`.
    @discardableResult
    func fill(what: @autoclosure () -> String = "record") throws -> Bool {
        if eof { return false }
        if start > 0 {
            let count = end - start
            if count > 0 {
                storage.withUnsafeMutableBytes { raw in
                    guard let p = raw.baseAddress else { return }
                    p.copyMemory(from: p + start, byteCount: count)
                }
            }
            base += start
            end = count
            start = 0
        }
        if storage.count - end < storage.count / 2 {
            if end >= maxRecordBytes {
                throw VinyardError(
                    .malformedInput,
                    "\(source.name): a \(what()) larger than \(maxRecordBytes / (1024 * 1024)) MiB at byte \(base); is a quote or bracket left open?"
                )
            }
            storage += [UInt8](repeating: 0, count: storage.count)
        }
        // Readers rescan the unconsumed record after a fill: read at least as many new bytes as
        // are already held (or until the window is full, or the end), so a large record arriving
        // in small pieces (a pipe) costs O(n) rescans in all, not O(n²).
        let held = end
        var added = 0
        repeat {
            let n = try storage.withUnsafeMutableBytes { raw in
                try source.read(into: UnsafeMutableRawBufferPointer(rebasing: raw[end...]))
            }
            if n == 0 {
                eof = true
                break
            }
            end += n
            added += n
        } while added < held && end < storage.count
        return added > 0
    }

    /// Fills until at least `count` bytes are available or the input ends.
    func fill(atLeast count: Int) throws {
        while available < count, try fill() {}
    }

    /// Skips a UTF-8 byte order mark at the current position.
    func skipBOM() throws {
        try fill(atLeast: 3)
        if available >= 3, storage[start] == 0xEF, storage[start + 1] == 0xBB, storage[start + 2] == 0xBF {
            start += 3
        }
    }
}
