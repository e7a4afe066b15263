/// A strict RFC 8259 JSON value parser over bytes in memory, with an explicit stack (no recursion)
/// and a nesting limit. It parses one value from a position and reports whether it ended, needs
/// more bytes (when the buffer is not the end of input), or is malformed.
///
/// Numbers keep their source text; strings are validated as UTF-8 and decoded per ``TextEncoding``.
public struct JSONParser {
    /// The outcome of parsing one value.
    public enum Outcome {
        /// A value and the index just after it.
        case value(RawValue, end: Int)
        /// The bytes ended before the value did (only when not `final`).
        case needMore
        /// A syntax error at byte index `at`.
        case failure(String, at: Int)
    }

    /// The deepest nesting of arrays and objects accepted.
    public var maxDepth: Int
    /// The most values one parsed value may hold, nested ones included: a record of millions of
    /// tiny values (`[1,1,1,…]` up to the 256 MiB record limit) would take about ten times its
    /// size in memory.
    public var maxValues = 1_000_000
    /// How strings are decoded.
    public var encoding: TextEncoding
    /// Set when a string held bytes that are not valid UTF-8 (since the last reset).
    public var sawInvalidUTF8 = false
    /// Set when a `\u` escape held half of a UTF-16 surrogate pair without the other half (no
    /// character: it is read as U+FFFD) in the value ``parse(_:from:final:)`` last parsed.
    public var sawLoneSurrogate: Bool { loneSurrogateMember != nil }
    /// Where the first such escape was, in the value ``parse(_:from:final:)`` last parsed: the
    /// 0-based index of the member of the outermost object whose key or value (nested values
    /// included) held it (-1 when that value is no object); nil for none.
    public private(set) var loneSurrogateMember: Int?
    private var stringHasLoneSurrogate = false
    /// With `.auto`, decode non-ASCII strings as Windows-1252 (set on a second pass over a record
    /// that was not valid UTF-8).
    public var decodeAsWindows1252 = false

    private var kinds: [Bool] = []  // true = object
    private var arrays: [[RawValue]] = []
    private var objects: [[RawField]] = []
    private var keys: [String] = []
    private var scratch: [UInt8] = []

    public init(maxDepth: Int = 512, encoding: TextEncoding = .auto) {
        self.maxDepth = maxDepth
        self.encoding = encoding
    }

    private struct Stop: Error {
        var message: String
        var at: Int
    }
    private struct NeedMore: Error {}

    /// The one JSON value `text` holds, white space around it allowed; nil when it holds anything
    /// else (a value in a CSV cell: a list, an earlier rejects file's `_extra` object).
    static func wholeValue(_ text: String) -> RawValue? {
        var text = text
        return text.withUTF8 { bytes in
            var parser = JSONParser()
            guard case .value(let value, let end) = parser.parse(bytes, from: 0, final: true),
                bytes[end...].allSatisfy({ $0 == 0x20 || $0 == 0x09 || $0 == 0x0A || $0 == 0x0D })
            else { return nil }
            return value
        }
    }

    /// Parses one value starting at `from` (leading whitespace allowed). With `final`, the end of
    /// `p` is the end of input.
    public mutating func parse(_ p: UnsafeBufferPointer<UInt8>, from: Int, final: Bool) -> Outcome {
        kinds.removeAll(keepingCapacity: true)
        arrays.removeAll(keepingCapacity: true)
        objects.removeAll(keepingCapacity: true)
        keys.removeAll(keepingCapacity: true)
        loneSurrogateMember = nil
        do {
            let (v, end) = try run(p, from: from, final: final)
            return .value(v, end: end)
        } catch let stop as Stop {
            if stop.at >= p.count && !final { return .needMore }
            return .failure(stop.at >= p.count ? "unexpected end of input" : stop.message, at: stop.at)
        } catch {
            return .needMore
        }
    }

    @inline(__always)
    private static func isWS(_ c: UInt8) -> Bool { c == 0x20 || c == 0x0A || c == 0x0D || c == 0x09 }

