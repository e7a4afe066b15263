import Foundation
import Testing
@testable import VinyardKit

/// The import into an empty table runs without the key index (in-memory run keys, index built at
/// finish); these tests run the same scenarios through that path, the indexed path and a path that
/// switches mid-run, and compare every count and table.
@Suite struct ImportPathTests {
    /// `Int.max`: fast path; 0: always indexed; 3: fast path that builds the index after 3 keys.
    static let limits = [Int.max, 0, 3]

    /// A run: records and the policy.
    typealias Run = (records: [CanonicalRecord], policy: DuplicatePolicy)

    static func scenario(_ policy: DuplicatePolicy) -> [Run] {
        let warning = Finding(.vinWMIUnknown, .warning, field: "vin", message: "unknown WMI")
        let error = Finding(.vinCheckDigit, .error, field: "vin", message: "check digit")
        let first: [CanonicalRecord] = [
            testRecord("VIN1", make: "BMW", year: nil, line: 2, findings: [warning]),
            testRecord("VIN2", make: "Audi", year: 2020, line: 3),
            testRecord("VIN1", make: "Bmw", year: 2019, line: 4),
            testRecord("vin1", make: "BMW", line: 5),
            testRecord("VIN3", make: "Kia", km: 1200.5, accidentFree: false, line: 6),
            testRecord("VIN1", make: "BMW", year: 2019, notes: "third", line: 7, findings: [warning]),
            testRecord("VIN4", make: "Ford", line: 8, findings: [error]),
            testRecord(nil, make: "Ford", line: 9),
            testRecord("VIN2", make: "Audi", year: 2020, line: 10),
            testRecord("VIN5", make: "", year: 2001, line: 11),
            testRecord("VIN6", make: "Volvo", year: 2002, line: 12),
            testRecord("VIN5", make: "Seat", year: 2001, notes: "x", line: 13),
        ]
        let second: [CanonicalRecord] = [
            testRecord("VIN2", make: "Audi", year: 2020, input: "b.csv", line: 2),
            testRecord("VIN3", make: "Kia", km: 1300, accidentFree: false, input: "b.csv", line: 3),
            testRecord("VIN2", make: "Audi", year: 2021, input: "b.csv", line: 4),
            testRecord("VIN7", make: "Tesla", input: "b.csv", line: 5),
            testRecord("VIN2", make: "Audi", year: 2020, input: "b.csv", line: 6),
            testRecord("VIN6", make: "Volvo", year: 2002, input: "b.csv", line: 7),
            testRecord("VIN6", make: "Volvo", year: 2003, input: "b.csv", line: 8, findings: [warning]),
            testRecord("VIN7", make: "Tesla", notes: "n", input: "b.csv", line: 9),
        ]
        return [(first, policy), (second, policy), (first, policy), (second, policy)]
    }

    /// Everything a run leaves, without times.
    static func snapshot(_ store: VinyardStore) throws -> [[[FieldValue?]]] {
        [
            try store.rows(
                "SELECT _key, vin, make, model_year, odometer_km, accident_free, notes, _source, _input, _line, _run_id, "
                    + "_first_run_id, _hash FROM vehicles ORDER BY _key"),
            try store.rows("SELECT * FROM findings ORDER BY id"),
            try store.rows("SELECT * FROM duplicates ORDER BY id"),
            try store.rows("SELECT * FROM rejects ORDER BY id"),
            try store.rows(
                "SELECT id, read, inserted, updated, unchanged, duplicates, rejected, findings, inputs, status FROM import_runs ORDER BY id"),
            try store.rows("SELECT name, tbl_name FROM sqlite_schema WHERE type='index' ORDER BY name"),
        ]
    }

    /// Long runs: many of the first load's 32-row batches, keys repeated inside a queued batch and
    /// across batches, columns that first appear mid-run, and a switch to the indexed path mid-batch.
    static func longScenario(_ policy: DuplicatePolicy, seed: UInt64) -> [Run] {
        var rng = SplitMix64(seed: seed)
        func run(_ input: String, count: Int, keys: Int) -> [CanonicalRecord] {
            var recent: [String] = []
            return (0..<count).map { i in
                // Mostly new keys (so that whole batches are written), one in eight a key of the
                // last few records (still queued).
                let key = rng.next(below: 8) == 0 && !recent.isEmpty
                    ? recent[rng.next(below: recent.count)] : "K\(rng.next(below: keys))"
                recent = Array((recent + [key]).suffix(12))
                let late = i > count / 2
                return testRecord(
                    rng.next(below: 50) == 0 ? nil : key,
                    make: rng.next(below: 3) == 0 ? nil : ["BMW", "Audi", "Kia"][rng.next(below: 3)],
                    year: rng.next(below: 4) == 0 ? nil : Int64(2000 + rng.next(below: 3)),
                    km: late && rng.next(below: 3) == 0 ? Double(rng.next(below: 3)) : nil,
                    accidentFree: rng.next(below: 5) == 0 ? rng.next(below: 2) == 0 : nil,
                    notes: late && rng.next(below: 7) == 0 ? "n\(rng.next(below: 2))" : nil,
                    input: input, line: i + 2)
            }
        }
        let first = run("a.csv", count: 600, keys: 5000)
        let second = run("b.csv", count: 300, keys: 5000)
        return [(first, policy), (second, policy), (first, policy)]
    }

