import Foundation

/// Types and normalizes one schema field's raw values: trims, parses by the schema type (never
/// guessed), applies case folding, synonyms, enums, ranges and patterns. Findings carry the field
/// and a message that says what to do; input and line are added by the ``Mapper``.
final class FieldTyper {
    let field: Field
    let index: Int
    private let synonyms: SynonymTable?
    /// Folded enum spelling → canonical enum value.
    private let enumValues: [String: String]?
    private let minimum: Double?
    private let maximum: Double?
    private let pattern: NSRegularExpression?
    private let decimal: DecimalSeparator
    /// Cache of string results for enum/synonym/pattern fields (values repeat a lot), bounded.
    private let cache: TypedValueCache?
    private let folding: Folding

    /// The field's case folding, decided once from its format.
    private enum Folding { case none, vin, upper, lower }

    init(field: Field, index: Int, catalog: SchemaCatalog, decimal: DecimalSeparator, referenceYear: Int) throws {
        self.field = field
        self.index = index
        self.decimal = decimal
        switch field.format {
        case "vin": folding = .vin
        case "uppercase": folding = .upper
        case "lowercase": folding = .lower
        default: folding = .none
        }
        if let name = field.synonyms {
            guard let table = catalog.synonyms[name] else {
                throw VinyardError(.usage, "field '\(field.name)' names unknown synonym table '\(name)'")
            }
            synonyms = table
        } else {
            synonyms = nil
        }
        if let values = field.constraints?.enum {
            var map: [String: String] = [:]
            for v in values { map[Schema.fold(v)] = v }
            enumValues = map
        } else {
            enumValues = nil
        }
        minimum = field.constraints?.minimum
        var max = field.constraints?.maximum
        if let offset = field.constraints?.maximumYearOffset {
            let yearMax = Double(referenceYear + offset)
            max = max.map { Swift.min($0, yearMax) } ?? yearMax
        }
        maximum = max
        if let p = field.constraints?.pattern {
            do {
                pattern = try NSRegularExpression(pattern: "^(?:\(p))$")
            } catch {
                throw VinyardError(.usage, "field '\(field.name)': pattern '\(p)' is not a valid regular expression")
            }
        } else {
            pattern = nil
        }
        cache = synonyms == nil && enumValues == nil && pattern == nil ? nil : TypedValueCache()
    }

    /// True for values that count as absent: null, blank text, an empty array (also written as
    /// text, `[]`), and the texts exports write for a missing value (`NULL`, `N/A`, `NA`, `#N/A`,
    /// `None`, `nil`, `-`, `--`, any case, trimmed).
    @inline(__always)  // In the mapper's loop: out of line, it cost a copy (retain) of every value.
    static func isEmpty(_ raw: RawValue) -> Bool {
        switch raw {
        case .null: return true
        case .string(let s):
            // Most values start with a printable ASCII byte, which trimming keeps: not empty
            // unless it may start a missing-value marker.
            guard let first = s.utf8.first else { return true }
            if first < 0x80 && !ValueParser.isSpace(first) {
                switch first {
                case UInt8(ascii: "n"), UInt8(ascii: "N"), UInt8(ascii: "-"), UInt8(ascii: "#"):
                    return s.utf8.count <= 6 && isMissingMarker(s)
                case UInt8(ascii: "["):
                    // `[]` as text (a JSON list in a CSV cell) is empty, as the JSON value `[]` is.
                    return s.utf8.count <= 8 && isEmptyListText(s)
                default: return false
                }
            }
            if s.utf8.allSatisfy(ValueParser.isSpace) { return true }
            let trimmed = ValueParser.trimmed(s)
            return trimmed.isEmpty || isMissingMarker(trimmed)
        case .array(let a): return a.isEmpty
        case .object(let o): return o.isEmpty
        case .bool, .number: return false
        }
    }

    /// `[]`, `[ ]`: an empty JSON list written as text.
    static func isEmptyListText(_ s: String) -> Bool {
        let list = ValueParser.trimmed(s).utf8
        guard list.count >= 2, list.first == UInt8(ascii: "["), list.last == UInt8(ascii: "]") else { return false }
        return list.dropFirst().dropLast().allSatisfy(ValueParser.isSpace)
    }

    /// The markers of a missing value, lower-cased.
    private static let missingMarkers: Set<String> = ["null", "n/a", "na", "#n/a", "none", "nil", "-", "--"]

    static func isMissingMarker(_ s: String) -> Bool {
        let t = ValueParser.trimmed(s)
        return t.utf8.count <= 4 && missingMarkers.contains(t.lowercased())
    }

