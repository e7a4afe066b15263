import Foundation

/// A query turned into SQL: identifiers come only from ``ExportTable`` (names read from the
/// database, quoted); every user value is a bound parameter.
struct CompiledQuery {
    var sql: String
    var arguments: [FieldValue?]
}

extension ExportTable {
    /// The `WHERE` terms and arguments for `conditions`.
    func whereTerms(_ conditions: [Condition]) throws -> (terms: [String], arguments: [FieldValue?]) {
        // SQLite's expression tree is at most 1000 deep, which about 950 text conditions reached
        // (exit 74, with the SQL); well below that, a clear usage error.
        if conditions.count > Condition.maxConditions {
            throw VinyardError(
                .usage, "\(conditions.count) --where conditions; at most \(Condition.maxConditions) are taken "
                    + "(give the values of one field as one 'FIELD in a,b,c')")
        }
        var terms: [String] = []
        var arguments: [FieldValue?] = []
        for condition in conditions {
            let column = try self.column(named: condition.field, option: "--where")
            let c = quoteIdentifier(column.name)
            func bound(_ value: String) throws -> String {
                arguments.append(try Self.argument(value, for: column, condition: condition))
                return "?\(arguments.count)"
            }
            // `=`, `!=` and `in` on a text column of a schema table match as input is stored: the
            // value is normalized like an imported one, then compared without regard to case.
            let matcher = schema != nil && column.kind == .text ? TextMatcher(column: column, schema: schema) : nil
            /// `vinyard_fold(c)` and the bound, normalized and folded value for a text match.
            func folded(_ value: String) -> String {
                arguments.append(.text(matcher.map { Connection.caseless($0.normalized(value)) } ?? value))
                return "?\(arguments.count)"
            }
            // In Unicode NFC, as text is stored: a decomposed `Citroe\u{0308}n` (macOS input) found
            // nothing with `~` and compared wrongly with `<`, `>` (`=` and `in` normalize anyway).
            let values = condition.values.map(FieldTyper.composed)
            let value = values.first ?? ""
            if column.kind == .array, let term = try listTerm(c, condition: condition, bind: { value in
                arguments.append(.text(Connection.caseless(value)))
                return "?\(arguments.count)"
            }) {
                terms.append(term)
                continue
            }
            // `=`, `!=` and `in` on a date or date-time field: each value is the period or instant
            // it names, as `<` and `>` read it (`in 2019` matched only a value stored as `2019`;
            // `=2019` on a date-time field found nothing; `=notadate` silently found nothing).
            func dateMatch(_ value: String) throws -> String {
                guard let matcher else { return "" }
                return try Self.dateMatch(c, name: column.name, value, matcher: matcher, condition: condition) { bound in
                    arguments.append(.text(bound))
                    return "?\(arguments.count)"
                }
            }
            switch condition.op {
            case .equal where value.isEmpty:
                terms.append("(\(c) IS NULL OR \(c) = '')")
            case .notEqual where value.isEmpty:
                terms.append("(\(c) IS NOT NULL AND \(c) <> '')")
            case .equal where matcher?.isDate == true:
                terms.append(try dateMatch(value))
            case .notEqual where matcher?.isDate == true:
                // `IS NOT 1`: a stored value `julianday` cannot read (NULL) is not the one named.
                terms.append("(\(c) IS NULL OR (\(try dateMatch(value))) IS NOT 1)")
            case .in where matcher?.isDate == true:
                let matches = try values.filter { !$0.isEmpty }.map(dateMatch)
                terms.append(Self.orMissing(c, Self.balancedOr(matches), condition))
            case .equal where matcher != nil:
                terms.append("vinyard_fold(\(c)) = \(folded(value))")
            case .notEqual where matcher != nil:
                terms.append("vinyard_fold(\(c)) IS NOT \(folded(value))")
            case .in where matcher != nil:
                let values = values.filter { !$0.isEmpty }
                terms.append(Self.orMissing(c, "vinyard_fold(\(c)) IN (\(values.map(folded).joined(separator: ", ")))", condition))
            case .equal:
                terms.append("\(c) = \(try bound(value))")
            case .notEqual:
                terms.append("\(c) IS NOT \(try bound(value))")
            case .less, .lessOrEqual, .greater, .greaterOrEqual:
                // A date typed in a format the field reads (`03/2019`, `14.05.2021`) compares as
                // the ISO text it is stored as (`2019-03`), not as typed. A value that is no date
                // is a usage error: compared as text it matched all rows or none, silently.
                var typed = value
                var op = condition.op
                if let matcher, matcher.isDate {
                    guard let date = matcher.rangeBound(value) else {
                        throw VinyardError(
                            .usage,
                            "--where \(condition.field) \(condition.op.rawValue) '\(value)': \(column.name) is a date\(matcher.isDateTime ? "-time" : "") field; "
                                + "compare it with a date such as 2019, 2019-03 or 2019-03-15"
                                + (matcher.isDateTime ? " (or a date-time such as 2024-06-30T12:00:00Z)" : ""))
                    }
                    (op, typed) = Self.periodBound(op, date, dateTime: matcher.isDateTime)
                }
                // A date-time compares as the instant it stands for, whatever its offset
                // (`08:15:00-07:00` is after `12:00:00Z`); compared as text it was not.
                let term =
                    matcher?.isDateTime == true
                    ? "julianday(\(c)) \(op.rawValue) julianday(\(try bound(typed)))"
                    : "\(c) \(op.rawValue) \(try bound(typed))"
                // Text is greater than every number in SQLite: keep stray text out of numeric ranges.
                terms.append(column.kind.isNumeric ? "(typeof(\(c)) IN ('integer','real') AND \(term))" : term)
            case .contains:
                // Folded for every script (SQLite's lower() folds ASCII only); the value once, here.
                // A boolean is searched as exports write it (true/false, not 1/0).
                arguments.append(.text(Connection.caseless(value)))
                let text =
                    column.kind == .boolean
                    ? "(CASE WHEN typeof(\(c)) = 'integer' THEN (CASE WHEN \(c) = 0 THEN 'false' ELSE 'true' END) ELSE vinyard_fold(\(c)) END)"
                    : "vinyard_fold(\(c))"
                terms.append("instr(\(text), ?\(arguments.count)) > 0")
            case .in:
                let values = values.filter { !$0.isEmpty }
                let placeholders = try values.map(bound).joined(separator: ", ")
                terms.append(Self.orMissing(c, "\(c) IN (\(placeholders))", condition))
            }
        }
        return (terms, arguments)
    }

