import Foundation

/// Options that change how records are mapped and validated.
public struct MapperOptions: Sendable, Hashable {
    /// `AccidentFree: false` becomes an error (`--reject-accidents`) instead of a warning.
    public var rejectAccidents: Bool
    /// How text numbers separate decimals (JSON numbers always use `.`). Set `.comma` for a
    /// `;`-delimited European export when you know it writes `12,5`.
    public var decimalSeparator: DecimalSeparator
    /// The year `maximumYearOffset` constraints count from (the current year by default).
    public var referenceYear: Int
    /// Add a `row.encoding` warning to records decoded as Windows-1252.
    public var reportEncoding: Bool
    /// The input was read as UTF-8 whatever it held (`--encoding utf-8`): a row that is not valid
    /// UTF-8 had its invalid bytes replaced (U+FFFD), not read as Windows-1252; the warning says so.
    public var invalidBytesReplaced = false
    /// How dates are written where the source mapping does not say (`--date-format MM/dd/yyyy`);
    /// ISO dates are read too.
    public var datePattern: DatePattern?

    public init(
        rejectAccidents: Bool = false, decimalSeparator: DecimalSeparator = .auto, referenceYear: Int? = nil,
        reportEncoding: Bool = true
    ) {
        self.rejectAccidents = rejectAccidents
        self.decimalSeparator = decimalSeparator
        self.referenceYear = referenceYear ?? Calendar(identifier: .gregorian).component(.year, from: Date())
        self.reportEncoding = reportEncoding
    }
}

/// The indices (into `schema.fields` and `CanonicalRecord.values`) of the fields the pipeline
/// works with by name; nil when the schema has no such field.
public struct KnownFields: Sendable, Hashable {
    public var vin, make, model, modelYear, latitude, longitude, source, sourceID, name: Int?
    public var accidentFree, vinManufacturer, vinCountry, vinModelYears, address: Int?

    init(_ schema: Schema) {
        func index(_ n: String) -> Int? { schema.fields.firstIndex { $0.name == n } }
        vin = index("vin")
        make = index("make")
        model = index("model")
        modelYear = index("model_year")
        latitude = schema.fields.firstIndex { $0.format == "latitude" } ?? index("latitude")
        longitude = schema.fields.firstIndex { $0.format == "longitude" } ?? index("longitude")
        source = index("source")
        sourceID = index("source_id")
        name = index("name")
        accidentFree = index("accident_free")
        vinManufacturer = index("vin_manufacturer")
        vinCountry = index("vin_country")
        vinModelYears = index("vin_model_years")
        address = index("address")
    }
}

/// Turns ``RawRecord``s of one source into ``CanonicalRecord``s of its schema: source keys to
/// schema fields, typing, normalization, required/enum/range/date checks, coordinates, the key.
/// VIN checks are not done here (the VIN string is only normalized).
///
/// A mapper caches the plan for the last key layout (a CSV header, a JSON key order) and per key
/// name, so mapping a row costs one pass over its fields. Not thread-safe: use one per task.
public final class Mapper {
    public let mapping: SourceMapping
    public let schema: Schema
    public let options: MapperOptions
    /// Indices of well-known fields, for cross-checks and the VIN engine's decoded values.
    public let known: KnownFields

    private let typers: [FieldTyper]
    private let makes: MakeTable
    /// Folded source key → slots from the mapping's explicit field list, in mapping order.
    private var explicit: [String: [Slot]] = [:]
    /// Folded schema name or alias → field index (when the mapping matches aliases; for a specific
    /// mapping, those of the fields it does not fill, ``SourceMapping/extraAliasFields(in:)``).
    private var aliases: [String: Int] = [:]
    private var ignored: Set<String> = []
    private var requiredFields: [Int] = []
    /// For the catch-all mapping (``SourceMapping/fallback``): the other sources of its schema by
    /// name, with their key rules. A record whose `source` value names one (a file `convert` or
    /// `export` wrote from an AutoScout feed) keeps that source and is keyed by its rule: it was
    /// taken for a `fleet` record, which needs a VIN, so records keyed by their source's id were
    /// rejected, and the rest loaded under `fleet`.
    private var foreignSources: [String: Int] = [:]
    /// ``foreignSources``' names and key rules, by the index it holds.
    private var foreignList: [(name: String, key: SourceMapping.KeyRule)] = []

    private var layoutNames: [String] = []
    private var layoutPlan: [PlanEntry] = []
    /// The keys of the last layout that another key of it shadows (usually none).
    private var layoutShadowed: [ShadowedColumn] = []
    /// Object keys met and whether each stands for another thing (``isRelatedObject(_:)``).
    private var relatedObjects: [String: Bool] = [:]
    /// Whether the last layout's shadowed keys are already in `pendingShadowed`.
    private var layoutNoted = true
    /// Shadowed keys of the layouts mapped since the last ``takeShadowedKeys()``, each with the
    /// first record that had them.
    private var pendingShadowed: [(column: ShadowedColumn, provenance: Provenance)] = []
    /// The keys of the last layout that no field takes and the mapping does not ignore (usually none).
    private var layoutUnmapped: [String] = []
    /// Unmapped keys of the layouts mapped since the last ``takeUnmappedKeys()``, each with the
    /// first record that had them.
    private var pendingUnmapped: [(name: String, provenance: Provenance)] = []
    /// The fields of the last layout without a name that no field takes (a CSV column whose
    /// header is empty), by index; usually none.
    private var layoutUnnamed: [Int] = []
    /// Those of them found holding a value in the last layout (noted once each).
    private var notedUnnamed: Set<Int> = []
    /// Unnamed columns found holding a value since the last ``takeUnnamedColumns()``: the column
    /// (1-based) and the first record with a value in it.
    private var pendingUnnamed: [(column: Int, provenance: Provenance)] = []
    /// The most entries `pendingShadowed` and `pendingUnmapped` keep between takes.
    static let pendingLimit = 64
    private var slotsByName: [String: [Slot]] = [:]
    /// True when the last layout has a column of units (``Slot/Kind/unit(of:orElse:)``).
    private var layoutHasUnits = false
    private var datePatterns: [DatePattern] = []
    /// The index in `datePatterns` of ``MapperOptions/datePattern`` (-1: none).
    private var defaultPattern = -1

    /// Plain data (no references), so copying a plan entry costs no reference counting.
    struct Slot {
        enum Kind {
            /// `pattern` indexes `datePatterns` (-1: none); `unitFactor` 0 means none.
            case assign(field: Int, unitFactor: Double, pattern: Int, asJSON: Bool)
            case split(make: Int, model: Int)
            /// A column of units written beside the numbers of another (`Odometer Unit`: `mi`):
            /// the unit of field `of`, or (`of` -1, a plain `Unit` column) of the one field its
            /// value converts into. A value that is no unit goes to field `orElse` (-1: none):
            /// `Unit` is also a fleet's unit number.
            case unit(of: Int, orElse: Int)
        }
        var kind: Kind
        var priority: Int
    }

    struct PlanEntry {
        var rawIndex: Int
        var slot: Slot
    }

    /// Builds a mapper for a source mapping and the schema it names in `catalog`.
    public init(mapping: SourceMapping, catalog: SchemaCatalog, options: MapperOptions = MapperOptions()) throws {
        try catalog.validate(mapping)
        let schema = try catalog.schema(for: mapping)
        self.mapping = mapping
        self.schema = schema
        self.options = options
        self.known = KnownFields(schema)
        self.makes = catalog.makes
        self.typers = try schema.fields.enumerated().map {
            try FieldTyper(
                field: $1, index: $0, catalog: catalog, decimal: options.decimalSeparator,
                referenceYear: options.referenceYear)
        }
        if let p = options.datePattern {
            defaultPattern = datePatterns.count
            datePatterns.append(p)
        }
        let index = Dictionary(schema.fields.enumerated().map { ($1.name, $0) }, uniquingKeysWith: { a, _ in a })
        for (priority, map) in mapping.fields.enumerated() {
            let kind: Slot.Kind
            if map.transform == .splitMakeModel, let t = map.targets, t.count == 2, let m = index[t[0]],
                let n = index[t[1]]
            {
                kind = .split(make: m, model: n)
            } else if let target = map.target ?? map.targets?.first, let f = index[target] {
                var unit = map.unit
                if map.transform == .milesToKm { unit = "mi" }
                let factor = try unit.map { try Self.unitFactor(from: $0, to: schema.fields[f].unit, strict: true) } ?? nil
                var pattern = -1
                if let p = map.dateFormat.flatMap(DatePattern.init) ?? options.datePattern {
                    pattern = datePatterns.count
                    datePatterns.append(p)
                }
                kind = .assign(field: f, unitFactor: factor ?? 0, pattern: pattern, asJSON: map.transform == .jsonArray)
            } else {
                continue
            }
            explicit[Schema.fold(map.source), default: []].append(Slot(kind: kind, priority: priority))
        }
        if mapping.matchAliases {
            for (i, field) in schema.fields.enumerated() {
                for name in [field.name] + field.aliases where aliases[Schema.fold(name)] == nil {
                    aliases[Schema.fold(name)] = i
                }
            }
        } else {
            // A specific source's extra keys load into the schema fields it does not fill itself.
            aliases = mapping.extraAliasFields(in: schema)
        }
        ignored = Set(mapping.ignore.map(Schema.fold))
        var required = Set<Int>()
        for name in mapping.required { if let i = index[name] { required.insert(i) } }
        for (i, f) in schema.fields.enumerated() where f.isRequired { required.insert(i) }
        if mapping.key == .vin, let v = known.vin { required.insert(v) }
        if mapping.key == .sourceID, let s = known.sourceID { required.insert(s) }
        requiredFields = required.sorted()
        if mapping.fallback, known.source != nil {
            for other in catalog.mappings where other.schema == mapping.schema && other.name != mapping.name {
                foreignSources[other.name] = foreignList.count
                foreignList.append((other.name, other.key))
            }
        }
    }

