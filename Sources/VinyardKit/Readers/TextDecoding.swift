/// How a reader turns bytes into text.
public enum TextEncoding: String, Sendable, Hashable, CaseIterable {
    /// UTF-8, falling back to Windows-1252 per record when a record is not valid UTF-8 (flagged).
    case auto
    /// UTF-8 always; invalid bytes become U+FFFD and the record is flagged.
    case utf8 = "utf-8"
    /// Windows-1252 (a superset of Latin-1 for printable text) for the whole input.
    case windows1252 = "windows-1252"
}

enum TextDecoding {
    /// True when the bytes are all ASCII.
    @inline(__always)
    static func isASCII(_ p: UnsafeBufferPointer<UInt8>) -> Bool {
        var acc: UInt8 = 0
        for b in p { acc |= b }
        return acc < 0x80
    }

    /// Strict UTF-8 validation (no overlong forms, no surrogates, nothing above U+10FFFF).
    static func isValidUTF8(_ p: UnsafeBufferPointer<UInt8>) -> Bool {
        var i = 0
        let n = p.count
        while i < n {
            let b0 = p[i]
            if b0 < 0x80 { i += 1; continue }
            if b0 >= 0xC2 && b0 <= 0xDF {
                guard i + 1 < n, p[i + 1] & 0xC0 == 0x80 else { return false }
                i += 2
            } else if b0 >= 0xE0 && b0 <= 0xEF {
                guard i + 2 < n else { return false }
                let b1 = p[i + 1], b2 = p[i + 2]
                guard b1 & 0xC0 == 0x80, b2 & 0xC0 == 0x80 else { return false }
                if b0 == 0xE0 && b1 < 0xA0 { return false }
                if b0 == 0xED && b1 >= 0xA0 { return false }
                i += 3
            } else if b0 >= 0xF0 && b0 <= 0xF4 {
                guard i + 3 < n else { return false }
                let b1 = p[i + 1], b2 = p[i + 2], b3 = p[i + 3]
                guard b1 & 0xC0 == 0x80, b2 & 0xC0 == 0x80, b3 & 0xC0 == 0x80 else { return false }
                if b0 == 0xF0 && b1 < 0x90 { return false }
                if b0 == 0xF4 && b1 >= 0x90 { return false }
                i += 4
            } else {
                return false
            }
        }
        return true
    }

    /// Windows-1252 code points for 0x80-0x9F (the five undefined bytes map to the C1 controls,
    /// as WHATWG does).
    static let cp1252High: [UInt32] = [
        0x20AC, 0x0081, 0x201A, 0x0192, 0x201E, 0x2026, 0x2020, 0x2021, 0x02C6, 0x2030, 0x0160, 0x2039, 0x0152, 0x008D,
        0x017D, 0x008F, 0x0090, 0x2018, 0x2019, 0x201C, 0x201D, 0x2022, 0x2013, 0x2014, 0x02DC, 0x2122, 0x0161, 0x203A,
        0x0153, 0x009D, 0x017E, 0x0178,
    ]

    /// Decodes bytes as Windows-1252.
    static func windows1252(_ p: UnsafeBufferPointer<UInt8>) -> String {
        var scalars = String.UnicodeScalarView()
        for b in p {
            let v: UInt32 = (b >= 0x80 && b <= 0x9F) ? cp1252High[Int(b - 0x80)] : UInt32(b)
            if let s = Unicode.Scalar(v) { scalars.append(s) }
        }
        return String(scalars)
    }

    /// The bytes `a..<b` of `p`, known to be ASCII, as a string: copied without validation for
    /// the up to 15 bytes a small string holds (larger ones are validated by the standard library,
    /// which is quick for ASCII).
    @inline(__always)
    static func ascii(_ p: UnsafeBufferPointer<UInt8>, _ a: Int, _ b: Int) -> String {
        let count = b - a
        if count <= 0 { return "" }
        let source = UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: p[a..<b]))
        return String(unsafeUninitializedCapacity: count) { out in
            UnsafeMutableRawBufferPointer(out).copyMemory(from: source)
            return count
        }
    }

    /// `count` bytes at `source`, known to be valid UTF-8, as a string. Short ones are copied a
    /// word at a time rather than by a call to `memcpy`; the standard library checks the result
    /// is ASCII (quick) and validates only what is not.
    @inline(__always)
    static func copying(_ source: UnsafePointer<UInt8>, count: Int) -> String {
        if count <= 0 { return "" }
        return String(unsafeUninitializedCapacity: count) { out in
            guard let target = out.baseAddress else { return 0 }
            copyBytes(UnsafeMutableRawPointer(target), UnsafeRawPointer(source), count)
            return count
        }
    }

    /// The bytes `a..<b` of a quoted field's content, in which every quote is the first of an
    /// escaped pair `""`, with the pairs made single.
    @inline(__always)
    static func unescapingQuotes(_ p: UnsafePointer<UInt8>, _ a: Int, _ b: Int) -> String {
        if b <= a { return "" }
        return String(unsafeUninitializedCapacity: b - a) { out in
            var w = 0
            var j = a
            while j < b, w < out.count {
                let c = p[j]
                out[w] = c
                w += 1
                j += c == UInt8(ascii: "\"") ? 2 : 1
            }
            return w
        }
    }

    /// Copies `count` bytes (overlapping word stores for up to 16, `memcpy` beyond).
    @inline(__always)
    static func copyBytes(_ target: UnsafeMutableRawPointer, _ source: UnsafeRawPointer, _ count: Int) {
        if count >= 8 {
            if count > 16 {
                target.copyMemory(from: source, byteCount: count)
                return
            }
            target.storeBytes(of: source.loadUnaligned(as: UInt64.self), as: UInt64.self)
            target.storeBytes(of: source.loadUnaligned(fromByteOffset: count - 8, as: UInt64.self), toByteOffset: count - 8, as: UInt64.self)
        } else if count >= 4 {
            target.storeBytes(of: source.loadUnaligned(as: UInt32.self), as: UInt32.self)
            target.storeBytes(of: source.loadUnaligned(fromByteOffset: count - 4, as: UInt32.self), toByteOffset: count - 4, as: UInt32.self)
        } else if count > 0 {
            target.storeBytes(of: source.load(as: UInt8.self), as: UInt8.self)
            target.storeBytes(of: source.load(fromByteOffset: count >> 1, as: UInt8.self), toByteOffset: count >> 1, as: UInt8.self)
            target.storeBytes(of: source.load(fromByteOffset: count - 1, as: UInt8.self), toByteOffset: count - 1, as: UInt8.self)
        }
    }

    @inline(__always)
    static func utf8(_ p: UnsafeBufferPointer<UInt8>) -> String {
        String(decoding: p, as: UTF8.self)
    }

    /// Decodes one record's field bytes with `encoding`, where `recordIsUTF8` says whether the
    /// whole record validated as UTF-8.
    @inline(__always)
    static func decode(_ p: UnsafeBufferPointer<UInt8>, encoding: TextEncoding, recordIsUTF8: Bool) -> String {
        switch encoding {
        case .windows1252: return isASCII(p) ? utf8(p) : windows1252(p)
        case .utf8: return utf8(p)
        case .auto: return recordIsUTF8 ? utf8(p) : windows1252(p)
        }
    }
}

