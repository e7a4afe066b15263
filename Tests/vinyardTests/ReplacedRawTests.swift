import Foundation
import Testing
import VinyardKit

/// Under `--on-duplicate last` (the default) a key's earlier record in the run is replaced by the
/// later one; its `duplicates` entry keeps the record as it was read (its header names, its
/// spacing, its units), as a dropped or merged record's entry does. It kept the row's stored,
/// normalized values: `{"vin":…,"make":"Ford","odometer_km":1609,…}` for `" ford "` and 1000 mi.
@Suite struct ReplacedRawTests {
    private func duplicates(_ db: String) throws -> [[String: Any]] {
        let r = try runVinyard(["export", "--db", db, "--table", "duplicates", "--format", "json"])
        #expect(r.status == 0, "\(r.stderr)")
        return try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [[String: Any]] ?? []
    }

    @Test func replacedRecordKeepsItsRawFields() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let input = dir.appendingPathComponent("fleet.csv")
        try Data(
            ("VIN,Make,Odometer (mi)\n1FTFW1E57KFA14352, ford ,1000\n1HGCV1F52MA000123,Honda,5\n"
                + "1FTFW1E57KFA14352,Ford,2000\n").utf8
        ).write(to: input)
        let db = dir.appendingPathComponent("v.db").path
        #expect(try runVinyard(["import", input.path, "--db", db, "--quiet"]).status == 0)
        var entries = try duplicates(db)
        #expect(entries.count == 1)
        let raw = entries.first?["raw"] as? [String: Any]
        #expect(raw?["Make"] as? String == " ford ")
        #expect(raw?["Odometer (mi)"] as? String == "1000")
        #expect(entries.first?["line"] as? Int == 2)
        #expect(entries.first?["action"] as? String == "replaced")
        let stored = entries.first?["stored"] as? [String: Any]
        #expect(stored?["odometer_km"] as? Int == 1609, "the values the row had")

        // Running the same input again changes nothing and adds no entry.
        let again = try runVinyard(["import", input.path, "--db", db, "--report", "json"])
        #expect(try ParsedReport(again).int("unchanged") == 2)
        entries = try duplicates(db)
        #expect(entries.count == 1)
        #expect((entries.first?["raw"] as? [String: Any])?["Make"] as? String == " ford ")