    @Test(arguments: DuplicatePolicy.allCases)
    func allPathsAgree(policy: DuplicatePolicy) throws {
        let results = try Self.runAllPaths(Self.scenario(policy), limits: Self.limits)
        let reference = try #require(results.first)
        #expect(reference.reports.first?.counts == ImportCounts(read: 12, inserted: 6, duplicates: 4, rejected: 2))
        #expect(reference.reports[2].counts.inserted == 0)
        Self.expectSame(results)
    }

    @Test(arguments: DuplicatePolicy.allCases)
    func allPathsAgreeOnLongRuns(policy: DuplicatePolicy) throws {
        let results = try Self.runAllPaths(Self.longScenario(policy, seed: 7), limits: [Int.max, 0, 3, 70])
        let reference = try #require(results.first)
        let counts = try #require(reference.reports.first?.counts)
        // The scenario means something: many new keys and in-run duplicates, then a re-import.
        #expect(counts.inserted > 400 && counts.duplicates > 40, "\(counts)")
        #expect(reference.reports[2].counts.inserted == 0)
        Self.expectSame(results)
    }

    static func expectSame(
        _ results: [(reports: [ImportRunReport], outcomes: [[WriteOutcome]], snapshot: [[[FieldValue?]]])]
    ) {
        guard let reference = results.first else { return }
        for other in results.dropFirst() {
            #expect(other.outcomes == reference.outcomes)
            #expect(other.reports.map(\.counts) == reference.reports.map(\.counts))
            #expect(other.reports.map(\.findings) == reference.reports.map(\.findings))
            for (a, b) in zip(other.snapshot, reference.snapshot) { #expect(a == b) }
        }
    }

    static func runAllPaths(
        _ scenario: [Run], limits: [Int]
    ) throws -> [(reports: [ImportRunReport], outcomes: [[WriteOutcome]], snapshot: [[[FieldValue?]]])] {
        var results: [(reports: [ImportRunReport], outcomes: [[WriteOutcome]], snapshot: [[[FieldValue?]]])] = []
        // Each key-index path, the fast one with the WAL instead of the bulk-load journal (what a
        // first import gets when another process has the file open), and the fast one with its
        // run keys moved to the temporary file every 16 keys.
        let paths = limits.map { ($0, true, RunKeyIndex.defaultLiveLimit) } + [
            (Int.max, false, RunKeyIndex.defaultLiveLimit), (Int.max, true, 16),
        ]
        for (limit, bulkJournal, liveLimit) in paths {
            let dir = try makeStoreDirectory()
            let store = try VinyardStore(path: dir.appendingPathComponent("v.db").path)
            store.fastKeyLimit = limit
            store.bulkLoadJournal = bulkJournal
            store.runKeyLiveLimit = liveLimit
            var reports: [ImportRunReport] = []
            var outcomes: [[WriteOutcome]] = []
            for run in scenario {
                let session = try store.beginImport(options: ["on-duplicate": run.policy.rawValue])
                outcomes.append(try run.records.map { try session.write($0, schema: testSchema, source: "fleet", policy: run.policy).outcome })
                let report = try session.finish()
                #expect(report.counts.isBalanced)
                reports.append(report)
            }
            #expect(try store.integrityCheck() == ["ok"])
            results.append((reports, outcomes, try Self.snapshot(store)))
        }
        return results
    }

    @Test func freshImportBuildsTheKeyIndexAndRollbackRestoresIt() throws {
        let dir = try makeStoreDirectory()
        let store = try VinyardStore(path: dir.appendingPathComponent("v.db").path)
        try store.prepareTable(for: testSchema)
        let indexSQL = "SELECT count(*) FROM sqlite_schema WHERE type='index' AND name='_key_vehicles'"
        #expect(try store.count(indexSQL) == 1)
        do {
            let session = try store.beginImport()
            try session.write(testRecord("VIN1", make: "BMW", line: 2), schema: testSchema)
            // Inside the run the index is dropped; the in-memory keys still find the duplicate.
            #expect(try store.count(indexSQL) == 0)
            #expect(try session.write(testRecord("VIN1", make: "BMW", line: 3), schema: testSchema).outcome == .duplicate)
            try session.rollback()
        }
        #expect(try store.count(indexSQL) == 1)
        #expect(try store.count("SELECT count(*) FROM vehicles") == 0)
        _ = try store.importRecords([testRecord("VIN1", make: "BMW", line: 2)])
        #expect(try store.count(indexSQL) == 1)
        // A second run into the now non-empty table keeps the index and still sees the key.
        let again = try store.importRecords([testRecord("VIN1", make: "BMW", line: 2), testRecord("VIN2", line: 3)])
        #expect(again.counts == ImportCounts(read: 2, inserted: 1, unchanged: 1))
        #expect(throws: (any Error).self) {
            try store.connection.execute("INSERT INTO vehicles(_key, _run_id, _first_run_id, _hash, _updated_at) VALUES('VIN1', 1, 1, 0, '')")
        }
    }

