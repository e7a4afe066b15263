/// Which character separates decimals in text numbers (JSON numbers always use `.`).
public enum DecimalSeparator: String, Sendable, Hashable, CaseIterable {
    /// `12.5` and `12,5` are decimals, `1,234.5` and `1.234,5` are understood, and a lone comma or
    /// dot followed by exactly three digits (`1,234`, `18.990`) is ambiguous and rejected.
    case auto
    /// `.` is the decimal point; `,` groups thousands (`1,234` = 1234).
    case point
    /// `,` is the decimal separator; `.` groups thousands (`1.234` = 1234) — a European export.
    case comma
}

/// Strict, byte-level parsing of text values into typed values. Nothing is guessed: a value that
/// does not parse is reported, never silently changed.
public enum ValueParser {
    /// Why a number did not parse.
    public enum NumberFailure: Error, Sendable, Hashable {
        /// Not a number at all.
        case invalid
        /// `1,234` with `DecimalSeparator.auto`: thousands or a decimal comma?
        case ambiguous
        /// A fraction where a whole number is required.
        case notWhole
        /// Outside the 64-bit integer range.
        case tooLarge
    }

    // MARK: Text

    @inline(__always) static func isSpace(_ b: UInt8) -> Bool {
        b == 0x20 || b == 0x09 || b == 0x0A || b == 0x0D || b == 0x0B || b == 0x0C
    }

    /// The text without leading and trailing ASCII white space and no-break spaces; returns the
    /// same string (no copy) when there is nothing to trim.
    public static func trimmed(_ s: String) -> String {
        // Contiguous UTF-8 is read in place (no copy of the string, no retain), where
        // `utf8.first`/`last` walk indices.
        func ends(_ b: UnsafeBufferPointer<UInt8>) -> (UInt8, UInt8)? { b.isEmpty ? nil : (b[0], b[b.count - 1]) }
        guard let (first, last) = s.withUTF8Bytes(ends) else { return s }
        if !isSpace(first), !isSpace(last), first != 0xC2, last != 0xA0 { return s }
        return String(s.trimmingSpaces())
    }

    /// A VIN as written, normalized: trimmed, upper-case, spaces, dashes and dots removed. It is
    /// not validated here (see the VIN engine).
    public static func normalizeVIN(_ s: String) -> String {
        // Most VINs are already clean: scan contiguous UTF-8 in place (a walk of `s.utf8` by
        // index cost ~600 instructions a VIN, measured with callgrind).
        func isClean(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
            for b in bytes where !((b >= 0x30 && b <= 0x39) || (b >= 0x41 && b <= 0x5A)) { return false }
            return true
        }
        if s.withUTF8Bytes(isClean) { return s }
        // ASCII (lower case, spaces, dashes): a byte loop, as the VIN engine's own (a scalar walk
        // cost a third more on a file of lower-case VINs).
        let ascii: String? = s.withUTF8Bytes { bytes -> String? in
            guard bytes.allSatisfy({ $0 < 0x80 }) else { return nil }
            return String(unsafeUninitializedCapacity: bytes.count) { out in
                var n = 0
                for b in bytes {
                    switch b {
                    case 0x09...0x0D, 0x20, 0x2D, 0x2E, 0x5F: continue  // white space, - . _
                    case 0x61...0x7A: out[n] = b - 0x20
                    default: out[n] = b
                    }
                    n += 1
                }
                return n
            }
        }
        if let ascii { return ascii }
        // Dots and underscores go here; white space, dashes of every kind and invisible
        // characters go as the VIN engine drops them, so that it checks exactly what is stored
        // (a VIN with an en dash, Excel's autocorrected hyphen, was checked without it and stored
        // with it: a second key for one vehicle). Non-ASCII letters (a Windows-1252 export, a
        // full-width digit) are upper-cased too; the VIN engine reports them as `vin.characters`.
        var kept = String.UnicodeScalarView()
        for scalar in s.unicodeScalars where scalar != "." && scalar != "_" { kept.append(scalar) }
        return VINEngine.normalize(String(kept))
    }

    // MARK: Booleans

