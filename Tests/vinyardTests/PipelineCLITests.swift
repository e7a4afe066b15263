import Foundation
import Testing
import VinyardKit

/// The JSON report of a run, parsed.
struct ParsedReport {
    let object: [String: Any]
    init(_ result: RunResult) throws {
        object = try #require(try JSONSerialization.jsonObject(with: result.stdoutData) as? [String: Any])
    }
    func int(_ key: String) -> Int? { object[key] as? Int }
    var findings: [String: Int] { object["findings"] as? [String: Int] ?? [:] }
    var inputs: [[String: Any]] { object["inputs"] as? [[String: Any]] ?? [] }
    var invariantHolds: Bool {
        guard let read = int("read"), let i = int("inserted"), let u = int("updated"), let c = int("unchanged"),
            let d = int("duplicates"), let r = int("rejected")
        else { return false }
        return read == i + u + c + d + r
    }
}

func sample(_ name: String) -> String { packageRoot.appendingPathComponent("Samples/\(name)").path }

let allSamples = [
    "fleet.csv", "fleet-export.csv.gz", "fleet.jsonl", "random-vehicle.json", "autoscout.json", "fleet-record.json",
    "locations.json",
].map(sample)

@Suite struct ValidateCommandTests {
    @Test(arguments: [
        ("fleet.csv", "fleet", 22, 6), ("fleet-export.csv.gz", "fleet", 12, 3), ("fleet.jsonl", "fleet", 10, 3),
        ("random-vehicle.json", "random-vehicle", 12, 3), ("autoscout.json", "autoscout", 9, 2),
        ("fleet-record.json", "fleet-record", 8, 3), ("locations.json", "locations", 8, 2),
    ])
    func detectsSourceAndCounts(_ file: String, _ source: String, _ read: Int, _ rejected: Int) throws {
        let r = try runVinyard(["validate", sample(file), "--report", "json"])
        #expect(r.status == (rejected > 0 ? 1 : 0), "\(r.stderr)")
        let report = try ParsedReport(r)
        #expect(report.int("read") == read)
        #expect(report.int("rejected") == rejected)
        #expect(report.invariantHolds)
        #expect(report.inputs.first?["source"] as? String == source)
        #expect(report.int("updated") == 0 && report.int("unchanged") == 0)
    }

    @Test func fleetCSVFindingsAndRepairs() throws {
        let r = try runVinyard(["validate", sample("fleet.csv"), "--report", "json"])
        let report = try ParsedReport(r)
        #expect(report.int("duplicates") == 1)
        for code in ["vin.check_digit", "vin.characters", "coord.swapped", "field.enum", "field.required", "field.type",
            "vin.make_mismatch"]
        {
            #expect(report.findings[code] == 1, "\(code)")
        }
        let suggestions = report.object["suggestions"] as? [[String: Any]] ?? []
        #expect(suggestions.contains { $0["suggestion"] as? String == "1FTFW1E57KFA14352" })
    }