    /// The term matching one `=` value on a date or date-time field: the period a year, month
    /// (or, on a date-time field, a day) names, the instant a date-time names, the date a date
    /// field stores. A value that is no date is a usage error.
    private static func dateMatch(
        _ c: String, name: String, _ value: String, matcher: TextMatcher, condition: Condition, bind: (String) -> String
    ) throws -> String {
        let trimmed = ValueParser.trimmed(value)
        if matcher.isDateTime, let instant = ValueParser.parseDateTime(trimmed), instant.utf8.count > 10 {
            return "julianday(\(c)) = julianday(\(bind(instant)))"
        }
        guard let bound = matcher.rangeBound(trimmed) else {
            throw VinyardError(
                .usage,
                "--where \(condition.field) \(condition.op.rawValue) '\(value)': \(name) is a "
                    + (matcher.isDateTime ? "date-time field; compare it with a date such as 2019, 2019-03 or 2019-03-15, or a date-time such as 2024-06-30T12:00:00Z"
                        : "date field; compare it with a date such as 2019, 2019-03 or 2019-03-15"))
        }
        let n = bound.utf8.count
        if matcher.isDateTime {
            guard n == 4 || n == 7 || n == 10 else { return "julianday(\(c)) = julianday(\(bind(bound)))" }
            let start = periodBound(.greaterOrEqual, bound, dateTime: true).1
            let end = periodBound(.greater, bound, dateTime: true).1
            return "(julianday(\(c)) >= julianday(\(bind(start))) AND julianday(\(c)) < julianday(\(bind(end))))"
        }
        guard n == 4 || n == 7, let next = nextPeriod(bound) else { return "\(c) = \(bind(bound))" }
        return "(\(c) >= \(bind(bound)) AND \(c) < \(bind(next)))"
    }

