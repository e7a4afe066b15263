/// A source's date pattern (`MM/yyyy`, `dd.MM.yyyy`, `MM/dd/yyyy`, `dd.MM.yy`): tokens `yyyy`
/// (or `yy`: up to next year's two digits this century, the rest the last), `MM`/`M`, `dd`/`d`;
/// any other character must appear as written.
public struct DatePattern: Sendable, Hashable {
    enum Token: Sendable, Hashable {
        case year, shortYear, month(exact: Bool), day(exact: Bool), literal(UInt8)
    }
    let tokens: [Token]
    public let text: String
    /// True when the pattern has a day: it yields `yyyy-MM-dd`, otherwise `yyyy-MM`.
    public var hasDay: Bool { tokens.contains { if case .day = $0 { true } else { false } } }

    /// Compiles a pattern; nil when it has no year or no month. A time after the date
    /// (`dd/MM/yyyy HH:mm`) is left out: date-times are read by their date (see
    /// ``ValueParser/parseSpreadsheetDateTime(_:pattern:)``); it made every value fail.
    public init?(_ pattern: String) {
        var tokens: [Token] = []
        var pattern = pattern
        // Cut at the space before the time (`dd MM yyyy HH:mm` keeps `dd MM yyyy`).
        if let hour = pattern.firstIndex(where: { $0 == "H" || $0 == "h" }), let space = pattern[..<hour].lastIndex(of: " ") {
            pattern = String(pattern[..<space])
        }
        let b = Array(pattern.utf8)
        var i = 0
        while i < b.count {
            func run(_ c: UInt8) -> Int {
                var n = 0
                while i + n < b.count, b[i + n] == c { n += 1 }
                return n
            }
            switch b[i] {
            case UInt8(ascii: "y"):
                let n = run(b[i])
                guard n == 4 || n == 2 else { return nil }
                tokens.append(n == 4 ? .year : .shortYear)
                i += n
            case UInt8(ascii: "M"):
                let n = run(b[i])
                guard n <= 2 else { return nil }
                tokens.append(.month(exact: n == 2))
                i += n
            case UInt8(ascii: "d"):
                let n = run(b[i])
                guard n <= 2 else { return nil }
                tokens.append(.day(exact: n == 2))
                i += n
            default:
                tokens.append(.literal(b[i]))
                i += 1
            }
        }
        guard tokens.contains(.year) || tokens.contains(.shortYear), tokens.contains(where: { if case .month = $0 { true } else { false } }) else {
            return nil
        }
        // One year, one month, at most one day (`dd.MM.yy.yy` was taken).
        let years = tokens.filter { $0 == .year || $0 == .shortYear }.count
        let months = tokens.filter { if case .month = $0 { true } else { false } }.count
        let days = tokens.filter { if case .day = $0 { true } else { false } }.count
        guard years == 1, months == 1, days <= 1 else { return nil }
        // `MM` and `dd` between separators also take one digit, as spreadsheets write them
        // (`4/15/2014` under `MM/dd/yyyy`: the format the ambiguous-date advice names refused
        // dates that loaded without it). Run together with another number (`yyyyMMdd`) they
        // need their two digits.
        func isNumber(_ i: Int) -> Bool {
            guard tokens.indices.contains(i) else { return false }
            if case .literal = tokens[i] { return false }
            return true
        }
        for i in tokens.indices where !isNumber(i - 1) && !isNumber(i + 1) {
            switch tokens[i] {
            case .month: tokens[i] = .month(exact: false)
            case .day: tokens[i] = .day(exact: false)
            default: break
            }
        }
        self.tokens = tokens
        self.text = pattern
    }

    /// The century of a two-digit year: this one up to next year's (`26` and `27` in 2026 are
    /// 2026 and 2027), the last one after it (`28` is 1928).
    static func century(_ yy: Int) -> Int { yy <= (pivotYear + 1) % 100 ? (pivotYear + 1) / 100 * 100 : (pivotYear + 1) / 100 * 100 - 100 }
    private static let pivotYear = VINDecoder.currentCalendarYear

