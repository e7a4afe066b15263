/// One `--where` condition: `FIELD OP VALUE`, parsed from a single argument (spaces optional).
///
/// Operators: `=`, `!=`, `<`, `<=`, `>`, `>=`, `~` (case-insensitive contains) and the word `in`
/// (comma-separated values). A value may be wrapped in one pair of matching `'` or `"` quotes
/// (`make='Land Rover'`, and in an `in` list `address in 'Berlin, Mitte',Paris`, where a quoted
/// value keeps its commas); the quotes are removed, nothing else is interpreted. The value only
/// ever reaches SQLite as a bound parameter.
public struct Condition: Sendable, Hashable {
    public enum Operator: String, Sendable, Hashable, CaseIterable {
        case equal = "="
        case notEqual = "!="
        case less = "<"
        case lessOrEqual = "<="
        case greater = ">"
        case greaterOrEqual = ">="
        case contains = "~"
        case `in` = "in"
    }

    /// The field as written (a column name or schema alias), resolved later against a table.
    public var field: String
    public var op: Operator
    /// One value, or several for `in`.
    public var values: [String]

    public init(field: String, op: Operator, values: [String]) {
        self.field = field
        self.op = op
        self.values = values
    }

    /// The most values one `in` condition accepts.
    public static let maxInValues = 1000
    /// The most conditions one query takes (ANDed).
    public static let maxConditions = 500

    /// Parses `FIELD OP VALUE`: the first operator character (`=`, `!`, `<`, `>`, `~`) or the
    /// word ` in ` (whichever comes first) splits field from value; at that position the longest
    /// operator wins (`<=` before `<`, `!=` before `=`).
    /// - Throws: ``VinyardError`` `.usage` for a missing field, operator or value.
    public static func parse(_ text: String) throws -> Condition {
        let bytes = Array(text.utf8)
        // A long condition (an `in` list of thousands of values) is quoted by its start only.
        let quoted = text.count > 200 ? text.prefix(200) + "… (\(text.utf8.count) bytes)" : text
        func usage(_ why: String) -> VinyardError {
            VinyardError(
                .usage,
                "--where '\(quoted)': \(why); expected FIELD OP VALUE with OP one of = != < <= > >= ~ in "
                    + "(e.g. --where make=BMW --where 'year>=2015' --where 'status in active,maintenance')")
        }
        let symbols: Set<UInt8> = [UInt8(ascii: "="), UInt8(ascii: "!"), UInt8(ascii: "<"), UInt8(ascii: ">"), UInt8(ascii: "~")]
        let symbolAt = bytes.firstIndex(where: symbols.contains)
        let wordAt = inWordPosition(bytes, before: symbolAt ?? bytes.count)

        let op: Operator
        let fieldEnd: Int
        let valueStart: Int
        if let w = wordAt {
            op = .in
            fieldEnd = w.start
            valueStart = w.end
        } else if let s = symbolAt {
            let next: UInt8? = s + 1 < bytes.count ? bytes[s + 1] : nil
            let doubled = bytes[s] == UInt8(ascii: "=") && next == UInt8(ascii: "=")
            switch (bytes[s], next) {
            case (UInt8(ascii: "!"), UInt8(ascii: "=")): op = .notEqual
            case (UInt8(ascii: "<"), UInt8(ascii: "=")): op = .lessOrEqual
            case (UInt8(ascii: ">"), UInt8(ascii: "=")): op = .greaterOrEqual
            case (UInt8(ascii: "<"), UInt8(ascii: ">")): op = .notEqual
            // `==`, as most programming languages write it, is `=` (it was `= '=BMW'`, which
            // matched nothing without a word).
            case (UInt8(ascii: "="), UInt8(ascii: "=")): op = .equal
            case (UInt8(ascii: "="), _): op = .equal
            case (UInt8(ascii: "<"), _): op = .less
            case (UInt8(ascii: ">"), _): op = .greater
            case (UInt8(ascii: "~"), _): op = .contains
            default: throw usage("'!' must be followed by '='")
            }
            fieldEnd = s
            valueStart = s + (op == .notEqual || op == .lessOrEqual || op == .greaterOrEqual || doubled ? 2 : 1)
        } else {
            throw usage("no operator")
        }
        let field = trimmed(String(decoding: bytes[..<fieldEnd], as: UTF8.self))
        guard !field.isEmpty else { throw usage("the field name is missing") }
        let rawValue = trimmed(String(decoding: bytes[valueStart...], as: UTF8.self))
        var values: [String]
        if op == .in {
            // `in (a,b,c)`, as SQL writes it, is `in a,b,c`.
            var list = Substring(rawValue)
            if list.hasPrefix("(") {
                // An unclosed `(BMW,Audi` matched `(BMW` literally, dropping BMW without a word.
                guard list.hasSuffix(")"), list.count >= 2 else {
                    throw usage("the list opens with '(' but does not end with ')'; write in (a,b) or in a,b")
                }
                list = list.dropFirst().dropLast()
            }
            values = inList(list).map { unquoted(trimmed($0)) }
            if values.allSatisfy(\.isEmpty) { throw usage("'in' needs at least one value") }
            if values.count > maxInValues { throw usage("'in' takes at most \(maxInValues) values") }
        } else {
            // An operator written back to front (`status=!active` for `!=`, `year=>2015`,
            // `make=~BMW`): the value `!active` was normalized as an imported one is, to `active`,
            // and the opposite rows came out without a word (found by audit). A value that really
            // starts so is quoted (`make='=BMW'`).
            if let first = rawValue.utf8.first, symbols.contains(first) {
                // The operator as written (spaces are around it, not in it: `status = !active` too).
                let op = String(decoding: bytes[fieldEnd..<valueStart], as: UTF8.self)
                let meant: String? =
                    switch op + String(Character(Unicode.Scalar(first))) {
                    case "=!": "!="
                    case "=<": "<="
                    case "=>": ">="
                    case "=~": "~"
                    default: nil
                    }
                // The example keeps the operator written (`status!='!active'`, not an `=` that
                // would invert it; found by audit).
                throw usage(
                    "the value starts with '\(Character(Unicode.Scalar(first)))'"
                        + (meant.map { ": did you mean '\($0)'? To match a value that starts so, quote it" } ?? "; quote such a value")
                        + " (\(field)\(op)'\(String(rawValue.prefix(20)))')")
            }
            values = [unquoted(rawValue)]
            if values[0].isEmpty, op != .equal, op != .notEqual {
                throw usage("the value is missing")
            }
        }
        return Condition(field: field, op: op, values: values)
    }