    /// `(a OR b OR …)` as a balanced tree: SQLite refuses an expression more than 1000 deep, which
    /// a chain of 1000 `in` values on a date field (one term each) reached.
    static func balancedOr(_ terms: [String]) -> String {
        if terms.count <= 2 { return "(" + terms.joined(separator: " OR ") + ")" }
        let half = terms.count / 2
        return "(\(balancedOr(Array(terms[..<half]))) OR \(balancedOr(Array(terms[half...]))))"
    }

    /// An `in` list with an empty value (`make in '',BMW`) also matches a missing value, as `make=''`
    /// does: `in` is the `=` of each value, ORed (the empty value was dropped, so rows without a make
    /// were not found).
    private static func orMissing(_ column: String, _ term: String, _ condition: Condition) -> String {
        guard condition.values.contains(where: \.isEmpty) else { return term }
        return "(\(column) IS NULL OR \(column) = '' OR \(term))"
    }

    /// A date bound that names a period (a year `2019`, a month `2019-03`, and on a date-time
    /// field a day) as the comparison with its start it stands for: `<= 2019` is `< 2020` (all of
    /// 2019; compared as ISO text, `2019-06` was after `2019`), `> 2019-03` is `>= 2019-04`, and on
    /// a date-time field the start is written as a date (`2019` → `2019-01-01`: `julianday` read a
    /// bare year as a day number and a year-month as nothing).
    static func periodBound(_ op: Condition.Operator, _ bound: String, dateTime: Bool) -> (Condition.Operator, String) {
        let b = Array(bound.utf8)
        let isDay = b.count == 10 && b[4] == UInt8(ascii: "-") && b[7] == UInt8(ascii: "-")
        guard b.count == 4 || b.count == 7 || (dateTime && isDay) else { return (op, bound) }
        var op = op
        var start = bound
        if op == .lessOrEqual || op == .greater {
            op = op == .lessOrEqual ? .less : .greaterOrEqual
            start = nextPeriod(bound) ?? bound
        }
        if dateTime {
            if start.utf8.count == 4 { start += "-01-01" } else if start.utf8.count == 7 { start += "-01" }
        }
        return (op, start)
    }

    /// The period after a year (`2019` → `2020`), a month (`2019-12` → `2020-01`) or a day.
    private static func nextPeriod(_ period: String) -> String? {
        let parts = period.split(separator: "-").compactMap { Int($0) }
        switch parts.count {
        case 1: return String(format: "%04d", parts[0] + 1)
        case 2: return parts[1] == 12 ? String(format: "%04d-01", parts[0] + 1) : String(format: "%04d-%02d", parts[0], parts[1] + 1)
        case 3:
            var calendar = Calendar(identifier: .gregorian)
            calendar.timeZone = TimeZone(identifier: "UTC")!
            guard let day = calendar.date(from: DateComponents(year: parts[0], month: parts[1], day: parts[2])),
                let next = calendar.date(byAdding: .day, value: 1, to: day)
            else { return nil }
            let c = calendar.dateComponents([.year, .month, .day], from: next)
            return String(format: "%04d-%02d-%02d", c.year ?? 0, c.month ?? 0, c.day ?? 0)
        default: return nil
        }
    }

    /// The term for a condition on a list column (stored as a JSON array): `=`, `!=` and `in` test
    /// the elements (`vin_model_years=2017` matches `[1987,2017]`, without regard to case), `~`
    /// searches the text; other operators are a usage error (compared as JSON text, `>=2017`
    /// matched `[1982,2012]`). Nil for an operator on an empty value, which tests the column.
    private func listTerm(_ c: String, condition: Condition, bind: (String) -> String) throws -> String? {
        let elements = "SELECT 1 FROM json_each(CASE WHEN json_valid(\(c)) THEN \(c) END) WHERE vinyard_fold(CAST(value AS TEXT))"
        let value = condition.values.first ?? ""
        switch condition.op {
        case .equal where !value.isEmpty:
            return "EXISTS(\(elements) = \(bind(value)))"
        case .notEqual where !value.isEmpty:
            return "NOT EXISTS(\(elements) = \(bind(value)))"
        case .in:
            let values = condition.values.filter { !$0.isEmpty }
            return "EXISTS(\(elements) IN (\(values.map(bind).joined(separator: ", "))))"
        case .less, .lessOrEqual, .greater, .greaterOrEqual:
            throw VinyardError(
                .usage,
                "--where \(condition.field) \(condition.op.rawValue) '\(value)': \(condition.field) is a list; "
                    + "use = or in (an element matches), != (no element matches) or ~ (the text contains)")
        default:
            return nil
        }
    }

