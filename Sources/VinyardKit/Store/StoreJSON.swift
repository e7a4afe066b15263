/// The small JSON texts the store keeps (raw records, findings, inputs), written byte by byte so
/// field order is kept and no Foundation encoder runs on the hot path.
enum StoreJSON {
    static func appendString(_ s: String, to out: inout [UInt8]) {
        JSONEscaping.appendQuoted(s, to: &out)
    }

    /// True when `s` is a JSON number literal (so it can be written unquoted).
    static func isNumberLiteral(_ s: String) -> Bool {
        var bytes = s.utf8[...]
        if bytes.first == UInt8(ascii: "-") { bytes = bytes.dropFirst() }
        guard let first = bytes.first, (48...57).contains(first) else { return false }
        if first == 48, bytes.count > 1, let second = bytes.dropFirst().first, (48...57).contains(second) { return false }
        var seenDot = false, seenExp = false, lastWasDigit = true
        for byte in bytes {
            switch byte {
            case 48...57: lastWasDigit = true
            case UInt8(ascii: "."):
                if seenDot || seenExp || !lastWasDigit { return false }
                seenDot = true; lastWasDigit = false
            case UInt8(ascii: "e"), UInt8(ascii: "E"):
                if seenExp || !lastWasDigit { return false }
                seenExp = true; lastWasDigit = false
            case UInt8(ascii: "+"), UInt8(ascii: "-"):
                // Only right after the exponent mark.
                if lastWasDigit || !seenExp { return false }
            default: return false
            }
        }
        return lastWasDigit
    }

    static func appendRaw(_ value: RawValue, to out: inout [UInt8]) {
        // Nested arrays/objects are written with an explicit stack: depth never recurses.
        enum Frame {
            case array(ArraySlice<RawValue>, first: Bool)
            case object(ArraySlice<RawField>, first: Bool)
        }
        var stack: [Frame] = []
        var pending: RawValue? = value
        while true {
            if let current = pending {
                pending = nil
                switch current {
                case .null: out.append(contentsOf: "null".utf8)
                case .bool(let b): out.append(contentsOf: (b ? "true" : "false").utf8)
                case .number(let n):
                    if isNumberLiteral(n) { out.append(contentsOf: n.utf8) } else { appendString(n, to: &out) }
                case .string(let s): appendString(s, to: &out)
                case .array(let items):
                    out.append(UInt8(ascii: "["))
                    stack.append(.array(items[...], first: true))
                case .object(let fields):
                    out.append(UInt8(ascii: "{"))
                    stack.append(.object(RawField.withUniqueNames(fields)[...], first: true))
                }
            }
            guard let top = stack.popLast() else { return }
            switch top {
            case .array(var rest, let first):
                if let next = rest.popFirst() {
                    if !first { out.append(UInt8(ascii: ",")) }
                    stack.append(.array(rest, first: false))
                    pending = next
                } else {
                    out.append(UInt8(ascii: "]"))
                }
            case .object(var rest, let first):
                if let next = rest.popFirst() {
                    if !first { out.append(UInt8(ascii: ",")) }
                    appendString(next.name, to: &out)
                    out.append(UInt8(ascii: ":"))
                    stack.append(.object(rest, first: false))
                    pending = next.value
                } else {
                    out.append(UInt8(ascii: "}"))
                }
            }
        }
    }