    @inline(__always)
    private static func skipWS(_ p: UnsafeBufferPointer<UInt8>, _ i: inout Int) {
        while i < p.count && isWS(p[i]) { i += 1 }
    }

    private mutating func run(_ p: UnsafeBufferPointer<UInt8>, from: Int, final: Bool) throws -> (RawValue, Int) {
        let n = p.count
        var i = from
        var values = 0
        valueLoop: while true {
            Self.skipWS(p, &i)
            guard i < n else { throw Stop(message: "expected a value", at: i) }
            values += 1
            guard values <= maxValues else { throw Stop(message: "more than \(maxValues) values in one record", at: i) }
            var value: RawValue
            switch p[i] {
            case UInt8(ascii: "{"):
                i += 1
                Self.skipWS(p, &i)
                guard i < n else { throw Stop(message: "", at: i) }
                if p[i] == UInt8(ascii: "}") {
                    i += 1
                    value = .object([])
                } else {
                    try push(object: true, at: i)
                    keys.append(try parseKey(p, &i))
                    continue valueLoop
                }
            case UInt8(ascii: "["):
                i += 1
                Self.skipWS(p, &i)
                guard i < n else { throw Stop(message: "", at: i) }
                if p[i] == UInt8(ascii: "]") {
                    i += 1
                    value = .array([])
                } else {
                    try push(object: false, at: i)
                    continue valueLoop
                }
            case UInt8(ascii: "\""):
                value = .string(try parseString(p, &i))
            case UInt8(ascii: "t"):
                try literal(p, &i, "true")
                value = .bool(true)
            case UInt8(ascii: "f"):
                try literal(p, &i, "false")
                value = .bool(false)
            case UInt8(ascii: "n"):
                try literal(p, &i, "null")
                value = .null
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                value = .number(try parseNumber(p, &i, final: final))
            default:
                throw Stop(message: "unexpected character \(Self.describe(p[i]))", at: i)
            }
            // A value is complete: attach it to its container, closing containers as they end.
            while true {
                guard let isObject = kinds.last else { return (value, i) }
                Self.skipWS(p, &i)
                guard i < n else { throw Stop(message: "", at: i) }
                let c = p[i]
                if isObject {
                    objects[objects.count - 1].append(RawField(keys.removeLast(), value))
                    if c == UInt8(ascii: ",") {
                        i += 1
                        keys.append(try parseKey(p, &i))
                        continue valueLoop
                    }
                    guard c == UInt8(ascii: "}") else { throw Stop(message: "expected ',' or '}' after an object member, found \(Self.describe(c))", at: i) }
                    i += 1
                    kinds.removeLast()
                    value = .object(objects.removeLast())
                } else {
                    arrays[arrays.count - 1].append(value)
                    if c == UInt8(ascii: ",") {
                        i += 1
                        continue valueLoop
                    }
                    guard c == UInt8(ascii: "]") else { throw Stop(message: "expected ',' or ']' after an array element, found \(Self.describe(c))", at: i) }
                    i += 1
                    kinds.removeLast()
                    value = .array(arrays.removeLast())
                }
            }
        }
    }

    private mutating func push(object: Bool, at i: Int) throws {
        guard kinds.count < maxDepth else { throw Stop(message: "nesting deeper than \(maxDepth) levels", at: i) }
        kinds.append(object)
        if object { objects.append([]) } else { arrays.append([]) }
    }

    /// Parses `"key" :` (leading whitespace allowed).
    private mutating func parseKey(_ p: UnsafeBufferPointer<UInt8>, _ i: inout Int) throws -> String {
        Self.skipWS(p, &i)
        guard i < p.count else { throw Stop(message: "", at: i) }
        guard p[i] == UInt8(ascii: "\"") else { throw Stop(message: "expected a string key, found \(Self.describe(p[i]))", at: i) }
        let key = try parseString(p, &i)
        Self.skipWS(p, &i)
        guard i < p.count else { throw Stop(message: "", at: i) }
        guard p[i] == UInt8(ascii: ":") else { throw Stop(message: "expected ':' after an object key, found \(Self.describe(p[i]))", at: i) }
        i += 1
        return key
    }