    /// Types a non-empty raw value.
    /// - Parameters:
    ///   - unitFactor: multiply numbers by this (a source unit converted to the field's unit).
    ///   - datePattern: the source's date pattern.
    ///   - asJSON: store the value as JSON text whatever it is.
    func type(
        _ raw: RawValue, unitFactor: Double? = nil, datePattern: DatePattern? = nil, asJSON: Bool = false,
        formulaGuard: Bool = false, ascii: Bool = false
    ) -> TypedValue {
        if asJSON { return .success(.text(JSONText.encode(raw))) }
        // A CSV cell's formula guard goes before the value is typed, looked up or cached (only in
        // a row whose reader saw a `'` starting a value), whatever the field's type: a rejects
        // file guards `-5 km` as `'-5 km`, which read again must give the same reason. A JSON
        // string's `'` is the value's own.
        var raw = formulaGuard ? Self.unguarded(raw) : raw
        // A spreadsheet's text prefix (`'WBAY5XR10GY000002`, `'2016`, as ERP exports write cells
        // for Excel): no VIN, number, date or yes/no value has a `'` of its own. Text keeps it.
        if formulaGuard, field.type != .string || folding == .vin, field.type != .array { raw = Self.withoutTextPrefix(raw) }
        switch field.type {
        case .array:
            return .success(.text(Self.composed(arrayText(raw))))
        case .string:
            // A JSON `true`/`false` is no text (`"plate": true` was stored as `TRUE`, `"make":
            // false` as `false`), as it is no number in a number field.
            if case .bool(let b) = raw {
                return .failure(
                    finding(.fieldType, b ? "true" : "false", "is a JSON true/false where text is expected; write the text as a string"))
            }
            guard let text = scalarText(raw) else { return .failure(notScalar(raw)) }
            return string(text, ascii: ascii)
        case .integer:
            return integer(raw, unitFactor: unitFactor)
        case .number:
            return number(raw, unitFactor: unitFactor)
        case .boolean:
            if case .bool(let b) = raw { return .success(.bool(b)) }
            guard let text = scalarText(raw) else { return .failure(notScalar(raw)) }
            if let b = ValueParser.parseBool(text) { return .success(.bool(b)) }
            return .failure(
                finding(.fieldType, text, "is not a yes/no value; write true or false (yes/no, 1/0 work too)"))
        case .date, .dateOrYearMonth, .yearmonth, .datetime:
            // A JSON number of 9 to 14 digits in a date or date-time field is a Unix time (an
            // API's `lastSyncDate: 1700000000000`): seconds or milliseconds, read as UTC; a date
            // field takes its day (a year, `2019`, or `20190630` is read as text is, and so is a
            // compact date-time such as `201906301200`, which is no time in 1976).
            if case .number(let n) = raw, !ValueParser.isCompactDateTime(n), let iso = ValueParser.unixTimestamp(n) {
                if let f = yearRangeFinding(iso, n) { return .failure(f) }
                return .success(.text(dateFieldValue(iso)))
            }
            guard let text = scalarText(raw) else { return .failure(notScalar(raw)) }
            // OData v2 and old .NET JSON: `/Date(1561852800000)/`, `/Date(1561852800000+0200)/`.
            if text.utf8.first == UInt8(ascii: "/") || text.utf8.first == UInt8(ascii: " "), let iso = ValueParser.dotNetDate(text) {
                if let f = yearRangeFinding(iso, text) { return .failure(f) }
                return .success(.text(dateFieldValue(iso)))
            }
            return date(text, pattern: datePattern)
        }
    }

    /// True when a CSV cell's bytes start with the `'` that a CSV export (ours, or a spreadsheet's) puts
    /// before a cell starting with `=`, `+`, `-`, `@`, tab or CR so that spreadsheets do not run it
    /// as a formula (typing drops it: `export` then `import` stored `'-5C at night` for `-5C at
    /// night`). A `'` before anything else is the value's own. `export` guards a text whose `'`s
    /// stand before such a character with one more (`''=x` for `'=x`), and one `'` is taken off
    /// whenever `'`s stand before one, so every such text loads back as it was.
    @inline(__always)
    static func isGuarded(_ b: UnsafeBufferPointer<UInt8>) -> Bool {
        b.first == UInt8(ascii: "'") && CSVWriter.needsGuard(count: b.count) { b[$0] }
    }