    /// `true/false/yes/no/y/n/1/0/t/f/on/off/ja/nein`, any case, and what German, French and Dutch
    /// spreadsheets write (`WAHR`/`FALSCH`, `vrai`/`faux`, `oui`/`non`, `nee`); nil otherwise.
    public static func parseBool(_ s: String) -> Bool? {
        guard s.utf8.count <= 6 else { return nil }
        switch s.lowercased() {
        case "true", "yes", "y", "1", "t", "on", "ja", "j", "wahr", "vrai", "oui": return true
        case "false", "no", "n", "0", "f", "off", "nein", "falsch", "faux", "non", "nee": return false
        default: return nil
        }
    }

    // MARK: Numbers

    /// True for a nonzero number written below a double's range (`1e-400`), which parses as 0:
    /// a nonzero digit in the text before its exponent.
    static func underflowed(_ value: Double, _ text: String) -> Bool {
        guard value == 0 else { return false }
        return text.prefix { $0 != "e" && $0 != "E" }.contains { ("1"..."9").contains($0) }
    }

    /// Parses a decimal number written as text: optional sign, digits, one decimal separator,
    /// thousands groups of three (`1,234,567`, `1.234.567`, `1 234 567`, `1'234'567`), an exponent
    /// (without groups). Not `NaN`, not `inf`, not hex.
    public static func parseNumber(
        _ s: String, decimal: DecimalSeparator = .auto
    ) -> Result<Double, NumberFailure> {
        if let exact = s.utf8.withContiguousStorageIfAvailable({ exactDecimal($0, decimal: decimal) }) ?? nil {
            return .success(exact)
        }
        if let fast = simpleDecimal(s, decimal: decimal) {
            guard let d = Double(fast), d.isFinite else { return .failure(.invalid) }
            return .success(d == 0 ? 0 : d)
        }
        switch clean(s, decimal: decimal) {
        case .failure(let f): return .failure(f)
        case .success(let c):
            guard let d = Double(c.text), d.isFinite else { return .failure(.invalid) }
            return .success(d == 0 ? 0 : d)  // no negative zero
        }
    }

    /// Parses a whole number: like ``parseNumber(_:decimal:)``, and a fraction of zeros (`5.0`) is
    /// accepted; any other fraction is ``NumberFailure/notWhole``.
    public static func parseInteger(
        _ s: String, decimal: DecimalSeparator = .auto
    ) -> Result<Int64, NumberFailure> {
        // Fast paths: plain digits with an optional sign.
        if let i = s.utf8.withContiguousStorageIfAvailable({ plainInteger($0) }) ?? nil { return .success(i) }
        if let i = Int64(s) { return .success(i) }
        // `150.000` where a whole number is expected: 150 written with three decimals, or 150,000
        // with a dot grouping thousands (a German mileage)? Asked, not guessed.
        if decimal == .auto, isDotThousandsLike(s) { return .failure(.ambiguous) }
        // `45,210` or `45.210` where a whole number is expected: as a decimal it is 45.21, not
        // whole, so the one whole reading is 45,210 grouped (either separator). Only a group of
        // zeros (`1,000`, `150.000`) leaves two whole readings, and stays asked.
        if decimal == .auto, let grouped = singleGroupInteger(s) { return .success(grouped) }
        switch clean(s, decimal: decimal) {
        case .failure(let f): return .failure(f)
        case .success(let c):
            if c.hasExponent {
                guard let d = Double(c.text), d.isFinite else { return .failure(.invalid) }
                guard d == d.rounded() else { return .failure(.notWhole) }
                guard abs(d) < 9.2e18 else { return .failure(.tooLarge) }
                return .success(Int64(d))
            }
            var intPart = Substring(c.text)
            if let dot = c.text.firstIndex(of: ".") {
                let fraction = c.text[c.text.index(after: dot)...]
                guard fraction.utf8.allSatisfy({ $0 == 0x30 }) else { return .failure(.notWhole) }
                intPart = c.text[..<dot]
            }
            guard let i = Int64(intPart) else { return .failure(.tooLarge) }
            return .success(i)
        }
    }