    /// `vin.check_digit` is an error for the North American VIN of fleet.csv and a warning for the
    /// Renault of fleet-export.csv.gz: the text report gives each severity its own line and count
    /// (one "error … 2" line read as two rejects), the JSON report splits the counts too.
    @Test func findingsOfOneCodeAreCountedBySeverity() throws {
        let text = try runVinyard(["validate", sample("fleet.csv"), sample("fleet-export.csv.gz")])
        let lines = text.stdout.split(separator: "\n").map { $0.split(separator: " ").joined(separator: " ") }
        #expect(lines.contains { $0.hasPrefix("error vin.check_digit 1 ") && $0.hasSuffix("fleet.csv:17") }, "\(text.stdout)")
        #expect(
            lines.contains { $0.hasPrefix("warning vin.check_digit 1 ") && $0.hasSuffix("fleet-export.csv.gz:4") },
            "\(text.stdout)")
        let report = try ParsedReport(try runVinyard(["validate", sample("fleet.csv"), sample("fleet-export.csv.gz"), "--report", "json"]))
        #expect(report.findings["vin.check_digit"] == 2)
        let split = try #require(report.object["findings_by_severity"] as? [String: [String: Int]])
        #expect(split["error"]?["vin.check_digit"] == 1)
        #expect(split["warning"]?["vin.check_digit"] == 1)
        #expect(split["warning"]?["key.conflict"] == report.findings["key.conflict"])
    }

    /// A second `vin` column is read only where the first is empty: the run says so, naming the
    /// file and the column, on standard error and in the JSON report; the samples have no such warning.
    @Test func duplicateColumnIsReported() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent("twice.csv")
        try "vin,make,vin\n1FTFW1E57KFA14352,Ford,1HGCV1F52MA000123\n".write(to: file, atomically: true, encoding: .utf8)
        let r = try runVinyard(["validate", file.path, "--report", "json"])
        #expect(r.status == 0, "\(r.stderr)")
        let warnings = try ParsedReport(r).inputs.first?["warnings"] as? [String] ?? []
        #expect(warnings.count == 1 && warnings[0].contains("3 'vin'"), "\(warnings)")
        #expect(r.stderr.contains("warning: \(file.path): columns 1 'vin' and 3 'vin'"), "\(r.stderr)")
        let text = try runVinyard(["validate", file.path])
        #expect(text.stderr.contains("3 'vin'"), "\(text.stderr)")
        for path in [sample("fleet.csv"), sample("fleet-export.csv.gz")] {
            let clean = try runVinyard(["validate", path, "--report", "json"])
            #expect(!clean.stderr.contains("warning:"), "\(clean.stderr)")
            #expect(try ParsedReport(clean).inputs.first?["warnings"] as? [String] == [])
        }
    }

    /// Past 20 repair suggestions the text report says where the rest are: the rejects file when
    /// one is written (for rejected rows), and the JSON report (it named a rejects file that was
    /// not asked for).
    @Test func moreSuggestionsSayWhereTheyAre() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent("dirty.csv").path
        #expect(try runVinyard(["generate", "--rows", "3000", "--seed", "5", "--dirty", "0.2", "-o", file]).status == 0)
        let plain = try runVinyard(["validate", file])
        #expect(plain.stdout.contains("more (--report json lists the first 100)"), "\(plain.stdout)")
        #expect(!plain.stdout.contains("rejects file"), "\(plain.stdout)")
        let rejects = dir.appendingPathComponent("rejects.csv").path
        let written = try runVinyard(["validate", file, "--rejects", rejects])
        #expect(
            written.stdout.contains("more (those of rejected rows are in the rejects file \(rejects); --report json lists the first 100)"),
            "\(written.stdout)")
    }

    /// A CSV column that no field of the source takes is not loaded: the run says so once per
    /// input, naming the file and each such column with its position (an empty header name is
    /// not named); the CSV samples map every column.
    @Test func unmappedColumnIsReported() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent("extra.csv")
        try "vin,make,seat_count,,Notes2\n1FTFW1E57KFA14352,Ford,5,,x\n1HGCV1F52MA000123,Honda,7,,y\n"
            .write(to: file, atomically: true, encoding: .utf8)
        let r = try runVinyard(["validate", file.path, "--report", "json"])
        #expect(r.status == 0, "\(r.stderr)")
        let warnings = try ParsedReport(r).inputs.first?["warnings"] as? [String] ?? []
        #expect(warnings == [
            "columns 'seat_count' (column 3), 'Notes2' (column 5) match no field of source fleet and are not loaded; "
                + "to keep them, rename the header to a field name or one of its aliases"
        ])
        #expect(r.stderr.components(separatedBy: "warning: \(file.path): columns 'seat_count' (column 3)").count == 2,
                "\(r.stderr)")
        for path in [sample("fleet.csv"), sample("fleet-export.csv.gz")] {
            let clean = try runVinyard(["validate", path, "--report", "json"])
            #expect(try ParsedReport(clean).inputs.first?["warnings"] as? [String] == [], "\(clean.stderr)")
        }
    }

    /// Records of a JSON array written on one line share a line number: each finding's place also
    /// names the element (0-based, as `_element` of the rejects file), in the text and JSON
    /// reports, the repair suggestions, and the findings stored with a reject.
    @Test func oneLineJSONFindingsNameTheElement() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent("one.json")
        try #"[{"vin":"1FTFW1E57KFA14352","make":"Ford"},{"vin":"1FTFW1E5XKFA14352","make":"Ford"},{"vin":"bad","make":"x"},{"vin":"1HGCV1F52MA000123","make":"Ford"}]"#
            .write(to: file, atomically: true, encoding: .utf8)
        let text = try runVinyard(["validate", file.path])
        #expect(text.status == 1)
        #expect(text.stdout.contains("\(file.path):1 (element 1)"), "\(text.stdout)")
        #expect(text.stdout.contains("\(file.path):1 (element 2)"), "\(text.stdout)")
        let json = try ParsedReport(try runVinyard(["validate", file.path, "--report", "json"]))
        let examples = json.object["finding_examples"] as? [String: [String]] ?? [:]
        #expect(examples["vin.check_digit"] == ["\(file.path):1 (element 1)"], "\(examples)")
        #expect(examples["vin.length"] == ["\(file.path):1 (element 2)"], "\(examples)")
        #expect(examples["vin.make_mismatch"] == ["\(file.path):1 (element 3)"], "\(examples)")
        let suggestions = json.object["suggestions"] as? [[String: Any]] ?? []
        #expect(suggestions.first?["element"] as? Int == 1, "\(suggestions)")
        let db = dir.appendingPathComponent("one.db").path
        _ = try runVinyard(["import", file.path, "--db", db, "--quiet"])
        let store = try VinyardStore(path: db, readOnly: true)
        let statement = try store.connection.prepare("SELECT findings FROM rejects ORDER BY element")
        var stored = ""
        while try statement.step() { stored += statement.text(0) ?? "" }
        #expect(stored.contains(#""line":1,"element":1}"#) && stored.contains(#""line":1,"element":2}"#), "\(stored)")
    }

    /// A JSON object with the same key twice, or two keys matched to one field (`VIN` and `vin`),
    /// loads the first value only: like a shadowed CSV column, the run says so once per input and
    /// key pair, naming the file, both keys, the field and the first record's line, on standard
    /// error and in the JSON report. The JSON samples have no such warning.
    @Test(arguments: ["json", "jsonl"])
    func duplicateJSONKeyIsReported(_ format: String) throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent("twice.\(format)")
        let objects = [
            #"{"vin": "1FTFW1E57KFA14352", "make": "Ford"}"#,
            #"{"vin": "1HGCV1F52MA000123", "make": "Honda", "vin": "1C4PJMAK2CW184491"}"#,
            #"{"VIN": "2HKRM3H38EH550410", "vin": "KNAFU4A2XD5739551", "make": "Honda"}"#,
            #"{"vin": "JM1GJ1W65E1143959", "make": "Mazda", "vin": "4JGBB86E06A006500"}"#,
        ]
        let text = format == "json" ? "[\n" + objects.joined(separator: ",\n") + "\n]\n" : objects.joined(separator: "\n") + "\n"
        try text.write(to: file, atomically: true, encoding: .utf8)
        let line = format == "json" ? 3 : 2
        let out = dir.appendingPathComponent("out.csv").path
        for command in [["validate", file.path, "--report", "json", "--quiet"], ["convert", file.path, "-o", out, "--quiet"]] {
            let r = try runVinyard(command)
            #expect(r.status == 0, "\(r.stderr)")
            #expect(r.stderr.contains("warning: \(file.path): keys 'vin' and 'vin' both map to field vin (first at line \(line))"),
                    "\(command[0]): \(r.stderr)")
            #expect(r.stderr.contains("keys 'VIN' and 'vin' both map to field vin (first at line \(line + 1))"),
                    "\(command[0]): \(r.stderr)")
            // Once per key pair, not once per record.
            #expect(r.stderr.components(separatedBy: "keys 'vin' and 'vin'").count == 2, "\(r.stderr)")
            if command[0] == "validate" {
                let warnings = try ParsedReport(r).inputs.first?["warnings"] as? [String] ?? []
                #expect(warnings.count == 2, "\(warnings)")
            }
        }
        for path in [sample("fleet.jsonl"), sample("autoscout.json"), sample("random-vehicle.json"),
                     sample("fleet-record.json"), sample("locations.json")] {
            let clean = try runVinyard(["validate", path, "--report", "json", "--quiet"])
            #expect(!clean.stderr.contains("warning:"), "\(clean.stderr)")
            #expect(try ParsedReport(clean).inputs.first?["warnings"] as? [String] == [])
        }
    }

    /// A JSON key that no field of the source takes is not loaded: like an unmapped CSV column,
    /// the run names it once per input with the first record's line, on standard error and in
    /// the JSON report (it was dropped without a word). Keys the mapping ignores (`uid`) are not
    /// named; the JSON samples map every key.
    @Test(arguments: ["json", "jsonl"])
    func unmappedJSONKeyIsReported(_ format: String) throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent("extra.\(format)")
        let objects = [
            #"{"ID": "1", "Make": "VW", "FirstRegistration": "01/2020", "Seats": 5}"#,
            #"{"ID": "2", "Make": "VW", "FirstRegistration": "02/2020", "Seats": 4, "Warranty": "12 months"}"#,
            #"{"ID": "3", "Warranty": "none", "Make": "VW", "FirstRegistration": "03/2020", "Seats": 2}"#,
        ]
        let text = format == "json" ? "[\n" + objects.joined(separator: ",\n") + "\n]\n" : objects.joined(separator: "\n") + "\n"
        try text.write(to: file, atomically: true, encoding: .utf8)
        let line = format == "json" ? 2 : 1
        let r = try runVinyard(["validate", file.path, "--report", "json", "--quiet"])
        #expect(r.status == 0, "\(r.stderr)")
        let warnings = try ParsedReport(r).inputs.first?["warnings"] as? [String] ?? []
        #expect(warnings == [
            "key 'Seats' (first at line \(line)) matches no field of source autoscout and is not loaded; "
                + "to keep it, rename the key to a field name or map it in the source mapping",
            "key 'Warranty' (first at line \(line + 1)) matches no field of source autoscout and is not loaded; "
                + "to keep it, rename the key to a field name or map it in the source mapping",
        ], "\(warnings)")
        #expect(r.stderr.components(separatedBy: "warning: \(file.path): key 'Seats'").count == 2, "\(r.stderr)")
        for path in [sample("fleet.jsonl"), sample("autoscout.json"), sample("random-vehicle.json"),
                     sample("fleet-record.json"), sample("locations.json")] {
            let clean = try runVinyard(["validate", path, "--report", "json", "--quiet"])
            #expect(try ParsedReport(clean).inputs.first?["warnings"] as? [String] == [], "\(clean.stderr)")
        }
    }

    @Test func textReportShowsInvariantAndPlaces() throws {
        let r = try runVinyard(["validate", sample("fleet.csv")])
        #expect(r.status == 1)
        #expect(r.stdout.contains("read 22 = inserted 15 + updated 0 + unchanged 0 + duplicates 1 + rejected 6"))
        #expect(r.stdout.contains("fleet.csv:17"))
        #expect(r.stdout.contains("1FTFW1ES7KFA14352 → 1FTFW1E57KFA14352"))
    }

    @Test func rejectsFileCSVAndJSONLines() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let csv = dir.appendingPathComponent("rejects.csv").path
        let r = try runVinyard(["validate", sample("fleet.csv"), "--rejects", csv])
        #expect(r.status == 1)
        let text = try String(contentsOfFile: csv, encoding: .utf8)
        let header = try #require(text.split(separator: "\n").first)
        // Written as the sample is: `;`.
        #expect(header.hasSuffix("_input;_line;_findings;_extra"))
        #expect(text.contains("1FTFW1ES7KFA14352"))
        #expect(text.contains("vin.check_digit"))
        let jsonl = dir.appendingPathComponent("rejects.jsonl").path
        // From a folder the sample is not under: its input name is the full path, as given.
        _ = try runVinyard(["validate", sample("fleet.jsonl"), "--rejects", jsonl], cwd: dir)
        let lines = try String(contentsOfFile: jsonl, encoding: .utf8).split(separator: "\n")
        #expect(lines.count == 3)
        for line in lines {
            let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            #expect(object["_input"] as? String == sample("fleet.jsonl"))
            #expect(object["_line"] is Int)
            #expect((object["_findings"] as? [[String: Any]])?.isEmpty == false)
        }
    }

    @Test func cleanInputExitsZeroAndReadsStandardInput() throws {
        let csv = "vin,make,model,year\n1HGCM82633A004352,Honda,Accord,2003\n"
        let r = try runVinyard(["validate", "-", "--report", "json"], stdin: Data(csv.utf8))
        #expect(r.status == 0, "\(r.stderr)")
        let report = try ParsedReport(r)
        #expect(report.int("read") == 1 && report.int("inserted") == 1)
    }

    /// Standard input named twice: a usage error (the second '-' read nothing, exit 0).
    @Test func standardInputTwiceIsUsageError() throws {
        let csv = "vin,make\n1HGCM82633A004352,Honda\n"
        let r = try runVinyard(["validate", "-", "-"], stdin: Data(csv.utf8))
        #expect(r.status == 64, "\(r.stderr)")
        #expect(r.stderr.contains("more than once"), "\(r.stderr)")
    }

    @Test func unknownShapeIsUsageError() throws {
        let r = try runVinyard(["validate", "-", "--input-format", "csv"], stdin: Data("a,b\n1,2\n".utf8))
        #expect(r.status == 64)
        #expect(r.stderr.contains("--source"))
    }

    @Test func validateCountsWhatImportDoes() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let v = try ParsedReport(try runVinyard(["validate"] + allSamples + ["--report", "json"]))
        let i = try ParsedReport(
            try runVinyard(["import"] + allSamples + ["--db", dir.appendingPathComponent("x.db").path, "--report", "json"]))
        for key in ["read", "inserted", "updated", "unchanged", "duplicates", "rejected"] {
            #expect(v.int(key) == i.int(key), "\(key)")
        }
        #expect(v.findings == i.findings)
    }
}

