/// A summary of a Vinyard database, for `vinyard stats`.
public struct StoreStats: Sendable, Hashable, Codable {
    /// A value (nil for NULL: `null` in JSON, `(none)` in text) and how many rows have it.
    public struct Count: Sendable, Hashable, Codable {
        public var value: String?
        public var count: Int
        public init(value: String?, count: Int) {
            self.value = value
            self.count = count
        }
        private enum CodingKeys: String, CodingKey { case value, count }
        /// `"value": null` for NULL (the synthesized encoding would leave the key out).
        public func encode(to encoder: any Encoder) throws {
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encode(value, forKey: .value)
            try c.encode(count, forKey: .count)
        }
    }

    /// One schema table.
    public struct Table: Sendable, Hashable, Codable {
        public var name: String
        public var rows: Int
        /// Rows per `_source`, most first.
        public var bySource: [Count]
        /// Rows per `make` (when the table has that column), most first, at most ``StoreStats/topLimit``.
        public var byMake: [Count]
        /// How many makes there are in all (``byMake`` lists the first), and the rows of those not
        /// listed: the list alone looked like the whole table.
        public var makeCount = 0
        public var unlistedMakeRows = 0
    }

    /// One import run.
    public struct Run: Sendable, Hashable, Codable {
        public var id: Int64
        public var startedAt: String
        public var finishedAt: String?
        public var status: String
        public var counts: ImportCounts
        public var elapsedSeconds: Double?
    }

    /// How many makes are listed per table.
    public static let topLimit = 25

    public var path: String
    public var tables: [Table]
    public var rejects: Int
    public var duplicates: Int
    /// Rows in `findings` (warnings on loaded rows).
    public var findings: Int
    /// Rows in `findings` per code, most first.
    public var findingsByCode: [Count]
    /// The latest runs, newest first (at most 10).
    public var runs: [Run]
    /// All runs recorded.
    public var runCount: Int
}

extension VinyardStore {
    /// Counts rows per table, source and make, findings per code, and lists the latest runs.
    public func stats() throws -> StoreStats {
        var stats = StoreStats(
            path: path, tables: [], rejects: 0, duplicates: 0, findings: 0, findingsByCode: [], runs: [], runCount: 0)
        guard isInitialized else { return stats }
        try checkTablesPresent()
        do {
            for name in try schemaTableNames() {
                let columns = try columnNames(of: name)
                guard !columns.isEmpty else { continue }
                let table = quoteIdentifier(name)
                let rows = Int(try connection.scalarInt("SELECT count(*) FROM \(table)") ?? 0)
                let bySource = try counts(
                    "SELECT \"_source\", count(*) FROM \(table) GROUP BY 1 ORDER BY 2 DESC, 1")
                var entry = StoreStats.Table(name: name, rows: rows, bySource: bySource, byMake: [])
                if columns.contains(where: { $0.lowercased() == "make" }) {
                    entry.byMake = try counts(
                        "SELECT \"make\", count(*) FROM \(table) GROUP BY 1 ORDER BY 2 DESC, 1 LIMIT \(StoreStats.topLimit)")
                    entry.makeCount = Int(try connection.scalarInt("SELECT count(DISTINCT coalesce(\"make\", '(none)')) FROM \(table)") ?? 0)
                    entry.unlistedMakeRows = rows - entry.byMake.reduce(0) { $0 + $1.count }
                }
                stats.tables.append(entry)
            }
            stats.rejects = Int(try connection.scalarInt("SELECT count(*) FROM rejects") ?? 0)
            stats.duplicates = Int(try connection.scalarInt("SELECT count(*) FROM duplicates") ?? 0)
            stats.findings = Int(try connection.scalarInt("SELECT count(*) FROM findings") ?? 0)
            stats.findingsByCode = try counts("SELECT code, count(*) FROM findings GROUP BY 1 ORDER BY 2 DESC, 1")
            stats.runCount = Int(try connection.scalarInt("SELECT count(*) FROM import_runs") ?? 0)
            let runs = try connection.prepare(
                """
                SELECT id, started_at, finished_at, status, read, inserted, updated, unchanged, duplicates, rejected,
                  elapsed_seconds FROM import_runs ORDER BY id DESC LIMIT 10
                """)
            while try runs.step() {
                let counts = ImportCounts(
                    read: Int(runs.int64(4)), inserted: Int(runs.int64(5)), updated: Int(runs.int64(6)),
                    unchanged: Int(runs.int64(7)), duplicates: Int(runs.int64(8)), rejected: Int(runs.int64(9)))
                stats.runs.append(
                    .init(
                        id: runs.int64(0), startedAt: runs.text(1) ?? "", finishedAt: runs.text(2),
                        status: runs.text(3) ?? "", counts: counts, elapsedSeconds: runs.isNull(10) ? nil : runs.double(10)))
            }
        } catch let error as StoreError {
            throw Self.storeError(error, "cannot read statistics from \(path)")
        }
        return stats
    }

    private func counts(_ sql: String) throws(StoreError) -> [StoreStats.Count] {
        let statement = try connection.prepare(sql)
        var list: [StoreStats.Count] = []
        while try statement.step() {
            list.append(.init(value: statement.text(0), count: Int(statement.int64(1))))
        }
        return list
    }

    /// Prepares a read statement for streaming rows (export): step it with ``Statement/step()``
    /// and read columns by index. Values reach SQLite as bound parameters.
    public func prepareQuery(_ sql: String, arguments: [FieldValue?] = []) throws -> Statement {
        do {
            let statement = try connection.prepare(sql)
            try statement.bind(arguments)
            return statement
        } catch {
            throw Self.storeError(error, "cannot query \(path)")
        }
    }
}
