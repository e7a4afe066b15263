/// How one source shape maps onto a canonical schema, loaded from `Schemas/sources/*.json`
/// (format documented in `Schemas/README.md`).
public struct SourceMapping: Sendable, Hashable, Codable {
    /// How a record's dedup key is formed.
    public enum KeyRule: String, Sendable, Hashable, Codable {
        /// The normalized VIN.
        case vin
        /// `NAME:SOURCE_ID`, for sources without VINs.
        case sourceID = "source-id"
        /// The VIN when present, else `NAME:SOURCE_ID`.
        case vinOrSourceID = "vin-or-source-id"
        /// Normalized name plus coordinates rounded to 1e-6.
        case location
    }

    /// A transform applied to a source value before it is typed.
    public enum Transform: String, Sendable, Hashable, Codable {
        /// Miles to kilometres (same as `"unit": "mi"`).
        case milesToKm = "miles-to-km"
        /// Splits a combined `make and model` value into two targets with the known makes list.
        case splitMakeModel = "split-make-model"
        /// Stores any value (array, object, scalar) as JSON text.
        case jsonArray = "json-array"
    }

    /// One source key and where it goes.
    public struct FieldMap: Sendable, Hashable, Codable {
        /// The source key, matched after ``Schema/fold(_:)``.
        public var source: String
        /// The canonical field it fills.
        public var target: String?
        /// Several canonical fields, for transforms that produce more than one (`split-make-model`).
        public var targets: [String]?
        public var transform: Transform?
        /// The date pattern the source writes (`MM/yyyy`, `dd.MM.yyyy`, `MM/dd/yyyy`); ISO dates are
        /// accepted as well.
        public var dateFormat: String?
        /// The unit the source writes (`mi`, `hp`, `PS`, `gal`), converted to the field's unit.
        public var unit: String?
        /// False for a key the source loads when a record has it but that is no part of its shape:
        /// not counted when telling the source from a record's keys (an autoscout listing's
        /// optional `VIN`: a fleet CSV `ID,VIN,Make,Model,FuelType` was read as listings).
        public var detect: Bool?

        public init(
            source: String, target: String? = nil, targets: [String]? = nil, transform: Transform? = nil,
            dateFormat: String? = nil, unit: String? = nil
        ) {
            self.source = source
            self.target = target
            self.targets = targets
            self.transform = transform
            self.dateFormat = dateFormat
            self.unit = unit
        }
    }

    /// The keys whose presence identifies this source in a CSV header or a JSON record.
    public struct Detection: Sendable, Hashable, Codable {
        /// Keys that must all be present.
        public var all: [String]
        /// Keys of which at least `anyCount` must be present.
        public var any: [String]
        public var anyCount: Int
        /// Further groups of keys, each of which must hold as `any`/`anyCount` does (fleet-record:
        /// three of its plain keys and one of its camelCase ones, whichever are in the record).
        public var anyGroups: [Group]
        /// Compare after ``Schema/fold(_:)`` and against the schema aliases (the generic `fleet`
        /// table); otherwise keys are compared exactly as written.
        public var folded: Bool

        /// Keys of which at least `anyCount` must be present.
        public struct Group: Sendable, Hashable, Codable {
            public var any: [String]
            public var anyCount: Int
            public init(any: [String], anyCount: Int = 1) {
                self.any = any
                self.anyCount = anyCount
            }
            enum CodingKeys: String, CodingKey { case any, anyCount }
            public init(from decoder: any Decoder) throws {
                let c = try decoder.container(keyedBy: CodingKeys.self)
                any = try c.decode([String].self, forKey: .any)
                anyCount = try c.decodeIfPresent(Int.self, forKey: .anyCount) ?? 1
            }
        }

        public init(
            all: [String] = [], any: [String] = [], anyCount: Int = 0, anyGroups: [Group] = [], folded: Bool = false
        ) {
            self.all = all
            self.any = any
            self.anyCount = anyCount
            self.anyGroups = anyGroups
            self.folded = folded
        }

