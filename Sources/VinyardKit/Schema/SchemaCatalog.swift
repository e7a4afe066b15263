import Foundation

/// The schemas, source mappings, synonym tables and makes the pipeline works with: the bundled
/// copies of `Schemas/` (see ``bundled()``), optionally extended with a user's `--schema FILE` or
/// `--mapping FILE`.
public struct SchemaCatalog: Sendable {
    /// Schemas by short name (`vehicle`, `location`: the file name without `.schema.json`).
    public private(set) var schemas: [String: Schema]
    /// Source mappings in a stable order (bundled ones sorted by name, user ones after).
    public private(set) var mappings: [SourceMapping]
    /// Synonym tables by name, including `make` (from `makes.json`).
    public private(set) var synonyms: [String: SynonymTable]
    public private(set) var makes: MakeTable

    private static let bundledCatalog: Result<SchemaCatalog, VinyardError> = Result(catching: {
        try SchemaCatalog(files: EmbeddedSchemas.files)
    }).mapError { error in
        error as? VinyardError ?? VinyardError(.usage, "bundled schemas do not load: \(error)")
    }

    /// The catalog built from the schemas bundled into the library (generated from `Schemas/` by
    /// `Scripts/embed-schemas.py`), parsed once at first use.
    public static func bundled() throws -> SchemaCatalog { try bundledCatalog.get() }

    /// Builds a catalog from files keyed by their path under `Schemas/`: `*.schema.json`,
    /// `sources/*.json`, `synonyms.json`, `makes.json`.
    public init(files: [String: String]) throws {
        schemas = [:]
        mappings = []
        synonyms = [:]
        makes = try MakeTable(makes: [])
        for (path, text) in files.sorted(by: { $0.key < $1.key }) {
            if path.hasSuffix(".schema.json") {
                let schema = try Self.decode(Schema.self, text, path)
                schemas[Self.schemaName(path)] = schema
            } else if path.hasPrefix("sources/"), path.hasSuffix(".json") {
                mappings.append(try Self.decode(SourceMapping.self, text, path))
            } else if path == "synonyms.json" {
                let tables = try Self.decode([String: [String: [String]]].self, text, path)
                for (name, table) in tables {
                    synonyms[name] = try SynonymTable(
                        name: name, entries: table.sorted(by: { $0.key < $1.key }).map { ($0.key, $0.value) })
                }
            } else if path == "makes.json" {
                let file = try Self.decode(MakesFile.self, text, path)
                makes = try MakeTable(
                    makes: file.makes.map { ($0.name, $0.spellings ?? []) }, companySuffixes: file.companySuffixes ?? [])
            }
        }
        if synonyms["make"] == nil { synonyms["make"] = makes.synonyms }
        for mapping in mappings { try validate(mapping) }
    }

    private struct MakesFile: Decodable {
        struct Make: Decodable {
            var name: String
            var spellings: [String]?
        }
        var makes: [Make]
        var companySuffixes: [String]?
    }

    private static func schemaName(_ path: String) -> String {
        let file = path.split(separator: "/").last.map(String.init) ?? path
        return file.hasSuffix(".schema.json") ? String(file.dropLast(".schema.json".count)) : file
    }

    private static func decode<T: Decodable>(_ type: T.Type, _ text: String, _ path: String) throws -> T {
        do {
            return try JSONDecoder().decode(T.self, from: Data(text.utf8))
        } catch {
            throw VinyardError(.usage, "\(path): not a valid \(T.self) description: \(Self.describe(error))")
        }
    }

    private static func describe(_ error: any Error) -> String {
        guard let e = error as? DecodingError else { return "\(error)" }
        switch e {
        case .keyNotFound(let key, let ctx):
            return "missing key '\(key.stringValue)' at \(ctx.codingPath.map(\.stringValue).joined(separator: "."))"
        case .typeMismatch(_, let ctx), .valueNotFound(_, let ctx), .dataCorrupted(let ctx):
            return "\(ctx.debugDescription) at '\(ctx.codingPath.map(\.stringValue).joined(separator: "."))'"
        @unknown default:
            return "\(error)"
        }
    }