    /// The value as ISO `yyyy-MM-dd` (or `yyyy-MM` without a day), nil when it does not match or
    /// is not a real date.
    public func parse(_ s: String) -> String? {
        if let r = s.utf8.withContiguousStorageIfAvailable({ parse(bytes: $0) }) { return r }
        return Array(s.utf8).withUnsafeBufferPointer { parse(bytes: $0) }
    }

    func parse(bytes b: UnsafeBufferPointer<UInt8>) -> String? {
        var i = 0
        var year = -1, month = -1, day = -1
        func digits(min: Int, max: Int) -> Int? {
            var n = 0
            var v = 0
            while n < max, i + n < b.count, b[i + n] >= 0x30, b[i + n] <= 0x39 {
                v = v * 10 + Int(b[i + n] - 0x30)
                n += 1
            }
            guard n >= min else { return nil }
            i += n
            return v
        }
        for t in tokens {
            switch t {
            case .year: guard let v = digits(min: 4, max: 4) else { return nil }; year = v
            case .shortYear: guard let v = digits(min: 2, max: 2) else { return nil }; year = Self.century(v) + v
            case .month(let exact): guard let v = digits(min: exact ? 2 : 1, max: 2) else { return nil }; month = v
            case .day(let exact): guard let v = digits(min: exact ? 2 : 1, max: 2) else { return nil }; day = v
            case .literal(let c):
                guard i < b.count, b[i] == c else { return nil }
                i += 1
            }
        }
        guard i == b.count else { return nil }
        return ValueParser.isoDate(year: year, month: month, day: day < 0 ? nil : day)
    }
}

extension ValueParser {
    private static let isoPatterns = [
        "yyyy-MM-dd", "yyyy/MM/dd", "yyyy.MM.dd", "dd.MM.yyyy", "d.M.yyyy", "yyyy-M-d", "yyyy/M/d",
        // ISO 8601's basic format (`20190315`, as SAP and many ERP exports write dates).
        "yyyyMMdd",
    ].compactMap(
        DatePattern.init)
    private static let yearMonthPatterns = ["yyyy-MM", "yyyy/MM", "MM/yyyy", "M/yyyy", "MM.yyyy", "MM-yyyy", "yyyy-M", "yyyy/M", "M.yyyy"].compactMap(
        DatePattern.init)

    /// `yyyy-MM-dd`, or `yyyy-MM` when `day` is nil; nil when the date does not exist.
    static func isoDate(year: Int, month: Int, day: Int?) -> String? {
        guard (1...9999).contains(year), (1...12).contains(month) else { return nil }
        if let day { guard day >= 1, day <= daysIn(month: month, year: year) else { return nil } }
        let n = day == nil ? 7 : 10
        return String(unsafeUninitializedCapacity: n) { out in
            func put(_ v: Int, _ at: Int, _ width: Int) {
                var v = v
                for k in stride(from: at + width - 1, through: at, by: -1) {
                    out[k] = UInt8(0x30 + v % 10)
                    v /= 10
                }
            }
            put(year, 0, 4)
            out[4] = 0x2D
            put(month, 5, 2)
            if let day {
                out[7] = 0x2D
                put(day, 8, 2)
            }
            return n
        }
    }