    /// `{"name": value, …}` in input order.
    static func fields(_ fields: [RawField]) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(256)
        appendRaw(.object(fields), to: &out)
        return String(decoding: out, as: UTF8.self)
    }

    static func appendFieldValue(_ value: FieldValue?, to out: inout [UInt8]) {
        switch value {
        case nil: out.append(contentsOf: "null".utf8)
        case .text(let s): appendString(s, to: &out)
        case .integer(let i): out.append(contentsOf: String(i).utf8)
        case .real(let d):
            if d.isFinite { out.append(contentsOf: FieldValue.format(d).utf8) } else { out.append(contentsOf: "null".utf8) }
        case .bool(let b): out.append(contentsOf: (b ? "true" : "false").utf8)
        }
    }

    /// `{"field": value, …}` for a schema row, nulls included.
    ///
    /// Written straight into the string's storage, sized by a first pass (an update or a
    /// within-run duplicate writes two of these, ~700 bytes each): through `[UInt8]` appends it
    /// cost ~27k instructions a call, a fifth of an update (callgrind), against ~21k here (most
    /// of the rest is the escaping scan and the string's UTF-8 validation).
    /// StoreJSONTests checks it against a plain appending writer.
    static func values(_ values: [FieldValue?], names: [String]) -> String {
        // Reals and integers as text first (small strings, no allocation); a bound on the size:
        // every byte of a name or text escaped as `\u00XX` at worst.
        var numbers: [String?] = []
        var bound = 2
        values.withUnsafeBufferPointer { values in
            for (i, name) in names.enumerated() {
                bound += name.utf8.count * 6 + 4
                switch i < values.count ? values[i] : nil {
                case nil: bound += 4
                case .text(let t)?: bound += t.utf8.count * 6 + 2
                case .integer(let n)?:
                    if numbers.isEmpty { numbers = Array(repeating: nil, count: names.count) }
                    numbers[i] = String(n)
                    bound += 20
                case .real(let d)?:
                    if numbers.isEmpty { numbers = Array(repeating: nil, count: names.count) }
                    let text = d.isFinite ? FieldValue.format(d) : "null"
                    numbers[i] = text
                    bound += text.utf8.count
                case .bool?: bound += 5
                }
            }
        }
        return String(unsafeUninitializedCapacity: bound) { buffer in
            var w = JSONByteWriter(buffer.baseAddress!)
            w.appendByte(UInt8(ascii: "{"))
            values.withUnsafeBufferPointer { values in
                for (i, name) in names.enumerated() {
                    if i > 0 { w.appendByte(UInt8(ascii: ",")) }
                    name.withUTF8Bytes { w.quoted($0) }
                    w.appendByte(UInt8(ascii: ":"))
                    switch i < values.count ? values[i] : nil {
                    case nil: w.literal("null")
                    case .text(let t)?: t.withUTF8Bytes { w.quoted($0) }
                    case .integer?, .real?: numbers[i]!.withUTF8Bytes { w.appendRun($0) }
                    case .bool(let b)?: w.literal(b ? "true" : "false")
                    }
                }
            }
            w.appendByte(UInt8(ascii: "}"))
            return w.count
        }
    }

    /// `[{"code":…, "severity":…, "field":…, "message":…, "suggestion":…, "input":…, "line":…}, …]`,
    /// plus `"element":…` for a record of a JSON array.
    static func findings(_ findings: [Finding]) -> String {
        var out: [UInt8] = [UInt8(ascii: "[")]
        for (i, f) in findings.enumerated() {
            if i > 0 { out.append(UInt8(ascii: ",")) }
            out.append(contentsOf: "{\"code\":".utf8)
            appendString(f.code.rawValue, to: &out)
            out.append(contentsOf: ",\"severity\":".utf8)
            appendString(f.severity.rawValue, to: &out)
            out.append(contentsOf: ",\"field\":".utf8)
            appendFieldValue(f.field.map(FieldValue.text), to: &out)
            out.append(contentsOf: ",\"message\":".utf8)
            appendString(f.message, to: &out)
            out.append(contentsOf: ",\"suggestion\":".utf8)
            appendFieldValue(f.suggestion.map(FieldValue.text), to: &out)
            out.append(contentsOf: ",\"input\":".utf8)
            appendFieldValue(f.input.map(FieldValue.text), to: &out)
            out.append(contentsOf: ",\"line\":".utf8)
            appendFieldValue(f.line.map { FieldValue.integer(Int64($0)) }, to: &out)
            if let element = f.element {
                out.append(contentsOf: ",\"element\":".utf8)
                appendFieldValue(.integer(Int64(element)), to: &out)
            }
            out.append(UInt8(ascii: "}"))
        }
        out.append(UInt8(ascii: "]"))
        return String(decoding: out, as: UTF8.self)
    }
}

/// Writes JSON bytes into storage sized beforehand (see ``StoreJSON/values(_:names:)``): no
/// capacity or uniqueness checks per byte.
struct JSONByteWriter: JSONBytesOutput {
    private let base: UnsafeMutablePointer<UInt8>
    private(set) var count = 0

    init(_ base: UnsafeMutablePointer<UInt8>) { self.base = base }

    @inline(__always)
    mutating func appendByte(_ b: UInt8) {
        base[count] = b
        count += 1
    }

    @inline(__always)
    mutating func appendRun(_ bytes: UnsafeBufferPointer<UInt8>) {
        guard let source = bytes.baseAddress, !bytes.isEmpty else { return }
        (base + count).update(from: source, count: bytes.count)
        count += bytes.count
    }

    mutating func literal(_ s: StaticString) {
        appendRun(UnsafeBufferPointer(start: s.utf8Start, count: s.utf8CodeUnitCount))
    }

    /// `u` as a quoted JSON string (``JSONEscaping``).
    mutating func quoted(_ u: UnsafeBufferPointer<UInt8>) { JSONEscaping.appendQuoted(u, to: &self) }
}
