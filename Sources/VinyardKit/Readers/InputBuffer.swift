/// A sliding window over a ``ByteSource`` that readers parse in place. Bytes before `start` are
/// consumed; `fill()` moves the unconsumed tail to the front and reads more, growing the window
/// geometrically only while one record does not fit.
///
/// The window is a manually managed allocation rather than an array so that readers can take its
/// address with plain loads: no exclusivity check or retain per access in their per-record loops.
/// Every byte of it is initialized (zero beyond `end`). `bytes` stays valid until the next `fill`.
final class InputBuffer {
    /// The window's first byte; `bytes[0..<capacity]` is initialized.
    private(set) var bytes: UnsafeMutablePointer<UInt8>
    /// The window's size in bytes.
    private(set) var capacity: Int
    /// First unconsumed byte.
    var start = 0
    /// End of the valid bytes.
    private(set) var end = 0
    /// True once the source reported its end.
    private(set) var eof = false
    /// Absolute input offset of `bytes[0]`.
    private(set) var base = 0
    let source: any ByteSource
    /// The largest record (or JSON element) accepted, in bytes.
    let maxRecordBytes: Int

    init(source: any ByteSource, chunkSize: Int = 256 * 1024, maxRecordBytes: Int) {
        self.source = source
        self.maxRecordBytes = maxRecordBytes
        capacity = max(chunkSize, 16)
        bytes = .allocate(capacity: capacity)
        bytes.initialize(repeating: 0, count: capacity)
    }

    deinit { bytes.deallocate() }

    var available: Int { end - start }

    /// The whole window (`0..<capacity`), for parsing in place; valid until the next `fill`.
    @inline(__always)
    func withBytes<R>(_ body: (UnsafeBufferPointer<UInt8>) throws -> R) rethrows -> R {
        try body(UnsafeBufferPointer(start: bytes, count: capacity))
    }

    /// Reads more bytes (at least one unless at the end). Returns false at the end of input.
    /// - Throws: `.malformedInput` when the unconsumed bytes exceed `maxRecordBytes`.
    @discardableResult
    func fill(what: @autoclosure () -> String = "record") throws -> Bool {
        if eof { return false }
        if start > 0 {
            let count = end - start
            if count > 0 { UnsafeMutableRawPointer(bytes).copyMemory(from: bytes + start, byteCount: count) }  // memmove
            base += start
            end = count
            start = 0
        }
        if capacity - end < capacity / 2 {
            if end >= maxRecordBytes {
                throw VinyardError(
                    .malformedInput,
                    "\(source.name): a \(what()) larger than \(maxRecordBytes / (1024 * 1024)) MiB at byte \(base); is a quote or bracket left open?"
                )
            }
            let grown = UnsafeMutablePointer<UInt8>.allocate(capacity: capacity * 2)
            grown.initialize(from: bytes, count: end)
            (grown + end).initialize(repeating: 0, count: capacity * 2 - end)
            bytes.deallocate()
            bytes = grown
            capacity *= 2
        }
        // Readers rescan the unconsumed record after a fill: read at least as many new bytes as
        // are already held (or until the window is full, or the end), so a large record arriving
        // in small pieces (a pipe) costs O(n) rescans in all, not O(n²).
        let held = end
        var added = 0
        repeat {
            let n = try source.read(into: UnsafeMutableRawBufferPointer(start: bytes + end, count: capacity - end))
            if n == 0 {
                eof = true
                break
            }
            end += n
            added += n
        } while added < held && end < capacity
        return added > 0
    }

    /// Fills until at least `count` bytes are available or the input ends.
    func fill(atLeast count: Int) throws {
        while available < count, try fill() {}
    }

    /// Refuses binary data before a text reader reads it as records: binary data is full of NUL
    /// bytes, while a text file holds none, or a stray one in a row (a dirty export), which that
    /// row's checks meet as they would further on. Many near the start (8 or more in the first
    /// 64 KiB, and 1 in 1,000 bytes) mean binary data.
    /// So do control bytes, NUL or not, in 1 of 20 bytes of the first 64 KiB (64 at least): random
    /// bytes without a NUL (a tenth of them are such bytes) were read as Windows-1252 rows, or
    /// their first line named no source (a usage error, exit 64). Tab, line ends, vertical tab and
    /// form feed (line breaks in some exports' cells), Ctrl-Z, ESC and the CSV delimiter given
    /// (`--delimiter $'\x01'`, as Hive writes) do not count; a GS1 barcode's separator in each
    /// row of a list is well below the share.
    /// - Parameters:
    ///   - kind: what text was expected (`CSV`, `JSON Lines`), for the message.
    ///   - delimiter: the CSV delimiter given, when there is one.
    /// - Throws: `.malformedInput` naming the input and the first such byte's offset.
    func refuseBinaryData(expecting kind: String, delimiter: UInt8? = nil) throws {
        try fill(atLeast: 64 * 1024)
        let found = withBytes { p -> (offset: Int, byte: UInt8)? in
            let window = p[start..<end]
            var nuls = 0
            var controls = 0
            let binary = { (b: UInt8) in b != delimiter && Self.isBinaryControl(b) }
            for byte in window where byte < 0x20 || byte == 0x7F {
                if byte == 0 { nuls += 1 }
                if binary(byte) { controls += 1 }
            }
            if nuls >= 8, nuls * 1000 >= window.count, let at = window.firstIndex(of: 0) { return (at, 0) }
            if controls >= 64, controls * 20 >= window.count, let at = window.firstIndex(where: binary) {
                return (at, window[at])
            }
            return nil
        }
        if let found {
            let what = found.byte == 0 ? "a NUL byte" : "control bytes, such as 0x" + String(found.byte, radix: 16, uppercase: true)
                .leftPadded(to: 2)
            throw VinyardError(
                .malformedInput,
                "\(source.name): binary data (\(what) at byte \(base + found.offset)) where \(kind) text was expected; is this a text file?")
        }
    }

    /// A byte that text files do not hold: a control character other than tab, line feed,
    /// carriage return, vertical tab, form feed, Ctrl-Z (DOS end of file) and ESC.
    @inline(__always)
    static func isBinaryControl(_ b: UInt8) -> Bool {
        (b < 0x20 && b != 0x09 && b != 0x0A && b != 0x0D && b != 0x0B && b != 0x0C && b != 0x1A && b != 0x1B) || b == 0x7F
    }

    /// Skips a UTF-8 byte order mark at the current position.
    func skipBOM() throws {
        try fill(atLeast: 3)
        if available >= 3, bytes[start] == 0xEF, bytes[start + 1] == 0xBB, bytes[start + 2] == 0xBF {
            start += 3
            hadBOM = true
        }
    }

    /// True when the text began with a byte order mark, or was UTF-16 (Excel's "Unicode text"):
    /// written by a Windows tool that reads a file without one in its code page.
    var hadBOM = false
}

extension String {
    /// The string with `0`s before it up to `width` characters.
    fileprivate func leftPadded(to width: Int) -> String {
        count >= width ? self : String(repeating: "0", count: width - count) + self
    }
}