    private func literal(_ p: UnsafeBufferPointer<UInt8>, _ i: inout Int, _ word: StaticString) throws {
        let start = i
        let bytes = UnsafeBufferPointer(start: word.utf8Start, count: word.utf8CodeUnitCount)
        for b in bytes {
            guard i < p.count else { throw Stop(message: "", at: i) }
            guard p[i] == b else { throw Stop(message: "invalid literal", at: start) }
            i += 1
        }
    }

    private func parseNumber(_ p: UnsafeBufferPointer<UInt8>, _ i: inout Int, final: Bool) throws -> String {
        let n = p.count
        let start = i
        @inline(__always) func isDigit(_ j: Int) -> Bool { j < n && p[j] >= 0x30 && p[j] <= 0x39 }
        if p[i] == UInt8(ascii: "-") { i += 1 }
        guard i < n else { throw Stop(message: "", at: i) }
        if p[i] == UInt8(ascii: "0") {
            i += 1
        } else if isDigit(i) {
            while isDigit(i) { i += 1 }
        } else {
            throw Stop(message: "invalid number", at: start)
        }
        if i < n && p[i] == UInt8(ascii: ".") {
            i += 1
            guard i < n else { throw Stop(message: "", at: i) }
            guard isDigit(i) else { throw Stop(message: "invalid number: a digit must follow '.'", at: start) }
            while isDigit(i) { i += 1 }
        }
        if i < n && (p[i] == UInt8(ascii: "e") || p[i] == UInt8(ascii: "E")) {
            i += 1
            if i < n && (p[i] == UInt8(ascii: "+") || p[i] == UInt8(ascii: "-")) { i += 1 }
            guard i < n else { throw Stop(message: "", at: i) }
            guard isDigit(i) else { throw Stop(message: "invalid number: a digit must follow the exponent", at: start) }
            while isDigit(i) { i += 1 }
        }
        // A number at the very end of a non-final buffer may go on.
        if i >= n && !final { throw NeedMore() }
        return String(decoding: UnsafeBufferPointer(rebasing: p[start..<i]), as: UTF8.self)
    }

    private mutating func decodeText(_ b: UnsafeBufferPointer<UInt8>, nonASCII: Bool) -> String {
        guard nonASCII else { return String(decoding: b, as: UTF8.self) }
        switch encoding {
        case .windows1252:
            return TextDecoding.windows1252(b)
        case .utf8:
            if !TextDecoding.isValidUTF8(b) { sawInvalidUTF8 = true }
            return String(decoding: b, as: UTF8.self)
        case .auto:
            if decodeAsWindows1252 { return TextDecoding.windows1252(b) }
            if !TextDecoding.isValidUTF8(b) {
                sawInvalidUTF8 = true
                return TextDecoding.windows1252(b)
            }
            return String(decoding: b, as: UTF8.self)
        }
    }