    @Test func legacyPrimaryKeyTableUsesTheIndexedPath() throws {
        let dir = try makeStoreDirectory()
        let path = dir.appendingPathComponent("v.db").path
        let store = try VinyardStore(path: path)
        // The layout written before the key index had a name: an inline PRIMARY KEY.
        try store.connection.execute(
            """
            CREATE TABLE vehicles("_key" TEXT PRIMARY KEY NOT NULL, vin TEXT, make TEXT, model_year INTEGER,
              odometer_km REAL, accident_free INTEGER, notes TEXT, "_source" TEXT, "_input" TEXT, "_line" INTEGER,
              "_run_id" INTEGER NOT NULL, "_first_run_id" INTEGER NOT NULL, "_hash" INTEGER NOT NULL,
              "_updated_at" TEXT NOT NULL)
            """)
        let report = try store.importRecords([
            testRecord("VIN1", make: "BMW", line: 2), testRecord("VIN1", make: "Kia", line: 3),
        ])
        #expect(report.counts == ImportCounts(read: 2, inserted: 1, duplicates: 1))
        #expect(try store.rows("SELECT make FROM vehicles") == [[.text("Kia")]])
    }

    /// Different keys with the same hash are told apart by the caller's check of the row, in
    /// memory and in the spilled runs (a live limit of 7 spills the two colliding keys into
    /// different runs; .max keeps everything in memory).
    @Test(arguments: [Int.max, 7])
    func runKeyIndexConfirmsEveryCandidate(liveLimit: Int) throws {
        var index = RunKeyIndex(limit: 1000, liveLimit: liveLimit, initialBits: 2)
        let hash: UInt64 = 0xDEAD_BEEF_0123_4567
        try index.insert(hash, rowID: 1)
        for rowID in 3...100 { try index.insert(UInt64(rowID) &* 0x9E37_79B9_7F4A_7C15, rowID: Int64(rowID)) }
        try index.insert(hash, rowID: 2)
        for rowID in 101...200 { try index.insert(UInt64(rowID) &* 0x9E37_79B9_7F4A_7C15, rowID: Int64(rowID)) }
        #expect(index.count == 200)
        #expect(index.spilledRuns == (liveLimit == 7 ? 28 : 0))
        #expect(try index.find(hash) { $0 == 2 } == 2)
        #expect(try index.find(hash) { $0 == 1 } == 1)
        #expect(try index.find(hash) { _ in false } == nil)
        var asked: [Int64] = []
        _ = try index.find(hash) { asked.append($0); return false }
        #expect(Set(asked) == [1, 2])
        for rowID in 3...200 {
            #expect(try index.find(UInt64(rowID) &* 0x9E37_79B9_7F4A_7C15) { $0 == Int64(rowID) } == Int64(rowID))
        }
        #expect(try index.find(12345) { _ in true } == nil)
        #expect(RunKeyIndex(limit: 3).hasRoom)
    }

    @Test func runKeyIndexFindsEveryKeyAcrossItsParts() throws {
        // Parts grow one at a time: every key is still found after many growths, and the slots
        // stay within twice what 3/4 fill needs (powers of two).
        var index = RunKeyIndex(limit: .max, initialBits: 6)
        var rng = SplitMix64(seed: 3)
        let hashes = (0..<60_000).map { _ in rng.next() }
        for (i, hash) in hashes.enumerated() { try index.insert(hash, rowID: Int64(i + 1)) }
        #expect(index.count == hashes.count)
        var missing = 0
        for (i, hash) in hashes.enumerated() where try index.find(hash, matches: { $0 == Int64(i + 1) }) == nil { missing += 1 }
        #expect(missing == 0)
        #expect(index.byteCount <= hashes.count * 8 * 4 / 3 * 2, "\(index.byteCount) bytes")
        #expect(index.byteCount >= hashes.count * 8 * 4 / 3)
    }