@Suite struct ImportCommandTests {
    func count(_ db: String, _ sql: String) throws -> Int64? {
        let store = try VinyardStore(path: db, readOnly: true)
        return try store.connection.scalarInt(sql)
    }

    @Test func importsSamplesThenReimportChangesNothing() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let db = dir.appendingPathComponent("fleet.db").path
        let first = try runVinyard(["import"] + allSamples + ["--db", db, "--report", "json"])
        #expect(first.status == 0, "\(first.stderr)")
        let a = try ParsedReport(first)
        #expect(a.invariantHolds)
        #expect(a.int("read") == 81)
        let inserted = try #require(a.int("inserted"))
        let vehicles = try #require(try count(db, "SELECT count(*) FROM vehicles"))
        let locations = try #require(try count(db, "SELECT count(*) FROM locations"))
        #expect(Int(vehicles + locations) == inserted)
        #expect(try count(db, "SELECT count(*) FROM rejects") == Int64(a.int("rejected") ?? -1))
        #expect(try count(db, "SELECT count(*) FROM import_runs WHERE status='completed'") == 1)
        var tableCounts: [String: Int64] = [:]
        for table in ["rejects", "duplicates", "findings"] { tableCounts[table] = try count(db, "SELECT count(*) FROM \(table)") }

        let second = try runVinyard(["import"] + allSamples + ["--db", db])
        #expect(second.status == 0)
        #expect(second.stdout.contains("nothing changed"))
        #expect(second.stdout.contains("inserted 0 + updated 0"))
        #expect(try count(db, "SELECT count(*) FROM vehicles") == vehicles)
        // Nor do the bookkeeping tables grow: the rejects of the same records are replaced by
        // this run's (they piled up, one more set per re-import), as duplicates and findings are.
        for table in ["rejects", "duplicates", "findings"] {
            #expect(try count(db, "SELECT count(*) FROM \(table)") == tableCounts[table], "\(table)")
        }
        #expect(try count(db, "SELECT count(*) FROM rejects WHERE run_id=2") == Int64(a.int("rejected") ?? -1))
        // A changed record on the same line is another reject; the earlier one is kept.
        let edited = dir.appendingPathComponent("fleet.csv")
        let text = try String(contentsOfFile: sample("fleet.csv"), encoding: .utf8)
        try Data(text.replacingOccurrences(of: "Kerosin", with: "Kerosene").utf8).write(to: edited)
        _ = try runVinyard(["import", edited.path, "--db", db])
        _ = try runVinyard(["import", edited.path, "--db", db])
        #expect(try count(db, "SELECT count(*) FROM rejects") == (tableCounts["rejects"] ?? 0) + 6)
        // An input given twice in one run keeps both sets (it counts both): only earlier runs'
        // rejects are replaced. A later run of it alone replaces both.
        let twice = try ParsedReport(try runVinyard(["import", edited.path, edited.path, "--db", db, "--report", "json"]))
        #expect(twice.int("rejected") == 12)
        #expect(try count(db, "SELECT count(*) FROM rejects WHERE run_id=(SELECT max(id) FROM import_runs)") == 12)
        _ = try runVinyard(["import", edited.path, "--db", db])
        #expect(try count(db, "SELECT count(*) FROM rejects") == (tableCounts["rejects"] ?? 0) + 6)
    }

    /// An import that creates the database and is then rolled back (--strict) or fails on bad
    /// input leaves no database behind (it left an empty one); an existing one stays as it was.
    @Test func rolledBackFirstImportLeavesNoDatabase() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let db = dir.appendingPathComponent("fleet.db").path
        let strict = try runVinyard(["import", sample("fleet.csv"), "--db", db, "--strict"])
        #expect(strict.status == 1, "\(strict.stderr)")
        let bad = dir.appendingPathComponent("bad.json")
        try Data("[{\"vin\": \"1FTFW1E57KFA14352\"},\n{\"vin\": \"open".utf8).write(to: bad)
        let malformed = try runVinyard(["import", sample("fleet-record.json"), bad.path, "--db", db])
        #expect(malformed.status == 65, "\(malformed.stderr)")
        let left = try FileManager.default.contentsOfDirectory(atPath: dir.path).filter { $0.hasPrefix("fleet.db") }
        #expect(left.isEmpty, "\(left)")

        let good = try runVinyard(["import", sample("fleet-record.json"), "--db", db])
        #expect(good.status == 0, "\(good.stderr)")
        let vehicles = try count(db, "SELECT count(*) FROM vehicles")
        #expect(try runVinyard(["import", sample("fleet.csv"), "--db", db, "--strict"]).status == 1)
        #expect(try runVinyard(["import", bad.path, "--db", db]).status == 65)
        #expect(try count(db, "SELECT count(*) FROM vehicles") == vehicles)
    }

    /// Records of a JSON array written on one line share their line: every duplicate still keeps
    /// its own `duplicates` entry (a later one deleted the earlier one's: 3 duplicates, 0 or 1
    /// entries), and a re-import replaces them without piling up.
    @Test(arguments: ["first", "last", "merge"])
    func duplicatesOnOneLineAreEachKept(policy: String) throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let db = dir.appendingPathComponent("fleet.db").path
        let input = dir.appendingPathComponent("one-line.json")
        let records = (1...4).map { "{\"vin\":\"1FTFW1E57KFA14352\",\"odometer\":\($0)}" }
        try Data("[\(records.joined(separator: ","))]".utf8).write(to: input)
        let places = dir.appendingPathComponent("places.json")
        try Data("[{\"name\":\"A\",\"lat\":1,\"long\":2},{\"name\":\"A\",\"lat\":1.0000001,\"long\":2}]".utf8).write(to: places)
        for run in 1...2 {
            let r = try runVinyard(["import", input.path, places.path, "--db", db, "--on-duplicate", policy, "--report", "json"])
            #expect(r.status == 0, "\(r.stderr)")
            let report = try ParsedReport(r)
            #expect(report.int("duplicates") == 4, "run \(run)")
            #expect(report.int("rejected") == 0, "run \(run)")
            #expect(try count(db, "SELECT count(*) FROM duplicates WHERE table_name='vehicles'") == 3, "run \(run)")
            #expect(try count(db, "SELECT count(*) FROM duplicates WHERE table_name='locations'") == 1, "run \(run)")
        }
    }

    /// A missing input fails before the database is created; an import whose records are all
    /// rejected still leaves every schema table, so export and emissions read an empty one.
    @Test func missingInputCreatesNoDatabaseAndAllRejectedLeavesEmptyTables() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let db = dir.appendingPathComponent("fleet.db").path
        let missing = try runVinyard(["import", sample("fleet.csv"), dir.appendingPathComponent("nope.csv").path, "--db", db])
        #expect(missing.status == 66, "\(missing.stderr)")
        #expect(missing.stderr.contains("nope.csv"))
        #expect(!FileManager.default.fileExists(atPath: db))

        let bad = dir.appendingPathComponent("bad.csv")
        try Data("vin,make,odometer_km\nSHORT,Honda,100\n".utf8).write(to: bad)
        let r = try runVinyard(["import", bad.path, "--db", db])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout.contains("every record was rejected"), "\(r.stdout)")
        let export = try runVinyard(["export", "--db", db, "--columns", "vin,make"])
        #expect(export.status == 0, "\(export.stderr)")
        #expect(export.stdout == "vin,make\n")
        let emissions = try runVinyard(["emissions", "--db", db, "--format", "json"])
        #expect(emissions.status == 0, "\(emissions.stderr)")
        #expect(try count(db, "SELECT count(*) FROM locations") == 0)
    }

    /// The row.encoding warning says what was done with the row: read as Windows-1252 (auto), or
    /// invalid bytes replaced (`--encoding utf-8`).
    @Test func encodingWarningSaysWhatWasDone() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let input = dir.appendingPathComponent("w.csv")
        try Data("vin,make,color\n1HGCM82633A004352,Honda,Gr".utf8 + [0xFC] + Data("n\n".utf8)).write(to: input)
        for (encoding, says, color) in [("", "read as Windows-1252", "Grün"), ("utf-8", "replaced by U+FFFD", "Gr\u{FFFD}n")] {
            let db = dir.appendingPathComponent("w\(encoding).db").path
            let r = try runVinyard(["import", input.path, "--db", db, "--quiet"] + (encoding.isEmpty ? [] : ["--encoding", encoding]))
            #expect(r.status == 0, "\(r.stderr)")
            let store = try VinyardStore(path: db, readOnly: true)
            #expect(try store.connection.scalarText("SELECT message FROM findings WHERE code='row.encoding'")?.contains(says) == true)
            #expect(try store.connection.scalarText("SELECT color FROM vehicles") == color)
        }
    }

    @Test func strictRollsBack() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let db = dir.appendingPathComponent("fleet.db").path
        let r = try runVinyard(["import", sample("fleet.csv"), "--db", db, "--strict"])
        #expect(r.status == 1)
        #expect(r.stdout.contains("ROLLED BACK"))
        // Nothing of the run is left: not even the database file it created.
        #expect(!FileManager.default.fileExists(atPath: db))
        // Into an existing database: not the table it would have created, nor the run.
        #expect(try runVinyard(["import", sample("locations.json"), "--db", db, "--on-duplicate", "first"]).status == 0)
        #expect(try runVinyard(["import", sample("fleet.csv"), "--db", db, "--strict"]).status == 1)
        #expect(try count(db, "SELECT count(*) FROM vehicles") == 0)
        #expect(try count(db, "SELECT count(*) FROM import_runs") == 1)
    }

    @Test func malformedInputLeavesPreviousState() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let db = dir.appendingPathComponent("fleet.db").path
        #expect(try runVinyard(["import", sample("random-vehicle.json"), "--db", db]).status == 0)
        let before = try count(db, "SELECT count(*) FROM vehicles")
        let bad = dir.appendingPathComponent("bad.json")
        try Data(#"[{"vin": "1HGCM82633A004352", "make": "Honda"}, {"vin": "#.utf8).write(to: bad)
        let r = try runVinyard(["import", sample("fleet.csv"), bad.path, "--db", db])
        #expect(r.status == 65)
        #expect(r.stderr.contains("bad.json"))
        #expect(try count(db, "SELECT count(*) FROM vehicles") == before)
        #expect(try count(db, "SELECT count(*) FROM import_runs") == 1)
    }

    @Test func refusesATextFileAsDatabase() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let db = dir.appendingPathComponent("notes.txt")
        let bytes = Data("these are my notes, not a database\n".utf8)
        try bytes.write(to: db)
        let r = try runVinyard(["import", sample("fleet.csv"), "--db", db.path])
        #expect(r.status == 65)
        #expect(try Data(contentsOf: db) == bytes)
    }

    @Test(arguments: ["first", "last", "merge"])
    func duplicatePolicies(_ policy: String) throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let csv = dir.appendingPathComponent("d.csv")
        try Data("vin,make,model,color\n1HGCM82633A004352,Honda,Accord,\n1HGCM82633A004352,Honda,Civic,red\n".utf8)
            .write(to: csv)
        let db = dir.appendingPathComponent("d.db").path
        let r = try runVinyard(["import", csv.path, "--db", db, "--on-duplicate", policy, "--report", "json"])
        #expect(r.status == 0)
        let report = try ParsedReport(r)
        #expect(report.int("inserted") == 1 && report.int("duplicates") == 1)
        let store = try VinyardStore(path: db, readOnly: true)
        let model = try store.connection.scalarText("SELECT model FROM vehicles")
        let color = try store.connection.scalarText("SELECT color FROM vehicles")
        switch policy {
        case "first": #expect(model == "Accord" && color == nil)
        case "last": #expect(model == "Civic" && color == "red")
        default: #expect(model == "Accord" && color == "red")
        }
        #expect(try store.connection.scalarInt("SELECT count(*) FROM duplicates") ?? 0 >= 1)
    }
}