    /// `[+-]d{1,3}[,.]ddd` with a group that is not `000` and digits not led by `0`: the number the
    /// digits make together.
    static func singleGroupInteger(_ s: String) -> Int64? {
        var b = Array(s.utf8)[...]
        var negative = false
        if let first = b.first, first == 0x2B || first == 0x2D {
            negative = first == 0x2D
            b = b.dropFirst()
        }
        guard let sep = b.firstIndex(where: { $0 == 0x2C || $0 == 0x2E }) else { return nil }
        let digits = b[..<sep], group = b[(sep + 1)...]
        let isDigit: (UInt8) -> Bool = { $0 >= 0x30 && $0 <= 0x39 }
        // `0.500` is half, not 500: a thousands group never follows a lone leading zero.
        guard (1...3).contains(digits.count), digits.first != 0x30, digits.allSatisfy(isDigit), group.count == 3,
            group.allSatisfy(isDigit), !group.elementsEqual("000".utf8)
        else { return nil }
        let value = (digits + group).reduce(Int64(0)) { $0 * 10 + Int64($1 - 0x30) }
        return negative ? -value : value
    }

    /// `[+-]d{1,3}.000`: a whole number with three zero decimals, or thousands grouped by a dot.
    static func isDotThousandsLike(_ s: String) -> Bool {
        var b = Array(s.utf8)[...]
        if let first = b.first, first == 0x2B || first == 0x2D { b = b.dropFirst() }
        guard let dot = b.firstIndex(of: 0x2E) else { return false }
        let digits = b[..<dot], fraction = b[(dot + 1)...]
        // `0.000` is zero either way: no group follows a lone leading zero.
        return (1...3).contains(digits.count) && digits.first != 0x30 && digits.allSatisfy { $0 >= 0x30 && $0 <= 0x39 }
            && fraction.elementsEqual("000".utf8)
    }

    /// Exact powers of ten up to 10^22 (all exactly representable as `Double`).
    private static let powersOfTen: [Double] = [
        1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19,
        1e20, 1e21, 1e22,
    ]

    /// `[+-]digits[(.|,)digits]` where the separator is certainly the decimal one (the rules of
    /// ``simpleDecimal(_:decimal:)``), parsed from bytes when the result is exact: at most 2^53
    /// as an integer mantissa and at most 22 fraction digits, so one correctly rounded division
    /// gives the same `Double` as `strtod` (Clinger's fast path). Nil: take the general path.
    static func exactDecimal(_ b: UnsafeBufferPointer<UInt8>, decimal: DecimalSeparator) -> Double? {
        let n = b.count
        guard n > 0, n <= 32 else { return nil }
        var i = 0
        let negative = b[0] == 0x2D
        if negative || b[0] == 0x2B { i = 1 }
        let digitsStart = i
        var sepAt = -1
        var mantissa: UInt64 = 0
        var digitCount = 0
        while i < n {
            let c = b[i]
            if c >= 0x30 && c <= 0x39 {
                // Leading zeros do not count towards the 19 digits a UInt64 holds.
                if mantissa != 0 || c != 0x30 {
                    digitCount += 1
                    guard digitCount <= 19 else { return nil }
                    mantissa = mantissa &* 10 &+ UInt64(c &- 0x30)
                }
                i += 1
                continue
            }
            guard sepAt < 0, c == 0x2E || c == 0x2C else { return nil }
            sepAt = i
            i += 1
        }
        var fractionDigits = 0
        if sepAt < 0 {
            guard n > digitsStart else { return nil }
        } else {
            let before = sepAt - digitsStart
            let after = n - sepAt - 1
            guard before >= 1, after >= 1 else { return nil }
            let maybeGroup = after == 3 && before <= 3 && b[digitsStart] != 0x30
            if b[sepAt] == 0x2E {
                if decimal != .point && maybeGroup { return nil }
            } else if decimal == .point || maybeGroup {
                return nil
            }
            fractionDigits = after
        }
        guard mantissa <= 1 << 53, fractionDigits <= 22 else { return nil }
        if mantissa == 0 { return 0 }  // no negative zero
        let d = Double(mantissa) / powersOfTen[fractionDigits]
        return negative ? -d : d
    }

    /// `[+-]digits` as `Int64(_:)` reads it; nil for anything else or on overflow (the general
    /// path decides then).
    static func plainInteger(_ b: UnsafeBufferPointer<UInt8>) -> Int64? {
        let n = b.count
        guard n > 0, n <= 18 else { return nil }  // at most 18 digits: below 10^18, no overflow
        var i = 0
        let negative = b[0] == 0x2D
        if negative || b[0] == 0x2B { i = 1 }
        guard i < n else { return nil }
        var v: Int64 = 0
        while i < n {
            let c = b[i] &- 0x30
            guard c <= 9 else { return nil }
            v = v &* 10 &+ Int64(c)
            i += 1
        }
        return negative ? -v : v
    }

