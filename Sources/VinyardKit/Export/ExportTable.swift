/// A table as the exporter sees it: its columns with their kinds, the schema's aliases, its key
/// column, and which columns are exported by default. Every identifier that reaches SQL comes
/// from here (names read from the database itself), never from user text.
public struct ExportTable: Sendable, Hashable {
    /// How a column's values are compared, written and typed in JSON.
    public enum Kind: Sendable, Hashable {
        /// `array`: a schema array field, stored as JSON text and written as the array in JSON.
        /// `json`: a bookkeeping column holding JSON text (`raw`, `findings`, `inputs`, `options`),
        /// written as that JSON value (an object or an array) in JSON, not as a string.
        case text, integer, real, boolean, array, json

        /// True for integer, real and boolean columns (numeric comparison, no CSV formula guard).
        public var isNumeric: Bool { self != .text && self != .array && self != .json }

        /// True when a stored text of this kind is written into JSON as it is, not as a string:
        /// an array column whose text is bracketed, a JSON column whose text is bracketed or braced.
        static func isJSONArray(_ kind: Kind, _ text: UnsafeRawBufferPointer) -> Bool {
            switch kind {
            case .array: text.first == UInt8(ascii: "[") && text.last == UInt8(ascii: "]")
            case .json:
                (text.first == UInt8(ascii: "[") && text.last == UInt8(ascii: "]"))
                    || (text.first == UInt8(ascii: "{") && text.last == UInt8(ascii: "}"))
            default: false
            }
        }
    }

    public struct Column: Sendable, Hashable {
        public var name: String
        public var kind: Kind
        /// Schema aliases of this column (empty for bookkeeping columns and non-schema tables).
        public var aliases: [String]
        /// False for bookkeeping columns (`_key`, `_source`, …), which are left out of the default
        /// column list but can still be named in `--columns`, `--where` and `--sort`.
        public var isDefault: Bool
    }

    /// The tables `export` reads besides the schema tables.
    public static let auxiliaryTables = ["rejects", "findings", "duplicates", "import_runs"]

    /// The columns of the auxiliary tables that hold JSON text Vinyard wrote (``Kind/json``).
    static let jsonColumns: [String: Set<String>] = [
        "rejects": ["raw", "findings"], "duplicates": ["raw", "findings", "stored"],
        "import_runs": ["options", "inputs", "findings"],
    ]

    public var name: String
    public var columns: [Column]
    /// The column the default sort uses and the final tie-breaker of every sort: `_key` for schema
    /// tables (unique and indexed), `id` for the others.
    public var keyColumn: String
    /// The schema, for schema tables.
    public var schema: Schema?

    /// Describes `table` in `store`.
    /// - Throws: `.usage` when the table does not exist or is not exportable (the message lists
    ///   the tables that are).
    public init(store: VinyardStore, table: String) throws {
        let schemaTables = try store.schemaTableNames()
        // An empty file (no Vinyard tables): nothing to export is a missing input, not a usage
        // error (it was 64, and `stats` on it says that nothing was imported).
        guard store.isInitialized else {
            throw VinyardError(
                .missingInput,
                "\(store.path) is empty: nothing has been imported into it; run `vinyard import INPUT --db \(store.path)` first")
        }
        let exportable = schemaTables + Self.auxiliaryTables
        guard let resolved = exportable.first(where: { $0.lowercased() == table.lowercased() }) else {
            throw VinyardError(
                .usage, "no table '\(table)' to export; choose one of: \(exportable.joined(separator: ", "))")
        }
        let declared = try Self.declaredColumns(store: store, table: resolved)
        if declared.isEmpty { try store.checkTablesPresent() }
        guard !declared.isEmpty else {
            let hint = store.isInitialized ? "nothing has been imported into it yet" : "the database is empty"
            throw VinyardError(.usage, "table '\(resolved)' does not exist in \(store.path): \(hint)")
        }
        name = resolved
        schema = schemaTables.contains(resolved) ? try store.storedSchema(named: resolved) : nil
        var columns: [Column] = []
        for (columnName, type) in declared {
            let field = schema?.fields.first { $0.name.lowercased() == columnName.lowercased() }
            let kind: Kind
            switch field?.type {
            case .boolean?: kind = .boolean
            case .integer?: kind = .integer
            case .number?: kind = .real
            case .array?: kind = .array
            case .some: kind = .text
            case nil:
                kind = schema == nil && Self.jsonColumns[resolved]?.contains(columnName) == true
                    ? .json : Self.kind(declaredType: type)
            }
            let bookkeeping = schema != nil && columnName.hasPrefix("_")
            columns.append(Column(name: columnName, kind: kind, aliases: field?.aliases ?? [], isDefault: !bookkeeping))
        }
        self.columns = columns
        keyColumn = schema != nil ? "_key" : (columns.contains { $0.name == "id" } ? "id" : "rowid")
    }