    /// The byte range of the first ` in ` (case-insensitive, whitespace on both sides, or an
    /// opening parenthesis after it: `make in(BMW,Audi)`, as SQL may be written) that starts
    /// before `limit`.
    private static func inWordPosition(_ bytes: [UInt8], before limit: Int) -> (start: Int, end: Int)? {
        func isSpace(_ b: UInt8) -> Bool { b == 0x20 || b == 0x09 }
        var i = 1
        while i + 2 < bytes.count, i < limit {
            if isSpace(bytes[i - 1]), bytes[i] | 0x20 == UInt8(ascii: "i"), bytes[i + 1] | 0x20 == UInt8(ascii: "n"),
                isSpace(bytes[i + 2]) || bytes[i + 2] == UInt8(ascii: "(")
            {
                var start = i - 1
                while start > 0, isSpace(bytes[start - 1]) { start -= 1 }
                return (start, i + 2)
            }
            i += 1
        }
        return nil
    }

    /// Splits an `in` list at commas, except inside a value quoted as a whole (`'Berlin, Mitte'`);
    /// a quote after the first character of a value (`O'Brien`) is just a character, and an
    /// unterminated quote splits at every comma.
    private static func inList(_ list: Substring) -> [String] {
        var values: [String] = []
        var current = ""
        var quote: Character?
        for c in list {
            if let q = quote {
                if c == q { quote = nil }
                current.append(c)
            } else if c == "," {
                values.append(current)
                current = ""
            } else {
                if (c == "'" || c == "\"") && trimmed(current).isEmpty { quote = c }
                current.append(c)
            }
        }
        if quote != nil {
            return list.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
        }
        values.append(current)
        return values
    }

    static func trimmed(_ s: String) -> String {
        var sub = Substring(s)
        while let f = sub.first, f == " " || f == "\t" { sub.removeFirst() }
        while let l = sub.last, l == " " || l == "\t" { sub.removeLast() }
        return String(sub)
    }

    /// Removes one pair of matching surrounding quotes.
    static func unquoted(_ s: String) -> String {
        guard s.count >= 2, let f = s.first, f == "'" || f == "\"", s.last == f else { return s }
        return String(s.dropFirst().dropLast())
    }
}

/// One `--sort` key: `FIELD` or `FIELD:desc` (`:asc` is accepted too).
public struct SortKey: Sendable, Hashable {
    public var field: String
    public var descending: Bool

    public init(field: String, descending: Bool = false) {
        self.field = field
        self.descending = descending
    }

    /// Parses `FIELD[:asc|:desc]` (any case). No field name holds a colon, so any other suffix is
    /// a usage error that names the direction.
    public static func parse(_ text: String) throws -> SortKey {
        var field = Condition.trimmed(text)
        var descending = false
        if let colon = field.lastIndex(of: ":") {
            let suffix = Condition.trimmed(String(field[field.index(after: colon)...])).lowercased()
            guard suffix == "desc" || suffix == "asc" else {
                throw VinyardError(
                    .usage, "--sort '\(text)': the direction '\(suffix)' is neither asc nor desc; expected FIELD or FIELD:desc")
            }
            descending = suffix == "desc"
            field = Condition.trimmed(String(field[..<colon]))
        }
        guard !field.isEmpty else {
            throw VinyardError(.usage, "--sort '\(text)': the field name is missing; expected FIELD or FIELD:desc")
        }
        return SortKey(field: field, descending: descending)
    }
}

/// What to read from one table: filters, order, columns and a row limit.
public struct ExportQuery: Sendable, Hashable {
    /// The table: a schema table (`vehicles`, `locations`) or `rejects`, `findings`, `duplicates`,
    /// `import_runs`.
    public var table: String
    /// ANDed conditions.
    public var conditions: [Condition]
    /// Sort keys; the table's key is always appended as the final tie-breaker.
    public var sort: [SortKey]
    /// Column names or aliases; nil for the table's default columns.
    public var columns: [String]?
    /// At most this many rows; nil for all.
    public var limit: Int?

    public init(
        table: String = "vehicles", conditions: [Condition] = [], sort: [SortKey] = [], columns: [String]? = nil,
        limit: Int? = nil
    ) {
        self.table = table
        self.conditions = conditions
        self.sort = sort
        self.columns = columns
        self.limit = limit
    }

    /// Splits a `--columns a,b,c` argument into names (empty names dropped).
    public static func columnList(_ text: String) -> [String] {
        text.split(separator: ",").map { Condition.trimmed(String($0)) }.filter { !$0.isEmpty }
    }
}