    static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    /// A calendar date as ISO `yyyy-MM-dd`: ISO (`2019-03-01`, `2019/03/01`, basic `20190301`),
    /// German (`01.03.2019`), the source's `pattern` when given, or a valid ISO 8601 date-time
    /// (`2019-03-01T10:00:00Z`, `2019-03-01 10:00:00`, with or without an offset), whose date part
    /// is kept as written: the time and offset are dropped, never converted to another zone; or a
    /// date with the month's name (`15 Mar 2019`, `March 15, 2019`); or a spreadsheet's date and
    /// time (`15.03.2019 10:00`, `3/15/2019 10:00:00 AM`, see ``parseSpreadsheetDateTime(_:pattern:)``),
    /// whose date is read as a date alone would be. Nil otherwise.
    public static func parseDate(_ s: String, pattern: DatePattern? = nil) -> String? {
        if let pattern, pattern.hasDay, let d = pattern.parse(s) { return d }
        for p in isoPatterns { if let d = p.parse(s) { return d } }
        if let dt = parseDateTime(s), dt.utf8.count > 10 { return String(dt.prefix(10)) }
        if let dt = parseSpreadsheetDateTime(s, pattern: pattern) { return String(dt.prefix(10)) }
        if let named = monthNameDate(s), let day = named.day { return isoDate(year: named.year, month: named.month, day: day) }
        if pattern == nil, case .date(let d) = dayMonthReading(s) { return d }
        return nil
    }

    /// How `d/M/yyyy` or `d-M-yyyy` reads without a pattern: a day above 12 says which number is
    /// the day (`15/03/2019`, `03/15/2019`), as does a day equal to the month (`03/03/2019`);
    /// `03/04/2019` is ambiguous (3 April or March 4?) and needs `--date-format`.
    enum DayMonthReading: Equatable {
        case date(String)
        case ambiguous(String, String)
        case none
    }

    private static let dayMonthPatterns: [(DatePattern, DatePattern)] = [("d/M/yyyy", "M/d/yyyy"), ("d-M-yyyy", "M-d-yyyy")]
        .compactMap { a, b in DatePattern(a).flatMap { x in DatePattern(b).map { (x, $0) } } }

    static func dayMonthReading(_ s: String) -> DayMonthReading {
        guard s.utf8.count <= 10 else { return .none }
        for (dayFirst, monthFirst) in dayMonthPatterns {
            switch (dayFirst.parse(s), monthFirst.parse(s)) {
            case (let a?, let b?): return a == b ? .date(a) : .ambiguous(a, b)
            case (let a?, nil), (nil, let a?): return .date(a)
            case (nil, nil): continue
            }
        }
        return .none
    }

    /// Month names and their abbreviations (English, German, French, Dutch, Spanish), folded (lower
    /// case, accents and dots dropped), to the month number.
    private static let monthNames: [String: Int] = {
        let names: [[String]] = [
            ["jan", "january", "januar", "janv", "janvier", "januari", "ene", "enero", "jänner", "janner"],
            ["feb", "february", "februar", "fev", "fevr", "fevrier", "februari", "febrero"],
            ["mar", "march", "mär", "märz", "mrz", "mars", "maart", "marzo", "mrt"],
            ["apr", "april", "avr", "avril", "abr", "abril"],
            ["may", "mai", "mei", "mayo"],
            ["jun", "june", "juni", "juin", "junio"],
            ["jul", "july", "juli", "juil", "juillet", "julio"],
            ["aug", "august", "aout", "augustus", "ago", "agosto"],
            ["sep", "sept", "september", "septembre", "septiembre", "set"],
            ["oct", "october", "okt", "oktober", "octobre", "octubre"],
            ["nov", "november", "novembre", "noviembre"],
            ["dec", "december", "dez", "dezember", "decembre", "dic", "diciembre"],
        ]
        var out: [String: Int] = [:]
        for (i, list) in names.enumerated() {
            for name in list { out[Schema.fold(name)] = i + 1 }
        }
        return out
    }()

