import Foundation
import Testing
import VinyardKit

/// Black-box findings of review 12 (store and import semantics), each run through the built binary.
@Suite struct Review12Tests {
    /// Writes `text` to `name` in `dir` and returns its path.
    static func write(_ text: String, _ name: String, in dir: URL) throws -> String {
        let url = dir.appendingPathComponent(name)
        try Data(text.utf8).write(to: url)
        return url.path
    }

    /// The rows of `table` as CSV lines (header dropped), sorted.
    static func rows(_ db: String, _ table: String, columns: String) throws -> [String] {
        let r = try runVinyard(["export", "--db", db, "--table", table, "--columns", columns])
        #expect(r.status == 0, "\(r.stderr)")
        return r.stdout.split(separator: "\n").dropFirst().map(String.init).sorted()
    }

    /// Runs `import` with `--report json` and returns the report.
    static func importJSON(_ arguments: [String]) throws -> [String: Any] {
        let r = try runVinyard(["import"] + arguments + ["--report", "json", "--quiet"])
        #expect(r.status == 0, "\(r.stderr)")
        return try JSONSerialization.jsonObject(with: r.stdoutData) as? [String: Any] ?? [:]
    }

    /// A minified JSON array holds all its records on line 1. Under `first` and `merge`, a third
    /// record of a key deleted the `key.conflict` finding the second one had stored (the clean-up
    /// of an earlier run's findings matched input and line only), and an identical record deleted
    /// the `duplicates` entry of the one before it: the report counted 2 conflicts and 2
    /// duplicates, the tables kept 1 (or none).
    @Test(arguments: ["first", "merge"])
    func recordsOnOneLineKeepTheirFindingsAndDuplicates(policy: String) throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let input = try Self.write(
            #"[{"vin":"1FTFW1E57KFA14352","make":"Ford","color":"Red"},{"vin":"1FTFW1E57KFA14352","make":"Ford","color":"Blue"},"#
                + #"{"vin":"1FTFW1E57KFA14352","make":"Ford","color":"Red"},{"vin":"1FTFW1E57KFA14352","make":"Ford","color":"Green"},"#
                + #"{"vin":"1HGCV1F52MA000123","make":"Honda"},{"vin":"1HGCV1F52MA000123","make":"Honda"},{"vin":"1HGCV1F52MA000123","make":"Honda"}]"#,
            "minified.json", in: dir)
        let db = dir.appendingPathComponent("fleet.db").path
        for run in 1...2 {
            let report = try Self.importJSON([input, "--db", db, "--on-duplicate", policy])
            #expect(report["duplicates"] as? Int == 5, "run \(run)")
            #expect((report["findings"] as? [String: Int])?["key.conflict"] == 2, "run \(run)")
            let conflicts = try Self.rows(db, "findings", columns: "key,code").filter { $0.hasSuffix(",key.conflict") }
            #expect(conflicts == Array(repeating: "1FTFW1E57KFA14352,key.conflict", count: 2), "run \(run)")
            let duplicates = try Self.rows(db, "duplicates", columns: "key")
            #expect(duplicates.filter { $0 == "1FTFW1E57KFA14352" }.count == 3, "run \(run)")
            #expect(duplicates.filter { $0 == "1HGCV1F52MA000123" }.count == 2, "run \(run)")
        }
    }
}

extension Review12Tests {
    /// `import --strict --report json` that rolled the run back printed the same report as a
    /// committed run (`inserted 2`): nothing in the JSON said that none of it was stored.
    @Test func jsonReportSaysWhetherTheImportWasCommitted() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let input = try Self.write(
            "vin,make\n1FTFW1E57KFA14352,Ford\n1HGCV1F52MA000123,Honda\nBADVIN,Ford\n", "fleet.csv", in: dir)
        let db = dir.appendingPathComponent("fleet.db").path
        let strict = try runVinyard(["import", input, "--db", db, "--strict", "--report", "json", "--quiet"])
        #expect(strict.status == 1)
        let rolledBack = try JSONSerialization.jsonObject(with: strict.stdoutData) as? [String: Any] ?? [:]
        #expect(rolledBack["committed"] as? Bool == false)
        #expect(rolledBack["run_id"] is NSNull)
        let report = try Self.importJSON([input, "--db", db])
        #expect(report["committed"] as? Bool == true)
        #expect(report["run_id"] as? Int == 1)
        let validate = try runVinyard(["validate", input, "--report", "json"])
        let validated = try JSONSerialization.jsonObject(with: validate.stdoutData) as? [String: Any] ?? [:]
        #expect(validated["committed"] == nil)
    }
}

extension Review12Tests {
    /// A database damaged inside (a page of `vehicles` overwritten, the header intact) opened fine
    /// and failed where the page was read with exit 74 and SQLite's bare message; the README gives
    /// 65 for a damaged `--db`, as opening one that is damaged at its start does.
    @Test func databaseDamagedInsideExitsWithStatus65() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let input = dir.appendingPathComponent("fleet.csv").path
        #expect(try runVinyard(["generate", "--rows", "3000", "-o", input]).status == 0)
        let db = dir.appendingPathComponent("fleet.db").path
        #expect(try runVinyard(["import", input, "--db", db, "--quiet"]).status == 0)
        let handle = try FileHandle(forUpdating: URL(fileURLWithPath: db))
        let size = try handle.seekToEnd()
        try handle.seek(toOffset: size / 2 - size / 2 % 65536)
        handle.write(Data(repeating: 0xFF, count: 65536))
        try handle.close()
        let before = try Data(contentsOf: URL(fileURLWithPath: db))
        for arguments in [["export", "--db", db], ["stats", "--db", db], ["import", input, "--db", db, "--quiet"]] {
            let r = try runVinyard(arguments)
            #expect(r.status == 65, "\(arguments[0]): \(r.stderr)")
            #expect(r.stderr.contains("damaged"), "\(arguments[0]): \(r.stderr)")
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: db)) == before)
    }
}