@Suite struct ConvertCanonicalTests {
    @Test func convertsWithSchemaAndKeepsRejectsAside() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let out = dir.appendingPathComponent("v.json").path
        let rejects = dir.appendingPathComponent("r.csv").path
        let r = try runVinyard(["convert", sample("autoscout.json"), "-o", out, "--rejects", rejects])
        #expect(r.status == 0, "\(r.stderr)")
        let rows = try #require(
            try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: out))) as? [[String: Any]])
        #expect(rows.count == 6)  // 9 read, 2 rejected, 1 duplicate not written
        #expect(rows.allSatisfy { $0["source"] as? String == "autoscout" })
        #expect(rows.contains { $0["fuel_type"] as? String == "gasoline" })  // Benzin normalized
        #expect(rows.contains { $0["first_registration"] as? String == "2019-03" })  // MM/yyyy → yyyy-MM
        let rejected = try String(contentsOfFile: rejects, encoding: .utf8)
        #expect(rejected.contains("13/2018") && rejected.contains("Holzgas"))
    }

    @Test func rawConversionStillPassesFieldsThrough() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let out = dir.appendingPathComponent("raw.jsonl").path
        let r = try runVinyard(["convert", sample("fleet.csv"), "-o", out, "--source", "raw"])
        #expect(r.status == 0, "\(r.stderr)")
        let lines = try String(contentsOfFile: out, encoding: .utf8).split(separator: "\n")
        #expect(lines.count == 22)
    }
}