    /// A date or year-month written with the month's name (`Mar 2019`, `15 Mar 2019`,
    /// `15-Mar-2019`, `March 15, 2019`, `15. März 2019`, `15 janv. 2019`): unambiguous, unlike
    /// `03/04/2019`. Exactly one month name, one four-digit year and at most one day, in any
    /// order; nil otherwise.
    static func monthNameDate(_ s: String) -> (year: Int, month: Int, day: Int?)? {
        // A letter first (a byte test: most values that get here are numbers or ISO dates that
        // did not parse).
        guard s.utf8.count <= 40, s.utf8.contains(where: { $0 >= 0x80 || ($0 | 0x20 >= 0x61 && $0 | 0x20 <= 0x7A) }) else {
            return nil
        }
        var year: Int?, month: Int?, day: Int?
        var token = ""
        // Files one token into its role; false when it fits none (or one already filled).
        func take() -> Bool {
            defer { token = "" }
            guard !token.isEmpty else { return true }
            let folded = Schema.fold(token)
            if folded.allSatisfy(\.isASCII), folded.allSatisfy(\.isNumber) {
                guard let v = Int(folded) else { return false }
                if folded.count == 4, year == nil {
                    year = v
                } else if folded.count <= 2, day == nil {
                    day = v
                } else {
                    return false
                }
                return true
            }
            // `15th`, `1st`, `2nd`, `3rd`: a day.
            if folded.count > 2, ["st", "nd", "rd", "th"].contains(String(folded.suffix(2))), let v = Int(folded.dropLast(2)) {
                guard day == nil else { return false }
                day = v
                return true
            }
            guard month == nil, let m = monthNames[folded] else { return false }
            month = m
            return true
        }
        for scalar in s.unicodeScalars {
            if scalar.properties.isAlphabetic || ("0"..."9").contains(scalar) {
                token.unicodeScalars.append(scalar)
            } else if [" ", "-", "/", ".", ",", "\u{A0}"].contains(scalar) {
                guard take() else { return nil }
            } else {
                return nil
            }
        }
        guard take(), let year, let month else { return nil }
        return (year, month, day)
    }

    /// A year-month (`2019-03`, `03/2019`, `3/2019`, `03.2019`, `Mar 2019`, or the source's
    /// pattern) as `yyyy-MM`, or a full date as ``parseDate(_:pattern:)`` reads it; nil otherwise.
    public static func parseDateOrYearMonth(_ s: String, pattern: DatePattern? = nil) -> String? {
        if let pattern, let d = pattern.parse(s) { return d }
        for p in yearMonthPatterns { if let d = p.parse(s) { return d } }
        if let d = parseDate(s, pattern: pattern) { return d }
        if let named = monthNameDate(s), named.day == nil { return isoDate(year: named.year, month: named.month, day: nil) }
        return nil
    }

    /// A year-month only, as `yyyy-MM`.
    public static func parseYearMonth(_ s: String, pattern: DatePattern? = nil) -> String? {
        if let pattern, !pattern.hasDay, let d = pattern.parse(s) { return d }
        for p in yearMonthPatterns { if let d = p.parse(s) { return d } }
        if let named = monthNameDate(s), named.day == nil { return isoDate(year: named.year, month: named.month, day: nil) }
        return nil
    }