    /// A CSV cell's value without its formula guard (``isGuarded(_:)``); any other value as it is.
    /// - Parameter trimming: the guard may follow white space (` '=x`), which is then trimmed
    ///   too (typing trims a value anyway); else it must be the first character.
    @inline(__always)
    static func unguarded(_ raw: RawValue, trimming: Bool = true) -> RawValue {
        guard case .string(var text) = raw, let first = text.utf8.first else { return raw }
        if trimming, first != UInt8(ascii: "'"), ValueParser.isSpace(first) || first == 0xC2 { text = ValueParser.trimmed(text) }
        guard text.utf8.first == UInt8(ascii: "'"), text.withUTF8Bytes(isGuarded) else { return raw }
        return .string(String(text.dropFirst()))
    }

    /// A CSV cell's value without a spreadsheet's text prefix, one `'` before the value
    /// (`'2016`); any other value as it is.
    static func withoutTextPrefix(_ raw: RawValue) -> RawValue {
        guard case .string(let s) = raw, s.utf8.contains(UInt8(ascii: "'")) else { return raw }
        let text = ValueParser.trimmed(s)
        guard text.utf8.first == UInt8(ascii: "'"), text.utf8.count > 1, text.utf8.dropFirst().first != UInt8(ascii: "'")
        else { return raw }
        return .string(String(text.dropFirst()))
    }

    // MARK: Kinds

    /// - Parameter ascii: the reader saw only ASCII: no character for NFC to compose (nothing is
    ///   scanned for the usual CSV row; a scan of each value cost ~500 instructions a row).
    private func string(_ text: String, ascii: Bool) -> TypedValue {
        guard let cache else { return .success(.text(caseFolded(ascii ? text : Self.composed(text)))) }
        let slot = cache.slot(for: text)
        if let cached = cache.value(at: slot, for: text) { return cached }
        var result: TypedValue
        var value = caseFolded(ascii ? text : Self.composed(text))
        if let synonyms, let canonical = synonyms.canonical(value) { value = canonical }
        if let enumValues {
            if let canonical = enumValues[Schema.fold(value)] {
                result = .success(.text(canonical))
            } else {
                let known = (field.constraints?.enum ?? []).joined(separator: ", ")
                let hint = field.synonyms.map { " or add the spelling to Schemas/synonyms.json (\($0))" } ?? ""
                result = .failure(finding(.fieldEnum, text, "is not a known value; use one of \(known)\(hint)"))
            }
        } else {
            result = .success(.text(value))
        }
        if case .success(.text(let v)) = result, let pattern,
            pattern.firstMatch(in: v, range: NSRange(v.startIndex..., in: v)) == nil
        {
            result = .failure(finding(.fieldType, text, "does not match the pattern \(pattern.pattern); fix the value"))
        }
        cache.store(result, for: text, at: slot)
        return result
    }

    /// The text in Unicode normalization form C: `Zu\u{308}rich` (a decomposed ü, as macOS file
    /// names and some exports write it) is stored as `Z\u{FC}rich`. The two are the same text, and
    /// Swift's `==` says so, but their bytes differ: `import` swapped a row's stored bytes without a
    /// `key.conflict` while `validate`, comparing bytes, reported one (found by audit). ASCII text,
    /// nearly all of a fleet file, is returned after a byte scan; so is text whose characters are
    /// all below U+0300 (Latin-1, Latin Extended: `Citroën`, `Straße`), which is in NFC already:
    /// the first character NFC can change is U+0300, whose UTF-8 starts with byte 0xCC, and every
    /// byte of a smaller character is below it. Foundation's normalization cost ~6 µs a value.
    static func composed(_ text: String) -> String {
        guard text.withUTF8Bytes({ $0.contains { $0 >= 0xCC } }) else { return text }
        return text.composedLinearly
    }

    private func caseFolded(_ text: String) -> String {
        switch folding {
        case .vin: ValueParser.normalizeVIN(text)
        case .upper:
            // Contiguous UTF-8 scanned in place (`utf8.contains` walked indices: ~300 instructions a row).
            text.withUTF8Bytes { $0.contains(where: { $0 >= 0x61 && $0 <= 0x7A || $0 >= 0x80 }) } ? text.uppercased() : text
        case .lower: text.lowercased()
        case .none: text
        }
    }

