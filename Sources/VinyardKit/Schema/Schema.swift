import Foundation

/// A canonical table's description, loaded from `Schemas/*.schema.json` (close to Frictionless
/// Table Schema, plus per-field `aliases`). The SQLite tables are created from it, so a new field
/// is a schema edit, not a code change.
public struct Schema: Sendable, Hashable, Codable {
    /// The SQLite table name, e.g. `vehicles`.
    public var name: String
    public var title: String?
    public var fields: [Field]
    /// Field names that make a record's key (VIN for vehicles). Records that lack them are keyed by
    /// the source's own key rule (see ``SourceMapping``).
    public var primaryKey: [String]

    public init(name: String, title: String? = nil, fields: [Field], primaryKey: [String]) {
        self.name = name
        self.title = title
        self.fields = fields
        self.primaryKey = primaryKey
    }

    /// The index of the field with this name or alias, compared after ``Schema/fold(_:)``.
    public func fieldIndex(named name: String) -> Int? {
        let key = Schema.fold(name)
        if let i = fields.firstIndex(where: { Schema.fold($0.name) == key }) { return i }
        return fields.firstIndex(where: { $0.aliases.contains(where: { Schema.fold($0) == key }) })
    }

    /// Folds a header or key for matching: lower-case, units in brackets dropped
    /// (`Odometer (km)` → `odometer`), accents set aside (`Kilométrage` → `kilometrage`), everything
    /// but letters and digits dropped.
    public static func fold(_ s: String) -> String {
        // ASCII (almost every header and enum value): the same result from a byte loop; the
        // Unicode property lookups below cost ~1 µs per character.
        if let folded = s.utf8.withContiguousStorageIfAvailable(foldASCII), let folded { return folded }
        // UTF-8 bytes gathered in an array: appending scalars to a string (or to a scalar view,
        // which concatenates) copied it each time, quadratic (a 1.6 MB make took 20 s).
        var out: [UInt8] = []
        var depth = 0
        // Accents are set aside (`Kilométrage` is `kilometrage`, `Türen` is `turen`): decomposed,
        // then the combining marks dropped; `ß` is `ss` (`Fließheck` is `Fliessheck`, as German is
        // written without it). Both sides of every lookup are folded alike.
        for ch in s.decomposedLinearly.unicodeScalars where ch.properties.generalCategory != .nonspacingMark {
            switch ch {
            case "(", "[": depth += 1
            case ")", "]": depth = max(0, depth - 1)
            case "\u{DF}", "\u{1E9E}":
                if depth == 0 { out += [UInt8(ascii: "s"), UInt8(ascii: "s")] }
            default:
                if depth == 0, ch.properties.isAlphabetic || ch.properties.numericType != nil {
                    for scalar in ch.properties.lowercaseMapping.unicodeScalars {
                        UTF8.encode(scalar) { out.append($0) }
                    }
                }
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// ``fold(_:)`` for pure ASCII text; nil when `b` holds a non-ASCII byte.
    private static func foldASCII(_ b: UnsafeBufferPointer<UInt8>) -> String? {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: b.count) { out -> String? in
            var n = 0
            var depth = 0
            for c in b {
                switch c {
                case 0x28, 0x5B: depth += 1  // ( [
                case 0x29, 0x5D: depth = max(0, depth - 1)  // ) ]
                case 0x30...0x39, 0x61...0x7A:
                    if depth == 0 { out[n] = c; n += 1 }
                case 0x41...0x5A:
                    if depth == 0 { out[n] = c + 0x20; n += 1 }
                case 0x80...: return nil
                default: break
                }
            }
            return String(decoding: UnsafeBufferPointer(rebasing: out[0..<n]), as: UTF8.self)
        }
    }
}

/// One field of a ``Schema``.
public struct Field: Sendable, Hashable, Codable {
    public enum FieldType: String, Sendable, Hashable, Codable {
        case string, integer, number, boolean, date, datetime, yearmonth
        /// ISO date (`2019-03-01`) or year-month (`2019-03`).
        case dateOrYearMonth = "date-or-yearmonth"
        /// A list of values, stored as a JSON array text.
        case array
    }

    public struct Constraints: Sendable, Hashable, Codable {
        public var required: Bool?
        public var minimum: Double?
        public var maximum: Double?
        public var `enum`: [String]?
        public var pattern: String?
        /// A maximum relative to the current year: the maximum is this year plus the offset
        /// (`model_year` allows next year's models: offset 1). Applied together with `maximum`.
        public var maximumYearOffset: Int?
        public init(
            required: Bool? = nil, minimum: Double? = nil, maximum: Double? = nil, enum: [String]? = nil,
            pattern: String? = nil, maximumYearOffset: Int? = nil
        ) {
            self.required = required
            self.minimum = minimum
            self.maximum = maximum
            self.enum = `enum`
            self.pattern = pattern
            self.maximumYearOffset = maximumYearOffset
        }
    }

    public var name: String
    public var type: FieldType
    /// A format hint: `vin`, `latitude`, `longitude`, `uppercase`, `lowercase`, …
    public var format: String?
    public var title: String?
    public var description: String?
    public var constraints: Constraints?
    public var aliases: [String]
    /// The name of a synonym table (`Schemas/synonyms.json`) that canonicalizes this field's values.
    public var synonyms: String?
    /// The unit values are stored in (`km`, `kW`, `l`); a source in another unit is converted.
    public var unit: String?

    public init(
        name: String, type: FieldType, format: String? = nil, title: String? = nil, description: String? = nil,
        constraints: Constraints? = nil, aliases: [String] = [], synonyms: String? = nil, unit: String? = nil
    ) {
        self.name = name
        self.type = type
        self.format = format
        self.title = title
        self.description = description
        self.constraints = constraints
        self.aliases = aliases
        self.synonyms = synonyms
        self.unit = unit
    }

    enum CodingKeys: String, CodingKey {
        case name, type, format, title, description, constraints, aliases, synonyms, unit
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        name = try c.decode(String.self, forKey: .name)
        type = try c.decodeIfPresent(FieldType.self, forKey: .type) ?? .string
        format = try c.decodeIfPresent(String.self, forKey: .format)
        title = try c.decodeIfPresent(String.self, forKey: .title)
        description = try c.decodeIfPresent(String.self, forKey: .description)
        constraints = try c.decodeIfPresent(Constraints.self, forKey: .constraints)
        aliases = try c.decodeIfPresent([String].self, forKey: .aliases) ?? []
        synonyms = try c.decodeIfPresent(String.self, forKey: .synonyms)
        unit = try c.decodeIfPresent(String.self, forKey: .unit)
    }

    public var isRequired: Bool { constraints?.required ?? false }
}

/// A typed canonical value, as stored in SQLite.
public enum FieldValue: Sendable, Hashable {
    case text(String)
    case integer(Int64)
    case real(Double)
    case bool(Bool)

    /// The value as text, as a CSV export writes it.
    public var text: String {
        switch self {
        case .text(let s): s
        case .integer(let i): String(i)
        case .real(let d): FieldValue.format(d)
        case .bool(let b): b ? "true" : "false"
        }
    }

    /// Shortest round-tripping decimal text for a double, without a trailing `.0` for whole numbers.
    public static func format(_ d: Double) -> String {
        if d == d.rounded(.towardZero), abs(d) < 1e15 { return String(Int64(d)) }
        return d.description
    }

    /// ``decimalText(_:)`` as CSV exports write it: a number of one to three whole digits and
    /// exactly three decimals gets a fourth, `0` (`111.855` is written `111.8550`). Read back,
    /// `111.855` is ambiguous (a dot grouping thousands in a European export, or three decimals?),
    /// and rejected unless `--decimal point` is given: the tool's own hp→kW conversion makes such
    /// values (150 hp is 111.855 kW), and its exports must load back as they are.
    public static func csvDecimalText(_ d: Double) -> String {
        let text = decimalText(d)
        let b = text.utf8
        guard b.count >= 5, b.count <= 8, let dot = b.firstIndex(of: UInt8(ascii: ".")) else { return text }
        let whole = b.distance(from: b.startIndex, to: dot) - (b.first == UInt8(ascii: "-") ? 1 : 0)
        let fraction = b.distance(from: dot, to: b.endIndex) - 1
        return (1...3).contains(whole) && fraction == 3 ? text + "0" : text
    }

    /// ``format(_:)`` in positional notation, as exports write numbers: the same shortest
    /// round-tripping digits, never an exponent (`0.00001`, not `1e-05`; `10000000000000000`, not
    /// `1e+16`), so spreadsheets and CSV readers see the number as it is.
    public static func decimalText(_ d: Double) -> String {
        let text = format(d)
        // The exponent looked for in the (small) string's bytes, not by Character (every real
        // cell of an export comes through here: a Character scan and string interpolation cost
        // the sorted export ~30% more instructions).
        let bytes = text.utf8
        guard let e = bytes.firstIndex(where: { $0 == UInt8(ascii: "e") || $0 == UInt8(ascii: "E") }),
            let exponent = Int(text[bytes.index(after: e)...])
        else {
            // A whole number from 1e15 up to 2^53 is written `1000000000000000.0`.
            return bytes.last == UInt8(ascii: "0") && bytes.dropLast().last == UInt8(ascii: ".") ? String(text.dropLast(2)) : text
        }
        var mantissa = text[..<e]
        let negative = mantissa.first == "-"
        if negative { mantissa = mantissa.dropFirst() }
        let parts = mantissa.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
        let whole = parts[0]
        let fraction = parts.count > 1 ? parts[1] : ""
        var digits = Array(whole + fraction)
        var point = whole.count + exponent
        while digits.count > 1, digits.first == "0" {
            digits.removeFirst()
            point -= 1
        }
        while digits.count > max(point, 1), digits.last == "0" { digits.removeLast() }
        var out = negative ? "-" : ""
        if point <= 0 {
            out += "0." + String(repeating: "0", count: -point) + String(digits)
        } else if point >= digits.count {
            out += String(digits) + String(repeating: "0", count: point - digits.count)
        } else {
            out += String(digits[..<point]) + "." + String(digits[point...])
        }
        return out
    }
}

/// A record mapped onto a schema: one optional value per schema field (same order as
/// `schema.fields`), its key, its provenance and its findings.
public struct CanonicalRecord: Sendable, Hashable {
    public var values: [FieldValue?]
    /// The dedup key: the VIN for vehicles, `source:source_id` for sources without VINs,
    /// normalized name plus rounded coordinates for locations. Nil when it cannot be formed (the
    /// record then carries an error finding).
    public var key: String?
    /// `source:source_id` for a record of a source keyed by its VIN when it has one, else by its
    /// id (`fleet-record`), whichever the key is: the same vehicle stored under the other key by an
    /// earlier run (before its VIN was known, or with it) is found by it (see ``ImportSession``).
    public var idKey: String?
    public var provenance: Provenance
    public var findings: [Finding]
    /// The record as read, kept for rejects and duplicates so nothing is lost.
    public var raw: RawRecord

    public init(values: [FieldValue?], key: String?, provenance: Provenance, findings: [Finding], raw: RawRecord) {
        self.values = values
        self.key = key
        self.provenance = provenance
        self.findings = findings
        self.raw = raw
    }

    /// True when any finding is an error: the record is rejected.
    public var isRejected: Bool { findings.contains { $0.severity == .error } }
}