    /// An ISO 8601 date-time `yyyy-MM-ddTHH:mm[:ss[.fff]][Z|±HH:MM|±HHMM|±HH]` (a space instead of
    /// `T` is accepted and written as `T`). The time-zone offset is kept, never converted, and
    /// written in the one form SQLite's date functions read, `±HH:MM` (`+0200` and `+02` as
    /// `+02:00`, `z` as `Z`, a decimal comma in the seconds as a point): written as they came, such
    /// values were stored but `julianday()` read them as NULL, so `--where` and `--sort` on the
    /// instant left them out. A bare date is returned as the date. Nil when anything is out of range.
    public static func parseDateTime(_ s: String) -> String? {
        let b = Array(s.utf8)
        guard b.count >= 10, let date = isoPatterns[0].parse(String(decoding: b[0..<10], as: UTF8.self)) else {
            return nil
        }
        if b.count == 10 { return date }
        guard b[10] == UInt8(ascii: "T") || b[10] == UInt8(ascii: "t") || b[10] == 0x20 else { return nil }
        var i = 11
        func two(_ limit: Int) -> Bool {
            guard i + 2 <= b.count, isDigit(b[i]), isDigit(b[i + 1]) else { return false }
            let v = Int(b[i] - 0x30) * 10 + Int(b[i + 1] - 0x30)
            i += 2
            return v <= limit
        }
        guard two(23), i < b.count, b[i] == UInt8(ascii: ":"), { i += 1; return true }(), two(59) else { return nil }
        var out = b
        out[10] = UInt8(ascii: "T")
        if i < b.count, b[i] == UInt8(ascii: ":") {
            i += 1
            // Not 60, a leap second: SQLite's date functions read it as NULL, so `--where` and
            // `--sort` on the instant left the row out.
            guard two(59) else { return nil }
            if i < b.count, b[i] == UInt8(ascii: ".") || b[i] == UInt8(ascii: ",") {
                out[i] = UInt8(ascii: ".")
                i += 1
                let start = i
                while i < b.count, isDigit(b[i]) { i += 1 }
                guard i > start else { return nil }
            }
        }
        if i < b.count {
            let zone = i
            switch b[i] {
            case UInt8(ascii: "Z"), UInt8(ascii: "z"):
                out[i] = UInt8(ascii: "Z")
                i += 1
            case UInt8(ascii: "+"), UInt8(ascii: "-"):
                i += 1
                // Offsets in use run from -12:00 to +14:00 (`+15:00` and `+14:30` were stored).
                guard two(14) else { return nil }
                let hours = out[zone..<i]
                let fourteen = hours.last == UInt8(ascii: "4") && hours.dropLast().last == UInt8(ascii: "1")
                var minutes: ArraySlice<UInt8> = [0x30, 0x30]
                if i < b.count, b[i] == UInt8(ascii: ":") { i += 1 }
                if i < b.count {
                    let start = i
                    guard two(fourteen ? 0 : 59) else { return nil }
                    minutes = b[start..<i]
                }
                out = Array(out[..<zone]) + hours + [UInt8(ascii: ":")] + minutes
            default:
                return nil
            }
        }
        guard i == b.count else { return nil }
        return String(decoding: out, as: UTF8.self)
    }

    /// A date and a time as spreadsheets write them, as ISO 8601 (`yyyy-MM-ddTHH:mm[:ss[.SSS]]`, in
    /// the time zone they were written in, which they do not say): a date ``parseDate(_:pattern:)``
    /// reads (`15.03.2019`, `15/03/2019`, `3/15/2019`: day and month in the order the date alone
    /// would be read, so `03/04/2019` needs `--date-format`), a space, and `H:mm`, `H:mm:ss` or
    /// `H:mm:ss.SSS`, with `AM`/`PM` (`3/15/2019 10:00:00 AM`). Nil for anything else.
    public static func parseSpreadsheetDateTime(_ s: String, pattern: DatePattern? = nil) -> String? {
        // No time without a colon: dates and year-months (most values that come here) leave at once.
        guard s.utf8.contains(UInt8(ascii: ":")) else { return nil }
        var rest = Array(trimmed(s).utf8)
        // AM/PM (also `a.m.`, lower case), after a space or not.
        var meridiem: UInt8?
        let lower = rest.map { $0 | 0x20 }
        for (suffix, m) in [("am", UInt8(ascii: "a")), ("pm", UInt8(ascii: "p")), ("a.m.", UInt8(ascii: "a")), ("p.m.", UInt8(ascii: "p"))] {
            let bytes = Array(suffix.utf8)
            if lower.count > bytes.count, Array(lower.suffix(bytes.count)) == bytes {
                meridiem = m
                rest.removeLast(bytes.count)
                while rest.last == 0x20 { rest.removeLast() }
                break
            }
        }
        // The time is the last word; the date is what comes before it (`15 Mar 2019 9:05`).
        guard let space = rest.lastIndex(of: 0x20) else { return nil }
        let datePart = String(decoding: rest[..<space], as: UTF8.self)
        guard !datePart.hasPrefix("-"), !datePart.utf8.contains(UInt8(ascii: ":")),
            let date = parseDate(ValueParser.trimmed(datePart), pattern: pattern), date.utf8.count == 10
        else { return nil }
        rest = Array(rest[(space + 1)...])
        var i = 0
        func number(maxDigits: Int) -> Int? {
            let start = i
            var v = 0
            while i < rest.count, i - start < maxDigits, isDigit(rest[i]) {
                v = v * 10 + Int(rest[i] - 0x30)
                i += 1
            }
            return i > start ? v : nil
        }
        guard var hour = number(maxDigits: 2), i < rest.count, rest[i] == UInt8(ascii: ":") else { return nil }
        i += 1
        let minuteStart = i
        guard let minute = number(maxDigits: 2), i - minuteStart == 2, minute <= 59 else { return nil }
        var second: Int?
        var fraction = ""
        if i < rest.count, rest[i] == UInt8(ascii: ":") {
            i += 1
            let secondStart = i
            guard let sec = number(maxDigits: 2), i - secondStart == 2, sec <= 59 else { return nil }
            second = sec
            if i < rest.count, rest[i] == UInt8(ascii: ".") || rest[i] == UInt8(ascii: ",") {
                i += 1
                let start = i
                while i < rest.count, isDigit(rest[i]) { i += 1 }
                guard i > start else { return nil }
                fraction = "." + String(decoding: rest[start..<i], as: UTF8.self)
            }
        }
        guard i == rest.count else { return nil }
        if let meridiem {
            guard (1...12).contains(hour) else { return nil }
            if meridiem == UInt8(ascii: "a") { hour = hour == 12 ? 0 : hour } else { hour = hour == 12 ? 12 : hour + 12 }
        }
        guard hour <= 23 else { return nil }
        var out = "\(date)T\(pad(hour, 2)):\(pad(minute, 2))"
        if let second { out += ":\(pad(second, 2))\(fraction)" }
        return out
    }