    private func integer(_ raw: RawValue, unitFactor: Double?) -> TypedValue {
        let parsed: Result<Int64, ValueParser.NumberFailure>
        let text: String
        switch raw {
        case .number(let s):
            text = s
            parsed = ValueParser.parseInteger(s, decimal: .point)
        case .string(let s):
            text = ValueParser.trimmed(s)
            parsed = ValueParser.parseInteger(text, decimal: decimal)
        default:
            return .failure(notScalar(raw, expected: "a whole number"))
        }
        switch parsed {
        case .failure(.invalid):
            return withValueUnit(text) { integer(.string($0), unitFactor: $1) }
                ?? .failure(numberFailure(.invalid, text, whole: true))
        case .failure(.notWhole) where unitFactor != nil:
            // A fraction in another unit is whole once converted (`12345678.9` metres, `1000.5 mi`).
            var separator = decimal
            if case .number = raw { separator = .point }
            guard let unitFactor, case .success(let d) = ValueParser.parseNumber(text, decimal: separator) else {
                return .failure(numberFailure(.notWhole, text, whole: true))
            }
            return wholeNumber(converting: d, by: unitFactor, text)
        case .failure(let f):
            return .failure(numberFailure(f, text, whole: true))
        case .success(let i):
            if let unitFactor { return wholeNumber(converting: Double(i), by: unitFactor, text) }
            if let f = rangeFinding(Double(i), text) { return .failure(f) }
            return .success(.integer(i))
        }
    }

    /// A number in another unit as the field's whole number: converted, then rounded.
    private func wholeNumber(converting value: Double, by factor: Double, _ text: String) -> TypedValue {
        let converted = (value * factor).rounded()
        guard abs(converted) < 9.2e18 else { return .failure(numberFailure(.tooLarge, text, whole: true)) }
        if let f = rangeFinding(converted, text, converted: factor != 1) { return .failure(f) }
        return .success(.integer(Int64(converted)))
    }

    private func number(_ raw: RawValue, unitFactor: Double?) -> TypedValue {
        let parsed: Result<Double, ValueParser.NumberFailure>
        let text: String
        switch raw {
        case .number(let s):
            text = s
            parsed = ValueParser.parseNumber(s, decimal: .point)
        case .string(let s):
            text = ValueParser.trimmed(s)
            parsed = ValueParser.parseNumber(text, decimal: decimal)
        default:
            return .failure(notScalar(raw, expected: "a number"))
        }
        switch parsed {
        case .failure(.invalid):
            if let typed = withValueUnit(text, { number(.string($0), unitFactor: $1) }) { return typed }
            // `$32,500.00`, `18.990 €`, `EUR 1200`: an amount with its currency.
            if field.unit == nil, var amount = Self.withoutCurrency(text) {
                if decimal == .auto, let whole = Self.oneThousandsGroup(amount) { amount = whole }
                return quotingAsWritten(number(.string(amount), unitFactor: unitFactor), typed: amount, written: text)
            }
            return .failure(numberFailure(.invalid, text, whole: false))
        case .failure(let f):
            return .failure(numberFailure(f, text, whole: false))
        case .success(var d):
            if abs(d) >= 9_007_199_254_740_992 || d == 0, let f = lostDigits(d, text) { return .failure(f) }
            // Converted to 4 decimals: 150 hp is 111.855 kW, not 111.85498079999999.
            if let unitFactor { d = (d * unitFactor * 10_000).rounded() / 10_000 }
            if let f = rangeFinding(d, text, converted: unitFactor != nil) { return .failure(f) }
            return .success(.real(d))
        }
    }

    /// An ISO date-time (`2019-06-30T00:00:00Z`) as the field stores it: whole in a date-time
    /// field, its day in a date field, its month in a year-month field.
    private func dateFieldValue(_ iso: String) -> String {
        switch field.type {
        case .datetime: iso
        case .yearmonth: String(iso.prefix(7))
        default: String(iso.prefix(10))
        }
    }