/// A European export (`;`, decimal commas) with a price written `18.990`: asked, not read as a
/// thousandth of the price; `--decimal comma` reads it as 18990 and leaves the coordinates'
/// decimal dots alone (they were 52354°, a `coord.latitude` reject).
@Suite struct DecimalSeparatorCLITests {
    @Test func dotGroupedPriceIsAskedAndDecimalCommaReadsIt() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let input = dir.appendingPathComponent("de.csv")
        try Data("VIN;Make;Price;Latitude;Longitude\n1FTFW1E57KFA14352;Ford;18.990;52.354;4.834\n1HGCV1F52MA000123;Honda;18.990,50;52,354;4,834\n".utf8)
            .write(to: input)
        let rejects = dir.appendingPathComponent("rejects.csv").path
        let asked = try runVinyard(["validate", input.path, "--rejects", rejects, "--report", "json"])
        #expect(asked.status == 1)
        #expect(try ParsedReport(asked).findings == ["field.type": 1])
        #expect(try String(contentsOfFile: rejects, encoding: .utf8).contains("'18.990' is ambiguous"))

        let db = dir.appendingPathComponent("v.db").path
        let r = try runVinyard(["import", input.path, "--db", db, "--decimal", "comma", "--quiet"])
        #expect(r.status == 0, "\(r.stderr)")
        let out = try runVinyard(["export", "--db", db, "--columns", "vin,price,latitude,longitude", "--sort", "vin"])
        #expect(out.stdout == "vin,price,latitude,longitude\n1FTFW1E57KFA14352,18990,52.354,4.834\n1HGCV1F52MA000123,18990.5,52.354,4.834\n")
    }
}

/// The rejects CSV's columns are the input's, whatever the first reject is: a ragged row's fields
/// beyond the header went in as columns `_extra_1`, `_extra_2` (empty on every later row), and a
/// malformed JSON element first left no columns at all (every later record's fields in `_extra`).
@Suite struct RejectsColumnsTests {
    @Test func firstRejectDoesNotSkewTheColumns() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let ragged = dir.appendingPathComponent("rag.csv")
        try Data("vin,make,year\n1FTFW1E57KFA14352,Ford,2019,extra,more\n1HGCV1F52MA000123,Honda,20x1\n".utf8).write(to: ragged)
        let out = dir.appendingPathComponent("rag.rejects.csv").path
        _ = try runVinyard(["validate", ragged.path, "--rejects", out])
        let lines = try String(contentsOfFile: out, encoding: .utf8).split(separator: "\n").map(String.init)
        #expect(lines.first == "vin,make,year,_input,_line,_findings,_extra")
        #expect(lines.count == 3)
        #expect(lines[1].hasSuffix(#""{""_extra_1"":""extra"",""_extra_2"":""more""}""#), "\(lines[1])")
        #expect(lines[2].hasPrefix("1HGCV1F52MA000123,Honda,20x1,"))
        #expect(lines[2].hasSuffix(","), "nothing in _extra: \(lines[2])")

        let json = dir.appendingPathComponent("mal.json")
        try Data("[{\"vin\": tru},\n{\"vin\":\"1HGCV1F52MA000124\",\"make\":\"Honda\"}]".utf8).write(to: json)
        let jsonOut = dir.appendingPathComponent("mal.rejects.csv").path
        _ = try runVinyard(["validate", json.path, "--rejects", jsonOut])
        let jsonLines = try String(contentsOfFile: jsonOut, encoding: .utf8).split(separator: "\n").map(String.init)
        #expect(jsonLines.first == "vin,make,_input,_line,_findings,_extra")
        #expect(jsonLines.count == 3)
        #expect(jsonLines[1].hasPrefix(",,") && jsonLines[1].contains("row.malformed"))
        #expect(jsonLines[2].hasPrefix("1HGCV1F52MA000124,Honda,"))
    }
}

