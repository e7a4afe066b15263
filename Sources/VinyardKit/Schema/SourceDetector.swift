/// Tells which source mapping fits an input from its CSV header or the keys of its first JSON
/// record (and the wrapper key, such as `vehicles`). Each mapping whose detection signature
/// holds is scored by the share of the record's keys it knows; the best wins, a specific mapping
/// beats the fallback (`fleet`) on a tie, and two specific mappings tied is ambiguous. When no
/// signature holds, a wrapper key that only one mapping lists (`{"locations": [...]}`) names it.
///
/// A VIN column (the vehicle schema's `vin` or one of its aliases) decides for vehicle sources:
/// a mapping whose schema has no `vin` field (`locations`) is not a candidate for such keys unless
/// the records were wrapped under one of its wrapper keys (`{"locations": [...]}`), so a fleet file
/// that happens to carry a vehicle name and coordinates is read as a fleet file, VINs included.
public struct SourceDetector: Sendable {
    /// A mapping's score for a set of keys.
    public struct Score: Sendable, Hashable {
        public var mapping: String
        /// Share of the keys the mapping knows (0...1), plus 0.25 when the wrapper key matches.
        public var score: Double
    }

    private struct Candidate: Sendable {
        var mapping: SourceMapping
        var known: Set<String>  // folded keys the mapping maps or ignores
        /// Folded keys a specific mapping loads by the schema's aliases (``SourceMapping/extraAliasFields(in:)``).
        var extra: Set<String>
        /// Whether the mapping itself maps a key to `vin`.
        var mapsVIN: Bool
        /// For folded signatures: signature key (folded) → its schema field's folded name and aliases.
        var groups: [String: Set<String>]
        /// Whether the mapping's schema has a `vin` field (a vehicle source).
        var hasVIN: Bool
    }

    private let candidates: [Candidate]
    /// Folded column names that stand for a VIN in some vehicle source.
    private let vinColumns: Set<String>
    /// Folded column names of vehicle fields that places do not have (make, model, odometer, plate, …).
    private let vehicleColumns: Set<String>
    /// Wrapper keys that exactly one mapping lists (`locations`, `places`, `records`).
    private let ownWrappers: Set<String>
    /// Wrapper keys that some mapping lists; any other (`data`, `items`) says nothing about the source.
    private let knownWrappers: Set<String>

    public init(catalog: SchemaCatalog) {
        var vinColumns = Set<String>()
        var vehicleColumns = Set<String>()
        // Fields a place may have as well, or that say nothing of what a record describes.
        let shared: Set<String> = [
            "vin", "latitude", "longitude", "address", "status", "notes", "source", "source_id", "name", "options",
            "specs", "images", "last_sync",
        ]
        candidates = catalog.mappings.map { mapping in
            var known = Set(mapping.fields.filter { $0.detect != false }.map { Schema.fold($0.source) })
            known.formUnion(mapping.ignore.map(Schema.fold))
            if mapping.matchAliases, let schema = try? catalog.schema(for: mapping) {
                for f in schema.fields {
                    known.insert(Schema.fold(f.name))
                    for a in f.aliases { known.insert(Schema.fold(a)) }
                }
            }
            // The extra keys a specific source loads by the schema's aliases.
            let extra = (try? catalog.schema(for: mapping)).map { Set(mapping.extraAliasFields(in: $0).keys) } ?? []
            var groups: [String: Set<String>] = [:]
            if mapping.detect.folded, let schema = try? catalog.schema(for: mapping) {
                // Detection keys of a folded mapping stand for the schema field and its aliases.
                for key in mapping.detect.all + mapping.detect.any {
                    guard let i = schema.fieldIndex(named: key) else { continue }
                    let group = Set([schema.fields[i].name] + schema.fields[i].aliases).map(Schema.fold)
                    groups[Schema.fold(key)] = Set(group)
                    known.formUnion(group)
                }
            }
            var hasVIN = false
            if let schema = try? catalog.schema(for: mapping), let i = schema.fieldIndex(named: "vin") {
                hasVIN = true
                let vin = schema.fields[i]
                vinColumns.formUnion(([vin.name] + vin.aliases).map(Schema.fold))
                vinColumns.formUnion(mapping.fields.filter { $0.target == vin.name }.map { Schema.fold($0.source) })
                for f in schema.fields where !shared.contains(f.name) && !f.name.hasPrefix("vin_") {
                    vehicleColumns.formUnion(([f.name] + f.aliases).map(Schema.fold))
                }
            }
            return Candidate(
                mapping: mapping, known: known, extra: extra, mapsVIN: mapping.fields.contains { $0.target == "vin" },
                groups: groups, hasVIN: hasVIN)
        }
        self.vinColumns = vinColumns
        self.vehicleColumns = vehicleColumns
        var wrapperCounts: [String: Int] = [:]
        for c in candidates { for w in Set(c.mapping.wrappers) { wrapperCounts[w, default: 0] += 1 } }
        ownWrappers = Set(wrapperCounts.filter { $0.value == 1 }.keys)
        knownWrappers = Set(wrapperCounts.keys)
    }