    private func date(_ text: String, pattern: DatePattern?) -> TypedValue {
        let parsed: String?
        let expected: String
        switch field.type {
        case .date:
            parsed = ValueParser.parseDate(text, pattern: pattern)
            expected = "yyyy-MM-dd"
        case .yearmonth:
            parsed = ValueParser.parseYearMonth(text, pattern: pattern)
            expected = "yyyy-MM"
        case .datetime:
            // Also a spreadsheet's date and time, or a date alone as a date field reads it.
            parsed = ValueParser.parseDateTime(text) ?? ValueParser.parseSpreadsheetDateTime(text, pattern: pattern)
                ?? ValueParser.parseDate(text, pattern: pattern)
            expected = "yyyy-MM-ddTHH:mm:ss with an optional offset such as +02:00"
        default:
            parsed = ValueParser.parseDateOrYearMonth(text, pattern: pattern)
            expected = "yyyy-MM-dd or yyyy-MM"
        }
        if let parsed {
            if let f = yearRangeFinding(parsed, text) { return .failure(f) }
            return .success(.text(parsed))
        }
        var source = pattern.map { " (this source writes \($0.text))" } ?? ""
        // The date of a date and time (`03/04/2019 10:00`) is asked about as the date alone.
        let datePart = text.split(separator: " ", maxSplits: 1).first.map(String.init) ?? text
        if pattern == nil, field.type != .yearmonth,
            case .ambiguous(let dayFirst, let monthFirst) = ValueParser.dayMonthReading(datePart)
        {
            let separator = text.contains("/") ? "/" : "-"
            return .failure(
                finding(
                    .fieldDate, text,
                    "is ambiguous: \(dayFirst) or \(monthFirst)? Pass --date-format dd\(separator)MM\(separator)yyyy "
                        + "or MM\(separator)dd\(separator)yyyy, or write yyyy-MM-dd"))
        }
        if field.type != .yearmonth, let date = ValueParser.spreadsheetSerialDate(text) {
            return .failure(
                finding(
                    .fieldDate, text,
                    "is not a valid date; it looks like a spreadsheet day number (\(date) in Excel): format the "
                        + "column as a date before exporting, or write \(expected)"))
        }
        if pattern == nil, let format = Self.shortYearFormat(datePart) {
            // `31.12.19`, `12/31/19`: the year has two digits, which no built-in format reads.
            source = "; its year has two digits: pass --date-format \(format), or write the year in full"
        } else if pattern == nil, datePart.contains("/") {
            source = "; for day and month in another order pass --date-format, e.g. MM/dd/yyyy or dd/MM/yyyy"
        }
        return .failure(finding(.fieldDate, text, "is not a valid date; write \(expected)\(source)"))
    }

    /// The `--date-format` for a date of three numbers whose last has two digits (`31.12.19` →
    /// `dd.MM.yy`, `12/31/19` → `MM/dd/yy`, `03/04/19` → either order); nil for anything else.
    static func shortYearFormat(_ text: String) -> String? {
        guard let separator = [".", "/", "-"].first(where: { text.contains($0) }) else { return nil }
        let parts = text.split(separator: Character(separator), omittingEmptySubsequences: false)
        guard parts.count == 3, parts.allSatisfy({ !$0.isEmpty && $0.count <= 2 && $0.allSatisfy { $0.isASCII && $0.isNumber } }),
            parts[2].count == 2, let first = Int(parts[0]), let second = Int(parts[1])
        else { return nil }
        let dayFirst = ["dd", "MM", "yy"].joined(separator: separator)
        let monthFirst = ["MM", "dd", "yy"].joined(separator: separator)
        if first > 12 && second > 12 { return nil }
        if first > 12 { return dayFirst }
        if second > 12 { return monthFirst }
        return separator == "." ? dayFirst : "\(dayFirst) or \(monthFirst)"
    }

    // MARK: Currencies

    private static let currencySymbols: [String] = ["$", "€", "£", "¥", "US$", "USD", "EUR", "GBP", "CHF", "SEK", "NOK", "DKK", "PLN", "CZK"]

    /// The amount of `$32,500.00`, `18.990 €`, `EUR 1200` without its currency; nil when the text
    /// has none at its start or end.
    static func withoutCurrency(_ text: String) -> String? {
        for symbol in currencySymbols {
            if text.hasPrefix(symbol) { return ValueParser.trimmed(String(text.dropFirst(symbol.count))) }
            if text.hasSuffix(symbol) { return ValueParser.trimmed(String(text.dropLast(symbol.count))) }
        }
        return nil
    }

