import Foundation
import Testing
import VinyardKit

/// Findings of review 16 (session 13's audits of messy CSV files, the command line and JSON
/// sources), each run through the built binary.
@Suite struct Review16Tests {
    /// With `--report json` a run that fails (a malformed input) still prints one JSON object on
    /// standard output, naming the error and the exit status; it printed nothing, so a script
    /// parsing the report had nothing to parse. The error line stays on standard error.
    @Test func aFailedRunPrintsAJSONErrorReport() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let bad = dir.appendingPathComponent("bad.csv.gz")
        try Data([0x1F, 0x8B, 0x08, 0x00] + Array("garbage".utf8)).write(to: bad)
        let good = packageRoot.appendingPathComponent("Samples/fleet.csv").path
        let db = dir.appendingPathComponent("x.db").path
        for arguments in [
            ["validate", good, bad.path, "--report", "json"],
            ["import", good, bad.path, "--db", db, "--report", "json"],
        ] {
            let r = try runVinyard(arguments)
            #expect(r.status == 65, "\(arguments[0]): \(r.stderr)")
            #expect(r.stderr.contains("error: \(bad.path): corrupt gzip stream"), "\(r.stderr)")
            let object = try #require(try JSONSerialization.jsonObject(with: r.stdoutData) as? [String: Any], "\(r.stdout)")
            let error = try #require(object["error"] as? [String: Any], "\(r.stdout)")
            #expect(error["exit_status"] as? Int == 65)
            #expect(error["kind"] as? String == "malformed_input")
            #expect((error["message"] as? String)?.contains("bad.csv.gz: corrupt gzip stream") == true, "\(error)")
        }
        // The text report prints nothing on standard output for a failed run.
        let text = try runVinyard(["validate", good, bad.path])
        #expect(text.status == 65)
        #expect(text.stdout.isEmpty, "\(text.stdout)")
        // A missing input is exit 66 in the JSON too.
        let missing = try runVinyard(["validate", dir.appendingPathComponent("none.csv").path, "--report", "json"])
        #expect(missing.status == 66)
        let object = try #require(try JSONSerialization.jsonObject(with: missing.stdoutData) as? [String: Any])
        #expect((object["error"] as? [String: Any])?["exit_status"] as? Int == 66, "\(missing.stdout)")
    }

    /// A header that repeats a name (`VIN,Make,VIN`) or has several empty ones (an Excel export's
    /// trailing columns) gave JSON objects with a key twice, and JSON readers keep one of the
    /// values: the other was lost from `--source raw` output, rejects files and the database's
    /// raw records. A repeated name now gets its column number.
    @Test func repeatedColumnNamesKeepEveryValueInJSON() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let input = dir.appendingPathComponent("d.csv")
        try Data("VIN,Make,VIN,Odometer,,\n1FTFW1E57KFA14352,Ford,OTHERVIN,abc,X1,Y2\n".utf8).write(to: input)
        let raw = dir.appendingPathComponent("raw.jsonl")
        let r = try runVinyard(["convert", input.path, "--source", "raw", "-o", raw.path])
        #expect(r.status == 0, "\(r.stderr)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: raw)) as? [String: Any])
        #expect(object["VIN"] as? String == "1FTFW1E57KFA14352")
        #expect(object["VIN_3"] as? String == "OTHERVIN")
        #expect(object[""] as? String == "X1")
        #expect(object["_6"] as? String == "Y2", "\(object)")
        #expect(object.count == 6)

        let rejects = dir.appendingPathComponent("rejects.jsonl")
        let db = dir.appendingPathComponent("d.db").path
        let imported = try runVinyard(["import", input.path, "--db", db, "--rejects", rejects.path])
        #expect(imported.status == 0, "\(imported.stderr)")
        let reject = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: rejects)) as? [String: Any])
        #expect(reject["VIN_3"] as? String == "OTHERVIN", "\(reject)")
        let stored = try runVinyard(["export", "--db", db, "--table", "rejects", "--columns", "raw", "--format", "jsonl"])
        let row = try #require(try JSONSerialization.jsonObject(with: stored.stdoutData) as? [String: Any])
        let rawObject = try #require(row["raw"] as? [String: Any], "\(stored.stdout)")
        #expect(rawObject["VIN"] as? String == "1FTFW1E57KFA14352")
        #expect(rawObject["VIN_3"] as? String == "OTHERVIN", "\(rawObject)")
    }

    /// `export` guards a text cell starting with `= + - @` by a leading `'` (formula injection);
    /// importing that export stored the `'` in the value and counted the row as updated. The
    /// guard is taken off text fields on the way in; a `'` before anything else stays.
    @Test func exportedCSVImportsBackUnchanged() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let input = dir.appendingPathComponent("m.csv")
        try Data("VIN,Make,Model,Notes\n1FTFW1E57KFA14352,Ford,=HYPERLINK(\"x\"),-5C at night\n1HGCV1F52MA000123,Honda,Accord,'quoted' note\n".utf8)
            .write(to: input)
        let db = dir.appendingPathComponent("m.db").path
        #expect(try runVinyard(["import", input.path, "--db", db, "--quiet"]).status == 0)
        let exported = dir.appendingPathComponent("e.csv")
        #expect(try runVinyard(["export", "--db", db, "-o", exported.path]).status == 0)
        let text = try String(contentsOf: exported, encoding: .utf8)
        #expect(text.contains("'-5C at night") && text.contains("'=HYPERLINK"), "the export keeps its guard: \(text)")
        let again = try runVinyard(["import", exported.path, "--db", db, "--report", "json"])
        let report = try #require(try JSONSerialization.jsonObject(with: again.stdoutData) as? [String: Any], "\(again.stderr)")
        #expect(report["unchanged"] as? Int == 2, "\(again.stdout)")
        #expect(report["updated"] as? Int == 0)
        let fresh = dir.appendingPathComponent("fresh.db").path
        #expect(try runVinyard(["import", exported.path, "--db", fresh, "--quiet"]).status == 0)
        let values = try runVinyard(["export", "--db", fresh, "--columns", "model,notes", "--format", "jsonl"])
        #expect(values.stdout == """
            {"model":"=HYPERLINK(\\"x\\")","notes":"-5C at night"}
            {"model":"Accord","notes":"'quoted' note"}

            """, "\(values.stdout)")
    }

    /// Records of a JSON array written on one line (as APIs return it) all have line 1: the rows
    /// and `duplicates` entries could not be told apart, and a replaced location got its stored
    /// values as `raw` (its key is in no single value, by which the record was found again). Rows
    /// and entries now carry the element; the replaced record's raw fields are found by it.
    @Test func minifiedJSONRecordsKeepTheirElement() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let places = dir.appendingPathComponent("lo.json")
        try Data(
            #"{"locations":[{"name":"Depot 0","lat":1,"long":2},{"name":"Depot 1","lat":"52.3547498","long":"4.8339215","id":17,"country":"NL"},{"name":"Depot 1","lat":52.3547498,"long":4.8339215}]}"#
                .utf8
        ).write(to: places)
        let db = dir.appendingPathComponent("l.db").path
        #expect(try runVinyard(["import", places.path, "--db", db, "--quiet"]).status == 0)
        let entry = try runVinyard(["export", "--db", db, "--table", "duplicates", "--columns", "line,element,action,raw", "--format", "jsonl"])
        let object = try #require(try JSONSerialization.jsonObject(with: entry.stdoutData) as? [String: Any], "\(entry.stdout)")
        #expect(object["line"] as? Int == 1)
        #expect(object["element"] as? Int == 1)
        #expect(object["action"] as? String == "replaced")
        let raw = try #require(object["raw"] as? [String: Any], "\(entry.stdout)")
        #expect(raw["country"] as? String == "NL", "the record as read: \(raw)")
        #expect(raw["lat"] as? String == "52.3547498", "\(raw)")
        let rows = try runVinyard(["export", "--db", db, "--table", "locations", "--columns", "name,_line,_element", "--sort", "name"])
        #expect(rows.stdout == "name,_line,_element\nDepot 0,1,0\nDepot 1,1,2\n", "\(rows.stdout)")

        // A database written before these columns: the next import adds them.
        do {
            let connection = try Connection(path: db, mode: .readWrite)
            try connection.execute(
                "DROP INDEX duplicates_place_element; CREATE INDEX duplicates_place ON duplicates(table_name, key, input, line); "
                    + "ALTER TABLE duplicates DROP COLUMN element; ALTER TABLE locations DROP COLUMN _element; ALTER TABLE vehicles DROP COLUMN _element; "
                    + "UPDATE vinyard_meta SET value = '1' WHERE key = 'format'")
        }
        let vehicles = dir.appendingPathComponent("rv.json")
        try Data(
            #"[{"id":1,"vin":"1FTFW1E57KFA14352","make_and_model":"Ford F-150"},{"id":2,"vin":"1FTFW1E57KFA14352","make_and_model":"Ford F-150","color":"Red"},{"id":3,"vin":"1HGCV1F52MA000123","make_and_model":"Honda Accord"}]"#
                .utf8
        ).write(to: vehicles)
        let again = try runVinyard(["import", vehicles.path, places.path, "--db", db, "--report", "json"])
        #expect(again.status == 0, "\(again.stderr)")
        let report = try #require(try JSONSerialization.jsonObject(with: again.stdoutData) as? [String: Any], "\(again.stdout)")
        #expect(report["inserted"] as? Int == 2, "\(again.stdout)")
        #expect(report["unchanged"] as? Int == 2, "\(again.stdout)")
        let vrows = try runVinyard(["export", "--db", db, "--columns", "vin,color,_element", "--sort", "vin"])
        #expect(vrows.stdout == "vin,color,_element\n1FTFW1E57KFA14352,Red,1\n1HGCV1F52MA000123,,2\n", "\(vrows.stdout)")
        let vdup = try runVinyard(["export", "--db", db, "--table", "duplicates", "--where", "table_name=vehicles", "--columns", "element,raw", "--format", "jsonl"])
        let dup = try #require(try JSONSerialization.jsonObject(with: vdup.stdoutData) as? [String: Any], "\(vdup.stdout)")
        #expect(dup["element"] as? Int == 0)
        #expect((dup["raw"] as? [String: Any])?["id"] as? Int == 1, "\(vdup.stdout)")
        let integrity = try runVinyard(["stats", "--db", db])
        #expect(integrity.status == 0, "\(integrity.stderr)")
        // Format 2 now: a version that writes format 1 (and no elements) refuses the file.
        let format = try Connection(path: db, mode: .readOnly).scalarText("SELECT value FROM vinyard_meta WHERE key = 'format'")
        #expect(format == "2")
    }

    /// The same name composed (`Z\u00fcrich`) and decomposed (`Zu\u0308rich`): `validate` reported a
    /// `key.conflict` (bytes differ) and `import` none (Swift's `==` calls them equal) while it
    /// swapped the stored bytes. Text is stored in NFC: both agree, and the row keeps one form.
    @Test func composedAndDecomposedTextAreOneValue() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let input = dir.appendingPathComponent("nfd.json")
        try Data(
            #"{"locations":[{"name":"Z\u00fcrich HQ","lat":47.3769,"long":8.5417},{"name":"Zu\u0308rich HQ","lat":47.3769,"long":8.5417}]}"#
                .utf8
        ).write(to: input)
        let db = dir.appendingPathComponent("n.db").path
        for arguments in [["validate", input.path], ["import", input.path, "--db", db]] {
            let r = try runVinyard(arguments + ["--report", "json"])
            #expect(r.status == 0, "\(r.stderr)")
            let report = try #require(try JSONSerialization.jsonObject(with: r.stdoutData) as? [String: Any], "\(r.stdout)")
            #expect(report["inserted"] as? Int == 1, "\(arguments[0]): \(r.stdout)")
            #expect(report["duplicates"] as? Int == 1, "\(arguments[0]): \(r.stdout)")
            #expect((report["findings"] as? [String: Int])?.isEmpty == true, "\(arguments[0]): \(r.stdout)")
        }
        let name = try runVinyard(["export", "--db", db, "--table", "locations", "--columns", "name", "--format", "jsonl"])
        #expect(Array(name.stdoutData) == Array(#"{"name":"Zürich HQ"}"#.utf8) + [0x0A], "stored composed: \(Array(name.stdoutData))")
    }

    /// A file with SQLite's header and garbage after it: refused with 65 and a message that says
    /// what to do, not SQLite's error with the internal query that met it.
    @Test func aFakeSQLiteFileGetsAPlainMessage() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let db = dir.appendingPathComponent("fake.db")
        let bytes = Data(Array("SQLite format 3".utf8) + [0] + Array(String(repeating: "garbage ", count: 200).utf8))
        try bytes.write(to: db)
        for args in [["stats", "--db", db.path], ["export", "--db", db.path], ["import", sample("fleet.csv"), "--db", db.path]] {
            let r = try runVinyard(args)
            #expect(r.status == 65, "\(args[0]): \(r.stderr)")
            #expect(r.stderr.contains("fake.db is not a Vinyard database"), "\(r.stderr)")
            #expect(r.stderr.contains("left untouched"), "\(r.stderr)")
            #expect(!r.stderr.contains("SELECT"), "\(r.stderr)")
            #expect(try Data(contentsOf: db) == bytes)
        }
    }

    /// A negative number given to an option is told what is wrong with it (ArgumentParser took
    /// `-1` for an option and said the value was missing).
    @Test func negativeNumbersAreToldWhatIsWrong() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let db = dir.appendingPathComponent("f.db").path
        #expect(try runVinyard(["import", sample("fleet.csv"), "--db", db, "--quiet"]).status == 0)
        for (args, said) in [
            (["export", "--db", db, "--limit", "-1"], "--limit must be 0 or more"),
            (["emissions", "--db", db, "--limit", "-1"], "--limit must be 0 or more"),
            (["generate", "--rows", "-1"], "--rows must be 0 or more"),
            (["generate", "--rows", "2", "--dirty", "-0.1"], "--dirty must be between 0 and 1"),
            (["generate", "--rows", "2", "--seed", "-3"], "The value '-3' is invalid for '--seed <seed>'"),
        ] {
            let r = try runVinyard(args)
            #expect(r.status == 64, "\(args): \(r.stderr)")
            #expect(r.stderr.contains(said), "\(args): \(r.stderr)")
            #expect(!r.stderr.contains("Missing value"), "\(args): \(r.stderr)")
        }
    }

    /// Fatal input errors say what to do, as the README's error form promises.
    @Test func fatalInputErrorsSayWhatToDo() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let json = dir.appendingPathComponent("bad.json")
        try Data("[{\"vin\":\"1HGCM82633A004352\"},\n{\"a\":".utf8).write(to: json)
        let gz = dir.appendingPathComponent("trunc.csv.gz")
        try Data(try Data(contentsOf: URL(fileURLWithPath: sample("fleet-export.csv.gz"))).prefix(300)).write(to: gz)
        for (path, said, status) in [
            (json.path, "bad.json:2:6: unexpected end of input; the JSON is broken there and nothing after it is read: fix it, or export the file again", Int32(65)),
            (gz.path, "trunc.csv.gz: corrupt gzip stream at byte 300 (truncated: unexpected end of data); the file is damaged or cut short: download or export it again", 65),
            (dir.appendingPathComponent("none.csv").path, "none.csv: cannot open input: no such file; check the path", 66),
        ] {
            let r = try runVinyard(["validate", path])
            #expect(r.status == status, "\(r.stderr)")
            #expect(r.stderr.contains(said), "\(r.stderr)")
        }
    }

    /// The text table's vin column is as wide as the keys of the rows it prints: with `--limit`,
    /// a key-only vehicle further down (`[fleet-record:veh-004]`) widened it (the README's example
    /// did not match the output).
    @Test func emissionsColumnWidthFollowsThePrintedRows() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let csv = dir.appendingPathComponent("f.csv")
        try Data("VIN,Make,Model,Odometer\n1FTFW1E57KFA14352,Ford,F-150,250000\n".utf8).write(to: csv)
        let records = dir.appendingPathComponent("r.json")
        try Data(
            #"[{"id":"veh-000000000000000004","make":"Honda","model":"Jazz","year":2019,"type":"car","licensePlate":"X1","vin":null,"fuelType":"petrol","odometer":1000,"status":"active"}]"#
                .utf8
        ).write(to: records)
        let db = dir.appendingPathComponent("e.db").path
        let imported = try runVinyard(["import", csv.path, records.path, "--db", db, "--report", "json"])
        #expect(imported.status == 0, "\(imported.stderr)")
        let top = try runVinyard(["emissions", "--db", db, "--sort", "emissions:desc", "--limit", "1"])
        #expect(top.stdout.contains("\nvin                make "), "\(top.stdout)")
        #expect(top.stdout.contains("\n1FTFW1E57KFA14352  Ford "), "\(top.stdout)")
        let all = try runVinyard(["emissions", "--db", db, "--sort", "emissions:desc"])
        let wide = "[fleet-record:veh-000000000000000004]".count + 2
        #expect(
            all.stdout.contains("\n1FTFW1E57KFA14352" + String(repeating: " ", count: wide - 17) + "Ford "),
            "every row: as wide as the key-only vehicle's key: \(all.stdout)")
    }

    /// A key replaced twice in a minified array by records whose loaded values are the same (they
    /// differ in a key that is not loaded): the second replacement removed the first one's entry,
    /// taking it for its own (every record has line 1). Entries are told apart by element.
    @Test func replacedRecordsOfOneLineAreAllKept() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let input = dir.appendingPathComponent("l.json")
        let amsterdam = #""name":"Amsterdam","lat":52.3547498,"long":4.8339215"#
        try Data(
            ("[{\(amsterdam),\"note\":\"a\"},{\"name\":\"Mumbai\",\"lat\":19.0823998,\"long\":72.8111468},"
                + "{\(amsterdam),\"note\":\"b\"},{\(amsterdam),\"note\":\"c\"}]").utf8
        ).write(to: input)
        let db = dir.appendingPathComponent("l.db").path
        for run in 1...2 {
            let r = try runVinyard(["import", input.path, "--db", db, "--source", "locations", "--report", "json"])
            #expect(r.status == 0, "\(r.stderr)")
            let report = try #require(try JSONSerialization.jsonObject(with: r.stdoutData) as? [String: Any], "\(r.stdout)")
            #expect(report["duplicates"] as? Int == 2, "run \(run): \(r.stdout)")
            let entries = try runVinyard(["export", "--db", db, "--table", "duplicates", "--columns", "element,raw", "--sort", "element", "--format", "jsonl"])
            let notes = entries.stdout.split(separator: "\n").compactMap { line -> String? in
                let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
                return (object?["raw"] as? [String: Any])?["note"] as? String
            }
            #expect(notes == ["a", "b"], "run \(run): \(entries.stdout)")
        }
    }

    /// Looking for a header below the first line: a line there whose delimiter is unclear is no
    /// header, and the input keeps its own run (it failed with the delimiter's usage error).
    @Test func anUnclearLineBelowIsNoHeader() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let input = dir.appendingPathComponent("amb.csv")
        try Data("Foo,Bar,Baz\nAB-1,VW,a;b\nCD-2,BMW,c,d;e;f\n".utf8).write(to: input)
        let forced = try runVinyard(["validate", input.path, "--source", "fleet"])
        #expect(forced.status == 1, "\(forced.stderr)")
        #expect(!forced.stderr.contains("cannot tell the delimiter"), "\(forced.stderr)")
        let detected = try runVinyard(["validate", input.path])
        #expect(detected.status == 64)
        #expect(detected.stderr.contains("cannot tell the source from its keys (Foo, Bar, Baz)"), "\(detected.stderr)")
    }

    /// The formula guard is a CSV cell's: a JSON string keeps its `'`, and a text that starts with
    /// `'` before `=` is exported with a second `'`, so it loads back as it was.
    @Test func formulaGuardIsOnlyACSVCells() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let input = dir.appendingPathComponent("n.json")
        try Data(#"[{"vin":"1FTFW1E57KFA14352","make":"Ford","notes":"'+1' is the prefix"},{"vin":"1HGCV1F52MA000123","make":"Honda","notes":"'=x"}]"#.utf8)
            .write(to: input)
        let db = dir.appendingPathComponent("n.db").path
        #expect(try runVinyard(["import", input.path, "--db", db, "--quiet"]).status == 0)
        let notes = try runVinyard(["export", "--db", db, "--columns", "notes", "--format", "jsonl"])
        #expect(notes.stdout == "{\"notes\":\"'+1' is the prefix\"}\n{\"notes\":\"'=x\"}\n", "\(notes.stdout)")
        let csv = dir.appendingPathComponent("e.csv")
        #expect(try runVinyard(["export", "--db", db, "-o", csv.path]).status == 0)
        #expect(try String(contentsOf: csv, encoding: .utf8).contains(",''=x,"), "guarded twice")
        let again = try runVinyard(["import", csv.path, "--db", db, "--report", "json"])
        let report = try #require(try JSONSerialization.jsonObject(with: again.stdoutData) as? [String: Any], "\(again.stderr)")
        #expect(report["unchanged"] as? Int == 2, "\(again.stdout)")
    }

    /// List fields are stored in NFC too.
    @Test func listElementsAreComposed() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let input = dir.appendingPathComponent("o.json")
        try Data(#"[{"vin":"1FTFW1E57KFA14352","options":["Sitzheizung","Zu\u0308rich-Paket"]}]"#.utf8).write(to: input)
        let r = try runVinyard(["convert", input.path, "-o", "-", "--format", "jsonl"])
        #expect(r.status == 0, "\(r.stderr)")
        let composed = Array(#""options":["Sitzheizung","Zürich-Paket"]"#.utf8)
        #expect(Array(r.stdoutData).indices.contains { i in Array(r.stdoutData).dropFirst(i).starts(with: composed) }, "\(r.stdout)")
    }

    /// A key repeated with the same values in an input read again: the run reports it unchanged,
    /// and the row keeps its run and time (it was stamped as the new run's).
    @Test func aRepeatedKeyReadAgainKeepsItsRun() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let input = dir.appendingPathComponent("v.json")
        let ford = #"{"vin":"1FTFW1E57KFA14352","make":"Ford","odometer_km":1}"#
        try Data("[\(ford),{\"vin\":\"1HGCV1F52MA000123\",\"make\":\"Honda\"},\(ford)]".utf8).write(to: input)
        let db = dir.appendingPathComponent("v.db").path
        #expect(try runVinyard(["import", input.path, "--db", db, "--quiet"]).status == 0)
        func state() throws -> String {
            try runVinyard(["export", "--db", db, "--columns", "vin,_run_id,_updated_at,_line,_element"]).stdout
                + runVinyard(["export", "--db", db, "--table", "duplicates", "--columns", "key,action,element,raw"]).stdout
        }
        let before = try state()
        let again = try runVinyard(["import", input.path, "--db", db, "--report", "json"])
        let report = try #require(try JSONSerialization.jsonObject(with: again.stdoutData) as? [String: Any], "\(again.stderr)")
        #expect(report["unchanged"] as? Int == 2, "\(again.stdout)")
        #expect(report["duplicates"] as? Int == 1, "\(again.stdout)")
        #expect(try state() == before)
        #expect(before.contains("1FTFW1E57KFA14352,1,"), "\(before)")
    }
    /// Any number of `'` before `=` loads back as it was (`''=x` came back as `'=x`), and a
    /// guarded cell read by the CSV reader's fast path after white space (` '=x`) loses its guard
    /// as on the general path (a row's path decided whether it was stored as `=x` or `'=x`).
    @Test func guardRoundTripForEveryApostropheCount() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let values = ["=x", "'=x", "''=x", "'''=x", "-5", "'plain", "'", "''"]
        let vins = [
            "1FTFW1E57KFA14352", "1HGCV1F52MA000123", "1C4PJMAK2CW184491", "2HKRM3H38EH550410", "KNAFU4A2XD5739551",
            "JM1GJ1W65E1143959", "1FTFW1E5XPFB12346", "4JGBB86E06A006500",
        ]
        let records = zip(vins, values).map { vin, note in "{\"vin\":\"\(vin)\",\"notes\":\"\(note)\"}" }
        let input = dir.appendingPathComponent("rt.json")
        try Data("[\(records.joined(separator: ","))]".utf8).write(to: input)
        let first = dir.appendingPathComponent("rt1.db").path
        #expect(try runVinyard(["import", input.path, "--db", first, "--quiet"]).status == 0)
        let csv = dir.appendingPathComponent("rt.csv")
        #expect(try runVinyard(["export", "--db", first, "-o", csv.path]).status == 0)
        let second = dir.appendingPathComponent("rt2.db").path
        #expect(try runVinyard(["import", csv.path, "--db", second, "--quiet"]).status == 0)
        let a = try runVinyard(["export", "--db", first, "--columns", "vin,notes", "--format", "jsonl"]).stdout
        let b = try runVinyard(["export", "--db", second, "--columns", "vin,notes", "--format", "jsonl"]).stdout
        #expect(a == b)
        #expect(a.contains(#""notes":"''=x""#), "\(a)")

        // ` '=x` read by the general path (a quoted line break in the row) and by the fast path.
        let spaced = dir.appendingPathComponent("sp.csv")
        try Data("vin,make,notes\n1FTFW1E57KFA14352,\"Fo\nrd\", '=x\n1HGCV1F52MA000123,Honda, '=x\n".utf8).write(to: spaced)
        let db = dir.appendingPathComponent("sp.db").path
        #expect(try runVinyard(["import", spaced.path, "--db", db, "--quiet"]).status == 0)
        let notes = try runVinyard(["export", "--db", db, "--columns", "notes"]).stdout
        #expect(notes == "notes\n'=x\n'=x\n", "both stored as =x, guarded again on export: \(notes)")
    }
}