    /// The scores of every mapping whose signature holds, best first.
    public func scores(keys: [String], wrapper: String? = nil) -> [Score] {
        // An envelope key no mapping lists (`{"data": [...]}`) reads like a bare array.
        let wrapper = wrapper.flatMap { knownWrappers.contains($0) ? $0 : nil }
        let exact = Set(keys)
        let folded = keys.map(Schema.fold)
        let foldedSet = Set(folded)
        let hasVINColumn = !foldedSet.isDisjoint(with: vinColumns)
        var out: [Score] = []
        for c in candidates {
            let m = c.mapping
            // A wrapper another source lists excludes this one, unless that source loads the same
            // table and this one's own signature holds: autoscout listings under `records`
            // (fleet-record's wrapper) were read as fleet-record and every one was rejected.
            // Locations are still no vehicles.
            if let wrapper, !m.wrappers.isEmpty, !m.wrappers.contains(wrapper),
                !(candidates.contains { $0.mapping.wrappers.contains(wrapper) && $0.mapping.schema == m.schema }
                    && holds(m.detect, exact: exact, folded: foldedSet, candidate: c))
            {
                continue
            }
            // A VIN column makes it a vehicle file, unless a wrapper key names this source.
            if hasVINColumn, !c.hasVIN, !(wrapper.map(m.wrappers.contains) ?? false) { continue }
            guard holds(m.detect, exact: exact, folded: foldedSet, candidate: c) else { continue }
            // Keys the source loads by the schema's aliases count, unless the keys hold a VIN the
            // source does not map: a wrapped fleet record with a VIN is no autoscout listing that
            // would leave the VIN aside (found by review).
            let withExtra = !hasVINColumn || c.mapsVIN
            let knownCount = folded.filter { c.known.contains($0) || (withExtra && c.extra.contains($0)) }.count
            // A vehicle file whose VIN column has a name no source knows (`Kennung`) but that has
            // coordinates is no list of places: with two or more columns of what only vehicles have
            // (`Marke`, `Modell`, `Kilometerstand` beside `Breitengrad`, `Längengrad`), a source
            // without VINs is no candidate (it loaded the vehicles as unnamed places, their makes
            // and odometers dropped). An address, a status or notes belong to places too.
            if !c.hasVIN, !(wrapper.map(m.wrappers.contains) ?? false),
                foldedSet.filter({ vehicleColumns.contains($0) && !c.known.contains($0) }).count >= 2
            {
                continue
            }
            var score = keys.isEmpty ? 0 : Double(knownCount) / Double(keys.count)
            if let wrapper, m.wrappers.contains(wrapper) { score += 0.25 }
            out.append(Score(mapping: m.name, score: score))
        }
        // No signature holds (the feed's first place lacks a coordinate): a wrapper key that only
        // one mapping lists names the source.
        if out.isEmpty, let wrapper, ownWrappers.contains(wrapper),
            let c = candidates.first(where: { $0.mapping.wrappers.contains(wrapper) })
        {
            let knownCount = folded.filter { c.known.contains($0) }.count
            out.append(Score(mapping: c.mapping.name, score: (keys.isEmpty ? 0 : Double(knownCount) / Double(keys.count)) + 0.25))
        }
        return out.sorted { $0.score > $1.score }
    }

    private func holds(
        _ d: SourceMapping.Detection, exact: Set<String>, folded: Set<String>, candidate: Candidate
    ) -> Bool {
        func present(_ key: String) -> Bool {
            if !d.folded { return exact.contains(key) }
            // A folded signature key matches its schema field's name or any alias.
            let k = Schema.fold(key)
            if folded.contains(k) { return true }
            return candidate.groups[k]?.contains { folded.contains($0) } ?? false
        }
        guard d.all.allSatisfy(present) else { return false }
        if d.anyCount > 0, d.any.filter(present).count < d.anyCount { return false }
        return d.anyGroups.allSatisfy { group in group.any.filter(present).count >= group.anyCount }
    }

    /// Whether a CSV header opens like JSON (`[{"vin": …`, `{"vehicles": …`): a JSON file read as
    /// CSV because its name said so.
    public static func looksLikeJSON(_ header: [String]) -> Bool {
        let first = header.first.map(ValueParser.trimmed) ?? ""
        return first.hasPrefix("[") || first.hasPrefix("{\"")
    }