    /// The schema with this short name (`vehicle`) or table name (`vehicles`).
    public func schema(named name: String) throws -> Schema {
        if let s = schemas[name] { return s }
        if let s = schemas.values.first(where: { $0.name == name }) { return s }
        throw VinyardError(
            .usage, "unknown schema '\(name)'; known schemas: \(schemas.keys.sorted().joined(separator: ", "))")
    }

    /// The schema a mapping maps onto.
    public func schema(for mapping: SourceMapping) throws -> Schema { try schema(named: mapping.schema) }

    /// The mapping with this name (`--source NAME`).
    public func mapping(named name: String) throws -> SourceMapping {
        if let m = mappings.first(where: { $0.name == name }) { return m }
        throw VinyardError(
            .usage, "unknown source '\(name)'; known sources: \(mappings.map(\.name).joined(separator: ", "))")
    }

    /// Adds or replaces a schema from a file (`--schema FILE`); its short name is the file name
    /// without `.schema.json` (or `.json`); a schema with a bundled table name replaces that one.
    /// Mappings that name it use the new one.
    @discardableResult
    public mutating func loadSchema(file path: String) throws -> Schema {
        let text = try Self.read(path)
        var name = Self.schemaName(path)
        if name.hasSuffix(".json") { name = String(name.dropLast(5)) }
        let schema = try Self.decode(Schema.self, text, path)
        // A file that redefines a bundled table replaces it under its bundled name too.
        if let existing = schemas.first(where: { $0.value.name == schema.name })?.key { schemas[existing] = schema }
        schemas[name] = schema
        // Mappings are checked against it when a Mapper is built for them.
        return schema
    }

    /// Adds or replaces a source mapping from a file (`--mapping FILE`).
    @discardableResult
    public mutating func loadMapping(file path: String) throws -> SourceMapping {
        let mapping = try Self.decode(SourceMapping.self, try Self.read(path), path)
        try add(mapping)
        return mapping
    }

    /// Adds or replaces a mapping (by name), after checking its targets exist in its schema.
    public mutating func add(_ mapping: SourceMapping) throws {
        try validate(mapping)
        if let i = mappings.firstIndex(where: { $0.name == mapping.name }) {
            mappings[i] = mapping
        } else {
            mappings.append(mapping)
        }
    }

    /// Checks that a mapping's schema, targets, required fields and synonym tables exist.
    public func validate(_ mapping: SourceMapping) throws {
        let schema = try schema(for: mapping)
        let names = Set(schema.fields.map(\.name))
        func check(_ field: String, _ role: String) throws {
            guard names.contains(field) else {
                throw VinyardError(
                    .usage,
                    "source mapping '\(mapping.name)': \(role) '\(field)' is not a field of schema '\(mapping.schema)'")
            }
        }
        for f in mapping.fields {
            if let t = f.target { try check(t, "target") }
            for t in f.targets ?? [] { try check(t, "target") }
            if f.target == nil, (f.targets ?? []).isEmpty {
                throw VinyardError(.usage, "source mapping '\(mapping.name)': '\(f.source)' has no target")
            }
            if f.transform == .splitMakeModel, (f.targets ?? []).count != 2 {
                throw VinyardError(
                    .usage, "source mapping '\(mapping.name)': split-make-model needs two targets (make, model)")
            }
            if let p = f.dateFormat, DatePattern(p) == nil {
                throw VinyardError(
                    .usage, "source mapping '\(mapping.name)': date format '\(p)' needs yyyy (or yy) and M or MM")
            }
        }
        for r in mapping.required { try check(r, "required field") }
        for field in schema.fields {
            if let table = field.synonyms, synonyms[table] == nil {
                throw VinyardError(
                    .usage, "schema '\(mapping.schema)': field '\(field.name)' names unknown synonym table '\(table)'")
            }
        }
    }

    private static func read(_ path: String) throws -> String {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw VinyardError(.missingInput, "\(path): cannot read the file; check the path")
        }
        guard let text = String(data: data, encoding: .utf8) else {
            throw VinyardError(.usage, "\(path): not UTF-8 text")
        }
        return text
    }
}