    @Test func seenRowsAcrossRunsCountNetEffect() throws {
        // A key from an earlier run met three times: unchanged, then changed, then back.
        for limit in Self.limits {
            let dir = try makeStoreDirectory()
            let store = try VinyardStore(path: dir.appendingPathComponent("v.db").path)
            store.fastKeyLimit = limit
            _ = try store.importRecords([testRecord("VIN1", make: "BMW", line: 2)])
            let report = try store.importRecords([
                testRecord("VIN1", make: "BMW", line: 2), testRecord("VIN1", make: "Kia", line: 3),
                testRecord("VIN1", make: "BMW", line: 4),
            ])
            #expect(report.counts == ImportCounts(read: 3, unchanged: 1, duplicates: 2))
            let changed = try store.importRecords([
                testRecord("VIN1", make: "BMW", line: 2), testRecord("VIN1", make: "Kia", line: 3),
            ])
            #expect(changed.counts == ImportCounts(read: 2, updated: 1, duplicates: 1))
        }
    }
}

/// `findings` and `duplicates` are indexed by key, input and line, the place a re-run or a
/// replacing record looks its earlier entries up by: by key alone every entry of the key was
/// read, and a file whose rows all share one key (one vehicle's history) took quadratic time
/// (10,000 rows: 60 s under `last`, 142 s under `merge`; about 1 s now). A database written before
/// gets the indexes when it is next opened for writing.
@Suite struct PlaceIndexTests {
    static func indexes(_ store: VinyardStore) throws -> String {
        try store.connection.scalarText(
            "SELECT group_concat(name, ',') FROM (SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name IN ('findings', 'duplicates') ORDER BY name)"
        ) ?? ""
    }

    @Test func lookupsUseThePlaceIndexes() throws {
        let dir = try makeStoreDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let store = try VinyardStore(path: dir.appendingPathComponent("v.db").path)
        #expect(try Self.indexes(store) == "duplicates_place_element,findings_place_run")
        for sql in [
            "DELETE FROM duplicates WHERE table_name='vehicles' AND key='K' AND input IS 'a.csv' AND line IS 3 AND action='replaced'",
            "DELETE FROM findings WHERE table_name='vehicles' AND key='K' AND code='key.conflict' AND input IS 'a.csv' AND line IS 3",
        ] {
            let plan = try store.connection.prepare("EXPLAIN QUERY PLAN " + sql)
            var details: [String] = []
            while try plan.step() { details.append(plan.text(3) ?? "") }
            #expect(details.contains { $0.contains("_place") && $0.contains("input=? AND line=?") }, "\(details)")
        }
    }

    /// The database at `path` as an older version left it (the place indexes replaced by the
    /// ones `oldIndexes` creates), opened again for writing.
    static func reopenedOlderDatabase(at path: String, oldIndexes: String) throws -> VinyardStore {
        do {
            let store = try VinyardStore(path: path)
            try store.connection.execute("DROP INDEX findings_place_run; DROP INDEX duplicates_place_element; " + oldIndexes)
        }
        return try VinyardStore(path: path)
    }

    @Test func olderDatabaseGetsThem() throws {
        let dir = try makeStoreDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let reopened = try Self.reopenedOlderDatabase(
            at: dir.appendingPathComponent("v.db").path,
            oldIndexes: "CREATE INDEX findings_key ON findings(table_name, key); CREATE INDEX duplicates_key ON duplicates(table_name, key)")
        #expect(try Self.indexes(reopened) == "duplicates_place_element,findings_place_run")
    }

    /// A database with the place indexes of sessions 10-21 (without the run id and the element)
    /// gets the longer ones, and the lookups of a minified JSON array's records use the element.
    @Test func placeIndexesGainTheRunAndTheElement() throws {
        let dir = try makeStoreDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("v.db").path
        let reopened = try Self.reopenedOlderDatabase(
            at: path,
            oldIndexes: "CREATE INDEX findings_place ON findings(table_name, key, input, line); "
                + "CREATE INDEX duplicates_place ON duplicates(table_name, key, input, line)")
        #expect(try Self.indexes(reopened) == "duplicates_place_element,findings_place_run")
        let plan = try reopened.connection.prepare(
            "EXPLAIN QUERY PLAN SELECT id FROM duplicates WHERE table_name='vehicles' AND key='K' AND input IS 'a.json' AND line IS 1 AND element IS 7")
        var details: [String] = []
        while try plan.step() { details.append(plan.text(3) ?? "") }
        #expect(details.contains { $0.contains("element=?") }, "\(details)")

        // An older version writing the file again re-creates the shorter index; the next open
        // drops it again (two indexes on one place cost every insert twice).
        try reopened.connection.execute("CREATE INDEX findings_place ON findings(table_name, key, input, line)")
        let third = try VinyardStore(path: path)
        #expect(try Self.indexes(third) == "duplicates_place_element,findings_place_run")
    }
}