/// Word-at-a-time (SWAR) byte searches for the readers: eight bytes per step, every load checked
/// to lie inside the valid bytes.
enum ByteScan {
    @inline(__always)
    static func broadcast(_ b: UInt8) -> UInt64 { UInt64(b) &* 0x0101_0101_0101_0101 }

    /// High bit set in each byte of `w` equal to the byte broadcast in `pattern`; the lowest set
    /// bit is always a true match (borrows only reach more significant bytes).
    @inline(__always)
    static func matches(_ w: UInt64, _ pattern: UInt64) -> UInt64 {
        let x = w ^ pattern
        return (x &- 0x0101_0101_0101_0101) & ~x & 0x8080_8080_8080_8080
    }

    /// The first index in `start..<end` holding `a`, `b` or `c`; `end` when none does.
    /// `end` must not exceed `p.count`.
    @inline(__always)
    static func first(in p: UnsafeBufferPointer<UInt8>, from start: Int, to end: Int, _ a: UInt8, _ b: UInt8, _ c: UInt8) -> Int {
        var i = start
        let end = min(end, p.count)
        if let base = p.baseAddress {
            let raw = UnsafeRawPointer(base)
            let pa = broadcast(a), pb = broadcast(b), pc = broadcast(c)
            while end - i >= 8 {
                let w = UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: i, as: UInt64.self))
                let m = matches(w, pa) | matches(w, pb) | matches(w, pc)
                if m != 0 { return i + m.trailingZeroBitCount >> 3 }
                i += 8
            }
        }
        while i < end {
            let x = p[i]
            if x == a || x == b || x == c { return i }
            i += 1
        }
        return end
    }

    /// The first index in `start..<end` holding the byte broadcast in `a` (see ``broadcast(_:)``),
    /// a control byte below 0x0E (among them LF and CR) or a byte of 0x80 or above; `end` when none
    /// does. Cheaper than looking for three exact bytes: the caller tells the few stops that are
    /// not line breaks apart. The bytes `p[start..<end]` must be readable.
    @inline(__always)
    static func firstBreakOrHigh(_ p: UnsafePointer<UInt8>, from start: Int, to end: Int, _ a: UInt64) -> Int {
        var i = start
        let raw = UnsafeRawPointer(p)
        // Wrapping arithmetic: indices stay within 0...end, far from overflow.
        let last = end &- 8
        while i <= last {
            let w = UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: i, as: UInt64.self))
            // Bytes below 0x0E, equal to `a`, or with the high bit: the lowest set bit of each term
            // (hence of their union) marks a true match.
            let m = ((w &- 0x0E0E_0E0E_0E0E_0E0E) & ~w & 0x8080_8080_8080_8080) | matches(w, a) | (w & 0x8080_8080_8080_8080)
            if m != 0 { return i &+ m.trailingZeroBitCount &>> 3 }
            i &+= 8
        }
        let a8 = UInt8(truncatingIfNeeded: a)
        while i < end {
            let x = p[i]
            if x >= 0x80 || x < 0x0E || x == a8 { return i }
            i &+= 1
        }
        return end
    }

    /// True when no byte is 0x80 or above.
    @inline(__always)
    static func isASCII(_ p: UnsafeBufferPointer<UInt8>) -> Bool {
        var acc: UInt64 = 0
        var i = 0
        let n = p.count
        if let base = p.baseAddress {
            let raw = UnsafeRawPointer(base)
            while n - i >= 8 {
                acc |= raw.loadUnaligned(fromByteOffset: i, as: UInt64.self)
                i += 8
            }
        }
        var tail: UInt8 = 0
        while i < n {
            tail |= p[i]
            i += 1
        }
        return acc & 0x8080_8080_8080_8080 == 0 && tail < 0x80
    }
}