    /// `18990` for the amount `18.990` or `18,990` of a price written with its currency (`18.990 €`,
    /// `$18,990`): one separator followed by exactly three digits groups thousands there, since
    /// amounts are not written to three decimals (read as a plain number, `18.990` was 18.99).
    /// Nil for any other amount (`18.990,50`, `32,500.00`, `18.99`, `1200`, `0.500`).
    static func oneThousandsGroup(_ amount: String) -> String? {
        let bytes = Array(amount.utf8)
        let digits = bytes.first == UInt8(ascii: "-") ? bytes.dropFirst() : bytes[...]
        guard let separator = digits.firstIndex(where: { $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: ",") }) else {
            return nil
        }
        let head = digits[..<separator], tail = digits[(separator + 1)...]
        let isDigit: (UInt8) -> Bool = { $0 >= 0x30 && $0 <= 0x39 }
        // `0.500` is no thousands group: a group never follows a leading zero.
        guard (1...3).contains(head.count), head.first != UInt8(ascii: "0"), tail.count == 3, head.allSatisfy(isDigit),
            tail.allSatisfy(isDigit)
        else {
            return nil
        }
        return String(decoding: bytes[..<separator] + tail, as: UTF8.self)
    }

    // MARK: Units written in values

    /// Splits `12 345 km`, `80000mi`, `150 hp.` into the number text and the unit word; nil when
    /// the text does not end in letters after something else.
    static func unitSuffix(_ text: String) -> (number: String, unit: String)? {
        var unit = Substring(text)
        if unit.last == "." { unit = unit.dropLast() }
        let letters = unit.reversed().prefix { $0.isASCII && $0.isLetter }.count
        guard letters > 0, letters < unit.count else { return nil }
        var number = unit.dropLast(letters)
        // A no-break or thin space before the unit (`12 345 km` with U+00A0 or U+202F, as French
        // Excel writes it) separates like a space.
        guard number.last.map({ $0.isNumber || $0.isWhitespace }) == true else { return nil }
        while number.last?.isWhitespace == true { number = number.dropLast() }
        return (ValueParser.trimmed(String(number)), String(unit.suffix(letters)))
    }

    /// Types a value that states its own unit (`12,345 km`, `80000 mi`): the unit must convert into
    /// the field's, and it wins over the column's (`Odometer (mi)` holding `12000 km` is 12000 km).
    /// Nil when the field has no unit or the text ends in none.
    private func withValueUnit(_ text: String, _ type: (String, Double?) -> TypedValue) -> TypedValue? {
        guard let target = field.unit, let (number, unit) = Self.unitSuffix(text) else { return nil }
        guard let factor = Mapper.conversion(from: unit, to: target) else {
            return .failure(
                finding(
                    .fieldType, text,
                    "has the unit '\(unit)', which does not convert into \(target); write a number in \(target)"))
        }
        return quotingAsWritten(type(number, factor == 1 ? nil : factor), typed: number, written: text)
    }

    /// A failure about the part of a value that was typed (`12 34` of `12 34 km`) quotes the value
    /// as written.
    private func quotingAsWritten(_ result: TypedValue, typed: String, written: String) -> TypedValue {
        guard case .failure(var f) = result else { return result }
        let quoted = "\(field.name) '\(Self.clip(typed))'"
        if f.message.hasPrefix(quoted) {
            f.message = "\(field.name) '\(Self.clip(written))'" + f.message.dropFirst(quoted.count)
        }
        return .failure(f)
    }

    // MARK: Helpers

    /// - Parameter converted: true when `value` was converted from another unit: the message
    ///   gives it beside the text as written (`'3200000' (5149901 km) is above the maximum 5000000`).
    private func rangeFinding(_ value: Double, _ text: String, converted: Bool = false) -> Finding? {
        let shown = converted ? "(\(FieldValue.format(value))\(field.unit.map { " \($0)" } ?? "")) " : ""
        if let minimum, value < minimum {
            return finding(.fieldRange, text, "\(shown)is below the minimum \(FieldValue.format(minimum))\(rangeText); check the value")
        }
        if let maximum, value > maximum {
            return finding(.fieldRange, text, "\(shown)is above the maximum \(FieldValue.format(maximum))\(rangeText); check the value")
        }
        return nil
    }

    /// A date outside its field's years: `minimum` and `maximum` (with `maximumYearOffset`: this
    /// year plus the offset) are years for a date field (`first_registration` from 1886 to next
    /// year: `2099-01-01` and `0001-01-01` were loaded without a word).
    private func yearRangeFinding(_ iso: String, _ text: String) -> Finding? {
        guard minimum != nil || maximum != nil else { return nil }
        // The year's four digits, read in place (`Int(iso.prefix(4))` cost ~270 instructions a row).
        let parsed: Int? = iso.withUTF8Bytes { p in
            guard p.count >= 4 else { return nil }
            var year = 0
            for i in 0..<4 {
                guard p[i] >= UInt8(ascii: "0"), p[i] <= UInt8(ascii: "9") else { return nil }
                year = year * 10 + Int(p[i] - UInt8(ascii: "0"))
            }
            return year
        }
        guard let year = parsed else { return nil }
        if let minimum, Double(year) < minimum {
            return finding(.fieldRange, text, "is before \(FieldValue.format(minimum)), the first year this field takes; check the value")
        }
        if let maximum, Double(year) > maximum {
            return finding(.fieldRange, text, "is after \(FieldValue.format(maximum)), the last year this field takes; check the value")
        }
        return nil
    }

    /// A number to show in a message: inside the field's range (doors: 4, model_year: 1988), not
    /// one that the range would refuse (`doors 'four'` was told to write 45210).
    private func exampleNumber(whole: Bool) -> String {
        let nominal = whole ? 45210.0 : 12.5
        let value: Double
        switch (minimum, maximum) {
        case (let lo?, let hi?): value = whole ? ((lo + hi) / 2).rounded(.down) : (lo + hi) / 2
        case (let lo?, nil): value = max(lo, nominal)
        case (nil, let hi?): value = min(hi, nominal)
        case (nil, nil): value = nominal
        }
        return FieldValue.format(value)
    }

    private var rangeText: String {
        switch (minimum, maximum) {
        case (let lo?, let hi?): " (allowed \(FieldValue.format(lo))..\(FieldValue.format(hi)))"
        default: ""
        }
    }

    /// A number a number field cannot keep as written: past 2^53 a double holds whole numbers
    /// only to its precision (`9007199254740993` was stored as `…992`, a 30-digit price as
    /// `1.23456789012346e29`), and a nonzero value below its range is 0 (`1e-400`). Nil when
    /// the value is kept exactly (`1e18`, `9007199254740992.00`) or written in scientific
    /// notation past 2^53 (an approximation by its writing). Called for 0 and past 2^53 only.
    private func lostDigits(_ d: Double, _ text: String) -> Finding? {
        if d == 0 {
            return ValueParser.underflowed(d, text) ? finding(.fieldType, text, "is too small to keep (it would be 0); check the value") : nil
        }
        let mantissa = text.prefix { $0 != "e" && $0 != "E" }
        var digits = String(mantissa.filter { ("0"..."9").contains($0) })
        while digits.hasPrefix("0") { digits.removeFirst() }
        while digits.hasSuffix("0") { digits.removeLast() }
        guard mantissa.count == text.count else { return nil }
        // Kept when written as the double's exact value or as its shortest digits (how exports
        // write it: `100000000000000000000` for 1e20, past 2^64 where no UInt64 holds it).
        var kept = abs(d) < 18_446_744_073_709_551_616 ? String(UInt64(abs(d))) : ""
        while kept.hasSuffix("0") { kept.removeLast() }
        guard digits != kept else { return nil }
        var shortest = FieldValue.decimalText(abs(d))
        while shortest.hasSuffix("0") { shortest.removeLast() }
        guard digits != shortest else { return nil }
        return finding(
            .fieldType, text,
            "has more digits than a number field keeps (about 15 significant digits): it would be stored as "
                + "\(FieldValue.format(d)); check the value, or round it")
    }

    private func numberFailure(_ f: ValueParser.NumberFailure, _ text: String, whole: Bool) -> Finding {
        let example = whole ? "a whole number such as \(exampleNumber(whole: true))" : "a number such as \(exampleNumber(whole: false))"
        switch f {
        case .invalid:
            return finding(.fieldType, text, "is not \(whole ? "a whole number" : "a number"); write \(example)")
        case .ambiguous where text.contains("."):
            return finding(
                .fieldType, text,
                "is ambiguous: a dot grouping thousands, or three decimals? write it without the separator, "
                    + "or pass --decimal comma (dots group thousands) or --decimal point")
        case .ambiguous:
            return finding(
                .fieldType, text,
                "is ambiguous: a comma grouping thousands, or a decimal comma? write it without the separator, "
                    + "or pass --decimal point (commas group thousands) or --decimal comma")
        case .notWhole:
            return finding(.fieldType, text, "must be a whole number; drop the fraction")
        case .tooLarge:
            return finding(.fieldType, text, "is too large; check the value")
        }
    }

    private func scalarText(_ raw: RawValue) -> String? {
        switch raw {
        case .string(let s): ValueParser.trimmed(s)
        case .number(let s): s
        case .bool(let b): b ? "true" : "false"
        case .null, .array, .object: nil
        }
    }

    private func notScalar(_ raw: RawValue, expected: String = "a single value") -> Finding {
        let kind: String
        switch raw {
        case .array: kind = "a list"
        case .object: kind = "an object"
        case .bool: kind = "true/false"
        default: kind = "text"
        }
        return finding(.fieldType, JSONText.encode(raw), "is \(kind) where \(expected) is expected; fix the source or its mapping")
    }

    private func finding(_ code: FindingCode, _ input: String, _ what: String) -> Finding {
        Finding(code, .error, field: field.name, message: "\(field.name) '\(Self.clip(input))' \(what)")
    }

    static func clip(_ s: String) -> String {
        s.count <= 80 ? s : String(s.prefix(77)) + "..."
    }

    /// A list value as JSON array text: an array as JSON; text that already is a JSON array (a CSV
    /// cell `["a", "b"]`) written as that array is from JSON input, compact (`["a","b"]`: kept as
    /// typed, the same list from a CSV file and a JSON one made a re-run an update and a merge a
    /// `key.conflict`); any other scalar (also bracketed text that is not JSON, `[not json]`) as a
    /// one-element array.
    private func arrayText(_ raw: RawValue) -> String {
        switch raw {
        case .array: return JSONText.encode(raw)
        case .string(let s):
            let t = ValueParser.trimmed(s)
            if t.hasPrefix("["), t.hasSuffix("]"), let array = JSONParser.wholeValue(t), case .array = array {
                return JSONText.encode(array)
            }
            return JSONText.encode(.array([.string(t)]))
        default:
            return JSONText.encode(.array([raw]))
        }
    }
}

