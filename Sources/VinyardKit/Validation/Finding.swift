/// How bad a finding is: an `error` rejects the record, a `warning` loads it and records the finding.
public enum Severity: String, Sendable, Hashable, Codable, Comparable {
    case warning, error
    public static func < (a: Self, b: Self) -> Bool { a == .warning && b == .error }
}

/// A stable finding code (DESIGN.md "Validation"), such as `vin.check_digit`.
public struct FindingCode: RawRepresentable, Hashable, Sendable, Comparable, CustomStringConvertible,
    ExpressibleByStringLiteral
{
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public init(_ rawValue: String) { self.rawValue = rawValue }
    public init(stringLiteral value: String) { self.rawValue = value }
    public var description: String { rawValue }
    public static func < (a: Self, b: Self) -> Bool { a.rawValue < b.rawValue }

    public static let vinLength: Self = "vin.length"
    public static let vinCharacters: Self = "vin.characters"
    public static let vinCheckDigit: Self = "vin.check_digit"
    public static let vinModelYear: Self = "vin.model_year"
    public static let vinPlaceholder: Self = "vin.placeholder"
    public static let vinWMIUnknown: Self = "vin.wmi_unknown"
    public static let vinMakeMismatch: Self = "vin.make_mismatch"
    public static let vinYearMismatch: Self = "vin.year_mismatch"
    public static let coordLatitude: Self = "coord.latitude"
    public static let coordLongitude: Self = "coord.longitude"
    public static let coordIncomplete: Self = "coord.incomplete"
    public static let coordSwapped: Self = "coord.swapped"
    public static let coordNullIsland: Self = "coord.null_island"
    public static let fieldRequired: Self = "field.required"
    public static let fieldType: Self = "field.type"
    public static let fieldEnum: Self = "field.enum"
    public static let fieldRange: Self = "field.range"
    public static let fieldDate: Self = "field.date"
    public static let rowRagged: Self = "row.ragged"
    public static let rowEncoding: Self = "row.encoding"
    /// A JSON element or JSON Lines line that is not a well-formed object.
    public static let rowMalformed: Self = "row.malformed"
    public static let keyConflict: Self = "key.conflict"
    public static let vehicleAccident: Self = "vehicle.accident"
}

/// One thing a validator found about a record: code, severity, the field, where, and a message that
/// says what to do.
public struct Finding: Sendable, Hashable {
    public var code: FindingCode
    public var severity: Severity
    /// The canonical (or source) field the finding is about; nil for whole-row findings.
    public var field: String?
    public var message: String
    /// A repair, such as the probable intended VIN; nil when there is none.
    public var suggestion: String?
    /// The input name and line, filled in by the pipeline from the record's provenance.
    public var input: String?
    public var line: Int?
    /// The record's 0-based element index in a JSON array (nil elsewhere): on a one-line array the
    /// line alone does not tell the records apart.
    public var element: Int?

    public init(
        _ code: FindingCode, _ severity: Severity, field: String? = nil, message: String,
        suggestion: String? = nil, input: String? = nil, line: Int? = nil, element: Int? = nil
    ) {
        self.code = code
        self.severity = severity
        self.field = field
        self.message = message
        self.suggestion = suggestion
        self.input = input
        self.line = line
        self.element = element
    }

    /// `fleet.csv:12`, or `fleet.json:1 (element 7)`; nil when the input is not known.
    public var place: String? {
        guard let input, let line else { return nil }
        return Provenance(input: input, line: line, index: element).description
    }
}