    /// A Unix time written as a JSON number, as an ISO 8601 UTC date-time: 9 to 11 digits are
    /// seconds (`1700000000` is `2023-11-14T22:13:20Z`), 12 to 14 milliseconds (with `.SSS` when
    /// not whole seconds). Nil for anything else (a fraction, a sign, another length), so a year
    /// or a day count is never taken for a time.
    public static func unixTimestamp(_ number: String) -> String? {
        let b = Array(number.utf8)
        guard (9...14).contains(b.count), b.allSatisfy(isDigit), let value = Int64(number) else { return nil }
        let millis = b.count >= 12
        guard millis || b.count <= 11 else { return nil }
        let seconds = millis ? value / 1000 : value
        let fraction = millis ? Int(value % 1000) : 0
        let rest = Int(seconds % 86_400)
        let (year, month, day) = civilDate(daysSince1970: seconds / 86_400)
        guard year <= 9999 else { return nil }
        var out = "\(pad(year, 4))-\(pad(month, 2))-\(pad(day, 2))T\(pad(rest / 3600, 2)):\(pad(rest / 60 % 60, 2)):\(pad(rest % 60, 2))"
        if fraction != 0 { out += "." + pad(fraction, 3) }
        return out + "Z"
    }

    /// True for 12 or 14 digits that read as `yyyyMMddHHmm(ss)` in 1900…2099 (a compact date-time
    /// an ERP writes as a number), which a Unix time in milliseconds could also be.
    static func isCompactDateTime(_ digits: String) -> Bool {
        let b = Array(digits.utf8)
        guard b.count == 12 || b.count == 14, b.allSatisfy(isDigit) else { return false }
        func n(_ r: Range<Int>) -> Int { b[r].reduce(0) { $0 * 10 + Int($1 - 0x30) } }
        let year = n(0..<4), month = n(4..<6), day = n(6..<8), hour = n(8..<10), minute = n(10..<12)
        guard (1900...2099).contains(year), (1...12).contains(month), day >= 1, day <= daysIn(month: month, year: year),
            hour < 24, minute < 60
        else { return false }
        return b.count == 12 || n(12..<14) < 60
    }