    /// The common case without allocation: `[-]digits[(.|,)digits]` where the separator is
    /// certainly the decimal one; returns the text with `.` as the decimal point, or nil to take
    /// the general path.
    static func simpleDecimal(_ s: String, decimal: DecimalSeparator) -> String? {
        let result: String?? = s.utf8.withContiguousStorageIfAvailable { b -> String? in
            let n = b.count
            guard n > 0, n <= 32 else { return nil }
            var i = 0
            if b[0] == 0x2D || b[0] == 0x2B { i = 1 }
            let digitsStart = i
            var sepAt = -1
            while i < n {
                let c = b[i]
                if c >= 0x30 && c <= 0x39 {
                    i += 1
                    continue
                }
                guard sepAt < 0, c == 0x2E || c == 0x2C else { return nil }
                sepAt = i
                i += 1
            }
            if sepAt < 0 {
                guard n > digitsStart else { return nil }
                return s
            }
            let before = sepAt - digitsStart
            let after = n - sepAt - 1
            guard before >= 1, after >= 1 else { return nil }
            let maybeGroup = after == 3 && before <= 3 && b[digitsStart] != 0x30
            if b[sepAt] == 0x2E {
                if decimal != .point && maybeGroup { return nil }
                return s
            }
            // A comma: a decimal comma unless it could be a thousands separator.
            if decimal == .point || maybeGroup { return nil }
            return String(unsafeUninitializedCapacity: n) { out in
                for j in 0..<n { out[j] = j == sepAt ? 0x2E : b[j] }
                return n
            }
        }
        return result ?? nil
    }

    /// `b` with each no-break or thin space (U+00A0, U+202F, U+2009) as one ASCII space.
    static func noBreakSpacesAsSpaces(_ b: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(b.count)
        var i = 0
        while i < b.count {
            if b[i] == 0xC2, i + 1 < b.count, b[i + 1] == 0xA0 {
                out.append(0x20)
                i += 2
            } else if b[i] == 0xE2, i + 2 < b.count, b[i + 1] == 0x80, b[i + 2] == 0xAF || b[i + 2] == 0x89 {
                out.append(0x20)
                i += 3
            } else {
                out.append(b[i])
                i += 1
            }
        }
        return out
    }

    struct CleanNumber {
        var text: String
        var hasExponent: Bool
    }