/// A direct-mapped cache of typed results keyed by the raw text: a replaced entry is only
/// recomputed, so memory stays fixed (`size` entries) and a lookup hashes a few bytes instead of
/// the whole string with SipHash.
final class TypedValueCache {
    static let size = 1024
    // Keys and values apart: a lookup compares the key in place and copies only a hit's value
    // (an optional (key, value) tuple was copied whole, through generic runtime witnesses, on
    // every lookup).
    //
    // A success is kept as its plain value and a failure apart: a hit returned the whole
    // `TypedValue` (a finding's worth of fields) through its outlined copy, ~135 instructions.
    private let keys: UnsafeMutablePointer<String?>
    private let successes: UnsafeMutablePointer<FieldValue?>
    private let failures: UnsafeMutablePointer<Finding?>

    init() {
        keys = .allocate(capacity: Self.size)
        keys.initialize(repeating: nil, count: Self.size)
        successes = .allocate(capacity: Self.size)
        successes.initialize(repeating: nil, count: Self.size)
        failures = .allocate(capacity: Self.size)
        failures.initialize(repeating: nil, count: Self.size)
    }

    deinit {
        keys.deinitialize(count: Self.size)
        keys.deallocate()
        successes.deinitialize(count: Self.size)
        successes.deallocate()
        failures.deinitialize(count: Self.size)
        failures.deallocate()
    }