/// `validate` counts the `key.conflict`s an import into an empty database finds when a repeated
/// key's later record leaves fields empty: only a field both records fill can conflict (it
/// reported the Ford, whose later record only left the colour empty).
@Suite struct ValidateMatchesImportOnSparseDuplicates {
    @Test func sparseLaterRecordConflictsOnlyOnSharedFields() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let input = dir.appendingPathComponent("sparse.csv")
        try Data(
            ("vin,make,color,odometer_km\n1FTFW1E57KFA14352,Ford,Red,72400\n1FTFW1E57KFA14352,Ford,,72400\n"
                + "1HGCV1F52MA000123,Honda,Blue,100\n1HGCV1F52MA000123,Honda,,200\n").utf8
        ).write(to: input)
        let validate = try ParsedReport(try runVinyard(["validate", input.path, "--report", "json"]))
        let db = dir.appendingPathComponent("v.db").path
        let imported = try ParsedReport(try runVinyard(["import", input.path, "--db", db, "--report", "json"]))
        #expect(validate.findings == ["key.conflict": 1])
        #expect(imported.findings == validate.findings)
        for key in ["read", "inserted", "duplicates", "rejected"] { #expect(validate.int(key) == imported.int(key), "\(key)") }
    }
}

/// A JSON Lines feed with nested coordinates and measurements loads them, and names the nested
/// member it does not load by its path.
@Suite struct NestedJSONCLITests {
    @Test func nestedValuesLoadAndUnloadedMembersAreNamed() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let input = dir.appendingPathComponent("feed.jsonl")
        try Data(
            ("{\"vin\":\"1FTFW1E57KFA14352\",\"gps\":{\"lat\":52.35,\"lng\":4.83,\"accuracy\":5}}\n"
                + "{\"vin\":\"1HGCV1F52MA000123\",\"odometer\":{\"value\":1000,\"unit\":\"mi\"}}\n").utf8
        ).write(to: input)
        let db = dir.appendingPathComponent("v.db").path
        let r = try runVinyard(["import", input.path, "--db", db, "--report", "json"])
        #expect(r.status == 0, "\(r.stderr)")
        let report = try ParsedReport(r)
        #expect(report.int("inserted") == 2)
        let warnings = (report.inputs.first?["warnings"] as? [String]) ?? []
        #expect(warnings.contains { $0.contains("'gps.accuracy'") }, "\(warnings)")
        let out = try runVinyard(["export", "--db", db, "--columns", "vin,latitude,longitude,odometer_km", "--sort", "vin"])
        #expect(out.stdout == "vin,latitude,longitude,odometer_km\n1FTFW1E57KFA14352,52.35,4.83,\n1HGCV1F52MA000123,,,1609\n")
    }
}

/// A title or note above the table (as spreadsheet exports write) is skipped in a file, with a
/// warning that quotes it, and the rows keep their own line numbers; standard input, which cannot
/// be read twice, gets an error that says to remove it.
@Suite struct TitleLineAboveHeaderTests {
    @Test func titleLinesAreSkippedAndNamed() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let text = "Fleet export;generated 2026-11-01\r\n\r\nDepot Nord\r\nVIN;Make;Model\r\n1FTFW1E57KFA14352;Ford;F-150\r\nBAD;Ford;F-150\r\n"
        let input = dir.appendingPathComponent("export.csv")
        try Data(text.utf8).write(to: input)
        let gz = dir.appendingPathComponent("export2.csv.gz")
        try gzipFile(Data(text.utf8)).write(to: gz)
        for path in [input.path, gz.path] {
            let db = dir.appendingPathComponent("\(UUID().uuidString).db").path
            let r = try runVinyard(["import", path, "--db", db, "--report", "json"])
            #expect(r.status == 0, "\(r.stderr)")
            #expect(r.stderr.contains("2 lines above the header skipped as a title or note, not data: 'Fleet export;generated 2026-11-01', 'Depot Nord'"), "\(r.stderr)")
            let report = try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])
            #expect(report["read"] as? Int == 2)
            #expect(report["inserted"] as? Int == 1)
            #expect(report["rejected"] as? Int == 1)
            let lines = try runVinyard(["export", "--db", db, "--table", "rejects", "--columns", "line"])
            #expect(lines.stdout == "line\n6\n", "the reject keeps its line in the file: \(lines.stdout)")
            let kept = try runVinyard(["export", "--db", db, "--columns", "vin,_line"])
            #expect(kept.stdout == "vin,_line\n1FTFW1E57KFA14352,5\n", "\(kept.stdout)")
        }
    }

    /// With the source named (`--source fleet`), the title was the header and every row a reject.
    @Test func titleLineIsSkippedUnderAForcedSource() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let input = dir.appendingPathComponent("export.csv")
        try Data("Fleet export 2026-11-01\nVIN;Make;Model\n1FTFW1E57KFA14352;Ford;F-150\n".utf8).write(to: input)
        let r = try runVinyard(["validate", input.path, "--source", "fleet", "--report", "json"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stderr.contains("1 line above the header skipped as a title or note, not data: 'Fleet export 2026-11-01'"), "\(r.stderr)")
        let report = try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])
        #expect(report["inserted"] as? Int == 1)
        #expect(report["rejected"] as? Int == 0)
    }

    /// A title of several cells (`Leasing Co;Fleet list;exported 2026-11-01;page 1`) is skipped too,
    /// detected or forced: it was taken for the header (a usage error, or with `--source fleet`
    /// every row a ragged reject).
    @Test func titleOfSeveralCellsIsSkipped() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        for (name, title) in [
            ("semicolons.csv", "Leasing Co;Fleet list;exported 2026-11-01;page 1\r\nVIN;Make;Odometer\r\n"),
            ("commas.csv", "Fleet report, Q3 2026, exported by Leasing Co\nVIN,Make,Odometer\n"),
        ] {
            let input = dir.appendingPathComponent(name)
            let separator = name == "commas.csv" ? "," : ";"
            try Data((title + ["1FTFW1E57KFA14352", "Ford", "12"].joined(separator: separator) + "\n").utf8).write(to: input)
            for extra in [[], ["--source", "fleet"]] {
                let r = try runVinyard(["validate", input.path, "--report", "json"] + extra)
                #expect(r.status == 0, "\(name) \(extra): \(r.stderr)")
                #expect(r.stderr.contains("1 line above the header skipped as a title or note"), "\(r.stderr)")
                let report = try #require(try JSONSerialization.jsonObject(with: r.stdoutData) as? [String: Any], "\(r.stdout)")
                #expect(report["read"] as? Int == 1, "\(name) \(extra): \(r.stdout)")
                #expect(report["inserted"] as? Int == 1, "\(name) \(extra): \(r.stdout)")
            }
        }
    }

    @Test func titleLineOnStandardInputGetsAHint() throws {
        let r = try runVinyard(
            ["validate", "-"], stdin: Data("Fleet export;generated 2026-11-01\nVIN;Make;Model\n1FTFW1E57KFA14352;Ford;F-150\n".utf8))
        #expect(r.status == 64)
        #expect(r.stderr.contains("cannot tell the source"))
        #expect(r.stderr.contains("if the first line is a title or a note above the table, remove it"), "\(r.stderr)")
    }

    /// More than five lines above the header, or none that names a source: the error as before.
    @Test func tooManyLinesAboveTheHeaderAreNotGuessed() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let input = dir.appendingPathComponent("export.csv")
        let notes = (1...6).map { "note \($0)\n" }.joined()
        try Data((notes + "VIN,Make\n1FTFW1E57KFA14352,Ford\n").utf8).write(to: input)
        let r = try runVinyard(["validate", input.path])
        #expect(r.status == 64)
        #expect(r.stderr.contains("cannot tell the source from its keys (note 1)"), "\(r.stderr)")
    }
}