    private static func declaredColumns(store: VinyardStore, table: String) throws -> [(String, String)] {
        let statement = try store.prepareQuery(
            "SELECT name, type FROM pragma_table_info(?1) ORDER BY cid", arguments: [.text(table)])
        var list: [(String, String)] = []
        do {
            while try statement.step() { list.append((statement.text(0) ?? "", statement.text(1) ?? "")) }
        } catch {
            throw VinyardError(.store, "cannot read the columns of \(table) in \(store.path)", cause: error)
        }
        return list
    }

    /// SQLite's affinity rules, reduced to our kinds.
    static func kind(declaredType: String) -> Kind {
        let t = declaredType.uppercased()
        if t.contains("INT") { return .integer }
        if t.contains("CHAR") || t.contains("CLOB") || t.contains("TEXT") { return .text }
        if t.contains("REAL") || t.contains("FLOA") || t.contains("DOUB") { return .real }
        return .text
    }

    /// The columns exported when `--columns` is not given.
    public var defaultColumns: [Column] { columns.filter(\.isDefault) }

    /// Resolves a user-written name: an exact column name (case-insensitive) first, then a schema
    /// field name or alias compared after ``Schema/fold(_:)`` (`year` → `model_year`,
    /// `Car Type` → `body_class`), then `key` for `_key`.
    /// - Throws: `.usage` naming the field and listing the valid ones.
    public func column(named name: String, option: String) throws -> Column {
        if let c = columns.first(where: { $0.name.lowercased() == name.lowercased() }) { return c }
        let folded = Schema.fold(name)
        if !folded.isEmpty {
            if let c = columns.first(where: { $0.isDefault && Schema.fold($0.name) == folded }) { return c }
            if let c = columns.first(where: { $0.aliases.contains { Schema.fold($0) == folded } }) { return c }
        }
        if schema != nil, name.lowercased() == "key", let c = columns.first(where: { $0.name == "_key" }) { return c }
        let guess = closestColumn(to: name).map { " (did you mean '\($0)'?)" } ?? ""
        throw VinyardError(.usage, "\(option): unknown field '\(name)' in \(self.name)\(guess); valid fields: \(validNames)")
    }

    /// The names a user may write, for error messages: the column names, then one alias of each
    /// field that has some. (Every alias of the vehicle schema made a 3,000-character message.)
    public var validNames: String {
        let names = columns.map(\.name).joined(separator: ", ")
        // The fields users most often write another way, else the first ones with aliases.
        let favoured = ["model_year", "odometer_km", "license_plate", "body_class"]
        let aliased = columns.filter { !$0.aliases.isEmpty }
        let shown = aliased.filter { favoured.contains($0.name) } + aliased.filter { !favoured.contains($0.name) }
        let examples = shown.prefix(3).map { "\($0.aliases[0]) for \($0.name)" }
        return examples.isEmpty ? names : names + "; schema aliases work too (" + examples.joined(separator: ", ") + ", …)"
    }

    /// The column whose name or alias is nearest `name` (at most a third of its letters differ,
    /// compared folded), for a typo's hint; nil when none is that near.
    func closestColumn(to name: String) -> String? {
        let wanted = Array(Schema.fold(name).utf8)
        guard wanted.count >= 3 else { return nil }
        var best: (column: String, distance: Int)?
        for c in columns {
            for candidate in [c.name] + c.aliases {
                let d = Self.editDistance(wanted, Array(Schema.fold(candidate).utf8))
                if d <= max(1, wanted.count / 3), d < (best?.distance ?? .max) { best = (c.name, d) }
            }
        }
        return best?.column
    }

    /// Edit distance of two byte strings (insertions, deletions, substitutions and swaps of two
    /// neighbours: `yaer` is one edit from `year`).
    static func editDistance(_ a: [UInt8], _ b: [UInt8]) -> Int {
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var beforePrevious = Array(0...b.count)
        var previous = beforePrevious
        var current = previous
        for i in 1...a.count {
            current[0] = i
            for j in 1...b.count {
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                    current[j] = min(current[j], beforePrevious[j - 2] + 1)
                }
            }
            (beforePrevious, previous, current) = (previous, current, beforePrevious)
        }
        return previous[b.count]
    }

    /// The latitude and longitude columns (by name or alias), for GeoJSON; nil without both.
    var coordinateColumns: (latitude: Column, longitude: Column)? {
        guard let lat = findColumn(["latitude", "lat"]), let lon = findColumn(["longitude", "lon", "lng", "long"]) else {
            return nil
        }
        return (lat, lon)
    }

    /// The first column whose name or alias folds to one of `names` (for latitude/longitude).
    func findColumn(_ names: [String]) -> Column? {
        let wanted = Set(names.map(Schema.fold))
        return columns.first { wanted.contains(Schema.fold($0.name)) }
            ?? columns.first { $0.aliases.contains { wanted.contains(Schema.fold($0)) } }
    }
}