    /// The slot for a text: a multiplicative hash of its length and up to its first 32 bytes.
    @inline(__always)
    func slot(for text: String) -> Int {
        // Over contiguous bytes (a small string is read in place): iterating `utf8` costs several
        // times more per byte.
        var text = text
        let h: UInt32 = text.withUTF8 { bytes in
            var h = UInt32(truncatingIfNeeded: bytes.count) &* 0x9E37_79B1
            for i in 0..<min(bytes.count, 32) { h = (h ^ UInt32(bytes[i])) &* 0x0100_0193 }
            return h
        }
        return Int(truncatingIfNeeded: (h ^ (h >> 15)) & UInt32(Self.size - 1))
    }

    @inline(__always)
    func value(at slot: Int, for text: String) -> TypedValue? {
        let i = slot & (Self.size - 1)
        guard keys[i] == text else { return nil }
        if let success = successes[i] { return .success(success) }
        if let failure = failures[i] { return .failure(failure) }
        return nil
    }

    @inline(__always)
    func store(_ value: TypedValue, for text: String, at slot: Int) {
        let i = slot & (Self.size - 1)
        keys[i] = text
        switch value {
        case .success(let v):
            successes[i] = v
            failures[i] = nil
        case .failure(let f):
            successes[i] = nil
            failures[i] = f
        }
    }
}

/// A typed value or the finding that explains why the raw value could not be typed.
enum TypedValue: Sendable, Hashable {
    case success(FieldValue)
    case failure(Finding)
}

/// Writes a ``RawValue`` as compact JSON text (numbers as written).
enum JSONText {
    static func encode(_ value: RawValue) -> String {
        var out = ""
        // An explicit stack: no recursion whose depth depends on the input.
        enum Item {
            case value(RawValue)
            case text(String)
        }
        var stack: [Item] = [.value(value)]
        while let item = stack.popLast() {
            switch item {
            case .text(let s): out += s
            case .value(let v):
                switch v {
                case .null: out += "null"
                case .bool(let b): out += b ? "true" : "false"
                case .number(let s): out += s
                case .string(let s): appendString(s, to: &out)
                case .array(let a):
                    out += "["
                    stack.append(.text("]"))
                    for (i, e) in a.enumerated().reversed() {
                        stack.append(.value(e))
                        if i > 0 { stack.append(.text(",")) }
                    }
                case .object(let fields):
                    out += "{"
                    stack.append(.text("}"))
                    for (i, f) in fields.enumerated().reversed() {
                        stack.append(.value(f.value))
                        var key = ""
                        appendString(f.name, to: &key)
                        stack.append(.text((i > 0 ? "," : "") + key + ":"))
                    }
                }
            }
        }
        return out
    }

    static func appendString(_ s: String, to out: inout String) {
        out += JSONEscaping.quoted(s)
    }
}
