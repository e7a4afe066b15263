import Foundation

extension VinyardStore {
    /// The SQLite column type for a schema field type: booleans are INTEGER 0/1, arrays are JSON
    /// text, dates are ISO 8601 text.
    public static func columnType(for type: Field.FieldType) -> String {
        switch type {
        case .integer, .boolean: "INTEGER"
        case .number: "REAL"
        case .string, .date, .datetime, .yearmonth, .dateOrYearMonth, .array: "TEXT"
        }
    }

    /// Checks that `schema` can be stored: a table name and field names that are not empty, not
    /// reserved (bookkeeping tables, `sqlite_…`, names starting with `_`) and unique.
    public static func validate(_ schema: Schema) throws {
        let name = schema.name
        func bad(_ why: String) -> VinyardError { VinyardError(.malformedInput, "schema \(name): \(why)") }
        if name.isEmpty { throw bad("the table name is empty") }
        if bookkeepingTables.contains(name.lowercased()) || name.lowercased().hasPrefix("sqlite_") || name.hasPrefix("_") {
            throw bad("the table name \(name) is reserved")
        }
        if schema.fields.isEmpty { throw bad("no fields") }
        var seen = Set<String>()
        for field in schema.fields {
            if field.name.isEmpty { throw bad("a field has an empty name") }
            if field.name.hasPrefix("_") { throw bad("field \(field.name): names starting with _ are reserved") }
            if !seen.insert(field.name.lowercased()).inserted { throw bad("field \(field.name) appears twice") }
        }
    }

    /// Creates the table for `schema`, or migrates it: a field added to the schema becomes a new
    /// column (`ALTER TABLE … ADD COLUMN`, NULL in existing rows); a field removed from the schema
    /// keeps its column and values (SQLite cannot drop columns cheaply, and nothing is lost), new
    /// rows leave it NULL. A changed field type keeps the column's declared type. The schema is
    /// recorded in `vinyard_meta` under `schema:NAME`.
    /// Runs in the caller's transaction when there is one, else in its own.
    public func prepareTable(for schema: Schema) throws {
        try Self.validate(schema)
        guard !isReadOnly else { throw VinyardError(.usage, "\(path) is open read-only") }
        let ownTransaction = connection.isAutocommit
        do {
            if ownTransaction { try connection.begin(.immediate) }
            try createOrMigrate(schema)
            if ownTransaction { try connection.commit() }
        } catch let error as StoreError {
            if ownTransaction { try? connection.rollback() }
            throw Self.storeError(error, "cannot create table \(schema.name) in \(path)")
        } catch {
            if ownTransaction { try? connection.rollback() }
            throw error
        }
    }