    /// Turns a text number into the plain `[-]digits[.digits][e[-]digits]` form.
    static func clean(_ s: String, decimal: DecimalSeparator) -> Result<CleanNumber, NumberFailure> {
        var b = Array(s.utf8)
        // The no-break spaces French and other locales group thousands with (`12 345` with
        // U+00A0, U+202F or a thin space U+2009) group like a space; they were "not a number".
        if b.contains(where: { $0 >= 0x80 }) { b = Self.noBreakSpacesAsSpaces(b) }
        var i = 0
        var negative = false
        if i < b.count, b[i] == 0x2B || b[i] == 0x2D {
            negative = b[i] == 0x2D
            i += 1
        }
        // The mantissa: digits and separators; then an optional exponent.
        let mantissaStart = i
        var dots: [Int] = []
        var commas: [Int] = []
        var others: [Int] = []  // space, apostrophe, underscore: grouping only
        var digits = 0
        while i < b.count {
            let c = b[i]
            if c >= 0x30 && c <= 0x39 {
                digits += 1
            } else if c == 0x2E {
                dots.append(i)
            } else if c == 0x2C {
                commas.append(i)
            } else if c == 0x20 || c == 0x27 || c == 0x5F {
                others.append(i)
            } else {
                break
            }
            i += 1
        }
        let mantissaEnd = i
        guard digits > 0 else { return .failure(.invalid) }
        var exponent = ""
        if i < b.count {
            guard b[i] == 0x65 || b[i] == 0x45, commas.isEmpty, others.isEmpty else { return .failure(.invalid) }
            i += 1
            var exp = "e"
            if i < b.count, b[i] == 0x2B || b[i] == 0x2D {
                if b[i] == 0x2D { exp += "-" }
                i += 1
            }
            let start = i
            while i < b.count, b[i] >= 0x30 && b[i] <= 0x39 {
                exp.unicodeScalars.append(Unicode.Scalar(b[i]))
                i += 1
            }
            guard i == b.count, i > start else { return .failure(.invalid) }
            exponent = exp
        }

        // Decide which separator is the decimal one.
        var decimalAt: Int?
        var grouping: UInt8?
        if !dots.isEmpty && !commas.isEmpty {
            let lastDot = dots[dots.count - 1]
            let lastComma = commas[commas.count - 1]
            if lastDot > lastComma {
                guard dots.count == 1 else { return .failure(.invalid) }
                decimalAt = lastDot
                grouping = 0x2C
            } else {
                guard commas.count == 1 else { return .failure(.invalid) }
                decimalAt = lastComma
                grouping = 0x2E
            }
        } else if dots.count == 1 {
            // `18.990`: 18990 with a dot grouping thousands (a European export), or 18.99 with
            // three decimals? Under `.auto` that is asked, as `1,234` is.
            let group = exponent.isEmpty && others.isEmpty && isGroup(b, at: dots[0], start: mantissaStart, end: mantissaEnd)
            switch decimal {
            case .comma where group: grouping = 0x2E
            case .auto where group: return .failure(.ambiguous)
            default: decimalAt = dots[0]
            }
        } else if dots.count > 1 {
            grouping = 0x2E
        } else if commas.count == 1 {
            switch decimal {
            case .point: grouping = 0x2C
            case .comma: decimalAt = commas[0]
            case .auto:
                if isGroup(b, at: commas[0], start: mantissaStart, end: mantissaEnd), others.isEmpty {
                    return .failure(.ambiguous)
                }
                decimalAt = commas[0]
            }
        } else if commas.count > 1 {
            grouping = 0x2C
        }
        if !others.isEmpty {
            guard grouping == nil else { return .failure(.invalid) }  // one grouping character only
            let kind = b[others[0]]
            guard others.allSatisfy({ b[$0] == kind }) else { return .failure(.invalid) }
            grouping = kind
        }
        if !exponent.isEmpty, grouping != nil { return .failure(.invalid) }

        // Validate the groups of the integer part and build the clean text.
        let intEnd = decimalAt ?? mantissaEnd
        var out = negative ? "-" : ""
        out.reserveCapacity(mantissaEnd - mantissaStart + 2)
        var groupLength = 0
        var groupCount = 0
        for j in mantissaStart..<intEnd {
            let c = b[j]
            if c >= 0x30 && c <= 0x39 {
                groupLength += 1
                out.unicodeScalars.append(Unicode.Scalar(c))
            } else if let g = grouping, c == g {
                if groupCount == 0 {
                    guard groupLength >= 1 && groupLength <= 3 else { return .failure(.invalid) }
                } else {
                    guard groupLength == 3 else { return .failure(.invalid) }
                }
                groupCount += 1
                groupLength = 0
            } else {
                return .failure(.invalid)
            }
        }
        if groupCount > 0, groupLength != 3 { return .failure(.invalid) }
        if groupCount == 0, groupLength == 0 {
            // `.5` is fine, `-.5` too.
            out += "0"
        }
        if let d = decimalAt {
            var fraction = ""
            for j in (d + 1)..<mantissaEnd {
                let c = b[j]
                guard c >= 0x30 && c <= 0x39 else { return .failure(.invalid) }
                fraction.unicodeScalars.append(Unicode.Scalar(c))
            }
            if !fraction.isEmpty { out += "." + fraction }
        }
        out += exponent
        return .success(CleanNumber(text: out, hasExponent: !exponent.isEmpty))
    }

    /// True when the separator at `at` is followed by exactly three digits to the end of the
    /// mantissa and preceded by one to three digits: it could be a thousands separator.
    /// True when the separator at `at` may group thousands: 1-3 digits before it (not a lone
    /// `0`: `0,125` and `0.125` are decimals) and exactly 3 after.
    private static func isGroup(_ b: [UInt8], at: Int, start: Int, end: Int) -> Bool {
        guard end - at - 1 == 3, (1...3).contains(at - start), b[start] != 0x30 else { return false }
        for j in start..<end where j != at {
            guard b[j] >= 0x30 && b[j] <= 0x39 else { return false }
        }
        return true
    }
}

extension String {
    fileprivate func trimmingSpaces() -> Substring {
        var s = Substring(self)
        while let c = s.first, c.isWhitespace { s = s.dropFirst() }
        while let c = s.last, c.isWhitespace { s = s.dropLast() }
        return s
    }
}