    /// Parses a string at `i` (on its opening quote).
    private mutating func parseString(_ p: UnsafeBufferPointer<UInt8>, _ i: inout Int) throws -> String {
        let n = p.count
        let start = i + 1
        var j = start
        var high: UInt8 = 0
        while j < n {
            let c = p[j]
            if c == UInt8(ascii: "\"") || c == UInt8(ascii: "\\") || c < 0x20 { break }
            high |= c
            j += 1
        }
        guard j < n else { throw Stop(message: "", at: j) }
        if p[j] == UInt8(ascii: "\"") {
            i = j + 1
            return decodeText(UnsafeBufferPointer(rebasing: p[start..<j]), nonASCII: high >= 0x80)
        }
        // Slow path: escapes.
        scratch.removeAll(keepingCapacity: true)
        scratch.append(contentsOf: UnsafeBufferPointer(rebasing: p[start..<j]))
        stringHasLoneSurrogate = false
        while true {
            guard j < n else { throw Stop(message: "", at: j) }
            let c = p[j]
            if c == UInt8(ascii: "\"") {
                i = j + 1
                let text = scratch
                let decoded = text.withUnsafeBufferPointer { decodeText($0, nonASCII: high >= 0x80) }
                if stringHasLoneSurrogate, loneSurrogateMember == nil {
                    // The outermost object's members so far: this string is in the next one.
                    loneSurrogateMember = kinds.first == true ? objects[0].count : -1
                }
                return decoded
            }
            if c < 0x20 { throw Stop(message: "control character \(Self.describe(c)) in a string; escape it", at: j) }
            if c != UInt8(ascii: "\\") {
                high |= c
                scratch.append(c)
                j += 1
                continue
            }
            guard j + 1 < n else { throw Stop(message: "", at: n) }
            let e = p[j + 1]
            j += 2
            switch e {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): scratch.append(e)
            case UInt8(ascii: "b"): scratch.append(0x08)
            case UInt8(ascii: "f"): scratch.append(0x0C)
            case UInt8(ascii: "n"): scratch.append(0x0A)
            case UInt8(ascii: "r"): scratch.append(0x0D)
            case UInt8(ascii: "t"): scratch.append(0x09)
            case UInt8(ascii: "u"):
                var scalar = try hex4(p, j)
                j += 4
                if scalar >= 0xD800 && scalar <= 0xDBFF {
                    // A high surrogate: a low one must follow to make a pair, else U+FFFD.
                    if j + 1 < n, p[j] == UInt8(ascii: "\\"), p[j + 1] == UInt8(ascii: "u") {
                        let low = try hex4(p, j + 2)
                        if low >= 0xDC00 && low <= 0xDFFF {
                            scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                            j += 6
                        } else {
                            scalar = 0xFFFD
                            stringHasLoneSurrogate = true
                        }
                    } else if j + 1 >= n {
                        throw Stop(message: "", at: n)
                    } else {
                        scalar = 0xFFFD
                        stringHasLoneSurrogate = true
                    }
                } else if scalar >= 0xDC00 && scalar <= 0xDFFF {
                    scalar = 0xFFFD
                    stringHasLoneSurrogate = true
                }
                high |= 0x80
                appendUTF8(scalar)
            default:
                throw Stop(message: "invalid escape '\\\(Self.describe(e))' in a string", at: j - 2)
            }
        }
    }

    private func hex4(_ p: UnsafeBufferPointer<UInt8>, _ j: Int) throws -> UInt32 {
        var v: UInt32 = 0
        for k in 0..<4 {
            guard j + k < p.count else { throw Stop(message: "", at: p.count) }
            let c = p[j + k]
            let d: UInt32
            switch c {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): d = UInt32(c - 0x30)
            case UInt8(ascii: "a")...UInt8(ascii: "f"): d = UInt32(c - 0x61 + 10)
            case UInt8(ascii: "A")...UInt8(ascii: "F"): d = UInt32(c - 0x41 + 10)
            default: throw Stop(message: "invalid \\u escape: four hex digits expected", at: j + k)
            }
            v = v << 4 | d
        }
        return v
    }

    private mutating func appendUTF8(_ v: UInt32) {
        if v < 0x80 {
            scratch.append(UInt8(v))
        } else if v < 0x800 {
            scratch.append(UInt8(0xC0 | (v >> 6)))
            scratch.append(UInt8(0x80 | (v & 0x3F)))
        } else if v < 0x10000 {
            scratch.append(UInt8(0xE0 | (v >> 12)))
            scratch.append(UInt8(0x80 | ((v >> 6) & 0x3F)))
            scratch.append(UInt8(0x80 | (v & 0x3F)))
        } else {
            scratch.append(UInt8(0xF0 | (v >> 18)))
            scratch.append(UInt8(0x80 | ((v >> 12) & 0x3F)))
            scratch.append(UInt8(0x80 | ((v >> 6) & 0x3F)))
            scratch.append(UInt8(0x80 | (v & 0x3F)))
        }
    }

    static func describe(_ c: UInt8) -> String {
        if c >= 0x21 && c < 0x7F { return "'\(Character(Unicode.Scalar(c)))'" }
        return "byte 0x" + String(c, radix: 16, uppercase: true)
    }
}