    /// Normalizes a `--where` value for a text column of a schema table the way an imported value
    /// of its field is normalized (trimmed; the field's case folding, VIN normalization, synonyms
    /// from the bundled catalog such as `Petrol` → `gasoline` and `bmw` → `BMW`, enum spelling,
    /// date formats). A value the field would reject, and a column that is not a schema field
    /// (`_key`), is only trimmed.
    struct TextMatcher {
        private let typer: FieldTyper?
        /// True for a date or date-time field (stored as ISO text).
        let isDate: Bool
        /// True for a date-time field (stored as ISO 8601 text with its offset).
        let isDateTime: Bool

        init(column: Column, schema: Schema?) {
            guard let schema, let index = schema.fieldIndex(named: column.name), let catalog = try? SchemaCatalog.bundled()
            else {
                typer = nil
                isDate = false
                isDateTime = false
                return
            }
            isDate = [.date, .datetime, .yearmonth, .dateOrYearMonth].contains(schema.fields[index].type)
            isDateTime = schema.fields[index].type == .datetime
            typer = try? FieldTyper(
                field: schema.fields[index], index: index, catalog: catalog, decimal: .auto,
                referenceYear: VINDecoder.currentCalendarYear)
        }

        /// A date field's bound for `<`, `>`, ...: the value as the field stores it, a year
        /// (`2019`: ISO text compares by prefix) or a year and month; nil when it is none of these.
        func rangeBound(_ value: String) -> String? {
            let trimmed = ValueParser.trimmed(value)
            if let typer, case .success(.text(let text)) = typer.type(.string(trimmed)) { return text }
            let b = Array(trimmed.utf8)
            let digits = { (r: Range<Int>) in b[r].allSatisfy { $0 >= 0x30 && $0 <= 0x39 } }
            if b.count == 4, digits(0..<4) { return trimmed }
            if b.count == 7, digits(0..<4), b[4] == UInt8(ascii: "-"), digits(5..<7),
                let month = Int(String(decoding: b[5..<7], as: UTF8.self)), (1...12).contains(month)
            {
                return trimmed
            }
            return nil
        }

        func normalized(_ value: String) -> String {
            let trimmed = ValueParser.trimmed(value)
            guard let typer, case .success(.text(let text)) = typer.type(.string(trimmed)) else { return trimmed }
            return text
        }
    }

    /// The bound value for a condition on `column`: a number for numeric columns (a usage error
    /// when it is not one), 0/1 for booleans, text otherwise.
    /// The bytes of a decimal number as `--where` takes it: digits, sign, point, exponent.
    private static let decimalNumberBytes = Set("0123456789+-.eE".utf8)

    static func argument(_ value: String, for column: Column, condition: Condition) throws -> FieldValue {
        func usage(_ why: String) -> VinyardError {
            VinyardError(.usage, "--where \(condition.field) \(condition.op.rawValue) '\(value)': \(why)")
        }
        switch column.kind {
        case .text, .array, .json:
            return .text(value)
        case .boolean:
            switch value.lowercased() {
            case "true", "yes", "1": return .integer(1)
            case "false", "no", "0": return .integer(0)
            default: throw usage("\(column.name) is a boolean field; use true or false")
            }
        case .integer, .real:
            // Decimal only: Swift's Double also reads hexadecimal (`0x7E2` matched 2018) and `nan`.
            guard value.utf8.allSatisfy({ Self.decimalNumberBytes.contains($0) }), let number = Double(value), number.isFinite
            else {
                throw usage("\(column.name) is a numeric field; the value must be a number")
            }
            if number == number.rounded(.towardZero), abs(number) < 9e15 { return .integer(Int64(number)) }
            return .real(number)
        }
    }