        enum CodingKeys: String, CodingKey { case all, any, anyCount, anyGroups, folded }
        public init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: CodingKeys.self)
            all = try c.decodeIfPresent([String].self, forKey: .all) ?? []
            any = try c.decodeIfPresent([String].self, forKey: .any) ?? []
            anyCount = try c.decodeIfPresent(Int.self, forKey: .anyCount) ?? (any.isEmpty ? 0 : 1)
            anyGroups = try c.decodeIfPresent([Group].self, forKey: .anyGroups) ?? []
            folded = try c.decodeIfPresent(Bool.self, forKey: .folded) ?? false
        }
    }

    /// The source name (`fleet`, `autoscout`, …), written into the `source` field.
    public var name: String
    public var description: String?
    /// The schema this source maps onto (`vehicle`, `location`).
    public var schema: String
    /// The wrapper keys a JSON file may hold the records under (`vehicles`, `locations`).
    public var wrappers: [String]
    /// Also match keys against the schema's field names and aliases.
    public var matchAliases: Bool
    /// The generic mapping used when no specific one fits (wins no tie).
    public var fallback: Bool
    public var fields: [FieldMap]
    /// Source keys known and deliberately not mapped (the raw record keeps them).
    public var ignore: [String]
    /// Canonical fields that must have a value (in addition to the schema's `required`).
    public var required: [String]
    public var key: KeyRule
    public var detect: Detection

    public init(
        name: String, description: String? = nil, schema: String, wrappers: [String] = [], matchAliases: Bool = false,
        fallback: Bool = false, fields: [FieldMap], ignore: [String] = [], required: [String] = [], key: KeyRule,
        detect: Detection
    ) {
        self.name = name
        self.description = description
        self.schema = schema
        self.wrappers = wrappers
        self.matchAliases = matchAliases
        self.fallback = fallback
        self.fields = fields
        self.ignore = ignore
        self.required = required
        self.key = key
        self.detect = detect
    }

    enum CodingKeys: String, CodingKey {
        case name, description, schema, wrappers, matchAliases, fallback, fields, ignore, required, key, detect
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        name = try c.decode(String.self, forKey: .name)
        description = try c.decodeIfPresent(String.self, forKey: .description)
        schema = try c.decode(String.self, forKey: .schema)
        wrappers = try c.decodeIfPresent([String].self, forKey: .wrappers) ?? []
        matchAliases = try c.decodeIfPresent(Bool.self, forKey: .matchAliases) ?? false
        fallback = try c.decodeIfPresent(Bool.self, forKey: .fallback) ?? false
        fields = try c.decodeIfPresent([FieldMap].self, forKey: .fields) ?? []
        ignore = try c.decodeIfPresent([String].self, forKey: .ignore) ?? []
        required = try c.decodeIfPresent([String].self, forKey: .required) ?? []
        key = try c.decode(KeyRule.self, forKey: .key)
        detect = try c.decodeIfPresent(Detection.self, forKey: .detect) ?? Detection()
    }

    /// For a specific mapping (one that does not match aliases itself), the schema fields a key
    /// outside its field list still loads into by the field's name or an alias, folded name →
    /// field index: a fleet-record record carrying a `color` keeps its colour instead of dropping
    /// it (and a record with such extra keys is no longer read as `fleet`, which knew them). Not
    /// the fields the mapping fills itself, nor what keys a record or says where it came from
    /// (`vin`, `source_id`, `source`, the decoded `vin_` fields), and only plain text fields, whose
    /// value cannot fail (no enum, number or date): an autoscout listing's `"Type": "Used"` as
    /// `vehicle_type` would reject every listing that loaded before.
    public func extraAliasFields(in schema: Schema) -> [String: Int] {
        guard !matchAliases else { return [:] }
        var targeted = Set<String>()
        for f in fields {
            if let t = f.target { targeted.insert(t) }
            for t in f.targets ?? [] { targeted.insert(t) }
        }
        let own = Set(fields.map { Schema.fold($0.source) }).union(ignore.map(Schema.fold))
        var out: [String: Int] = [:]
        for (i, field) in schema.fields.enumerated()
        where !targeted.contains(field.name) && !["vin", "source_id", "source"].contains(field.name) && !field.name.hasPrefix("vin_")
            && field.type == .string && field.constraints?.enum == nil && field.constraints?.pattern == nil
        {
            for name in [field.name] + field.aliases {
                let folded = Schema.fold(name)
                if !own.contains(folded), out[folded] == nil { out[folded] = i }
            }
        }
        return out
    }
}