    func createOrMigrate(_ schema: Schema) throws {
        let table = quoteIdentifier(schema.name)
        let existing = try columnNames(of: schema.name)
        if existing.isEmpty {
            // The key's unique index is a named index (not an inline PRIMARY KEY) so an import into
            // the empty table can drop it and build it once at the end.
            var columns = ["\"_key\" TEXT NOT NULL"]
            for field in schema.fields {
                columns.append("\(quoteIdentifier(field.name)) \(Self.columnType(for: field.type))")
            }
            columns += [
                "\"_source\" TEXT", "\"_input\" TEXT", "\"_line\" INTEGER", "\"_element\" INTEGER", "\"_run_id\" INTEGER NOT NULL",
                "\"_first_run_id\" INTEGER NOT NULL", "\"_hash\" INTEGER NOT NULL", "\"_updated_at\" TEXT NOT NULL",
            ]
            try connection.execute("CREATE TABLE \(table)(\n  " + columns.joined(separator: ",\n  ") + "\n)")
            try connection.execute(Self.createKeyIndexSQL(table: schema.name))
        } else {
            let known = Set(existing.map { $0.lowercased() })
            guard known.contains("_key"), known.contains("_hash"), known.contains("_run_id") else {
                throw VinyardError(
                    .malformedInput,
                    "table \(schema.name) in \(path) was not created by Vinyard (no _key/_hash/_run_id columns)")
            }
            for field in schema.fields where !known.contains(field.name.lowercased()) {
                try connection.execute(
                    "ALTER TABLE \(table) ADD COLUMN \(quoteIdentifier(field.name)) \(Self.columnType(for: field.type))")
            }
            // A table written before rows kept their JSON array element (NULL in its rows).
            if !known.contains("_element") {
                try connection.execute("ALTER TABLE \(table) ADD COLUMN \"_element\" INTEGER")
            }
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let json = String(decoding: try encoder.encode(schema), as: UTF8.self)
        let statement = try connection.prepare("INSERT OR REPLACE INTO vinyard_meta(key, value) VALUES(?1, ?2)")
        try statement.execute([.text("schema:" + schema.name), .text(json)])
    }

    /// The name of the unique index on a schema table's `_key` (names starting with `_` are
    /// reserved for Vinyard, so it cannot clash with a schema table).
    static func keyIndexName(_ table: String) -> String { "_key_" + table }

    static func createKeyIndexSQL(table: String) -> String {
        "CREATE UNIQUE INDEX \(quoteIdentifier(keyIndexName(table))) ON \(quoteIdentifier(table))(\"_key\")"
    }

    /// Throws the damaged-database error (exit 65) when a table every Vinyard database has (the
    /// schema tables it names, `rejects`, `findings`, `duplicates`, `import_runs`) is missing: a
    /// dropped `vehicles` was "nothing has been imported into it yet" (exit 64), a dropped
    /// `rejects` SQLite's own error (exit 74).
    public func checkTablesPresent() throws {
        guard isInitialized else { return }
        let expected = try schemaTableNames() + ["rejects", "findings", "duplicates", "import_runs"]
        let present: Set<String>
        do {
            present = Set(try Self.tableNames(in: connection, views: false).map { $0.lowercased() })
        } catch {
            throw Self.storeError(error, "cannot read the tables of \(path)")
        }
        let missing = expected.filter { !present.contains($0.lowercased()) }
        guard !missing.isEmpty else { return }
        throw VinyardError(
            .malformedInput,
            "\(path) is damaged: its table\(missing.count == 1 ? "" : "s") \(missing.joined(separator: ", ")) "
                + "\(missing.count == 1 ? "is" : "are") missing; restore it from a backup or choose another --db path")
    }

    /// The column names of `table` in order (empty when the table does not exist).
    public func columnNames(of table: String) throws -> [String] {
        do {
            let statement = try connection.prepare("SELECT name FROM pragma_table_info(?1) ORDER BY cid")
            try statement.bind(table, at: 1)
            var names: [String] = []
            while try statement.step() { names.append(statement.text(0) ?? "") }
            return names
        } catch {
            throw Self.storeError(error, "cannot read the columns of \(table) in \(path)")
        }
    }

    /// The schema last used to create or migrate `table`, as recorded in `vinyard_meta`.
    public func storedSchema(named table: String) throws -> Schema? {
        guard isInitialized else { return nil }
        let statement: Statement
        do {
            statement = try connection.prepare("SELECT value FROM vinyard_meta WHERE key = ?1")
            try statement.bind("schema:" + table, at: 1)
            guard try statement.step(), let json = statement.text(0) else { return nil }
            return try JSONDecoder().decode(Schema.self, from: Data(json.utf8))
        } catch let error as StoreError {
            throw Self.storeError(error, "cannot read vinyard_meta in \(path)")
        } catch {
            throw VinyardError(.malformedInput, "the schema of \(table) recorded in \(path) cannot be read", cause: nil)
        }
    }

    /// The names of the schema tables (those recorded in `vinyard_meta`), sorted.
    public func schemaTableNames() throws -> [String] {
        guard isInitialized else { return [] }
        do {
            let statement = try connection.prepare(
                "SELECT substr(key, 8) FROM vinyard_meta WHERE key LIKE 'schema:%' ORDER BY 1")
            var names: [String] = []
            while try statement.step() { names.append(statement.text(0) ?? "") }
            return names
        } catch {
            throw Self.storeError(error, "cannot read vinyard_meta in \(path)")
        }
    }

    /// Runs `PRAGMA integrity_check` and returns its messages (`["ok"]` for a sound file).
    public func integrityCheck() throws -> [String] {
        do {
            let statement = try connection.prepare("PRAGMA integrity_check")
            var messages: [String] = []
            while try statement.step() { messages.append(statement.text(0) ?? "") }
            return messages
        } catch {
            throw Self.storeError(error, "integrity check of \(path) failed")
        }
    }
}