    /// The index in ``foreignList`` of the source a record's own `source` value names (an index:
    /// the usual record has none, and a name passed along cost reference counting every row).
    @inline(__always)
    private func foreignSource(_ values: [FieldValue?]) -> Int? {
        guard !foreignList.isEmpty, let s = known.source, case .text(let text)? = values[s] else { return nil }
        return foreignSources[text.lowercased()]
    }

    /// A set of field indices: a bit mask for up to 64 fields (no allocation), flags beyond.
    struct FieldSet {
        private var bits: UInt64 = 0
        private var more: [Bool]

        init(count: Int) {
            more = count > 64 ? [Bool](repeating: false, count: count - 64) : []
        }

        // Always inlined: as a call (when `map` grew), its setter cost ~25 instructions a field.
        subscript(_ i: Int) -> Bool {
            @inline(__always) get { i < 64 ? bits & (1 << UInt64(i)) != 0 : more[i - 64] }
            @inline(__always) set {
                if i < 64 {
                    if newValue { bits |= 1 << UInt64(i) } else { bits &= ~(1 << UInt64(i)) }
                } else {
                    more[i - 64] = newValue
                }
            }
        }
    }

    // MARK: Plan

    private func slots(for name: String) -> [Slot] {
        if let cached = slotsByName[name] { return cached }
        let folded = Schema.fold(name)
        var result = explicit[folded] ?? []
        // A unit in the key's brackets is the one its values are in, whatever the mapping's key
        // says (`Mileage (mi)` matches autoscout's `Mileage (km)`: its miles were stored as km).
        if !result.isEmpty, let unit = Self.bracketUnit(name) {
            for i in result.indices {
                guard case .assign(let f, _, let pattern, let asJSON) = result[i].kind, let target = schema.fields[f].unit,
                    let factor = Self.conversion(from: unit, to: target)
                else { continue }
                result[i].kind = .assign(field: f, unitFactor: factor == 1 ? 0 : factor, pattern: pattern, asJSON: asJSON)
            }
        }
        if result.isEmpty, mapping.matchAliases, !ignored.contains(folded), let slot = unitColumnSlot(folded) {
            result = [slot]
        } else if result.isEmpty, !ignored.contains(folded), let f = aliases[folded] {
            let factor = Self.bracketUnit(name).flatMap { try? Self.unitFactor(from: $0, to: schema.fields[f].unit, strict: false) }
            // A header that is the field's own name comes before one that is an alias of it
            // (`Make` before `Marke` when a file has both), then columns in order.
            let rank = folded == Schema.fold(schema.fields[f].name) ? 1_000_000 : 2_000_000
            result = [Slot(kind: .assign(field: f, unitFactor: factor ?? 0, pattern: defaultPattern, asJSON: false), priority: rank)]
        } else if result.isEmpty, mapping.matchAliases, !ignored.contains(folded), Self.bracketUnit(name) == nil,
            let (f, factor) = unitSuffixField(folded)
        {
            result = [Slot(kind: .assign(field: f, unitFactor: factor, pattern: defaultPattern, asJSON: false), priority: 2_000_000)]
        }
        if slotsByName.count < 10_000 { slotsByName[name] = result }
        return result
    }

    /// Header names of a column of units of measure (`UOM`): the unit of whichever field its
    /// values convert into, else of the distance (`hours` beside an odometer rejects it). Not
    /// `Einheit` and the like alone, which also name a department, nor `Units`, also a quantity.
    private static let unitColumnNames: Set<String> = ["uom", "unitofmeasure", "unitofmeasurement"]
    private static let unitColumnSuffixes = ["units", "unit", "uom", "einheit"]

    /// The slot of a column of units: `Unit`, `UOM` (for the field the value converts into), or a
    /// field with a unit followed by `unit` (`Odometer Unit`, `mileageUnit`, `Distance_Unit`);
    /// nil for other names.
    private func unitColumnSlot(_ folded: String) -> Slot? {
        // `Unit`: a unit, or the fleet's unit number.
        if folded == "unit" { return Slot(kind: .unit(of: -1, orElse: aliases[folded] ?? -1), priority: 2_000_000) }
        if Self.unitColumnNames.contains(folded), aliases[folded] == nil {
            return Slot(kind: .unit(of: -2, orElse: -1), priority: 2_000_000)
        }
        guard aliases[folded] == nil else { return nil }
        for suffix in Self.unitColumnSuffixes where folded.count > suffix.count && folded.hasSuffix(suffix) {
            if let f = aliases[String(folded.dropLast(suffix.count))], schema.fields[f].unit != nil {
                return Slot(kind: .unit(of: f, orElse: -1), priority: 2_000_000)
            }
        }
        return nil
    }

    /// The field and unit a value of a units column gives: any text for a field's own units
    /// column (`of` ≥ 0); for a plain `Unit` column (-1), a unit that converts into exactly one
    /// field's unit; for a `UOM` column (-2), that or else the distance field's (its odometer).
    /// A spreadsheet's text prefix (`'mi`) is no part of it.
    private func rowUnit(_ value: RawValue, of field: Int) -> (field: Int, unit: String)? {
        guard !FieldTyper.isEmpty(value),
            let text = FieldTyper.withoutTextPrefix(value).scalarText.map(ValueParser.trimmed), !text.isEmpty
        else { return nil }
        if field >= 0 { return (field, text) }
        var found: Int?
        for f in schema.fields.indices {
            guard let target = schema.fields[f].unit, Self.conversion(from: text, to: target) != nil else { continue }
            if found != nil { return nil }
            found = f
        }
        if found == nil, field == -2, Self.isUnitWord(text) {
            found = schema.fields.indices.first { schema.fields[$0].unit.flatMap { Self.conversion(from: "mi", to: $0) } != nil }
        }
        return found.map { ($0, text) }
    }