    /// Detects the mapping for an input.
    /// - Parameters:
    ///   - keys: the CSV header names or the first JSON record's keys.
    ///   - wrapper: the key the records were wrapped under (`vehicles`), if any.
    ///   - inputName: used in the error message.
    /// - Throws: `VinyardError(.usage)` when no mapping fits or two fit equally well; the message
    ///   lists what each source expects and suggests `--source`.
    public func detect(keys: [String], wrapper: String? = nil, inputName: String) throws -> SourceMapping {
        let scores = scores(keys: keys, wrapper: wrapper)
        guard let best = scores.first, best.score > 0,
            let bestMapping = candidates.first(where: { $0.mapping.name == best.mapping })?.mapping
        else {
            // Each key cut to 40 characters (a 200 MB first line without a newline was echoed
            // whole) and its control characters escaped (an escape sequence reached the terminal).
            let shown = keys.prefix(12).map { key in
                let clipped = key.count > 40 ? "\(key.prefix(40))… (\(key.utf8.count) bytes)" : key
                return clipped.shownInMessage
            }.joined(separator: ", ") + (keys.count > 12 ? ", ..." : "")
            // A CSV header that opens like JSON (`[{"vin": …`, `{"vehicles": …`): a JSON file under
            // a CSV name (`fleet.csv.gz` holding JSON); the file name decides the format.
            let hint = Self.looksLikeJSON(keys) ? "; the header looks like JSON: if the file is JSON, add --input-format json (or jsonl)" : ""
            throw VinyardError(
                .usage,
                "\(inputName): cannot tell the source from its keys (\(shown.isEmpty ? "none" : shown)); expected \(expectations()); name one with --source NAME\(hint)"
            )
        }
        let tied = scores.filter { abs($0.score - best.score) < 1e-9 }
        let specific = tied.filter { s in !(candidates.first { $0.mapping.name == s.mapping }?.mapping.fallback ?? false) }
        if specific.count > 1 {
            throw VinyardError(
                .usage,
                "\(inputName): the keys fit several sources equally well (\(specific.map(\.mapping).joined(separator: ", "))); choose one with --source NAME"
            )
        }
        if let one = specific.first, let m = candidates.first(where: { $0.mapping.name == one.mapping })?.mapping {
            return m
        }
        return bestMapping
    }

    /// `fleet (a column named vin or an alias), autoscout (ID, FirstRegistration and one of ...)`.
    private func expectations() -> String {
        candidates.map(expectation).joined(separator: "; ")
    }

    /// The source a wrapper key names when only one mapping lists it (`locations`); nil otherwise.
    public func source(ownWrapper wrapper: String) -> String? {
        guard ownWrappers.contains(wrapper) else { return nil }
        return candidates.first { $0.mapping.wrappers.contains(wrapper) }?.mapping.name
    }

    /// Whether `keys` (a header, a record's keys) have what the source `name` is detected by; true
    /// for a name no source of the catalog has (`raw`).
    public func fits(_ name: String, keys: [String], wrapper: String? = nil) -> Bool {
        guard candidates.contains(where: { $0.mapping.name == name }) else { return true }
        return scores(keys: keys, wrapper: wrapper).contains { $0.mapping == name }
    }

    /// A warning for keys forced to a source they lack the signature of (`--source autoscout` on
    /// a random-vehicle feed: its miles were loaded as autoscout's kilometres, without a word);
    /// nil when they fit it.
    public func forcedSourceWarning(_ name: String, keys: [String], wrapper: String? = nil, what: String) -> String? {
        guard !fits(name, keys: keys, wrapper: wrapper), let c = candidates.first(where: { $0.mapping.name == name }) else { return nil }
        let detected = (try? detect(keys: keys, wrapper: wrapper, inputName: "")).map { "; they look like \($0.name)" } ?? ""
        return "--source \(name): \(what) do not fit the source, which is recognized by \(expectation(c))\(detected); "
            + "its fields are read from them as they are named: check the source"
    }

    private func expectation(_ c: Candidate) -> String {
            let d = c.mapping.detect
            var parts: [String] = []
            if !d.all.isEmpty { parts.append(d.all.joined(separator: ", ")) }
            if d.anyCount > 0, !d.any.isEmpty {
                let anyText = d.any.count == 1 ? d.any[0] : "\(d.anyCount) of \(d.any.joined(separator: "/"))"
                parts.append(d.folded ? "\(anyText) (or an alias)" : anyText)
            }
            for group in d.anyGroups where group.anyCount > 0 && !group.any.isEmpty {
                parts.append(group.any.count == 1 ? group.any[0] : "\(group.anyCount) of \(group.any.joined(separator: "/"))")
            }
            return "\(c.mapping.name) (\(parts.joined(separator: " and ")))"
    }
}