/// A fleet manager's loop: validate, fix the rejects file, validate it again. Its provenance and
/// findings columns are not reported as unloaded columns, and the second rejects file has one set
/// of bookkeeping columns (it had `_input,_line,_findings,_extra` twice, the earlier run's and
/// this run's); a non-empty `_extra` is data, kept in the new `_extra`, and said not to be loaded
/// when its record is.
@Suite struct RejectsRoundTripTests {
    @Test func rejectsFileReadAgainKeepsOneSetOfBookkeepingColumns() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let input = dir.appendingPathComponent("fleet.csv")
        try Data(
            ("vin,make,odometer_km\n1FTFW1E57KFA14352,Ford,about 100\n1HGCV1F52MA000124,Honda,200\n"
                + "KNAFU4A2XD5739551,Kia,-300,oops\n").utf8
        ).write(to: input)
        let first = dir.appendingPathComponent("rejects.csv")
        _ = try runVinyard(["validate", input.path, "--rejects", first.path])
        let firstLines = try String(contentsOf: first, encoding: .utf8).split(separator: "\n").map(String.init)
        #expect(firstLines.first == "vin,make,odometer_km,_input,_line,_findings,_extra")
        #expect(firstLines.count == 4)

        // The Honda's check digit fixed; the Ford and the ragged Kia (a negative odometer) not.
        let fixed = dir.appendingPathComponent("fixed.csv")
        try Data(
            try String(contentsOf: first, encoding: .utf8).replacingOccurrences(of: "1HGCV1F52MA000124", with: "1HGCV1F52MA000123").utf8
        ).write(to: fixed)
        let second = dir.appendingPathComponent("rejects2.csv")
        let r = try runVinyard(["validate", fixed.path, "--rejects", second.path])
        #expect(r.status == 1)
        let said = r.stdout + r.stderr
        #expect(!said.contains("'_input'") && !said.contains("'_findings'"), "\(said)")
        // The `_extra` column is the rejects file's own too: not named while no loaded record has
        // a value in it (every rejects file read again was told it was not loaded).
        #expect(!said.contains("'_extra'"), "\(said)")
        let lines = try String(contentsOf: second, encoding: .utf8).split(separator: "\n").map(String.init)
        #expect(lines.first == "vin,make,odometer_km,_input,_line,_findings,_extra")
        #expect(lines.count == 3, "\(lines)")
        #expect(lines.contains { $0.hasPrefix("1FTFW1E57KFA14352,Ford,about 100,\(fixed.path),") }, "\(lines)")
        #expect(lines.contains { $0.hasPrefix("KNAFU4A2XD5739551,Kia,-300,") && $0.contains("oops") }, "\(lines)")

        // The Kia's odometer fixed but its extra value left: it is loaded, and its `_extra` is said
        // not to be.
        let fixedKia = dir.appendingPathComponent("fixed-kia.csv")
        try Data(try String(contentsOf: fixed, encoding: .utf8).replacingOccurrences(of: "-300", with: "300").utf8).write(to: fixedKia)
        let kia = try runVinyard(["validate", fixedKia.path])
        #expect(kia.stderr.contains("line 4: the '_extra' column holds values of the earlier run's ragged row; they are not loaded"), "\(kia.stderr)")

        let jsonl = dir.appendingPathComponent("rejects2.jsonl")
        _ = try runVinyard(["validate", fixed.path, "--rejects", jsonl.path])
        for line in try String(contentsOf: jsonl, encoding: .utf8).split(separator: "\n") {
            #expect(line.components(separatedBy: "\"_input\"").count == 2, "one _input key: \(line)")
            #expect(line.components(separatedBy: "\"_findings\"").count == 2, "one _findings key: \(line)")
        }
    }
}

/// `1,000` in a whole-number field under `--decimal auto` is asked; the message names the option
/// that answers it, and `--decimal point` reads it as 1000.
@Suite struct CommaAmbiguityMessageTests {
    @Test func ambiguousCommaNamesTheDecimalOption() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let input = dir.appendingPathComponent("us.csv")
        try Data("VIN,Make,Odometer (mi)\n1FTFW1E57KFA14352,Ford,\"1,000\"\n".utf8).write(to: input)
        let rejects = dir.appendingPathComponent("rejects.csv").path
        let asked = try runVinyard(["validate", input.path, "--rejects", rejects])
        #expect(asked.status == 1)
        #expect(try String(contentsOfFile: rejects, encoding: .utf8).contains("pass --decimal point (commas group thousands) or --decimal comma"))
        let db = dir.appendingPathComponent("v.db").path
        let r = try runVinyard(["import", input.path, "--db", db, "--decimal", "point", "--quiet"])
        #expect(r.status == 0, "\(r.stderr)")
        let out = try runVinyard(["export", "--db", db, "--columns", "vin,odometer_km"])
        #expect(out.stdout == "vin,odometer_km\n1FTFW1E57KFA14352,1609\n")
    }
}

/// A postal address written as an object is the vehicle's address as one text (it was a
/// `field.type` reject: the whole vehicle lost for the shape of its address); members that are
/// no part of an address are named by their path; a position with an address is still a position.
@Suite struct AddressObjectTests {
    @Test func addressObjectIsComposed() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let input = dir.appendingPathComponent("feed.jsonl")
        try Data(
            (#"{"vin":"1FTFW1E57KFA14352","address":{"street":"Hauptstr.","house_number":"1","zip":"10115","city":"Berlin","country":"DE","geo":"x"}}"#
                + "\n" + #"{"vin":"1HGCV1F52MA000123","location":{"lat":52.1,"lng":4.2,"address":"Damrak 1, Amsterdam"}}"#
                + "\n" + #"{"vin":"KNAFU4A2XD5739551","address":{"kind":"depot"}}"# + "\n").utf8
        ).write(to: input)
        let db = dir.appendingPathComponent("v.db").path
        let r = try runVinyard(["import", input.path, "--db", db, "--report", "json"])
        let report = try ParsedReport(r)
        #expect(report.int("inserted") == 2)
        #expect(report.findings == ["field.type": 1], "an object that is no address is still asked about")
        #expect(r.stderr.contains("address.geo"), "\(r.stderr)")
        let out = try runVinyard(["export", "--db", db, "--columns", "vin,address,latitude", "--sort", "vin"])
        #expect(out.stdout == "vin,address,latitude\n1FTFW1E57KFA14352,\"Hauptstr. 1, 10115 Berlin, DE\",\n1HGCV1F52MA000123,\"Damrak 1, Amsterdam\",52.1\n")
    }
}