    /// True for a unit's text: letters (any script), with dots and spaces (`mi.`, `km`, `Std.`);
    /// digits are no unit (`45` with `123` beside it read as 45,123).
    static func isUnitWord(_ text: String) -> Bool {
        var letter = false
        for b in text.utf8 {
            switch b {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), 0x80...: letter = true
            case UInt8(ascii: "."), UInt8(ascii: " "), UInt8(ascii: "/"): break
            default: return false
            }
        }
        return letter
    }

    /// The text of a number written without a unit (`45000`, `45,000`, a JSON number), which a
    /// units column beside it applies to; nil for anything else (`45000 km` keeps its own unit).
    static func bareNumberText(_ value: RawValue) -> String? {
        switch value {
        case .number(let n): return n
        case .string(let s):
            let t = ValueParser.trimmed(s)
            var digit = false
            for b in t.utf8 {
                switch b {
                case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = true
                case UInt8(ascii: "."), UInt8(ascii: ","), UInt8(ascii: " "), UInt8(ascii: "'"), UInt8(ascii: "-"),
                    UInt8(ascii: "+"), UInt8(ascii: "_"), UInt8(ascii: "e"), UInt8(ascii: "E"),
                    0xC2, 0xA0, 0xE2, 0x80, 0xAF:  // (no-break spaces: U+00A0, U+202F)
                    break
                default: return nil
                }
            }
            return digit ? t : nil
        default: return nil
        }
    }

    /// A name that is a field with a unit followed by a unit that converts into it, without
    /// brackets (`Odometer mi`, `Odometer_mi`, `odometerMeters`, `Power hp`: folded `odometermi`),
    /// or a distance or power unit alone (`Miles`, `PS`), as the field and the factor (0 for
    /// none); nil otherwise. Tried only for names that match nothing else.
    private func unitSuffixField(_ folded: String) -> (field: Int, factor: Double)? {
        // A distance or power unit alone (`Miles`, `PS`, `HP`) names the one field in that unit
        // (`Miles` was not loaded: the odometer was lost). Not `Meter` or `CH` (a country code).
        if Self.unitHeaders.contains(folded) {
            let fields = schema.fields.indices.filter { f in
                schema.fields[f].unit.flatMap { Self.conversion(from: folded, to: $0) } != nil
            }
            if fields.count == 1, let f = fields.first, let factor = Self.conversion(from: folded, to: schema.fields[f].unit ?? "") {
                return (f, factor == 1 ? 0 : factor)
            }
        }
        for unit in Self.unitsLongestFirst where folded.count > unit.count && folded.hasSuffix(unit) {
            // `Laufleistung in km`, `Odometer in miles`, `Kilométrage en km`: the name, then "in"
            // or "en", then the unit.
            var base = String(folded.dropLast(unit.count))
            if aliases[base] == nil, base.count > 2, base.hasSuffix("in") || base.hasSuffix("en"), aliases[String(base.dropLast(2))] != nil {
                base.removeLast(2)
            }
            guard let f = aliases[base], let target = schema.fields[f].unit,
                let factor = Self.conversion(from: unit, to: target)
            else { continue }
            return (f, factor == 1 ? 0 : factor)
        }
        return nil
    }

    /// A JSON record's nested objects, read as fields (nil when the record has none to read):
    /// - a measurement under a field's key (`"odometer": {"value": 1200, "unit": "mi"}`, or
    ///   `amount` and `currency`) is that field's value with its unit (`1200 mi`);
    /// - an object whose members name fields (`"location": {"lat": 52.3, "lng": 4.8}`, matched as
    ///   `location.lat` (compared as `location lat`), then as `lat`) gives those members as fields; its other members become
    ///   `location.name` keys, reported as not loaded like any unmapped key.
    /// An object under a field that takes one (a list field's JSON) or whose members name no
    /// field stays as it is. The raw record kept for rejects and duplicates is the original.
    /// - Parameter depth: how many own objects (`vehicle`, `attributes`) enclose `fields`; their
    ///   objects are read as at the top level up to ``maxOwnDepth`` deep.
    private func flattenedFields(_ fields: [RawField], depth: Int = 0) -> [RawField]? {
        var nested = false
        for field in fields {
            if case .object = field.value {
                nested = true
                break
            }
        }
        guard nested else { return nil }
        var out: [RawField] = []
        var changed = false
        // A JSON:API resource (`{"type": "vehicle", "id": "1", "attributes": {…}}`): its `type`
        // names the kind of resource, not the vehicle type (every record was a `field.enum` reject).
        // So does a GeoJSON feature's (`{"type": "Feature", "geometry": …, "properties": …}`: the
        // `export --format geojson` of a database did not load back).
        let resource =
            (fields.contains { f in
                if case .object = f.value { f.name == "attributes" } else { false }
            } && fields.contains { $0.name == "id" })
            || (fields.contains { f in
                if case .object = f.value { f.name == "geometry" } else { false }
            } && fields.contains { $0.name == "type" && $0.value.scalarText == "Feature" })
        // The vehicle-naming fields (VIN, make, model, …) the record gives at its top level,
        // worked out only for an object with such a member (most objects are positions and
        // readings: this cost 16k instructions a record when done for every one).
        var topIdentityCache: Set<Int>?
        func topIdentity() -> Set<Int> {
            if let topIdentityCache { return topIdentityCache }
            var found = Set<Int>()
            for field in fields {
                switch field.value {
                case .string(let text) where !text.isEmpty: break
                case .number, .bool: break
                default: continue
                }
                for slot in slots(for: field.name) {
                    if case .assign(let f, _, _, _) = slot.kind, identityField[f] { found.insert(f) }
                }
            }
            topIdentityCache = found
            return found
        }
        for var field in fields {
            if resource, field.name == "type", case .string = field.value, !isFieldValue(field.value, named: "type") {
                out.append(RawField("resource.type", field.value))
                changed = true
                continue
            }
            // MongoDB's extended JSON (`"_id": {"$oid": "65a1…"}`, `{"$numberInt": "2019"}`, `{"$date":
            // …}`) is the value it wraps: mongoexport's documents were all `field.type` rejects.
            if case .object(let members) = field.value, let scalar = Self.extendedJSONScalar(members) {
                field = RawField(field.name, scalar)
                changed = true
            }
            guard case .object(let members) = field.value, !members.isEmpty else {
                out.append(field)
                continue
            }
            // A JSON:API resource's `relationships`, `links` and `meta` point at other resources
            // (`"make": {"data": {"type": "makes", "id": "5"}}`: a `field.type` reject on every
            // record), and a Salesforce record's `attributes` (`type`, `url`) names its object type
            // (read as the vehicle type): kept whole, reported as not loaded.
            if (resource && ["relationships", "links", "meta"].contains(field.name))
                || (field.name == "attributes" && members.contains { $0.name == "url" }
                    && members.allSatisfy { ["type", "url"].contains($0.name) })
            {
                out.append(field)
                continue
            }
            let outer = slots(for: field.name)
            if outer.contains(where: { if case .assign(_, _, _, true) = $0.kind { true } else { false } }) {
                out.append(field)
                continue
            }
            if !outer.isEmpty, let text = Self.measurementText(members) {
                out.append(RawField(field.name, .string(text)))
                // Its other members (`"note": "estimated"`) are about the measurement, not the
                // record: kept by their path, reported as not loaded (`note` alone is `notes`, and
                // `unit` alone an alias of `source_id`).
                for member in members where !Self.measurementMembers.contains(member.name.lowercased()) {
                    out.append(RawField(field.name + "." + member.name, member.value))
                }
                changed = true
                continue
            }
            // A postal address (`"address": {"street", "zip", "city", "country"}`) is the
            // address as one text, `Hauptstr. 1, 10115 Berlin, DE`; its other members are
            // reported by their path. Not a position that carries an address (`lat`, `lng`).
            if outer.contains(where: { isAddress($0) }),
                !members.contains(where: { isCoordinate(slots(for: $0.name)) }),
                let (text, rest) = Self.addressText(members)
            {
                out.append(RawField(field.name, .string(text)))
                for member in rest { out.append(RawField(field.name + "." + member.name, member.value)) }
                changed = true
                continue
            }
            // A GeoJSON point under a position's key (`"location": {"type": "Point",
            // "coordinates": [4.83, 52.35]}`, longitude first) is the position; it was read as a
            // vehicle type 'Point'. Under another key (`home_depot`) it is not the vehicle's.
            if Self.positionKeys.contains(Schema.fold(field.name)) || isCoordinate(outer, orAddress: true),
                let (longitude, latitude) = Self.geoJSONPoint(members), isCoordinate(slots(for: "latitude")),
                isCoordinate(slots(for: "longitude"))
            {
                out.append(RawField("latitude", latitude))
                out.append(RawField("longitude", longitude))
                for member in members where !["type", "coordinates"].contains(member.name.lowercased()) {
                    out.append(RawField(field.name + "." + member.name, member.value))
                }
                changed = true
                continue
            }
            // A reading under another name than `value` beside its unit (`"odometer": {"current":
            // 45000, "unit": "mi"}`), where that name is no field of its own, is the measurement too.
            // Not an address's (`{"number": 12, "unit": "4B", …}`: an apartment).
            if !outer.isEmpty, !outer.contains(where: { isAddress($0) }), let reading = Self.unitReading(members),
                slots(for: field.name + "." + members[reading.number].name).isEmpty,
                slots(for: members[reading.number].name).isEmpty
            {
                out.append(RawField(field.name, .string(reading.text)))
                for (k, member) in members.enumerated() where k != reading.number && k != reading.unit {
                    out.append(RawField(field.name + "." + member.name, member.value))
                }
                changed = true
                continue
            }
            // Members that describe whatever object holds them (`id`, `type`, `status`, `notes`
            // of a driver, an owner, an engine) are the record's only in an object that stands
            // for the record itself (`vehicle`, `details`, `specs`); elsewhere they are kept by
            // their path and reported as not loaded (`"driver": {"id": "D-17"}` was the vehicle's
            // source_id, `"engine": {"type": "V8"}` its vehicle type).
            // (Elasticsearch's `_source` by its exact name: folded it is `source`, a data source.)
            let own = Self.recordOwnObjects.contains(Schema.fold(field.name)) || field.name == "_source"
            // An object that stands for another thing (a telematics `gateway`, a `trailer`, the
            // `driver`): the members that name a vehicle are that thing's, not the record's.
            // So is any object with a member naming what the record names already (`"reefer":
            // {"make": "Thermo King", "model": …}` beside the truck's `make`; found by review).
            let related = !own && (isRelatedObject(field.name) || members.contains { member in
                slots(for: member.name).contains { slot in
                    guard case .assign(let f, _, _, _) = slot.kind, identityField[f] else { return false }
                    return topIdentity().contains(f)
                }
            })
            var parts = Self.withUnitApplied(members)
            // The record's own object holds objects of its own (Elasticsearch's `_source`, a
            // GraphQL `node`, JSON:API `attributes` with `"location": {"lat", "lon"}` or an
            // odometer reading with its unit): they are read as at the top level (they were
            // `field.type` rejects, or dropped).
            // (A few levels: each re-reads what the levels below it found, and 500 nested
            // `vehicle` objects took 6 s a record; found by review.)
            if own, depth < Self.maxOwnDepth, parts.contains(where: { if case .object = $0.value { true } else { false } }),
                let inner = flattenedFields(parts, depth: depth + 1)
            {
                parts = inner
            }
            var named: [RawField] = [], others: [RawField] = []
            var alone: [RawField] = []
            var isPosition = false
            for member in parts {
                // Named by its path (`gps.lat`), as the input writes it, in warnings; matched as
                // `gps lat` (names are compared without punctuation).
                let path = field.name + "." + member.name
                let pathSlots = slots(for: path)
                let aloneSlots = pathSlots.isEmpty ? slots(for: member.name) : []
                if !pathSlots.isEmpty {
                    named.append(RawField(path, member.value))
                    if isCoordinate(pathSlots) { isPosition = true }
                } else if !aloneSlots.isEmpty,
                    own
                        || (!Self.entityAttributes.contains(Schema.fold(member.name)) && !(related && assignsIdentity(aloneSlots)))
                        || Self.sameField(aloneSlots, outer)
                {
                    alone.append(member)
                    if isCoordinate(aloneSlots) { isPosition = true }
                } else {
                    others.append(RawField(path, member.value))
                }
            }
            // A position (`gps`, `location`) in a vehicle record describes where the vehicle is:
            // its other members (`status`, `id` of the fix) are not the vehicle's, and are
            // reported by their path (in a place's record they are the place's: `name`). The
            // members of any other object are read alone.
            // (Not in an object that stands for the record: `"attributes": {"vin", "latitude", …}`
            // lost its VIN.)
            let foreign = isPosition && mapping.key != .location && !own
            for member in alone {
                if foreign, !isCoordinate(slots(for: member.name), orAddress: true) {
                    others.append(RawField(field.name + "." + member.name, member.value))
                } else {
                    named.append(member)
                }
            }
            guard !named.isEmpty else {
                // Another thing's object under a field's key (`"body": {"make": "Schmitz", …}`,
                // a trailer body's maker): its members by their paths, not the object as the
                // field's value (a `field.type` reject).
                if related, !others.isEmpty {
                    out += others
                    changed = true
                } else {
                    out.append(field)
                }
                continue
            }
            changed = true
            out += named
            out += others
        }
        return changed ? out : nil
    }

    /// True when one of `slots` assigns a field that names a vehicle (VIN, make, model, model
    /// year, trim, body, plate): in an object that stands for another thing (``isRelatedObject(_:)``:
    /// a `gateway`, a `trailer`) such a member names that thing, not the vehicle (a Samsara
    /// gateway's `model` was stored as the vehicle's, a trailer's `vin` filled an empty one; found
    /// by audit). Other objects' are read (`"build": {"make", "model", "year"}`).
    private func assignsIdentity(_ slots: [Slot]) -> Bool {
        slots.contains { slot in
            guard case .assign(let f, _, _, _) = slot.kind else { return false }
            return identityField[f]
        }
    }

    /// Per schema field: whether it names a vehicle (``identityFields``).
    private lazy var identityField: [Bool] = schema.fields.map { Self.identityFields.contains($0.name) }

    static let identityFields: Set<String> = ["vin", "make", "model", "model_year", "trim", "body_class", "license_plate"]

    /// Whether an object's key (folded) names something other than the vehicle: a device on it,
    /// a part of it, a vehicle coupled to it, or a person or firm.
    static func isRelatedObject(_ name: String) -> Bool {
        let folded = Array(Schema.fold(name).utf8)
        return relatedObjectWords.contains { word in
            let w = Array(word.utf8)
            return folded.count >= w.count && (0...(folded.count - w.count)).contains { i in folded[i..<(i + w.count)].elementsEqual(w) }
        }
    }

    /// ``isRelatedObject(_:)`` per key, remembered: every record of a feed has the same few
    /// (`String.contains` through Foundation cost 150k instructions a record).
    private func isRelatedObject(_ name: String) -> Bool {
        if let known = relatedObjects[name] { return known }
        let related = Self.isRelatedObject(name)
        if relatedObjects.count < 4096 { relatedObjects[name] = related }
        return related
    }

    static let relatedObjectWords = [
        "gateway", "device", "tracker", "sensor", "camera", "dashcam", "modem", "obd", "telematic", "hardware", "trailer",
        "tractor", "reefer", "refrigera", "crane", "liftgate", "upfit",
        "engine", "tire", "tyre", "battery", "gearbox", "driver", "owner", "operator", "dealer", "seller",
        "buyer", "customer", "lessee", "lessor", "insur", "parent", "replac", "previous", "towed", "towing",
    ]

    /// The scalar a MongoDB extended-JSON wrapper holds (`{"$oid": "65a1…"}`, `{"$numberLong":
    /// "42"}`, `{"$date": "2024-01-05T10:00:00Z"}` or `{"$date": {"$numberLong": "1704448800000"}}`,
    /// milliseconds since 1970, as an ISO 8601 UTC time), or nil for any other object.
    static func extendedJSONScalar(_ members: [RawField]) -> RawValue? {
        guard members.count == 1, let name = members.first?.name, name.hasPrefix("$") else { return nil }
        switch (name, members[0].value) {
        case ("$oid", .string(let s)), ("$symbol", .string(let s)), ("$uuid", .string(let s)): return .string(s)
        case ("$numberInt", .string(let s)), ("$numberLong", .string(let s)), ("$numberDouble", .string(let s)),
            ("$numberDecimal", .string(let s)):
            return Double(s) != nil ? .number(s) : .string(s)
        case ("$date", .string(let s)): return .string(s)
        case ("$date", .number(let n)): return extendedDate(n)
        case ("$date", .object(let inner)):
            guard inner.count == 1, inner[0].name == "$numberLong", case .string(let n) = inner[0].value else { return nil }
            return extendedDate(n)
        default: return nil
        }
    }

    private static func extendedDate(_ milliseconds: String) -> RawValue? {
        guard let ms = Int64(milliseconds) else { return nil }
        // Whole seconds formatted, the milliseconds written from the integer (as a double
        // divided by 1000, `…123` came out `…122`).
        let (seconds, rest) = ms.quotientAndRemainder(dividingBy: 1000)
        let whole = rest < 0 ? seconds - 1 : seconds
        let fraction = rest < 0 ? rest + 1000 : rest
        var style = Date.ISO8601FormatStyle()
        style.timeZone = TimeZone(identifier: "UTC") ?? style.timeZone
        let text = Date(timeIntervalSince1970: Double(whole)).formatted(style)
        guard fraction != 0, text.hasSuffix("Z") else { return .string(text) }
        let digits = String(fraction)
        return .string(text.dropLast() + "." + String(repeating: "0", count: 3 - digits.count) + digits + "Z")
    }

    /// True when `value` types as a value of the field the key `name` maps to (`truck` for `type`).
    private func isFieldValue(_ value: RawValue, named name: String) -> Bool {
        for slot in slots(for: name) {
            if case .assign(let f, _, _, _) = slot.kind, case .success = typers[f].type(value) { return true }
        }
        return false
    }

    /// True when one of `slots` assigns the latitude or the longitude (`orAddress`: or the
    /// address, which a position may carry: `"location": {"lat", "lng", "address"}`).
    private func isCoordinate(_ slots: [Slot], orAddress: Bool = false) -> Bool {
        slots.contains { slot in
            guard case .assign(let f, _, _, _) = slot.kind else { return false }
            return f == known.latitude || f == known.longitude || (orAddress && schema.fields[f].name == "address")
        }
    }

    private func isAddress(_ slot: Slot) -> Bool {
        guard case .assign(let f, _, _, _) = slot.kind else { return false }
        return schema.fields[f].name == "address"
    }

    /// The parts of a postal address object, by member name (compared in lower case without
    /// `_`, `-` and spaces), in the order they are written: street, postal code and city, region,
    /// country.
    private static let addressParts: [String: Int] = {
        var parts: [String: Int] = [:]
        for name in ["street", "street1", "streetaddress", "address1", "addressline1", "line1", "road", "strasse", "straße"] { parts[name] = 0 }
        for name in ["housenumber", "houseno", "streetnumber", "number", "hausnummer"] { parts[name] = 1 }
        for name in ["street2", "address2", "addressline2", "line2"] { parts[name] = 2 }
        for name in ["zip", "zipcode", "postcode", "postalcode", "plz", "postcodezip"] { parts[name] = 3 }
        for name in ["city", "town", "locality", "municipality", "place", "ort", "stadt"] { parts[name] = 4 }
        for name in ["state", "region", "province", "county", "district"] { parts[name] = 5 }
        for name in ["country", "countrycode", "countryname", "land"] { parts[name] = 6 }
        return parts
    }()

    /// `Hauptstr. 1, 10115 Berlin, Germany` for an object of address parts (at least one of
    /// street, postal code or city), with the members that are no part of it; nil otherwise.
    static func addressText(_ members: [RawField]) -> (String, [RawField])? {
        var parts = [String?](repeating: nil, count: 7)
        var rest: [RawField] = []
        for member in members {
            let name = String(member.name.lowercased().unicodeScalars.filter { !"_- ".unicodeScalars.contains($0) })
            guard let part = addressParts[name], parts[part] == nil else {
                rest.append(member)
                continue
            }
            switch member.value {
            case .string(let s): parts[part] = ValueParser.trimmed(s)
            case .number(let n): parts[part] = n
            case .null: parts[part] = ""
            default: rest.append(member)
            }
        }
        guard parts[0] != nil || parts[3] != nil || parts[4] != nil else { return nil }
        func filled(_ s: String?) -> String? { s.flatMap { $0.isEmpty ? nil : $0 } }
        let street = [filled(parts[0]), filled(parts[1])].compactMap { $0 }.joined(separator: " ")
        let place = [filled(parts[3]), filled(parts[4])].compactMap { $0 }.joined(separator: " ")
        let text = [street, filled(parts[2]) ?? "", place, filled(parts[5]) ?? "", filled(parts[6]) ?? ""]
            .filter { !$0.isEmpty }.joined(separator: ", ")
        return (text, rest)
    }

    /// True for a number written with exactly three digits after its `.` (and no exponent).
    static func threeDecimals(_ n: String) -> Bool {
        let b = Array(n.utf8)
        guard let dot = b.firstIndex(of: 0x2E) else { return false }
        return b.count - dot - 1 == 3 && b[(dot + 1)...].allSatisfy { $0 >= 0x30 && $0 <= 0x39 }
    }

    /// The members a measurement object is made of.
    static let measurementMembers: Set<String> = ["value", "amount", "unit", "currency"]

    /// How many own objects deep their objects are read as at the top level.
    static let maxOwnDepth = 4

    /// Keys of nested objects that stand for the record itself (folded: `vehicle_data` is
    /// `vehicledata`), whose members are all the record's.
    static let recordOwnObjects: Set<String> = Set([
        "vehicle", "car", "truck", "van", "bus", "motorcycle", "node",
        "asset", "unit", "record", "item", "attributes", "properties", "details", "detail", "info",
        "information", "data", "specs", "specifications", "specification", "technical", "technical data", "general",
        "identification", "registration", "fields", "vehicle data", "vehicle details", "vehicle info", "asset details",
        "asset info", "asset data", "vehicle attributes", "unit details",
    ].map(Schema.fold))

    /// Keys (folded) of a vehicle's position.
    static let positionKeys: Set<String> = Set([
        "location", "position", "gps", "geometry", "geo", "geolocation", "coordinates", "point", "last location",
        "last position", "current location", "current position", "gps location", "gps position", "last known location",
    ].map(Schema.fold))

    /// True when the two slot lists assign a field in common (`"status": {"status": "active"}`:
    /// the member is the outer key's own field, whatever object it is in).
    static func sameField(_ a: [Slot], _ b: [Slot]) -> Bool {
        a.contains { x in
            guard case .assign(let f, _, _, _) = x.kind else { return false }
            return b.contains { y in if case .assign(let g, _, _, _) = y.kind { f == g } else { false } }
        }
    }

    /// Member names (folded) that describe whichever object holds them.
    static let entityAttributes: Set<String> = [
        "id", "uid", "uuid", "type", "kind", "category", "name", "status", "state", "notes", "note", "comment",
        "comments", "description", "remarks", "address", "source", "code", "number", "no",
    ]

    /// A GeoJSON point's longitude and latitude (`{"type": "Point", "coordinates": [lon, lat]}`,
    /// an optional altitude after them), or nil.
    static func geoJSONPoint(_ members: [RawField]) -> (longitude: RawValue, latitude: RawValue)? {
        guard members.contains(where: { $0.name.lowercased() == "type" && $0.value.scalarText?.lowercased() == "point" }),
            let coordinates = members.first(where: { $0.name.lowercased() == "coordinates" }),
            case .array(let pair) = coordinates.value, pair.count == 2 || pair.count == 3,
            case .number = pair[0], case .number = pair[1]
        else { return nil }
        return (pair[0], pair[1])
    }

    /// A nested object's members with a `unit` (or `units`) text beside exactly one JSON number
    /// read as that number's unit: `{"power": 150, "unit": "hp"}` is `power` `150 hp`,
    /// `{"odometer": 45000, "unit": "mi"}` (in `details`) `odometer` `45000 mi`, and the `unit`
    /// member goes. It was read alone, as the record's `unit` (an alias of `source_id`, a fleet's
    /// unit number), and the number in the field's own unit: 45,000 miles stored as 45,000 km.
    static func withUnitApplied(_ members: [RawField]) -> [RawField] {
        guard let reading = unitReading(members) else { return members }
        var out = members
        out[reading.number].value = .string(reading.text)
        out.remove(at: reading.unit)
        return out
    }

    /// The one JSON number of `members` beside a `unit` (or `units`) text, with that unit
    /// (`45000 mi`), and where both are; nil without a unit or with more than one number.
    static func unitReading(_ members: [RawField]) -> (number: Int, unit: Int, text: String)? {
        guard let u = members.firstIndex(where: { ["unit", "units"].contains($0.name.lowercased()) }),
            case .string(let unit) = members[u].value, !ValueParser.trimmed(unit).isEmpty
        else { return nil }
        var number: Int?
        for i in members.indices where i != u {
            guard case .number = members[i].value else { continue }
            guard number == nil else { return nil }  // two numbers: whose unit?
            number = i
        }
        guard let i = number, case .number(let n) = members[i].value else { return nil }
        // As in ``measurementText(_:)``: three decimals of a JSON number stay decimals.
        return (i, u, (Self.threeDecimals(n) ? n + "0" : n) + " " + ValueParser.trimmed(unit))
    }

    /// `1200 km` for `{"value": 1200, "unit": "km"}` (or `amount` and `currency`: `32500 EUR`).
    /// Other members may sit beside the number and its unit; they are not part of the text.
    static func measurementText(_ members: [RawField]) -> String? {
        var number: String?, unit: String?
        for m in members {
            let name = m.name.lowercased()
            guard measurementMembers.contains(name) else { continue }
            // One number and one unit: a second of either is no measurement.
            if name == "value" || name == "amount" {
                guard number == nil else { return nil }
            } else {
                guard unit == nil else { return nil }
            }
            switch (name, m.value) {
            case ("value", .number(let n)), ("amount", .number(let n)):
                // A JSON number's `.` is its decimal point: `18.990` is 18.99. As text beside a
                // unit, three decimals would be read as written (`18.990 EUR` groups thousands),
                // so a fourth decimal digit keeps them a decimal under every --decimal.
                number = Self.threeDecimals(n) ? n + "0" : n
            case ("value", .string(let n)), ("amount", .string(let n)): number = n
            // No reading (`{"value": null, "unit": "km"}`): the field is empty.
            case ("value", .null), ("amount", .null): number = ""
            case ("unit", .string(let u)), ("currency", .string(let u)): unit = u
            case ("unit", .null), ("currency", .null): unit = ""
            default: return nil
            }
        }
        if number == "", unit != nil { return "" }
        // A reading with no unit, alone (`"odometer": {"value": 5000}`), with the time it was
        // taken (Samsara's `"odometerMeters": {"time": "…", "value": 5000000}`) or other members
        // (`"note"`, reported by the caller as not loaded): the number in the key's unit, as a
        // plain `5000` would be (each was a `field.type` reject before).
        if let number, unit == nil { return number }
        guard let number, let unit else { return nil }
        // Without a unit (`"unit": null`), the number in the field's own unit.
        return unit.isEmpty ? number : number + " " + unit
    }

    private func plan(for fields: [RawField]) -> [PlanEntry] {
        if fields.count == layoutNames.count {
            var same = true
            for i in 0..<fields.count where fields[i].name != layoutNames[i] {
                same = false
                break
            }
            if same { return layoutPlan }
        }
        var entries: [PlanEntry] = []
        for (i, f) in fields.enumerated() {
            for var slot in slots(for: f.name) {
                if slot.priority >= 1_000_000 { slot.priority = slot.priority / 1_000_000 * 1_000_000 + i }
                entries.append(PlanEntry(rawIndex: i, slot: slot))
            }
        }
        entries.sort { ($0.slot.priority, $0.rawIndex) < ($1.slot.priority, $1.rawIndex) }
        layoutNames = fields.map(\.name)
        layoutPlan = entries
        layoutHasUnits = entries.contains { if case .unit = $0.slot.kind { true } else { false } }
        layoutShadowed = shadowed(entries, names: layoutNames)
        // Once per new layout, like the plan itself.
        layoutUnmapped = []
        var mapped = [Bool](repeating: false, count: fields.count)
        for e in entries { mapped[e.rawIndex] = true }
        for i in fields.indices where !mapped[i] && !ignored.contains(Schema.fold(fields[i].name)) {
            layoutUnmapped.append(fields[i].name)
        }
        layoutUnnamed = fields.indices.filter { !mapped[$0] && fields[$0].name.isEmpty }
        notedUnnamed = []
        layoutNoted = layoutShadowed.isEmpty && layoutUnmapped.isEmpty
        return entries
    }

    /// Warnings for header columns matched to a field through its name or aliases whose unit in
    /// brackets does not convert into the field's unit (`Odometer (kg)`, `Odometer (1000 km)`,
    /// `Mileage (thousand miles)`): such a column is read in the field's own unit, so the run says
    /// so instead of loading values that may be off by a factor without a word. Once per header.
    public func unconvertedUnitWarnings(_ names: [String]) -> [String] {
        guard mapping.matchAliases else { return [] }
        var out: [String] = []
        for (i, name) in names.enumerated() {
            let folded = Schema.fold(name)
            guard explicit[folded] == nil, !ignored.contains(folded), let f = aliases[folded],
                let target = schema.fields[f].unit, let unit = Self.bracketUnit(name),
                Self.conversion(from: unit, to: target) == nil
            else { continue }
            let known = Self.units.keys.filter { !$0.contains("-") && Self.conversion(from: $0, to: target) != nil }.sorted()
            out.append(
                "column \(Pipeline.quoted(name)) (column \(i + 1)) maps to field \(schema.fields[f].name), but its unit '\(unit)' "
                    + "does not convert into \(target): its values are read as \(target); if they are not, "
                    + "convert them or name the unit in the header (\(known.joined(separator: ", ")))")
        }
        return out
    }

    /// The keys of a record or header this mapping does not use (neither mapped nor ignored).
    public func unmappedKeys(_ names: [String]) -> [String] {
        names.filter { slots(for: $0).isEmpty && !ignored.contains(Schema.fold($0)) }
    }

    /// A column whose values are read only where an earlier column mapped to the same field is
    /// empty (two columns named `vin`, or `Make` and `Marke`): where both hold a value, its value
    /// is not loaded.
    public struct ShadowedColumn: Sendable, Hashable {
        /// The shadowed column: 1-based position and header name.
        public var column: Int
        public var name: String
        /// The schema field both columns map to.
        public var field: String
        /// The column that wins: 1-based position and header name.
        public var winnerColumn: Int
        public var winnerName: String

        /// `columns 1 'vin' and 3 'vin' both map to field vin: column 3 is read only where column 1 is empty`.
        public var message: String {
            "columns \(winnerColumn) \(Pipeline.quoted(winnerName)) and \(column) \(Pipeline.quoted(name)) both map to field \(field): "
                + "column \(column) is read only where column \(winnerColumn) is empty, and its other values are not loaded; "
                + "rename or drop one of them"
        }

        /// The same for two keys of a JSON record, whose position says little:
        /// `keys 'vin' and 'vin' both map to field vin (first at line 3): the second is read only where the first is empty`.
        public func keyMessage(line: Int) -> String {
            "keys \(Pipeline.quoted(winnerName)) and \(Pipeline.quoted(name)) both map to field \(field) (first at line \(line)): "
                + "the second is read only where the first is empty, and its other values are not loaded; "
                + "rename or drop one of them"
        }
    }

    /// The columns of a header (CSV) that another column of it shadows. A precedence the source
    /// mapping declares itself (two different source keys listed for one field, like
    /// `kilometrage` before `mileage`) is intended and not reported; a repeated header, or two
    /// headers matched through the schema's names and aliases, are.
    /// - Complexity: O(*h* log *h*) for *h* header names; run once per header, not per row.
    public func shadowedColumns(_ names: [String]) -> [ShadowedColumn] {
        shadowed(plan(for: names.map { RawField($0, .null) }), names: names)
    }

    private func shadowed(_ plan: [PlanEntry], names: [String]) -> [ShadowedColumn] {
        var out: [ShadowedColumn] = []
        // Field index → the winning column (0-based) and whether it came from the mapping's list.
        var winners: [Int: Int] = [:]
        for entry in plan {
            let field: Int
            switch entry.slot.kind {
            case .assign(let f, _, _, _): field = f
            case .split(let make, _): field = make
            case .unit(_, let orElse):
                guard orElse >= 0 else { continue }
                field = orElse
            }
            guard let w = winners[field] else {
                winners[field] = entry.rawIndex
                continue
            }
            let byAlias = entry.slot.priority >= 1_000_000
            let sameName = Schema.fold(names[w]) == Schema.fold(names[entry.rawIndex])
            guard byAlias || sameName else { continue }
            out.append(
                ShadowedColumn(
                    column: entry.rawIndex + 1, name: names[entry.rawIndex], field: schema.fields[field].name,
                    winnerColumn: w + 1, winnerName: names[w]))
        }
        return out.sorted { $0.column < $1.column }
    }

    /// The keys another key of the same record shadows (`{"vin": …, "vin": …}`, or `VIN` and
    /// `vin`), found in the records mapped since the last call: once per key layout, with the
    /// first record that had it. For JSON records, whose keys can change from record to record
    /// (a CSV header is checked once with ``shadowedColumns(_:)``).
    func takeShadowedKeys() -> [(column: ShadowedColumn, provenance: Provenance)] {
        layoutNoted = layoutShadowed.isEmpty && layoutUnmapped.isEmpty
        defer { pendingShadowed.removeAll() }
        return pendingShadowed
    }

    /// The keys no field takes (and the mapping does not ignore), found in the records mapped since
    /// the last call: once per key layout, with the first record that had it. For JSON records
    /// (a CSV header is checked once with ``unmappedKeys(_:)``). Call with ``takeShadowedKeys()``.
    func takeUnmappedKeys() -> [(name: String, provenance: Provenance)] {
        layoutNoted = layoutShadowed.isEmpty && layoutUnmapped.isEmpty
        defer { pendingUnmapped.removeAll() }
        return pendingUnmapped
    }

    /// The columns without a name (an empty CSV header) found holding a value in the records
    /// mapped since the last call, each with the first record that had one: their values are not
    /// loaded, and an empty name cannot be reported from the header alone (a spreadsheet's
    /// trailing delimiters also leave empty names, over empty columns).
    func takeUnnamedColumns() -> [(column: Int, provenance: Provenance)] {
        // Noted again after each take: the next input may have the same header (the pipeline
        // names a column once per input).
        notedUnnamed.removeAll(keepingCapacity: true)
        defer { pendingUnnamed.removeAll() }
        return pendingUnnamed
    }

    private func noteUnnamed(_ fields: [RawField], _ provenance: Provenance) {
        for i in layoutUnnamed where i < fields.count && !notedUnnamed.contains(i) && !FieldTyper.isEmpty(fields[i].value) {
            notedUnnamed.insert(i)
            if pendingUnnamed.count < Self.pendingLimit { pendingUnnamed.append((i + 1, provenance)) }
        }
    }

    // MARK: Mapping

    /// Maps one raw record. Never throws: whatever is wrong becomes a finding on the record.
    /// - Complexity: O(*f*) for *f* raw fields, after the first record of a layout.
    public func map(_ raw: RawRecord) -> CanonicalRecord {
        var record = CanonicalRecord(values: [], key: nil, provenance: raw.provenance, findings: [], raw: raw)
        map(raw, into: &record)
        return record
    }

    /// ``map(_:)`` into a record kept by the caller from row to row: its `values` and `findings`
    /// storage is reused when nothing else holds it (no allocation, and no generic per-element
    /// destruction of the previous row's values).
    func map(_ raw: RawRecord, into record: inout CanonicalRecord) {
        let fields = flattenedFields(raw.fields) ?? raw.fields
        let plan = plan(for: fields)
        if !layoutUnnamed.isEmpty { noteUnnamed(fields, raw.provenance) }
        if !layoutNoted {
            layoutNoted = true
            // At most `pendingLimit` distinct names until the next take (the pipeline names 20 per
            // input): records of ever-new layouts, each with thousands of unknown keys, grew
            // these lists without bound between takes.
            for column in layoutShadowed {
                guard pendingShadowed.count < Self.pendingLimit else { break }
                pendingShadowed.append((column, raw.provenance))
            }
            for name in layoutUnmapped {
                guard pendingUnmapped.count < Self.pendingLimit else { break }
                if !pendingUnmapped.contains(where: { $0.name == name }) { pendingUnmapped.append((name, raw.provenance)) }
            }
        }
        let known = self.known
        let fieldCount = typers.count
        // Moved out of the record so the storage is uniquely referenced; setting nils (and
        // appending them) runs specialized code (`repeating:` and copying a template go through
        // per-element generic witnesses).
        var values = record.values
        record.values = []
        if values.count == fieldCount {
            // Through a buffer pointer (one uniqueness check, not one per field), and only the
            // fields the slot's previous record filled: writing nil over nil still called the
            // value's outlined destroy (41 fields a row; callgrind).
            values.withUnsafeMutableBufferPointer { values in
                for i in values.indices where values[i] != nil { values[i] = nil }
            }
        } else {
            values.removeAll(keepingCapacity: true)
            values.reserveCapacity(fieldCount)
            for _ in 0..<fieldCount { values.append(nil) }
        }
        var findings = record.findings
        record.findings = []
        findings.removeAll(keepingCapacity: true)
        // Which fields had a non-empty source value (local: no exclusivity checks in the loop).
        var touched = FieldSet(count: fieldCount)
        var latitude: CoordinateValidator.CoordinateInput?
        var longitude: CoordinateValidator.CoordinateInput?

        // Units written beside numbers (an `Odometer Unit` column holding `mi`), by field.
        var rowUnits: [(field: Int, unit: String)] = []
        if layoutHasUnits {
            for entry in plan {
                guard case .unit(let of, _) = entry.slot.kind, let unit = rowUnit(fields[entry.rawIndex].value, of: of),
                    !rowUnits.contains(where: { $0.field == unit.field })
                else { continue }
                rowUnits.append(unit)
            }
        }

        for entry in plan {
            // Borrowed: a `var` copy retained and released every value (+2% instructions a row).
            let value = fields[entry.rawIndex].value
            if FieldTyper.isEmpty(value) { continue }
            var kind = entry.slot.kind
            if case .unit(let of, let orElse) = kind {
                // A unit was taken above; other text is the `orElse` field's (a unit number).
                guard orElse >= 0, rowUnit(value, of: of) == nil else { continue }
                kind = .assign(field: orElse, unitFactor: 0, pattern: defaultPattern, asJSON: false)
            }
            switch kind {
            case .unit: continue
            case .assign(let f, let factor, let pattern, let asJSON):
                if touched[f] {
                    // A position in a second address column (`Address` and `Location`) is the
                    // position, not a value the first one shadows.
                    if f == known.address, known.latitude != nil, latitude == nil, longitude == nil, case .string(let s) = value,
                        let pair = Self.coordinatePair(ValueParser.trimmed(s))
                    {
                        (latitude, longitude) = pair
                    }
                    continue
                }
                touched[f] = true
                if !rowUnits.isEmpty, let unit = rowUnits.first(where: { $0.field == f }), let number = Self.bareNumberText(value) {
                    // The number with its unit, as if written `45000 mi`: converted, or rejected
                    // when the unit does not convert into the field's (`1200 hours`).
                    guard Self.isUnitWord(unit.unit) else {
                        let name = schema.fields[f].name
                        findings.append(
                            Finding(
                                .fieldType, .error, field: name,
                                message: "\(name) '\(number)' has '\(unit.unit)' beside it as its unit, which is no unit; "
                                    + "write the unit (mi, km, …) or leave it empty"))
                        continue
                    }
                    // Typed apart (not inlined): a second call site here cost the common path.
                    switch typeWithUnit(f, .string(number + " " + unit.unit), pattern: pattern, asJSON: asJSON, raw: raw) {
                    case .success(let v): values[f] = v
                    case .failure(let finding): findings.append(finding)
                    }
                    continue
                }
                if f == known.latitude || f == known.longitude {
                    let input = coordinate(
                        raw.mayHaveFormulaGuard ? FieldTyper.withoutTextPrefix(FieldTyper.unguarded(value)) : value)
                    if f == known.latitude { latitude = input } else { longitude = input }
                    continue
                }
                switch typers[f].type(
                    value, unitFactor: factor == 0 ? nil : factor, datePattern: pattern < 0 ? nil : datePatterns[pattern],
                    asJSON: asJSON, formulaGuard: raw.mayHaveFormulaGuard, ascii: raw.isASCII)
                {
                case .success(let v):
                    values[f] = v
                    // (After typing, which would copy every value for this: +1% instructions a row.)
                    if f == known.sourceID, case .number(let n) = value, let whole = Self.wholeNumberText(n) {
                        values[f] = .text(whole)
                    }
                case .failure(let finding): findings.append(finding)
                }
            case .split(let makeIndex, let modelIndex):
                if touched[makeIndex] { continue }
                touched[makeIndex] = true
                guard let text = value.scalarText, let parts = makes.split(ValueParser.trimmed(text)) else {
                    findings.append(
                        Finding(
                            .fieldType, .error, field: schema.fields[makeIndex].name,
                            message: "'\(JSONText.encode(value))' is not a make and model text; write e.g. 'Land Rover Defender'"))
                    continue
                }
                switch typers[makeIndex].type(.string(parts.make)) {
                case .success(let v): values[makeIndex] = v
                case .failure(let finding): findings.append(finding)
                }
                if let model = parts.model, !touched[modelIndex] {
                    touched[modelIndex] = true
                    switch typers[modelIndex].type(.string(model)) {
                    case .success(let v): values[modelIndex] = v
                    case .failure(let finding): findings.append(finding)
                    }
                }
            }
        }

        // A position written as one text where an address goes (a `Location` column holding
        // `52.520008, 13.404954`): the coordinates, not the address (it was loaded as the
        // address without a word, and GeoJSON left the vehicle out).
        if latitude == nil, longitude == nil, known.latitude != nil, known.longitude != nil, let a = known.address,
            case .text(let text)? = values[a], let pair = Self.coordinatePair(text)
        {
            (latitude, longitude) = pair
            values[a] = nil
        }

        // Coordinates.
        if let lat = known.latitude, let lon = known.longitude, latitude != nil || longitude != nil {
            let check = CoordinateValidator.check(
                latitude: latitude, longitude: longitude, latitudeField: schema.fields[lat].name,
                longitudeField: schema.fields[lon].name)
            if let v = check.latitude { values[lat] = .real(v) }
            if let v = check.longitude { values[lon] = .real(v) }
            if !check.findings.isEmpty { findings += check.findings }
        }

        // Required fields: missing or empty (a value that failed typing already has its finding).
        let foreign = foreignSource(values)
        for f in requiredFields where !touched[f] {
            if (f == known.latitude || f == known.longitude), latitude != nil || longitude != nil { continue }
            // The VIN the catch-all mapping requires: not for a record of a source keyed otherwise.
            if f == known.vin, let foreign, foreignList[foreign].key != .vin { continue }
            let name = schema.fields[f].name
            findings.append(
                Finding(
                    .fieldRequired, .error, field: name,
                    message: "\(name) is required but missing or empty; fill it in or map the column that holds it"))
        }

        if let s = known.source {
            if let foreign { values[s] = .text(foreignList[foreign].name) } else { values[s] = .text(mapping.name) }
        }
        if let a = known.accidentFree, values[a] == .bool(false) {
            let reject = options.rejectAccidents
            findings.append(
                Finding(
                    .vehicleAccident, reject ? .error : .warning, field: schema.fields[a].name,
                    message: reject
                        ? "the vehicle is not accident-free and accidents are rejected; drop the reject option to load it"
                        : "the vehicle is not accident-free; it is loaded and flagged (filter on accident_free)"))
        }
        if options.reportEncoding, raw.decodedAsWindows1252 {
            findings.append(
                Finding(
                    .rowEncoding, .warning,
                    message: options.invalidBytesReplaced
                        ? "the row is not valid UTF-8; its invalid bytes were replaced by U+FFFD (--encoding utf-8): "
                            + "try --encoding windows-1252, or save the file as UTF-8"
                        : "the row is not valid UTF-8 and was read as Windows-1252; check accented letters, or save the file as UTF-8"))
        }
        if options.reportEncoding, raw.replacedLoneSurrogate {
            // JSON lets `\ud800` through its grammar, but half a surrogate pair is no character.
            let index = Int(raw.loneSurrogateField)
            let name = raw.fields.indices.contains(index) ? raw.fields[index].name : nil
            findings.append(
                Finding(
                    .rowEncoding, .warning,
                    message: "a \\u escape \(name.map { "in \(Pipeline.quoted($0)) " } ?? "")is half of a UTF-16 surrogate pair "
                        + "without the other half (no character); it was read as U+FFFD: fix the value at its source"))
        }

        let keyRule = foreign.map { foreignList[$0].key } ?? mapping.key
        var idKey: String?
        let key = makeKey(values, &touched, &findings, rule: keyRule, foreign: foreign, idKey: &idKey)
        if key == nil, !findings.contains(where: { $0.severity == .error }) {
            // A key value that normalization empties (a VIN written `-` or `...`): the record
            // cannot be keyed, and its reject says why.
            let index = keyRule == .sourceID ? known.sourceID : keyRule == .location ? known.latitude : known.vin
            let field = index.map { schema.fields[$0].name } ?? schema.primaryKey.first
            findings.append(
                Finding(
                    .fieldRequired, .error, field: field,
                    message: "\(field ?? "the key") is required but empty once normalized (spaces, dashes, dots "
                        + "and underscores removed); fill it in"))
        }
        for i in findings.indices {
            if findings[i].input == nil { findings[i].input = raw.provenance.input }
            if findings[i].line == nil {
                findings[i].line = raw.provenance.line
                findings[i].element = raw.provenance.index
            }
        }
        record.values = values
        record.key = key
        record.idKey = idKey
        record.provenance = raw.provenance
        record.findings = findings
        record.raw = raw
    }

    /// Types a number with the unit a units column gave it (`45000 mi`).
    @inline(never)
    private func typeWithUnit(_ f: Int, _ value: RawValue, pattern: Int, asJSON: Bool, raw: RawRecord) -> TypedValue {
        typers[f].type(
            value, datePattern: pattern < 0 ? nil : datePatterns[pattern], asJSON: asJSON, formulaGuard: raw.mayHaveFormulaGuard)
    }

    private func coordinate(_ value: RawValue) -> CoordinateValidator.CoordinateInput {
        switch value {
        case .number(let s):
            if case .success(let d) = ValueParser.parseNumber(s, decimal: .point), !CoordinateValidator.underflowed(d, s) {
                return .init(text: s, value: d)
            }
            return .init(text: s, value: nil)
        case .string(let s):
            let t = ValueParser.trimmed(s)
            return .init(text: t, value: CoordinateValidator.number(t, decimal: options.decimalSeparator))
        default:
            return .init(text: JSONText.encode(value), value: nil)
        }
    }

    /// The two numbers of a position written as one text, latitude first (`52.520008, 13.404954`,
    /// `(52.52;13.40)`, `52.52 13.40`): each with a decimal point and its decimals, at most three
    /// whole digits; nil for anything else (an address, `12, 5`). As the coordinate inputs the
    /// position check takes, their numbers parsed once here.
    static func coordinatePair(
        _ text: String
    ) -> (latitude: CoordinateValidator.CoordinateInput, longitude: CoordinateValidator.CoordinateInput)? {
        // Every row's address comes here: a byte scan turns away text with anything but digits,
        // signs, separators and brackets before anything is split or allocated.
        var point = false
        for b in text.utf8 {
            switch b {
            case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: ","), UInt8(ascii: ";"), UInt8(ascii: " "), 0x09,
                UInt8(ascii: "+"), UInt8(ascii: "-"), UInt8(ascii: "("), UInt8(ascii: ")"), UInt8(ascii: "["), UInt8(ascii: "]"):
                break
            case UInt8(ascii: "."): point = true
            default: return nil
            }
        }
        guard point else { return nil }
        var t = Substring(text)
        if let first = t.first, let last = t.last, (first == "(" && last == ")") || (first == "[" && last == "]") {
            t = t.dropFirst().dropLast()
        }
        let parts: [Substring]
        if t.contains(",") {
            parts = t.split(separator: ",", omittingEmptySubsequences: false)
        } else if t.contains(";") {
            parts = t.split(separator: ";", omittingEmptySubsequences: false)
        } else {
            parts = t.split(whereSeparator: { $0 == " " || $0 == "\t" })
        }
        guard parts.count == 2 else { return nil }
        func number(_ part: Substring) -> String? {
            let p = part.trimmingCharacters(in: .whitespaces)
            var b = Substring(p).utf8[...]
            if b.first == UInt8(ascii: "-") || b.first == UInt8(ascii: "+") { b = b.dropFirst() }
            guard let dot = b.firstIndex(of: UInt8(ascii: ".")) else { return nil }
            let whole = b[..<dot], fraction = b[b.index(after: dot)...]
            let isDigit = { (c: UInt8) in c >= UInt8(ascii: "0") && c <= UInt8(ascii: "9") }
            guard (1...3).contains(whole.count), !fraction.isEmpty, whole.allSatisfy(isDigit), fraction.allSatisfy(isDigit)
            else { return nil }
            return p
        }
        guard let latitude = number(parts[0]), let longitude = number(parts[1]), let a = Double(latitude),
            let b = Double(longitude), abs(a) <= 180, abs(b) <= 180, abs(a) <= 90 || abs(b) <= 90
        else { return nil }
        return (.init(text: latitude, value: a), .init(text: longitude, value: b))
    }

    /// The largest id ``wholeNumberText(_:)`` reads (10^30; Decimal holds 38 digits exactly).
    private static let wholeNumberLimit = Decimal(sign: .plus, exponent: 30, significand: 1)

    /// A JSON number written with a zero fraction or an exponent (`271004312.0`, `2.71004312e8`,
    /// as tools that hold ids as floats write them) as the whole number it is (`271004312`);
    /// nil for any other number. A record id is a key: written either way, it is one vehicle.
    static func wholeNumberText(_ n: String) -> String? {
        guard n.utf8.contains(where: { $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "e") || $0 == UInt8(ascii: "E") }),
            let d = Decimal(string: n, locale: Locale(identifier: "en_US_POSIX")), d.isFinite, abs(d) < wholeNumberLimit
        else { return nil }
        var value = d, rounded = Decimal()
        NSDecimalRound(&rounded, &value, 0, .plain)
        guard rounded == d else { return nil }
        return "\(rounded)"
    }

    private func text(_ values: [FieldValue?], _ index: Int?) -> String? {
        guard let index, let v = values[index] else { return nil }
        let t = v.text
        return t.isEmpty ? nil : t
    }

    /// The record's key by `rule`; an id is prefixed with the source's name (`foreign`'s, when the
    /// record's `source` names another source).
    private func makeKey(
        _ values: [FieldValue?], _ touched: inout FieldSet, _ findings: inout [Finding], rule: SourceMapping.KeyRule,
        foreign: Int?, idKey: inout String?
    ) -> String? {
        var name: String { foreign.map { foreignList[$0].name } ?? mapping.name }
        switch rule {
        case .vin:
            return text(values, known.vin)
        case .sourceID:
            if let id = text(values, known.sourceID) { return "\(name):\(id)" }
            // A fleet file's record with a VIN and a `source` column naming such a source (where
            // the vehicle was listed) but no id is that VIN's vehicle, not a reject.
            if foreign != nil, let vin = text(values, known.vin) { return vin }
            return nil
        case .vinOrSourceID:
            let id = text(values, known.sourceID)
            idKey = id.map { "\(name):\($0)" }
            if let vin = text(values, known.vin) { return vin }
            if let idKey { return idKey }
            let vinTouched = known.vin.map { touched[$0] } ?? false
            let idTouched = known.sourceID.map { touched[$0] } ?? false
            if !vinTouched, !idTouched {
                // One finding for the one defect: the mapping's own "source_id is required" said
                // the same again (two field.required for one record).
                if let id = known.sourceID {
                    let name = schema.fields[id].name
                    findings.removeAll { $0.code == .fieldRequired && $0.field == name }
                }
                findings.append(
                    Finding(
                        .fieldRequired, .error, field: "vin",
                        message: "the record has neither a vin nor an id, so it cannot be keyed; fill in one of them"))
            }
            return nil
        case .location:
            guard let lat = known.latitude, let lon = known.longitude, case .real(let la)? = values[lat],
                case .real(let lo)? = values[lon]
            else { return nil }
            let name = text(values, known.name).map(Self.normalizedName) ?? ""
            return "\(name)|\(Self.fixed6(la)),\(Self.fixed6(lo))"
        }
    }

    /// Lower-case, trimmed, inner white space collapsed to one space.
    static func normalizedName(_ s: String) -> String {
        // Composed (NFC) first: `Zürich` typed with a precomposed ü and with u + a combining mark
        // is one place, not two keys.
        s.composedLinearly.lowercased().split(whereSeparator: { $0.isWhitespace }).joined(separator: " ")
    }

    /// A coordinate rounded to 1e-6, written with six decimals (`52.354750`).
    static func fixed6(_ d: Double) -> String {
        let scaled = (d * 1_000_000).rounded()
        guard scaled.isFinite, abs(scaled) < 9e18 else { return FieldValue.format(d) }
        let micro = Int64(scaled)
        let sign = micro < 0 ? "-" : ""
        let m = micro.magnitude
        let frac = String(m % 1_000_000)
        return "\(sign)\(m / 1_000_000).\(String(repeating: "0", count: 6 - frac.count))\(frac)"
    }

    // MARK: Units

    /// The unit written in brackets in a header (`Odometer (mi)` → `mi`), lower-cased.
    static func bracketUnit(_ header: String) -> String? {
        guard let open = header.firstIndex(where: { $0 == "(" || $0 == "[" }),
            let close = header[open...].firstIndex(where: { $0 == ")" || $0 == "]" })
        else { return nil }
        // An abbreviation's dot goes (`(mi.)`, `(km.)`): it names the same unit.
        var unit = header[header.index(after: open)..<close].trimmingCharacters(in: .whitespaces).lowercased()
        while unit.hasSuffix(".") { unit.removeLast() }
        return unit.isEmpty ? nil : unit
    }

    private static let units: [String: (unit: String, factor: Double)] = [
        "km": ("km", 1), "kms": ("km", 1), "kilometres": ("km", 1), "kilometers": ("km", 1),
        "kilometre": ("km", 1), "kilometer": ("km", 1),
        // Telematics feeds count in metres (`odometerMeters`). Not `m`: some files write it for miles.
        "meters": ("km", 0.001), "metres": ("km", 0.001), "meter": ("km", 0.001), "metre": ("km", 0.001),
        "mi": ("km", 1.609344), "mile": ("km", 1.609344), "miles": ("km", 1.609344), "miles-to-km": ("km", 1.609344),
        "mls": ("km", 1.609344), "meilen": ("km", 1.609344), "meile": ("km", 1.609344),
        "kw": ("kw", 1), "kilowatt": ("kw", 1), "kilowatts": ("kw", 1),
        "hp": ("kw", 0.745699872), "bhp": ("kw", 0.745699872), "ps": ("kw", 0.73549875),
        "cv": ("kw", 0.73549875), "ch": ("kw", 0.73549875),
        "l": ("l", 1), "litres": ("l", 1), "liters": ("l", 1), "litre": ("l", 1), "liter": ("l", 1), "ltr": ("l", 1),
        "gal": ("l", 3.785411784), "gallons": ("l", 3.785411784), "gallon": ("l", 3.785411784),
    ]

    /// The units that, written alone as a header, name the field in that unit.
    /// Not `MI` (a middle initial beside a driver's names) or `CV` (French fiscal horsepower).
    private static let unitHeaders: Set<String> = ["miles", "mile", "hp", "bhp", "ps"]

    /// The unit names a header may end in, longest first (`miles` before `mi`). Not the singular
    /// `meter`/`metre`, which end `odometer` and `odomètre` themselves (`odo` is an alias: an
    /// `Odomètre` column was read in metres).
    private static let unitsLongestFirst: [String] = units.keys.filter { !$0.contains("-") && $0 != "meter" && $0 != "metre" }
        .sorted { ($0.count, $0) > ($1.count, $1) }

    /// The factor converting `from` into `to` (1 for the same unit); nil when they do not convert.
    static func conversion(from: String, to: String) -> Double? {
        // As a value's own unit is read (`1000 mi.`): a `Unit` column's `mi.` was taken for a unit
        // number, and its row's miles for km.
        var from = from.lowercased()
        if from.count > 1, from.hasSuffix(".") { from.removeLast() }
        guard let source = units[from], let base = units[to.lowercased()], base.unit == source.unit
        else { return nil }
        return source.factor / base.factor
    }

    /// The factor converting `from` into the field's `to` unit; nil when none is needed. Throws
    /// (strict) or returns nil (not strict) when the units do not convert.
    static func unitFactor(from: String, to: String?, strict: Bool) throws -> Double? {
        let source = units[from.lowercased()]
        let target = to.map { $0.lowercased() }
        guard let source, let target, let base = units[target], base.unit == source.unit else {
            if strict {
                throw VinyardError(.usage, "cannot convert unit '\(from)' into '\(to ?? "no unit")'; fix the mapping")
            }
            return nil
        }
        let factor = source.factor / base.factor
        return factor == 1 ? nil : factor
    }

    // MARK: VIN engine hooks

    /// ``setVINDecoding(_:manufacturer:country:modelYears:)`` with the model years already
    /// written as the stored text (`[1991,2021]`), nil for none.
    func setVINDecoding(_ record: inout CanonicalRecord, manufacturer: String?, country: String?, modelYearsText: String?) {
        if let i = known.vinManufacturer { record.values[i] = manufacturer.map(FieldValue.text) }
        if let i = known.vinCountry { record.values[i] = country.map(FieldValue.text) }
        if let i = known.vinModelYears { record.values[i] = modelYearsText.map(FieldValue.text) }
    }

    /// The stored text of a list of model years: `[1991,2021]`; nil for an empty list.
    static func modelYearsText(_ years: [Int]) -> String? {
        years.isEmpty ? nil : "[" + years.map(String.init).joined(separator: ",") + "]"
    }

    /// Writes the VIN engine's decoded values into a record of this mapper's schema.
    public func setVINDecoding(
        _ record: inout CanonicalRecord, manufacturer: String?, country: String?, modelYears: [Int]
    ) {
        if let i = known.vinManufacturer { record.values[i] = manufacturer.map(FieldValue.text) }
        if let i = known.vinCountry { record.values[i] = country.map(FieldValue.text) }
        if let i = known.vinModelYears {
            record.values[i] = Self.modelYearsText(modelYears).map(FieldValue.text)
        }
    }
}