extension Review12Tests {
    /// `import_runs.options` kept only `on-duplicate`, `strict` and `source`: a run with
    /// `--decimal comma`, `--date-format` or `--reject-accidents` (which change what is loaded)
    /// could not be told from one without. (Review 11 found and fixed the same; this test serves both.)
    @Test func importRunsRecordsTheOptionsThatChangeWhatIsLoaded() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let input = try Self.write(
            "vin;make;price;first_registration\n1FTFW1E57KFA14352;Ford;1,5;03/04/2019\n", "fleet.csv", in: dir)
        let db = dir.appendingPathComponent("fleet.db").path
        let r = try runVinyard([
            "import", input, "--db", db, "--decimal", "comma", "--date-format", "dd/MM/yyyy", "--reject-accidents",
            "--delimiter", ";", "--input-format", "csv", "--quiet",
        ])
        #expect(r.status == 0, "\(r.stderr)")
        let export = try runVinyard(["export", "--db", db, "--table", "import_runs", "--columns", "options", "--format", "jsonl"])
        let line = try JSONSerialization.jsonObject(with: Data(export.stdout.utf8)) as? [String: Any]
        let options = line?["options"] as? [String: String]
        #expect(options?["decimal"] == "comma")
        #expect(options?["date-format"] == "dd/MM/yyyy")
        #expect(options?["reject-accidents"] == "true")
        #expect(options?["delimiter"] == ";")
        #expect(options?["input-format"] == "csv")
        #expect(options?["on-duplicate"] == "last")
    }
}

extension Review12Tests {
    /// `--db :memory:` and `--db 'file:fleet.db?mode=memory'` imported into a database that
    /// vanished at exit, with exit status 0 and a report of rows inserted (the system SQLite reads
    /// `file:` names as URIs); `--db file:x.db` wrote `x.db` while every check looked at
    /// `file:x.db`. A `--db` path is the file it names.
    @Test(arguments: [":memory:", "file:fleet.db?mode=memory", "file:fleet.db"])
    func databasePathIsTheFileItNames(name: String) throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        _ = try Self.write("vin,make\n1FTFW1E57KFA14352,Ford\n", "fleet.csv", in: dir)
        let r = try runVinyard(["import", "fleet.csv", "--db", name, "--quiet"], cwd: dir)
        #expect(r.status == 0, "\(r.stderr)")
        #expect(FileManager.default.fileExists(atPath: dir.appendingPathComponent(name).path))
        #expect(!FileManager.default.fileExists(atPath: dir.appendingPathComponent("fleet.db").path))
        let export = try runVinyard(["export", "--db", name, "--columns", "vin"], cwd: dir)
        #expect(export.stdout == "vin\n1FTFW1E57KFA14352\n", "\(export.stderr)")
    }
}

extension Review12Tests {
    /// `export --format json|jsonl` of `import_runs`, `rejects` and `duplicates` wrote their JSON
    /// columns (`inputs`, `options`, `findings`, `raw`) as strings holding JSON, to be parsed a
    /// second time; they are the JSON values now (CSV keeps the text).
    @Test func bookkeepingJSONColumnsAreJSONValuesInJSONExports() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let input = try Self.write(
            "vin,make,color\n1FTFW1E57KFA14352,Ford,Red\n1FTFW1E57KFA14352,Ford,Blue\nBADVIN,Ford,Red\n", "fleet.csv", in: dir)
        let db = dir.appendingPathComponent("fleet.db").path
        #expect(try runVinyard(["import", input, "--db", db, "--quiet"]).status == 0)
        func exported(_ table: String) throws -> [String: Any] {
            let r = try runVinyard(["export", "--db", db, "--table", table, "--format", "json"])
            #expect(r.status == 0, "\(r.stderr)")
            let rows = try JSONSerialization.jsonObject(with: r.stdoutData) as? [[String: Any]]
            return rows?.first ?? [:]
        }
        let run = try exported("import_runs")
        #expect((run["inputs"] as? [[String: Any]])?.first?["read"] as? Int == 3)
        #expect((run["options"] as? [String: String])?["on-duplicate"] == "last")
        #expect((run["findings"] as? [String: Int])?["key.conflict"] == 1)
        let reject = try exported("rejects")
        #expect((reject["raw"] as? [String: String])?["vin"] == "BADVIN")
        #expect(((reject["findings"] as? [[String: Any]])?.first?["code"] as? String)?.hasPrefix("vin.") == true)
        let duplicate = try exported("duplicates")
        #expect((duplicate["raw"] as? [String: Any])?["color"] as? String == "Red")
        #expect((duplicate["findings"] as? [[String: Any]])?.first?["code"] as? String == "key.conflict")
        // CSV keeps the JSON text in one cell.
        let csv = try runVinyard(["export", "--db", db, "--table", "rejects", "--columns", "raw"])
        #expect(csv.stdout.hasPrefix("raw\n\"{\"\"vin\"\":\"\"BADVIN\"\""), "\(csv.stdout)")
    }
}