        // Gzip input: read again through the same decoder.
        let gz = dir.appendingPathComponent("fleet2.csv.gz")
        try runGzip(input, to: gz)
        let gzdb = dir.appendingPathComponent("g.db").path
        #expect(try runVinyard(["import", gz.path, "--db", gzdb, "--quiet"]).status == 0)
        #expect((try duplicates(gzdb).first?["raw"] as? [String: Any])?["Make"] as? String == " ford ")
    }

    /// A JSON array on one line: every record starts on line 1; the replaced one is the earlier
    /// record with the key, not the later one or another key's.
    @Test func minifiedArrayPicksTheEarlierRecordOfTheKey() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let input = dir.appendingPathComponent("feed.json")
        try Data(
            (#"[{"vin":"1FTFW1E57KFA14352","make":"ford","color":"red"},{"vin":"1HGCV1F52MA000123","make":"Honda"},"#
                + #"{"vin":"1FTFW1E57KFA14352","make":"Ford","color":"blue"},{"vin":"1FTFW1E57KFA14352","make":"FORD","color":"green"}]"#).utf8
        ).write(to: input)
        let db = dir.appendingPathComponent("v.db").path
        #expect(try runVinyard(["import", input.path, "--db", db, "--quiet"]).status == 0)
        let colors = try duplicates(db).compactMap { ($0["raw"] as? [String: Any])?["color"] as? String }
        #expect(colors == ["red", "blue"], "the first and second records were replaced, in order")
    }

    /// Standard input cannot be read twice: the entry keeps the values the row had, as before.
    @Test func standardInputKeepsStoredValues() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let db = dir.appendingPathComponent("v.db").path
        let csv = "VIN,Make\n1FTFW1E57KFA14352, ford \n1FTFW1E57KFA14352,Ford\n"
        #expect(try runVinyard(["import", "-", "--db", db, "--quiet"], stdin: Data(csv.utf8)).status == 0)
        let raw = try duplicates(db).first?["raw"] as? [String: Any]
        #expect(raw?["make"] as? String == "Ford")
    }

    /// A database written before `duplicates` had its `stored` column gets it when an import
    /// opens it, and its earlier entries still match a re-run (no second entry).
    @Test func olderDatabaseGetsTheColumn() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let input = dir.appendingPathComponent("fleet.csv")
        try Data("VIN,Make\n1FTFW1E57KFA14352,ford\n1FTFW1E57KFA14352,Ford\n".utf8).write(to: input)
        let db = dir.appendingPathComponent("v.db").path
        #expect(try runVinyard(["import", input.path, "--db", db, "--quiet"]).status == 0)
        // As an older version left it: no column, `raw` holding the stored values.
        let hasColumn = "SELECT count(*) FROM pragma_table_info('duplicates') WHERE name='stored'"
        do {
            let connection = try Connection(path: db, mode: .readWrite)
            try connection.execute("UPDATE duplicates SET raw = stored; ALTER TABLE duplicates DROP COLUMN stored;")
            #expect(try connection.scalarInt(hasColumn) == 0)
        }
        #expect(try runVinyard(["import", input.path, "--db", db, "--quiet"]).status == 0)
        #expect(try Connection(path: db, mode: .readOnly).scalarInt(hasColumn) == 1)
        #expect(try duplicates(db).count == 1)
    }

    private func runGzip(_ input: URL, to output: URL) throws {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/bin/sh")
        p.arguments = ["-c", "gzip -c '\(input.path)' > '\(output.path)'"]
        try p.run()
        p.waitUntilExit()
        #expect(p.terminationStatus == 0)
    }
}

/// A re-import of a file that holds a key twice, both records with a warning: the `duplicates`
/// entry of the replaced (earlier) record keeps its own warning, with its own line, run after
/// run. The re-run gave it the later record's (line 3, element 1), and the earlier record's
/// warning was kept nowhere.
@Suite struct ReimportedDuplicateFindingsTests {
    @Test func replacedRecordKeepsItsOwnWarningOnReimport() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let input = dir.appendingPathComponent("autoscout.json")
        let record = #"{"ID": "700", "Make": "Opel", "FuelType": "Benzin", "Price": 5000, "Mileage (km)": 100, "FirstRegistration": "01/2010", "AccidentFree": false, "Images": [], "Address": "C", "PowerKW": 50}"#
        try Data("{\"vehicles\": [\n \(record),\n \(record)\n]}\n".utf8).write(to: input)
        let db = dir.appendingPathComponent("v.db").path
        func state() throws -> (duplicates: String, findings: String) {
            let d = try runVinyard(["export", "--db", db, "--table", "duplicates", "--columns", "line,findings"])
            let f = try runVinyard(["export", "--db", db, "--table", "findings", "--columns", "code,line,element"])
            return (d.stdout, f.stdout)
        }
        #expect(try runVinyard(["import", input.path, "--db", db, "--quiet"]).status == 0)
        let first = try state()
        #expect(first.duplicates.contains(#""line"":2"#), "\(first.duplicates)")
        #expect(first.duplicates.contains(#""element"":0"#), "\(first.duplicates)")
        #expect(first.findings == "code,line,element\nvehicle.accident,3,1\n")
        for _ in 0..<2 {
            let again = try runVinyard(["import", input.path, "--db", db, "--report", "json"])
            #expect(try ParsedReport(again).int("unchanged") == 1)
            let state = try state()
            #expect(state.duplicates == first.duplicates)
            #expect(state.findings == first.findings)
        }
    }
}