    /// OData v2's and old .NET's JSON date, `/Date(MILLISECONDS)/` or `/Date(MILLISECONDS+hhmm)/`
    /// (milliseconds since 1970 UTC, then the writer's offset), as an ISO 8601 date-time: UTC
    /// without an offset, else the local time with it (`/Date(1561852800000+0200)/` is
    /// `2019-06-30T02:00:00+02:00`). Nil for anything else.
    public static func dotNetDate(_ text: String) -> String? {
        let t = ValueParser.trimmed(text)
        guard t.hasPrefix("/Date("), t.hasSuffix(")/") else { return nil }
        var inner = Substring(t.dropFirst(6).dropLast(2))
        var offsetMinutes: Int?
        if let sign = inner.dropFirst().lastIndex(where: { $0 == "+" || $0 == "-" }) {
            let zone = inner[inner.index(after: sign)...]
            guard zone.count == 4, zone.allSatisfy(\.isASCII), zone.allSatisfy(\.isNumber), let hh = Int(zone.prefix(2)), let mm = Int(zone.suffix(2)),
                hh <= 14, mm < 60
            else { return nil }
            offsetMinutes = (hh * 60 + mm) * (inner[sign] == "-" ? -1 : 1)
            inner = inner[..<sign]
        }
        guard let millis = Int64(inner), millis.magnitude < 253_402_300_800_000 else { return nil }
        let local = millis + Int64(offsetMinutes ?? 0) * 60_000
        let seconds = local >= 0 ? local / 1000 : (local - 999) / 1000
        let fraction = Int(local - seconds * 1000)
        let days = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
        let rest = Int(seconds - days * 86_400)
        let (year, month, day) = civilDate(daysSince1970: days)
        guard (1...9999).contains(year) else { return nil }
        var out = "\(pad(year, 4))-\(pad(month, 2))-\(pad(day, 2))T\(pad(rest / 3600, 2)):\(pad(rest / 60 % 60, 2)):\(pad(rest % 60, 2))"
        if fraction != 0 { out += "." + pad(fraction, 3) }
        guard let offsetMinutes else { return out + "Z" }
        let m = abs(offsetMinutes)
        return out + (offsetMinutes < 0 ? "-" : "+") + pad(m / 60, 2) + ":" + pad(m % 60, 2)
    }

    /// The date a spreadsheet's day number stands for, as yyyy-MM-dd, when `text` is one: five
    /// digits (10000 is 1927-05-18, 99999 is 2173-10-14), counted as Excel and LibreOffice count
    /// them (day 1 is 1900-01-01, with Excel's 1900-02-29; past day 60, days since 1899-12-30).
    /// Only for a hint: a number in a date column is not taken for a date.
    static func spreadsheetSerialDate(_ text: String) -> String? {
        let b = Array(text.utf8)
        guard b.count == 5, b.allSatisfy(isDigit), let serial = Int64(text), serial >= 10_000 else { return nil }
        let (year, month, day) = civilDate(daysSince1970: serial - 25_569)
        return "\(pad(year, 4))-\(pad(month, 2))-\(pad(day, 2))"
    }

    /// Days since 1970-01-01 to a civil date (Howard Hinnant's algorithm).
    private static func civilDate(daysSince1970 days: Int64) -> (year: Int, month: Int, day: Int) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let day = Int(doy - (153 * mp + 2) / 5 + 1)
        let month = Int(mp < 10 ? mp + 3 : mp - 9)
        return (Int(yoe + era * 400 + (month <= 2 ? 1 : 0)), month, day)
    }

    private static func pad(_ v: Int, _ width: Int) -> String {
        let t = String(v)
        return String(repeating: "0", count: max(0, width - t.count)) + t
    }

    @inline(__always) static func isDigit(_ c: UInt8) -> Bool { c >= 0x30 && c <= 0x39 }
}