/// A CSV column without a header name is not loaded: when it holds a value the run names it
/// (`VIN,,Make,` over `…,midvalue,Ford,lastvalue` dropped both values without a word); one whose
/// cells are all empty (a spreadsheet's trailing delimiters) is not named.
@Suite struct UnnamedColumnTests {
    @Test func unnamedColumnWithValuesIsNamed() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent("unnamed.csv")
        try "VIN,,Make,,\n1FTFW1E57KFA14352,,Ford,,\n1HGCV1F52MA000123,midvalue,Honda,lastvalue,\n"
            .write(to: file, atomically: true, encoding: .utf8)
        for command in ["validate", "import"] {
            var args = [command, file.path, "--report", "json"]
            if command == "import" { args += ["--db", dir.appendingPathComponent("v.db").path] }
            let r = try runVinyard(args)
            #expect(r.status == 0, "\(r.stderr)")
            let warnings = try ParsedReport(r).inputs.first?["warnings"] as? [String] ?? []
            #expect(warnings.sorted() == [
                "column '' (column 2, no name; a value at line 3) matches no field of source fleet and is not loaded; "
                    + "to keep it, give the column a header: a field name or one of its aliases",
                "column '' (column 4, no name; a value at line 3) matches no field of source fleet and is not loaded; "
                    + "to keep it, give the column a header: a field name or one of its aliases",
            ], "\(warnings)")
            #expect(r.stderr.contains("column '' (column 2, no name"), "\(r.stderr)")
        }
    }
}

/// European spreadsheet headers and values: accents are set aside when headers and values are
/// matched (`Kilométrage` is the alias `kilometrage`), and common German, French and Dutch
/// headers, fuel, status and transmission spellings and yes/no words are known (they were
/// unmapped columns, a refused file for `Fahrgestell-Nr.`, or field.enum/field.type rejects).
@Suite struct EuropeanSpreadsheetTests {
    @Test func europeanHeadersAndValuesLoad() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent("flotte.csv")
        try ("Fahrgestell-Nr.;Marque;Modèle;Année;Kilométrage;Carburant;Türen;Getriebe;Kenteken;Status;Unfallfrei;Breitengrad;Längengrad\n"
            + "1FTFW1E57KFA14352;Ford;F-150;2019;12 345;Super E10;4;Stufenlos;AB-123-C;in Werkstatt;WAHR;52,35;4,83\n"
            + "1HGCV1F52MA000123;Honda;Accord;2021;800;Diesel;4;Automatik;XY-99-Z;verkauft;non;48,85;2,35\n")
            .write(to: file, atomically: true, encoding: .utf8)
        let db = dir.appendingPathComponent("v.db").path
        let r = try runVinyard(["import", file.path, "--db", db, "--report", "json"])
        #expect(r.status == 0, "\(r.stderr)")
        let report = try ParsedReport(r)
        #expect(report.int("inserted") == 2, "\(r.stdout)")
        #expect(report.int("rejected") == 0, "\(r.stdout)")
        #expect(report.inputs.first?["warnings"] as? [String] == [], "\(r.stderr)")
        let out = try runVinyard([
            "export", "--db", db, "--sort", "vin", "--columns",
            "vin,make,model,model_year,odometer_km,fuel_type,doors,transmission,status,accident_free,latitude,longitude",
        ])
        #expect(out.stdout == "vin,make,model,model_year,odometer_km,fuel_type,doors,transmission,status,accident_free,latitude,longitude\n"
            + "1FTFW1E57KFA14352,Ford,F-150,2019,12345,gasoline,4,cvt,maintenance,true,52.35,4.83\n"
            + "1HGCV1F52MA000123,Honda,Accord,2021,800,diesel,4,automatic,retired,false,48.85,2.35\n", "\(out.stdout)")
    }
}

/// A file whose first line is one huge value (no newline, no known header) is refused with a
/// short message: the key was echoed whole (200 MB of standard error for a 200 MB line).
@Suite struct LongHeaderMessageTests {
    @Test func undetectableHeaderIsQuotedByItsStart() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent("one-line.csv")
        try String(repeating: "A", count: 2_000_000).write(to: file, atomically: true, encoding: .utf8)
        let r = try runVinyard(["validate", file.path])
        #expect(r.status == 64)
        #expect(r.stderr.contains("cannot tell the source from its keys (AAAAAAAAAA"), "\(r.stderr.prefix(300))")
        #expect(r.stderr.contains("(2000000 bytes)"), "\(r.stderr.prefix(300))")
        #expect(r.stderr.utf8.count < 2_000, "\(r.stderr.utf8.count) bytes")
    }
}

/// Every input of a run with an unnamed column that holds values is told so, not only the first
/// (the mapping workers, which live for the run, noted a column once).
@Suite struct UnnamedColumnEveryInputTests {
    @Test func eachInputIsWarned() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let files = (1...3).map { dir.appendingPathComponent("un\($0).csv") }
        for file in files { try "VIN,,Make\n1FTFW1E57KFA14352,mid,Ford\n".write(to: file, atomically: true, encoding: .utf8) }
        let r = try runVinyard(["validate"] + files.map(\.path) + ["--report", "json"])
        #expect(r.status == 0, "\(r.stderr)")
        let inputs = try ParsedReport(r).inputs
        #expect(inputs.count == 3)
        for input in inputs {
            #expect((input["warnings"] as? [String] ?? []).count == 1, "\(input)")
        }
    }
}

/// A named pipe as input is read once: the missing-input check opened and closed it, and the
/// duplicates' raw-record pass opened it again, each time waiting forever for a writer.
@Suite struct NamedPipeInputTests {
    @Test func importReadsANamedPipe() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let fifo = dir.appendingPathComponent("fleet.csv").path
        try #require(mkfifo(fifo, 0o600) == 0)
        let data = try Data(contentsOf: URL(fileURLWithPath: sample("fleet.csv")))
        // The writer blocks in open until vinyard opens the pipe for reading.
        let writer = Thread {
            if let handle = FileHandle(forWritingAtPath: fifo) {
                handle.write(data)
                try? handle.close()
            }
        }
        writer.start()
        let db = dir.appendingPathComponent("fleet.db").path
        let r = try runVinyard(["import", fifo, "--db", db, "--report", "json"], timeout: 30)
        #expect(!r.timedOut, "vinyard waited on the named pipe")
        #expect(r.status == 0, "\(r.stderr)")
        let direct = try runVinyard(["validate", sample("fleet.csv"), "--report", "json"], timeout: 30)
        #expect(try ParsedReport(r).int("inserted") == ParsedReport(direct).int("inserted"))
        #expect(try ParsedReport(r).int("duplicates") == 1)
    }
}
