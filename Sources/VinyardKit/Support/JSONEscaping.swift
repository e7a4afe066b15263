/// JSON string literals (RFC 8259): quotes, backslashes and control characters escaped, everything
/// else (non-ASCII included) kept as UTF-8. The one escaper behind every JSON Vinyard writes.
public enum JSONEscaping {
    /// Appends `u` (UTF-8) as a quoted JSON string to `out`.
    static func appendQuoted<Output: JSONBytesOutput>(_ u: UnsafeBufferPointer<UInt8>, to out: inout Output) {
        out.appendByte(UInt8(ascii: "\""))
        var runStart = 0
        for i in 0..<u.count {
            let c = u[i]
            if c >= 0x20 && c != UInt8(ascii: "\"") && c != UInt8(ascii: "\\") { continue }
            out.appendRun(UnsafeBufferPointer(rebasing: u[runStart..<i]))
            runStart = i + 1
            out.appendByte(UInt8(ascii: "\\"))
            switch c {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"): out.appendByte(c)
            case 0x0A: out.appendByte(UInt8(ascii: "n"))
            case 0x0D: out.appendByte(UInt8(ascii: "r"))
            case 0x09: out.appendByte(UInt8(ascii: "t"))
            case 0x08: out.appendByte(UInt8(ascii: "b"))
            case 0x0C: out.appendByte(UInt8(ascii: "f"))
            default:
                let hex: StaticString = "0123456789abcdef"
                out.appendByte(UInt8(ascii: "u"))
                out.appendByte(UInt8(ascii: "0"))
                out.appendByte(UInt8(ascii: "0"))
                out.appendByte(hex.utf8Start[Int(c >> 4)])
                out.appendByte(hex.utf8Start[Int(c & 0xF)])
            }
        }
        out.appendRun(UnsafeBufferPointer(rebasing: u[runStart..<u.count]))
        out.appendByte(UInt8(ascii: "\""))
    }

    /// Appends `s` as a quoted JSON string to `out`.
    static func appendQuoted(_ s: String, to out: inout [UInt8]) {
        var s = s
        s.withUTF8 { appendQuoted($0, to: &out) }
    }

    /// `s` as a quoted JSON string.
    public static func quoted(_ s: String) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(s.utf8.count + 2)
        appendQuoted(s, to: &out)
        return String(decoding: out, as: UTF8.self)
    }
}

/// Where ``JSONEscaping`` writes: a byte array, or storage sized beforehand (``JSONByteWriter``).
protocol JSONBytesOutput {
    mutating func appendByte(_ byte: UInt8)
    mutating func appendRun(_ bytes: UnsafeBufferPointer<UInt8>)
}

extension Array: JSONBytesOutput where Element == UInt8 {
    @inline(__always) mutating func appendByte(_ byte: UInt8) { append(byte) }
    @inline(__always) mutating func appendRun(_ bytes: UnsafeBufferPointer<UInt8>) { append(contentsOf: bytes) }
}
