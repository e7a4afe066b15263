import Foundation
import Testing
import VinyardKit

@Suite struct VinyardStoreTests {
    @Test func createsTableFromSchema() throws {
        let dir = try makeStoreDirectory()
        let store = try VinyardStore(path: dir.appendingPathComponent("v.db").path)
        try store.prepareTable(for: testSchema)
        #expect(
            try store.columnNames(of: "vehicles")
                == ["_key", "vin", "make", "model_year", "odometer_km", "accident_free", "notes", "_source", "_input", "_line", "_element",
                    "_run_id", "_first_run_id", "_hash", "_updated_at"])
        #expect(try store.storedSchema(named: "vehicles") == testSchema)
        #expect(try store.schemaTableNames() == ["vehicles"])
        #expect(try store.integrityCheck() == ["ok"])
        #expect(try store.rows("PRAGMA journal_mode").first?.first == .text("wal"))
    }

    @Test func rejectsReservedSchemaNames() throws {
        let dir = try makeStoreDirectory()
        let store = try VinyardStore(path: dir.appendingPathComponent("v.db").path)
        for bad in [
            Schema(name: "findings", fields: [Field(name: "a", type: .string)], primaryKey: ["a"]),
            Schema(name: "t", fields: [Field(name: "_key", type: .string)], primaryKey: []),
            Schema(name: "t", fields: [Field(name: "a", type: .string), Field(name: "A", type: .string)], primaryKey: []),
        ] {
            #expect(throws: VinyardError.self) { try store.prepareTable(for: bad) }
        }
    }

    @Test func migrationAddsColumnAndKeepsRemovedOnes() throws {
        let dir = try makeStoreDirectory()
        let path = dir.appendingPathComponent("v.db").path
        do {
            let store = try VinyardStore(path: path)
            let report = try store.importRecords([testRecord("VIN1", make: "BMW", year: 2019, line: 2)])
            #expect(report.counts.inserted == 1)
        }
        var v2 = testSchema
        v2.fields.removeAll { $0.name == "notes" }
        v2.fields.append(Field(name: "color", type: .string))
        let store = try VinyardStore(path: path)
        let session = try store.beginImport()
        let provenance = Provenance(input: "a.csv", line: 2)
        let same = CanonicalRecord(
            values: [.text("VIN1"), .text("BMW"), .integer(2019), nil, nil, nil], key: "VIN1", provenance: provenance,
            findings: [], raw: RawRecord(fields: [], provenance: provenance))
        // The new field is empty: the row's hash is the same, so the row is unchanged.
        #expect(try session.write(same, schema: v2).outcome == .unchanged)
        var colored = same
        colored.key = "VIN2"
        colored.values = [.text("VIN2"), .text("Audi"), .integer(2020), nil, nil, .text("red")]
        #expect(try session.write(colored, schema: v2).outcome == .inserted)
        _ = try session.finish()
        let columns = try store.columnNames(of: "vehicles")
        #expect(columns.contains("color"))
        #expect(columns.contains("notes"))
        #expect(try store.rows("SELECT color, notes FROM vehicles WHERE _key='VIN2'") == [[.text("red"), nil]])
        #expect(try store.storedSchema(named: "vehicles") == v2)
    }

    @Test func insertThenReimportIsUnchanged() throws {
        let dir = try makeStoreDirectory()
        let store = try VinyardStore(path: dir.appendingPathComponent("v.db").path)
        let warning = Finding(.vinWMIUnknown, .warning, field: "vin", message: "unknown WMI")
        let records = [
            testRecord("VIN1", make: "BMW", year: 2019, km: 12000, accidentFree: true, line: 2, findings: [warning]),
            testRecord("VIN2", make: "Audi", year: 2020, line: 3),
        ]
        let first = try store.importRecords(records)
        #expect(first.counts == ImportCounts(read: 2, inserted: 2))
        #expect(try store.count("SELECT count(*) FROM findings") == 1)
        let hashes = try store.rows("SELECT _key, _hash, _run_id FROM vehicles ORDER BY _key")
        let second = try store.importRecords(records)
        #expect(second.counts == ImportCounts(read: 2, unchanged: 2))
        #expect(second.counts.isBalanced)
        #expect(try store.rows("SELECT _key, _hash, _run_id FROM vehicles ORDER BY _key") == hashes)
        #expect(try store.count("SELECT count(*) FROM findings") == 1)
        #expect(try store.count("SELECT count(*) FROM import_runs WHERE status='completed'") == 2)
        // Stored values keep their types: boolean as 1, real as real.
        #expect(
            try store.rows("SELECT model_year, odometer_km, accident_free FROM vehicles WHERE _key='VIN1'")
                == [[.integer(2019), .real(12000), .integer(1)]])
        // A changed record updates and replaces its findings.
        let third = try store.importRecords([testRecord("VIN1", make: "BMW", year: 2018, line: 2)])
        #expect(third.counts == ImportCounts(read: 1, updated: 1))
        #expect(try store.count("SELECT count(*) FROM findings") == 0)
        #expect(try store.rows("SELECT _first_run_id, _run_id FROM vehicles WHERE _key='VIN1'") == [[.integer(1), .integer(3)]])
    }

    @Test(arguments: DuplicatePolicy.allCases)
    func duplicatesWithinRun(policy: DuplicatePolicy) throws {
        let dir = try makeStoreDirectory()
        let store = try VinyardStore(path: dir.appendingPathComponent("v.db").path)
        let records = [
            testRecord("VIN1", make: "BMW", year: nil, line: 2),
            testRecord("VIN2", make: "Audi", year: 2020, line: 3),
            testRecord("VIN1", make: "Bmw", year: 2019, line: 4),
        ]
        let report = try store.importRecords(records, policy: policy)
        #expect(report.counts == ImportCounts(read: 3, inserted: 2, duplicates: 1))
        #expect(report.findings["key.conflict"] == 1)
        let row = try store.rows("SELECT make, model_year, _line FROM vehicles WHERE _key='VIN1'")
        let action: String
        switch policy {
        case .last:
            #expect(row == [[.text("Bmw"), .integer(2019), .integer(4)]])
            action = "replaced"
        case .first:
            #expect(row == [[.text("BMW"), nil, .integer(2)]])
            action = "dropped"
        case .merge:
            // The gap (model_year) is filled; the conflicting make keeps the stored value.
            #expect(row == [[.text("BMW"), .integer(2019), .integer(2)]])
            action = "merged"
        }
        let dup = try store.rows("SELECT key, action, line, raw, findings FROM duplicates")
        #expect(dup.count == 1)
        #expect(dup.first?[0] == .text("VIN1"))
        #expect(dup.first?[1] == .text(action))
        #expect(dup.first?[2] == .integer(policy == .last ? 2 : 4))
        if case .text(let raw)? = dup.first?[3] {
            #expect(raw.contains(policy == .last ? "\"make\":\"BMW\"" : "\"Make\":\"Bmw\""))
        } else {
            Issue.record("no raw JSON")
        }
        let conflict = try store.rows("SELECT code, severity, field, line FROM findings WHERE key='VIN1'")
        #expect(conflict == [[.text("key.conflict"), .text("warning"), .text("make"), .integer(4)]])

        // Re-importing the same input leaves the table as it is and does not pile up entries.
        let before = try store.rows("SELECT * FROM vehicles ORDER BY _key").map { Array($0.prefix(9)) }
        let again = try store.importRecords(records, policy: policy)
        #expect(again.counts == ImportCounts(read: 3, unchanged: 2, duplicates: 1))
        #expect(try store.rows("SELECT * FROM vehicles ORDER BY _key").map { Array($0.prefix(9)) } == before)
        #expect(try store.count("SELECT count(*) FROM duplicates") == 1)
        #expect(try store.count("SELECT count(*) FROM findings") == 1)
    }

    /// A duplicate's own warnings (`vehicle.accident` on the merged record) are findings of the row;
    /// re-running the input replaces them instead of adding another copy each run. With `merge`
    /// the findings table grew by one a run. Also for a JSON array on one line, where the row and
    /// the duplicate share the line and carry the same warning.
    @Test(arguments: DuplicatePolicy.allCases, [4, 2])
    func reimportDoesNotPileUpADuplicatesWarnings(policy: DuplicatePolicy, duplicateLine: Int) throws {
        let dir = try makeStoreDirectory()
        let store = try VinyardStore(path: dir.appendingPathComponent("v.db").path)
        func accident(_ line: Int) -> Finding {
            Finding(.vehicleAccident, .warning, field: "accident_free", message: "not accident-free", input: "a.csv", line: line)
        }
        let records = [
            testRecord("VIN1", make: "BMW", accidentFree: duplicateLine == 2 ? false : nil, line: 2,
                       findings: duplicateLine == 2 ? [accident(2)] : []),
            testRecord("VIN1", make: "BMW", accidentFree: false, line: duplicateLine, findings: [accident(duplicateLine)]),
        ]
        _ = try store.importRecords(records, policy: policy)
        let sql = "SELECT key, input, line, code FROM findings ORDER BY key, input, line, code"
        let first = try store.rows(sql)
        // (A dropped duplicate's warnings stay with it in `duplicates`.)
        #expect(first.contains { $0[3] == .text("vehicle.accident") } == (policy != .first || duplicateLine == 2))
        for _ in 0..<2 {
            let again = try store.importRecords(records, policy: policy)
            #expect(again.counts == ImportCounts(read: 2, unchanged: 1, duplicates: 1))
            #expect(try store.rows(sql) == first)
        }
    }

    /// With `last`, a later run's different values update the row, and the values they overwrite
    /// are kept in `duplicates` (nothing lost); a record that becomes the row again leaves no
    /// stale entry behind, and filling empty fields needs none.
    @Test func lastAcrossRunsKeepsReplacedValues() throws {
        let dir = try makeStoreDirectory()
        let store = try VinyardStore(path: dir.appendingPathComponent("v.db").path)
        let a = testRecord("VIN1", make: "BMW", year: 2019, input: "a.csv", line: 2)
        let b = testRecord("VIN1", make: "BMW", year: 2020, input: "b.csv", line: 7)
        _ = try store.importRecords([testRecord("VIN1", make: "BMW", input: "a.csv", line: 2)])
        #expect(try store.importRecords([a]).counts == ImportCounts(read: 1, updated: 1))
        #expect(try store.count("SELECT count(*) FROM duplicates") == 0, "a filled gap loses nothing")
        let second = try store.importRecords([b])
        #expect(second.counts == ImportCounts(read: 1, updated: 1))
        #expect(second.findings.isEmpty, "with last, a later run is an update, not a conflict")
        #expect(
            try store.rows("SELECT input, line, action, json_extract(raw, '$.model_year') FROM duplicates")
                == [[.text("a.csv"), .integer(2), .text("replaced"), .integer(2019)]])
        #expect(try store.importRecords([b]).counts == ImportCounts(read: 1, unchanged: 1))
        #expect(try store.importRecords([a]).counts == ImportCounts(read: 1, updated: 1))
        #expect(
            try store.rows("SELECT input, line, json_extract(raw, '$.model_year') FROM duplicates")
                == [[.text("b.csv"), .integer(7), .integer(2020)]])
        #expect(try store.rows("SELECT model_year, _input FROM vehicles") == [[.integer(2019), .text("a.csv")]])
    }

    @Test func mergeAcrossRunsFillsGapsAndReportsConflicts() throws {
        let dir = try makeStoreDirectory()
        let store = try VinyardStore(path: dir.appendingPathComponent("v.db").path)
        _ = try store.importRecords([testRecord("VIN1", make: "BMW", year: nil, notes: "", line: 2)], policy: .merge)
        let report = try store.importRecords(
            [testRecord("VIN1", make: "Audi", year: 2019, notes: "from b", input: "b.csv", line: 7)], policy: .merge)
        #expect(report.counts == ImportCounts(read: 1, updated: 1))
        #expect(
            try store.rows("SELECT make, model_year, notes FROM vehicles")
                == [[.text("BMW"), .integer(2019), .text("from b")]])
        #expect(try store.rows("SELECT field, input, line FROM findings WHERE code='key.conflict'")
            == [[.text("make"), .text("b.csv"), .integer(7)]])
        #expect(try store.rows("SELECT action FROM duplicates") == [[.text("merged")]])
    }

    @Test func rejectsAreKeptWithReasons() throws {
        let dir = try makeStoreDirectory()
        let store = try VinyardStore(path: dir.appendingPathComponent("v.db").path)
        let session = try store.beginImport()
        let bad = testRecord(
            "VIN1", make: "BMW", line: 2,
            findings: [Finding(.vinCheckDigit, .error, field: "vin", message: "check digit 4, expected 3", suggestion: "VIN3")])
        #expect(try session.write(bad, schema: testSchema, source: "fleet").outcome == .rejected)
        #expect(try session.write(testRecord(nil, make: "BMW", line: 3), schema: testSchema).outcome == .rejected)
        let ragged = RawReject(
            provenance: Provenance(input: "a.csv", line: 4), text: "x,y,\"z\"\n",
            fields: [RawField("VIN", .string("x"))],
            finding: Finding(.rowRagged, .error, message: "3 fields, header has 2"))
        try session.writeReject(ragged, source: "fleet", table: "vehicles")
        try session.write(testRecord("VIN9", make: "Kia", line: 5), schema: testSchema)
        let report = try session.finish(inputs: [ImportInput(name: "a.csv", contentHash: "abc", size: 10, source: "fleet")])
        #expect(report.counts == ImportCounts(read: 4, inserted: 1, rejected: 3))
        #expect(report.inputs == [ImportInput(name: "a.csv", contentHash: "abc", size: 10, source: "fleet", read: 4, rejected: 3)])
        #expect(report.findings == ["vin.check_digit": 1, "field.required": 1, "row.ragged": 1])
        let rejects = try store.rows("SELECT line, reason, raw, raw_text, findings FROM rejects ORDER BY line")
        #expect(rejects.count == 3)
        #expect(rejects[0][1] == .text("vin.check_digit: check digit 4, expected 3"))
        #expect(rejects[0][2] == .text("{\"VIN\":\"VIN1\",\"Make\":\"BMW\"}"))
        #expect(rejects[2][3] == .text("x,y,\"z\"\n"))
        if case .text(let json)? = rejects[0][4] {
            let decoded = try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [[String: Any]]
            #expect(decoded?.first?["suggestion"] as? String == "VIN3")
        }
        #expect(try store.count("SELECT count(*) FROM vehicles") == 1)
        let inputs = try store.rows("SELECT inputs FROM import_runs")
        if case .text(let json)? = inputs.first?.first {
            #expect(json == "[{\"name\":\"a.csv\",\"content_hash\":\"abc\",\"size\":10,\"source\":\"fleet\",\"read\":4,\"rejected\":3}]")
        }
    }

    @Test func rollbackLeavesThePreviousState() throws {
        let dir = try makeStoreDirectory()
        let path = dir.appendingPathComponent("v.db").path
        let store = try VinyardStore(path: path)
        _ = try store.importRecords([testRecord("VIN1", make: "BMW", line: 2)])
        let before = try store.rows("SELECT * FROM vehicles")
        do {
            let session = try store.beginImport()
            try session.write(testRecord("VIN1", make: "Audi", line: 2), schema: testSchema)
            try session.write(testRecord("VIN2", make: "Kia", line: 3), schema: testSchema)
            // A record that does not fit the schema fails mid-run.
            var broken = testRecord("VIN3", line: 4)
            broken.values.removeLast()
            #expect(throws: VinyardError.self) { try session.write(broken, schema: testSchema) }
            try session.rollback()
        }
        #expect(try store.rows("SELECT * FROM vehicles") == before)
        #expect(try store.count("SELECT count(*) FROM import_runs") == 1)
        // A session released without finish rolls back too.
        do {
            let session = try store.beginImport()
            try session.write(testRecord("VIN5", make: "Kia", line: 3), schema: testSchema)
        }
        #expect(try store.count("SELECT count(*) FROM vehicles") == 1)
        let reopened = try VinyardStore(path: path, readOnly: true)
        #expect(try reopened.rows("SELECT * FROM vehicles") == before)
        #expect(try reopened.integrityCheck() == ["ok"])
    }

    @Test func refusesATextFileAndLeavesItUntouched() throws {
        let dir = try makeStoreDirectory()
        let url = dir.appendingPathComponent("notes.txt")
        let bytes = Data("vin,make\n1HGCM82633A004352,Honda\n".utf8)
        try bytes.write(to: url)
        for readOnly in [false, true] {
            #expect {
                try VinyardStore(path: url.path, readOnly: readOnly)
            } throws: { error in
                guard let error = error as? VinyardError else { return false }
                return error.code == .malformedInput && error.message.contains("is not a Vinyard database")
            }
        }
        #expect(try Data(contentsOf: url) == bytes)
        #expect(!FileManager.default.fileExists(atPath: url.path + "-wal"))
        // A short file (fewer than 16 bytes) is refused too.
        let short = dir.appendingPathComponent("short.db")
        try Data("SQLite".utf8).write(to: short)
        #expect(throws: VinyardError.self) { try VinyardStore(path: short.path) }
        // An existing empty file is taken as a new database.
        let empty = dir.appendingPathComponent("empty.db")
        try Data().write(to: empty)
        _ = try VinyardStore(path: empty.path)
    }

    @Test func refusesAForeignSQLiteDatabase() throws {
        let dir = try makeStoreDirectory()
        let path = dir.appendingPathComponent("other.db").path
        do {
            let other = try Connection(path: path, mode: .readWriteCreate)
            try other.execute("CREATE TABLE customers(id INTEGER PRIMARY KEY, name TEXT); INSERT INTO customers(name) VALUES('x')")
        }
        let bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        #expect {
            try VinyardStore(path: path)
        } throws: { error in
            (error as? VinyardError)?.code == .malformedInput
                && (error as? VinyardError)?.message.contains("not a Vinyard database") == true
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == bytes)
    }

    @Test func unwritableLocations() throws {
        let dir = try makeStoreDirectory()
        #expect {
            try VinyardStore(path: dir.appendingPathComponent("missing/v.db").path)
        } throws: { ($0 as? VinyardError)?.code == .cantCreate }
        #expect {
            try VinyardStore(path: dir.path)
        } throws: { ($0 as? VinyardError)?.code == .cantCreate }
        #expect {
            try VinyardStore(path: dir.appendingPathComponent("absent.db").path, readOnly: true)
        } throws: { ($0 as? VinyardError)?.code == .missingInput }
        if getuid() != 0 {
            let locked = dir.appendingPathComponent("locked")
            try FileManager.default.createDirectory(at: locked, withIntermediateDirectories: true)
            try FileManager.default.setAttributes([.posixPermissions: 0o555], ofItemAtPath: locked.path)
            defer { try? FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: locked.path) }
            #expect {
                try VinyardStore(path: locked.appendingPathComponent("v.db").path)
            } throws: { ($0 as? VinyardError)?.code == .cantCreate }
        }
    }

    @Test func concurrentWriterWaitsForTheFirst() async throws {
        let dir = try makeStoreDirectory()
        let path = dir.appendingPathComponent("v.db").path
        let first = try VinyardStore(path: path)
        let session = try first.beginImport()
        try session.write(testRecord("VIN1", make: "BMW", line: 2), schema: testSchema)
        // A second writer with a short timeout fails with a clear message while the first holds the lock.
        let impatient = try VinyardStore(path: path, busyTimeout: 0.1)
        #expect {
            try impatient.beginImport()
        } throws: { ($0 as? VinyardError)?.message.contains("locked by another import") == true }
        // A patient second writer waits until the first commits, then sees its rows. It waits on
        // a thread of its own: blocked in SQLite's busy wait on one of the two threads of the
        // concurrency pool (a 2-core machine), it kept this task from being resumed to commit
        // while other tests held the other thread, and timed out after 30 s (a full run flaked).
        let started = Date()
        let counts = try await withCheckedThrowingContinuation { (done: CheckedContinuation<ImportCounts, any Error>) in
            let waiter = Thread {
                done.resume(
                    with: Result {
                        let second = try VinyardStore(path: path, busyTimeout: 30)
                        return try second.importRecords([testRecord("VIN1", make: "BMW", line: 2), testRecord("VIN2", make: "Kia", line: 3)])
                            .counts
                    })
            }
            waiter.start()
            Thread.sleep(forTimeInterval: 0.4)
            do { _ = try session.finish() } catch { Issue.record(error) }
        }
        #expect(Date().timeIntervalSince(started) >= 0.3)
        #expect(counts == ImportCounts(read: 2, inserted: 1, unchanged: 1))
        #expect(try first.count("SELECT count(*) FROM vehicles") == 2)
        #expect(try first.integrityCheck() == ["ok"])
    }

    /// Re-importing an input that holds a key several times (the last copy equal to the first)
    /// is unchanged, and every line is still in exactly one place: the row, or `duplicates`.
    @Test(arguments: DuplicatePolicy.allCases)
    func reimportWithRepeatedKeysKeepsEveryLineOnce(policy: DuplicatePolicy) throws {
        let dir = try makeStoreDirectory()
        let store = try VinyardStore(path: dir.appendingPathComponent("v.db").path)
        let records = [
            testRecord("VIN1", make: "BMW", year: 2019, line: 2),
            testRecord("VIN1", make: "BMW", year: 2020, line: 3),
            testRecord("VIN1", make: "BMW", year: 2019, line: 4),
            testRecord("VIN2", make: "Kia", line: 5),
        ]
        func lines() throws -> [Int64] {
            let stored = try store.rows("SELECT _line FROM vehicles UNION ALL SELECT line FROM duplicates")
            return stored.compactMap { if case .integer(let n)? = $0.first { n } else { nil } }.sorted()
        }
        let first = try store.importRecords(records, policy: policy)
        #expect(try lines() == [2, 3, 4, 5])
        let vehicles = try store.rows("SELECT _key, model_year, _line FROM vehicles ORDER BY _key")
        for _ in 0..<2 {
            let again = try store.importRecords(records, policy: policy)
            #expect(again.counts.inserted == 0 && again.counts.updated == 0, "\(again.counts)")
            #expect(again.counts.unchanged == 2 && again.counts.duplicates == first.counts.duplicates, "\(again.counts)")
            #expect(try lines() == [2, 3, 4, 5], "policy \(policy)")
            #expect(try store.rows("SELECT _key, model_year, _line FROM vehicles ORDER BY _key") == vehicles)
        }
    }

    /// The first load into empty tables runs with a rollback journal (its pages are written once,
    /// not to the WAL and again by the checkpoint) and leaves the file in WAL mode; a run into
    /// tables that hold rows, or while another connection has the file open, stays in WAL.
    @Test func bulkLoadUsesARollbackJournalOnlyIntoEmptyTablesAlone() throws {
        let dir = try makeStoreDirectory()
        let path = dir.appendingPathComponent("v.db").path
        let store = try VinyardStore(path: path)
        func journalMode() throws -> FieldValue? { try store.rows("PRAGMA journal_mode").first?.first ?? nil }

        let first = try store.beginImport()
        #expect(try journalMode() == .text("delete"))
        #expect(FileManager.default.fileExists(atPath: path + "-journal"))
        try first.write(testRecord("VIN1", make: "BMW", line: 2), schema: testSchema)
        _ = try first.finish()
        #expect(try journalMode() == .text("wal"))
        #expect(!FileManager.default.fileExists(atPath: path + "-journal"))

        let second = try store.beginImport()
        #expect(try journalMode() == .text("wal"), "the table holds a row")
        try second.rollback()

        let other = try makeStoreDirectory().appendingPathComponent("w.db").path
        let empty = try VinyardStore(path: other)
        let reader = try VinyardStore(path: other, readOnly: true)
        _ = try reader.rows("SELECT count(*) FROM import_runs")
        let third = try empty.beginImport()
        #expect(try empty.rows("PRAGMA journal_mode").first?.first == .text("wal"), "another connection is open")
        try third.rollback()

        // A rolled-back bulk run also goes back to WAL and leaves nothing behind.
        let fourthStore = try VinyardStore(path: dir.appendingPathComponent("x.db").path)
        let fourth = try fourthStore.beginImport()
        try fourth.write(testRecord("VIN1", make: "BMW", line: 2), schema: testSchema)
        try fourth.rollback()
        #expect(try fourthStore.rows("PRAGMA journal_mode").first?.first == .text("wal"))
        #expect(try fourthStore.count("SELECT count(*) FROM import_runs") == 0)
        #expect(try store.integrityCheck() == ["ok"])
    }

    @Test func statsCountsTablesSourcesMakesAndRuns() throws {
        let dir = try makeStoreDirectory()
        let store = try VinyardStore(path: dir.appendingPathComponent("v.db").path)
        _ = try store.importRecords([
            testRecord("VIN1", make: "BMW", line: 2, findings: [Finding(.vinWMIUnknown, .warning, message: "w")]),
            testRecord("VIN2", make: "BMW", line: 3), testRecord("VIN3", make: "Kia", line: 4),
        ])
        let stats = try store.stats()
        #expect(stats.tables.map(\.name) == ["vehicles"])
        #expect(stats.tables.first?.rows == 3)
        #expect(stats.tables.first?.bySource == [.init(value: "fleet", count: 3)])
        #expect(stats.tables.first?.byMake == [.init(value: "BMW", count: 2), .init(value: "Kia", count: 1)])
        #expect(stats.findingsByCode == [.init(value: "vin.wmi_unknown", count: 1)])
        #expect(stats.runs.first?.counts == ImportCounts(read: 3, inserted: 3))
        #expect(stats.runCount == 1)
    }

    /// An error names the statement that failed, shortened: the batched insert of the import
    /// path has 700 placeholders, and a disk-full error printed all ~5 KB of them.
    @Test func errorShortensLongSQL() {
        let rows = (0..<32).map { r in "(" + (1...22).map { "?\(r * 22 + $0)" }.joined(separator: ",") + ")" }
        let sql = "INSERT OR FAIL INTO \"vehicles\"(\"_key\",\"vin\") VALUES" + rows.joined(separator: ",")
        let error = StoreError(extendedCode: 13, message: "database or disk is full", sql: sql)
        #expect(error.description.count < 300, "\(error.description)")
        #expect(error.description.contains("while executing `INSERT OR FAIL INTO \"vehicles\"(\"_key\",\"vin\") VALUES(?1,?2,"))
        #expect(error.description.hasSuffix("…`"))
        let short = StoreError(extendedCode: 5, message: "database is locked", sql: "BEGIN IMMEDIATE TRANSACTION")
        #expect(short.description.hasSuffix("while executing `BEGIN IMMEDIATE TRANSACTION`"))
    }

    /// Opening a database another connection holds an exclusive lock on fails after waiting the
    /// busy timeout once (the writer's first read waited it twice).
    @Test func lockedDatabaseWaitsTheBusyTimeoutOnce() throws {
        let dir = try makeStoreDirectory()
        let path = dir.appendingPathComponent("v.db").path
        try VinyardStore(path: path).prepareTable(for: testSchema)
        let holder = try Connection(path: path, mode: .readWrite)
        #expect(try holder.scalarText("PRAGMA journal_mode=DELETE") == "delete")
        try holder.execute("BEGIN EXCLUSIVE")
        defer { try? holder.rollback() }
        let start = Date()
        #expect(throws: VinyardError.self) { _ = try VinyardStore(path: path, busyTimeout: 1) }
        let waited = Date().timeIntervalSince(start)
        #expect(waited >= 0.9 && waited < 1.8, "waited \(waited) s")
    }

    /// An import waits past its busy timeout while the writer ahead of it keeps writing (five
    /// imports at once: the last waits for four), and gives up after one timeout when the lock
    /// holder writes nothing (a forgotten `BEGIN EXCLUSIVE` in a shell).
    @Test func importWaitsForAWriterThatIsWorking() throws {
        let dir = try makeStoreDirectory()
        let path = dir.appendingPathComponent("v.db").path
        try VinyardStore(path: path).prepareTable(for: testSchema)
        let holder = try Connection(path: path, mode: .readWrite)
        try holder.execute("PRAGMA cache_size=10; CREATE TABLE side(b BLOB); BEGIN IMMEDIATE")
        let waiter = try VinyardStore(path: path, busyTimeout: 0.4)

        // Idle holder: one timeout, then the error.
        var start = Date()
        #expect(throws: VinyardError.self) { _ = try waiter.beginImport() }
        #expect(Date().timeIntervalSince(start) < 1.2)

        // Working holder: writes (spilling to the WAL) for 1.5 s, then commits.
        nonisolated(unsafe) let working = holder
        let done = DispatchSemaphore(value: 0)
        Thread {
            for _ in 0..<15 {
                try? working.execute("INSERT INTO side VALUES(zeroblob(200000))")
                Thread.sleep(forTimeInterval: 0.1)
            }
            try? working.execute("COMMIT")
            done.signal()
        }.start()
        start = Date()
        let session = try waiter.beginImport()
        #expect(Date().timeIntervalSince(start) >= 1.2)
        _ = try session.finish()
        done.wait()
    }
}