    /// The `ORDER BY` terms for `sort`, with the key as the final tie-breaker.
    func orderTerms(_ sort: [SortKey]) throws -> [String] {
        var terms: [String] = []
        var seen = Set<String>()
        for key in sort {
            let column = try self.column(named: key.field, option: "--sort")
            // A column sorted on twice is a mistake (`--sort year --sort model_year:desc`: the
            // second key was ignored), as a column listed twice in --columns is.
            guard seen.insert(column.name).inserted else {
                throw VinyardError(.usage, "--sort: '\(key.field)' names \(column.name) twice")
            }
            // A date-time sorts by the instant it stands for, whatever its offset (as `--where` compares it).
            let isDateTime = schema.flatMap { s in s.fieldIndex(named: column.name).map { s.fields[$0].type == .datetime } } ?? false
            // Missing values last in either direction, as analysts' tools put them (SQLite puts
            // NULL first in an ascending sort: `--sort odometer_km` began with every vehicle
            // without a reading).
            let q = quoteIdentifier(column.name), direction = (key.descending ? " DESC" : "") + " NULLS LAST"
            terms.append(isDateTime ? "julianday(\(q))\(direction), \(q)\(direction)" : q + direction)
        }
        if !seen.contains(keyColumn) { terms.append(quoteIdentifier(keyColumn)) }
        return terms
    }

    /// The resolved `--columns` list (or the default columns); duplicates are a usage error.
    func selectedColumns(_ names: [String]?) throws -> [Column] {
        guard let names else { return defaultColumns }
        guard !names.isEmpty else { throw VinyardError(.usage, "--columns: no column names given") }
        var seen = Set<String>()
        var list: [Column] = []
        for name in names {
            let column = try self.column(named: name, option: "--columns")
            guard seen.insert(column.name).inserted else {
                throw VinyardError(.usage, "--columns: '\(name)' names \(column.name) twice")
            }
            list.append(column)
        }
        return list
    }

    /// `SELECT columns FROM table WHERE … ORDER BY … LIMIT …`; `extraTerms` are trusted SQL built
    /// from this table's own identifiers.
    func compile(
        select columns: [Column], conditions: [Condition], extraTerms: [String] = [], sort: [SortKey],
        limit: Int?
    ) throws -> CompiledQuery {
        var (terms, arguments) = try whereTerms(conditions)
        terms += extraTerms
        var sql = "SELECT " + columns.map { quoteIdentifier($0.name) }.joined(separator: ", ")
        sql += " FROM " + quoteIdentifier(name)
        if try scansInsteadOfKeyIndex(conditions: conditions, limit: limit) { sql += " NOT INDEXED" }
        if !terms.isEmpty { sql += " WHERE " + terms.joined(separator: " AND ") }
        sql += " ORDER BY " + (try orderTerms(sort)).joined(separator: ", ")
        if let limit {
            arguments.append(.integer(Int64(limit)))
            sql += " LIMIT ?\(arguments.count)"
        }
        return CompiledQuery(sql: sql, arguments: arguments)
    }

    /// True when a schema table is read by a scan and SQLite's sorter rather than in key order
    /// through its key index. Walking the index fetches each row from wherever the import put it:
    /// on a table larger than the page cache nearly every row reads a page again (64 KiB then: a
    /// 396k-row export made 389k `pread` calls, 5 s of system time); the scan reads each page once
    /// and the sort runs in bounded memory (the sqlite3 shell on that table: 0.68 s against 2.99 s,
    /// and 0.76 s against 0.99 s with a cache holding the whole table). The index still serves a
    /// condition on the key itself and a small `--limit`, which stop early.
    func scansInsteadOfKeyIndex(conditions: [Condition], limit: Int?) throws -> Bool {
        guard schema != nil, keyColumn == "_key" else { return false }
        if let limit, limit <= 10_000 { return false }
        for condition in conditions where [.equal, .in].contains(condition.op) {
            if try column(named: condition.field, option: "--where").name == keyColumn { return false }
        }
        return true
    }

    /// `SELECT count(*) …` over the rows matching `conditions` and `extraTerms`.
    func compileCount(conditions: [Condition], extraTerms: [String]) throws -> CompiledQuery {
        let (conditionTerms, arguments) = try whereTerms(conditions)
        let terms = conditionTerms + extraTerms
        var sql = "SELECT count(*) FROM " + quoteIdentifier(name)
        if !terms.isEmpty { sql += " WHERE " + terms.joined(separator: " AND ") }
        return CompiledQuery(sql: sql, arguments: arguments)
    }

    /// True when column `c` holds a number: the SQL term for “has a usable coordinate/odometer”.
    static func isNumberTerm(_ column: Column) -> String {
        "typeof(\(quoteIdentifier(column.name))) IN ('integer','real')"
    }
}
