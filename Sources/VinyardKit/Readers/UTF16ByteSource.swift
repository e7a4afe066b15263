/// UTF-16 text from another source, handed on as UTF-8, so that every reader keeps parsing UTF-8
/// bytes. Excel's "Unicode Text" export and PowerShell's `Out-File` write UTF-16 (little-endian,
/// with a byte order mark); it was refused before.
///
/// A byte order mark at the start is dropped. Half a surrogate pair, and an odd byte at the end,
/// become U+FFFD (the bytes EF BF BD), as any decoder that replaces rather than fails would write them.
/// Line breaks keep their places, so line numbers are those of the text.
public final class UTF16ByteSource: ByteSource {
    public var name: String { source.name }
    private let source: any ByteSource
    private let bigEndian: Bool
    private var input: [UInt8]
    /// Unconsumed bytes of `input` (an odd byte, or a high surrogate waiting for its pair).
    private var carried = 0
    private var atStart = true
    private var ended = false

    /// Transcoded bytes not handed out yet: `output[outputStart..<outputEnd]`.
    private var output: [UInt8]
    private var outputStart = 0
    private var outputEnd = 0

    public init(source: any ByteSource, bigEndian: Bool, chunkSize: Int = 64 * 1024) {
        self.source = source
        self.bigEndian = bigEndian
        input = [UInt8](repeating: 0, count: max(4, chunkSize))
        output = [UInt8](repeating: 0, count: max(16, input.count * 3 / 2 + 8))
    }

    /// Hands out transcoded bytes, as many as fit: a reader may ask for any number, however small
    /// (an `InputBuffer` nearly full asks for a few bytes; 0 returned for a read of fewer than 8
    /// bytes was taken for the end of the input, and the rest of the file was lost: found by review).
    public func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        guard !buffer.isEmpty else { return 0 }
        while outputStart == outputEnd {
            if ended && carried == 0 { return 0 }
            try refill()
        }
        let n = min(buffer.count, outputEnd - outputStart)
        output.withUnsafeBytes { buffer.copyMemory(from: UnsafeRawBufferPointer(rebasing: $0[outputStart..<outputStart + n])) }
        outputStart += n
        return n
    }

    /// Reads more of the source and transcodes it into `output` (maybe nothing yet: half a pair).
    private func refill() throws {
        // Each 2 input bytes make at most 3 output bytes (a pair of 4 makes 4).
        let room = min(input.count, (output.count - 4) / 3 * 2)
        var have = carried
        if !ended && have < room {
            let n = try input.withUnsafeMutableBytes {
                try source.read(into: UnsafeMutableRawBufferPointer(rebasing: $0[have..<room]))
            }
            if n == 0 { ended = true }
            have += n
        }
        let (consumed, produced) = output.withUnsafeMutableBytes { transcode(count: have, into: $0) }
        for k in consumed..<have { input[k - consumed] = input[k] }  // at most 3 bytes
        carried = have - consumed
        outputStart = 0
        outputEnd = produced
    }

    /// Transcodes `input[0..<count]`; at the end of the source the leftovers are replaced too.
    private func transcode(count: Int, into buffer: UnsafeMutableRawBufferPointer) -> (consumed: Int, produced: Int) {
        var i = 0
        var o = 0
        let big = bigEndian
        input.withUnsafeBufferPointer { p in
            @inline(__always) func unit(_ at: Int) -> UInt32 {
                big ? UInt32(p[at]) << 8 | UInt32(p[at + 1]) : UInt32(p[at + 1]) << 8 | UInt32(p[at])
            }
            // The standard library's UTF-8 encoder; every value passed is a scalar (surrogates
            // were paired or replaced by U+FFFD before).
            @inline(__always) func put(_ scalar: UInt32) {
                UTF8.encode(Unicode.Scalar(scalar) ?? "\u{FFFD}") { byte in
                    buffer[o] = byte
                    o += 1
                }
            }
            if atStart && count >= 2 {
                atStart = false
                if unit(0) == 0xFEFF { i = 2 }
            }
            while i + 2 <= count && o + 4 <= buffer.count {
                let u = unit(i)
                if u & 0xFC00 == 0xD800 {
                    // A high surrogate: its pair follows, or it is half a pair.
                    if i + 4 > count {
                        if !ended { break }
                        put(0xFFFD)
                        i += 2
                        continue
                    }
                    let low = unit(i + 2)
                    if low & 0xFC00 == 0xDC00 {
                        put(0x10000 + ((u & 0x3FF) << 10 | (low & 0x3FF)))
                        i += 4
                    } else {
                        put(0xFFFD)
                        i += 2
                    }
                } else {
                    put(u & 0xFC00 == 0xDC00 ? 0xFFFD : u)
                    i += 2
                }
            }
            if ended && i + 1 == count && o + 3 <= buffer.count {
                put(0xFFFD)
                i += 1
            }
        }
        if atStart && ended { atStart = false }
        return (i, o)
    }
}