/// A row an earlier run stored and a later run updates keeps its values in `duplicates.raw` once:
/// `stored` held a second copy of the same JSON (a daily update of 20k vehicles grew the file by
/// twice as much: 580 MB against 312 MB after 20 runs).
@Suite struct CrossRunReplacedEntryTests {
    @Test func updatedRowIsKeptOnce() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let day1 = dir.appendingPathComponent("day1.csv"), day2 = dir.appendingPathComponent("day2.csv")
        try Data("vin,make,odometer_km\n1FTFW1E57KFA14352,Ford,1000\n".utf8).write(to: day1)
        try Data("vin,make,odometer_km\n1FTFW1E57KFA14352,Ford,2000\n".utf8).write(to: day2)
        let db = dir.appendingPathComponent("v.db").path
        #expect(try runVinyard(["import", day1.path, "--db", db, "--quiet"]).status == 0)
        for _ in 0..<2 {
            #expect(try runVinyard(["import", day2.path, "--db", db, "--quiet"]).status == 0)
            let r = try runVinyard(["export", "--db", db, "--table", "duplicates", "--format", "json", "--columns", "action,raw,stored"])
            let entries = try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [[String: Any]])
            #expect(entries.count == 1, "\(r.stdout)")
            #expect(entries.first?["action"] as? String == "replaced")
            #expect((entries.first?["raw"] as? [String: Any])?["odometer_km"] as? Int == 1000)
            #expect(entries.first?["stored"] is NSNull, "\(r.stdout)")
        }
        let rows = try runVinyard(["export", "--db", db, "--columns", "vin,odometer_km"])
        #expect(rows.stdout == "vin,odometer_km\n1FTFW1E57KFA14352,2000\n")
    }
}

/// Under `first` and `merge` a row's findings come from several records; a re-run that finds the
/// row unchanged from another input keeps them (b71551b moved them for every policy: a merged
/// record's warning and a dropped record's key.conflict were deleted for good).
@Suite struct MovedRowFindingsTests {
    private func findings(_ db: String) throws -> String {
        try runVinyard(["export", "--db", db, "--table", "findings", "--columns", "code,input,line", "--sort", "line"]).stdout
    }

    @Test func mergedRowKeepsItsRecordsWarnings() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let x = dir.appendingPathComponent("x.csv"), z = dir.appendingPathComponent("z.csv")
        // Windows-1252 'é' in both rows of x: each gets a row.encoding warning.
        try Data("vin,model,color\n1FTFW1E57KFA14352,Caf\u{E9},\n1FTFW1E57KFA14352,Caf\u{E9},Red\n".unicodeScalars.map { UInt8($0.value) })
            .write(to: x)
        try Data("vin,model,color\n1FTFW1E57KFA14352,Café,Red\n".utf8).write(to: z)
        let db = dir.appendingPathComponent("v.db").path
        for file in [x, z, x] {
            #expect(try runVinyard(["import", file.path, "--db", db, "--on-duplicate", "merge", "--quiet"]).status == 0)
        }
        let after = try findings(db)
        #expect(after.contains("row.encoding,\(x.path),2"), "\(after)")
        #expect(after.contains("row.encoding,\(x.path),3"), "\(after)")
    }

    @Test func droppedRecordsConflictStays() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let f = dir.appendingPathComponent("f.csv"), g = dir.appendingPathComponent("g.csv")
        try Data("vin,color\n1FTFW1E57KFA14352,Red\n1FTFW1E57KFA14352,Blue\n".utf8).write(to: f)
        try Data("vin,color\n1FTFW1E57KFA14352,Red\n".utf8).write(to: g)
        let db = dir.appendingPathComponent("v.db").path
        for file in [f, g] {
            #expect(try runVinyard(["import", file.path, "--db", db, "--on-duplicate", "first", "--quiet"]).status == 0)
        }
        #expect(try findings(db).contains("key.conflict,\(f.path),3"))
    }
}
