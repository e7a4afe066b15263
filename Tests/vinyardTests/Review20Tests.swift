import Foundation
import Testing
import VinyardKit

/// Findings of review 20 (session 17: audits of the command line and of the source mappings),
/// each run through the built binary.
@Suite struct Review20Tests {
    /// The JSON error object of a failed run, from `text` (which may hold other lines before it).
    static func errorObject(_ text: String) -> [String: Any]? {
        guard let start = text.firstIndex(of: "{"),
            let object = try? JSONSerialization.jsonObject(with: Data(text[start...].utf8)) as? [String: Any]
        else { return nil }
        return object["error"] as? [String: Any]
    }

    /// With `--rejects -` the JSON report goes to standard error, and so does a failed run's JSON
    /// error (it printed none: only the `error:` line).
    @Test func aFailedRunWithRejectsOnStandardOutputStillPrintsItsJSONError() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let broken = dir.appendingPathComponent("broken.json")
        try Data(#"[{"vin":"1FTFW1E57KFA14352""#.utf8).write(to: broken)
        let runs: [([String], Int32, String)] = [
            (["validate", sample("fleet.csv"), broken.path], 65, "malformed_input"),
            (["import", dir.appendingPathComponent("nope.csv").path, "--db", dir.appendingPathComponent("x.db").path], 66, "missing_input"),
            (["validate", sample("fleet.csv"), "--source", "bogus"], 64, "usage"),
        ]
        for (arguments, status, kind) in runs {
            let r = try runVinyard(arguments + ["--rejects", "-", "--report", "json"])
            #expect(r.status == status, "\(arguments): \(r.stderr)")
            let error = try #require(Self.errorObject(r.stderr), "\(arguments): \(r.stderr)")
            #expect(error["kind"] as? String == kind && error["exit_status"] as? Int == Int(status), "\(error)")
            #expect(!r.stdout.contains("\"error\""), "\(r.stdout)")
        }
    }

    /// An output or database that cannot be created is exit 74, DESIGN.md's I/O error (it was 73,
    /// which DESIGN.md does not list).
    @Test func anUncreatableOutputIsExit74() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let missing = dir.appendingPathComponent("no/such/dir").path
        let runs: [[String]] = [
            ["import", sample("fleet.csv"), "--db", missing + "/x.db", "--report", "json"],
            ["validate", sample("fleet.csv"), "--rejects", missing + "/r.csv", "--report", "json"],
        ]
        for arguments in runs {
            let r = try runVinyard(arguments)
            #expect(r.status == 74, "\(arguments): \(r.status) \(r.stderr)")
            let error = try #require(Self.errorObject(r.stdout), "\(r.stdout)")
            #expect(error["exit_status"] as? Int == 74 && error["kind"] as? String == "cant_create", "\(error)")
        }
        let help = try runVinyard(["--help"])
        #expect(help.stdout.contains("74 cannot") && !help.stdout.contains("73"), "\(help.stdout)")
    }

    /// An interrupted `validate` says so on standard error and, with `--report json`, prints the
    /// JSON error (`interrupted`, 130): it ended with nothing at all.
    @Test func anInterruptedValidateSaysSo() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let rejects = dir.appendingPathComponent("rejects.csv").path
        let process = Process()
        process.executableURL = vinyardBinary
        // Standard input held open: the run waits for it until the signal comes.
        process.arguments = ["validate", "-", "--source", "fleet", "--report", "json", "--rejects", rejects]
        let stdin = Pipe(), stdout = Pipe(), stderr = Pipe()
        process.standardInput = stdin
        process.standardOutput = stdout
        process.standardError = stderr
        try process.run()
        stdin.fileHandleForWriting.write(Data("vin,make\n1FTFW1E57KFA14352,Ford\n".utf8))
        Thread.sleep(forTimeInterval: 1.5)
        kill(process.processIdentifier, SIGINT)
        let out = String(decoding: stdout.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        let err = String(decoding: stderr.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        try? stdin.fileHandleForWriting.close()
        #expect(process.terminationStatus == 130, "\(err)")
        #expect(err.contains("validate interrupted by SIGINT"), "\(err)")
        let error = try #require(Self.errorObject(out), "\(out)")
        #expect(error["kind"] as? String == "interrupted" && error["exit_status"] as? Int == 130, "\(error)")
        #expect(!FileManager.default.fileExists(atPath: rejects))
    }

    /// An import whose report cannot be written after it committed says that it committed (a
    /// script seeing 74 took it for a failed import).
    @Test func aReportFailureAfterTheCommitSaysTheImportIsIn() throws {
        guard FileManager.default.isWritableFile(atPath: "/dev/full") else {
            print("skipped: no /dev/full here")
            return
        }
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let db = dir.appendingPathComponent("f.db").path
        let process = Process()
        process.executableURL = vinyardBinary
        process.arguments = ["import", sample("fleet.csv"), "--db", db]
        process.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: "/dev/full"))
        let stderr = Pipe()
        process.standardError = stderr
        try process.run()
        let err = String(decoding: stderr.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 74, "\(err)")
        #expect(err.contains("the import itself was committed: run 1 is in"), "\(err)")
        let store = try VinyardStore(path: db, readOnly: true)
        #expect(try store.connection.scalarInt("SELECT count(*) FROM vehicles") == 15)
    }

    /// `export` draws its progress line on a terminal when the rows go to a file, and not when
    /// they go to the terminal or with `--quiet`.
    @Test func exportShowsProgressOnATerminal() throws {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/script") else {
            print("skipped: no script(1) to give the run a terminal")
            return
        }
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let input = dir.appendingPathComponent("g.csv").path
        let db = dir.appendingPathComponent("g.db").path
        try #require(try runVinyard(["generate", "--rows", "40000", "-o", input]).status == 0)
        try #require(try runVinyard(["import", input, "--db", db, "-q"], timeout: 120).status == 0)
        func onTerminal(_ arguments: [String]) throws -> String {
            let command = ([vinyardBinary.path] + arguments).map { "'\($0)'" }.joined(separator: " ")
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/script")
            process.arguments = ["-qec", command, "/dev/null"]
            let out = Pipe()
            process.standardOutput = out
            process.standardInput = Pipe()
            try process.run()
            let text = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            process.waitUntilExit()
            return text
        }
        let toFile = try onTerminal(["export", "--db", db, "-o", dir.appendingPathComponent("e.csv").path])
        #expect(toFile.contains("export vehicles  16,384 records"), "\(toFile.prefix(300))")
        let quiet = try onTerminal(["export", "--db", db, "-q", "-o", dir.appendingPathComponent("q.csv").path])
        #expect(!quiet.contains("records"), "\(quiet.prefix(300))")
        let toTerminal = try onTerminal(["emissions", "--db", db, "--format", "csv", "--limit", "20000"])
        #expect(toTerminal.contains("vin,make,model") && !toTerminal.contains(" records "), "\(toTerminal.prefix(300))")
    }
}

extension Review20Tests {
    /// `vinyard` without a command is a usage error (64) with the help on standard error; it
    /// exited 0. `--help` exits 0 with the help on standard output.
    @Test func noCommandIsAUsageError() throws {
        let bare = try runVinyard([])
        #expect(bare.status == 64 && bare.stdout.isEmpty && bare.stderr.contains("USAGE: vinyard"), "\(bare.status) \(bare.stderr)")
        let help = try runVinyard(["--help"])
        #expect(help.status == 0 && help.stdout.contains("USAGE: vinyard"), "\(help.stderr)")
    }

    /// A rejects file whose `_extra` holds another source's fields, read again and rejected
    /// again, keeps those fields at the same level (each round wrapped them one level deeper).
    @Test func anEarlierExtraIsNotNested() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        var previous = [sample("fleet.csv"), sample("autoscout.json")]
        var texts: [String] = []
        for round in 1...3 {
            let rejects = dir.appendingPathComponent("r\(round).csv").path
            let r = try runVinyard(["validate"] + previous + ["--rejects", rejects, "-q"])
            #expect(r.status == 1, "\(r.stderr)")
            texts.append(try String(contentsOfFile: rejects, encoding: .utf8))
            previous = [rejects]
        }
        for text in texts {
            let skoda = try #require(text.split(separator: "\n").first { $0.contains("Skoda") }, "\(text)")
            #expect(skoda.contains(#"{""ID"":""271004460"""#), "\(skoda)")
            #expect(!skoda.contains("_extra"), "\(skoda)")
        }
    }
}

/// Findings of the session-17 audit of the source mappings.
@Suite struct Review20MappingTests {
    /// Date-times with a `+0200`, `+02` or `z` zone are stored as `+02:00` / `Z`, so that `--where`
    /// and `--sort` compare them as instants (SQLite's `julianday()` read them as NULL: they were in
    /// neither of two complementary filters and sorted last).
    @Test func dateTimeOffsetsAreStoredInOneForm() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let input = dir.appendingPathComponent("sync.json")
        try Data(
            """
            [{"id": "a", "vin": "1FTFW1E57KFA14352", "make": "Ford", "model": "F-150", "lastSyncDate": "2024-06-30T08:15:00+0200"},
             {"id": "b", "vin": "1HGCV1F52MA000123", "make": "Honda", "model": "Accord", "lastSyncDate": "2024-06-30T08:16:00+02"},
             {"id": "c", "vin": "2T1BURHE6KC123456", "make": "Toyota", "model": "Corolla", "lastSyncDate": "2024-06-30t07:00:00,5z"}]
            """.utf8
        ).write(to: input)
        let db = dir.appendingPathComponent("s.db").path
        let r = try runVinyard(["import", input.path, "--db", db, "--source", "fleet-record", "-q"])
        #expect(r.status == 0, "\(r.stderr)")
        let store = try VinyardStore(path: db, readOnly: true)
        var stored: [String] = []
        let statement = try store.connection.prepare("SELECT last_sync FROM vehicles ORDER BY vin")
        while try statement.step() { stored.append(statement.text(0) ?? "") }
        #expect(stored == ["2024-06-30T08:15:00+02:00", "2024-06-30T08:16:00+02:00", "2024-06-30T07:00:00.5Z"])
        let before = try runVinyard(["export", "--db", db, "--columns", "vin", "--where", "last_sync<2024-06-30T07:00:00Z"])
        #expect(before.stdout == "vin\n1FTFW1E57KFA14352\n1HGCV1F52MA000123\n", "\(before.stdout) \(before.stderr)")
        let sorted = try runVinyard(["export", "--db", db, "--columns", "vin", "--sort", "last_sync:desc"])
        #expect(sorted.stdout == "vin\n2T1BURHE6KC123456\n1HGCV1F52MA000123\n1FTFW1E57KFA14352\n", "\(sorted.stdout)")
    }

    /// A CSV cell holding a JSON array is stored as the same list from JSON input is, compact: the
    /// same list from a CSV file and a JSON one is `unchanged` on a re-run (it was `updated`, and a
    /// `key.conflict` under `first`).
    @Test func aListInACSVCellIsStoredAsFromJSON() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let csv = dir.appendingPathComponent("o.csv")
        try Data("VIN,Options\n1FTFW1E57KFA14352,\"[\"\"a\"\", \"\"b\"\",\n \"\"\\u00e9\"\"]\"\n".utf8).write(to: csv)
        let jsonl = dir.appendingPathComponent("o.jsonl")
        try Data(#"{"vin":"1FTFW1E57KFA14352","options":["a","b","é"]}"#.utf8 + [0x0A]).write(to: jsonl)
        let db = dir.appendingPathComponent("o.db").path
        #expect(try runVinyard(["import", csv.path, "--db", db, "-q"]).status == 0)
        let store = try VinyardStore(path: db, readOnly: true)
        #expect(try store.connection.scalarText("SELECT options FROM vehicles") == #"["a","b","é"]"#)
        let again = try runVinyard(["import", jsonl.path, "--db", db, "--report", "json"])
        #expect(again.status == 0 && again.stdout.contains(#""unchanged" : 1"#), "\(again.stdout) \(again.stderr)")
    }

    /// German body types written with `ss` for `ß` or with umlauts are normalized as their
    /// ASCII spellings are (only `Fließheck` was).
    @Test func germanBodyTypesAreNormalizedInEverySpelling() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let input = dir.appendingPathComponent("k.csv")
        try Data(
            """
            VIN,Karosserie
            1FTFW1E57KFA14352,Fliessheck
            1HGCV1F52MA000123,FLIESSHECK
            2T1BURHE6KC123456,Schrägheck
            JTDKN3DU2E1765432,Geländewagen

            """.utf8
        ).write(to: input)
        let db = dir.appendingPathComponent("k.db").path
        let r = try runVinyard(["import", input.path, "--db", db, "-q"])
        #expect(r.status == 0, "\(r.stderr)")
        let store = try VinyardStore(path: db, readOnly: true)
        var classes: [String] = []
        let statement = try store.connection.prepare("SELECT body_class FROM vehicles ORDER BY vin")
        while try statement.step() { classes.append(statement.text(0) ?? "") }
        #expect(classes == ["hatchback", "hatchback", "hatchback", "suv"], "\(classes)")
    }

    /// A record id written as a JSON number with a zero fraction or an exponent (`271004312.0`) is
    /// the same key as the whole number (it made a second vehicle).
    @Test func aWholeNumberIdIsOneKeyHoweverWritten() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let input = dir.appendingPathComponent("ids.json")
        try Data(
            """
            [{"ID": 271004312, "Make": "BMW", "Model": "X1"}, {"ID": 271004312.0, "Make": "BMW", "Model": "X1"},
             {"ID": 2.71004312e8, "Make": "BMW", "Model": "X1"}, {"ID": 271004312.5, "Make": "BMW", "Model": "X3"}]
            """.utf8
        ).write(to: input)
        let db = dir.appendingPathComponent("i.db").path
        let r = try runVinyard(["import", input.path, "--db", db, "--source", "autoscout", "--report", "json"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout.contains(#""inserted" : 2"#) && r.stdout.contains(#""duplicates" : 2"#), "\(r.stdout)")
        let store = try VinyardStore(path: db, readOnly: true)
        #expect(try store.connection.scalarInt("SELECT count(*) FROM vehicles WHERE source_id = '271004312'") == 1)
        #expect(try store.connection.scalarInt("SELECT count(*) FROM vehicles WHERE source_id = '271004312.5'") == 1)
    }
}

/// Findings of the session-17 audit of imports.
@Suite struct Review20ImportTests {
    /// A database created for an import gets its schema tables in the transaction that creates
    /// its bookkeeping tables: a first import killed at once left `locations` without `vehicles`
    /// (each table was committed on its own), and `export` refused the file.
    @Test func aNewDatabaseGetsAllItsTablesAtOnce() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let catalog = try SchemaCatalog.bundled()
        let schemas = Array(catalog.schemas.values).sorted { $0.name < $1.name }
        let path = dir.appendingPathComponent("n.db").path
        let store = try VinyardStore(path: path, creatingTables: schemas)
        #expect(store.wasCreated)
        let names = try store.connection.scalarText(
            "SELECT group_concat(name, ',') FROM (SELECT name FROM sqlite_schema WHERE type = 'table' AND name IN ('vehicles', 'locations', 'vinyard_meta') ORDER BY name)")
        #expect(names == "locations,vehicles,vinyard_meta")
    }
}

/// Findings of the session-17 audit of convert, stats and generate.
@Suite struct Review20ConvertGenerateTests {
    static let repeated = """
        vin,make,model,model_year,odometer_km,color
        1FTFW1E57KFA14352,Ford,F-150,2019,100,Red
        1HGCV1F52MA000123,Honda,Accord,2021,5,
        1FTFW1E57KFA14352,Ford,F-150,2019,200,
        1HGCV1F52MA000123,Honda,Accord,2021,5,
        1ftfw1e57kfa14352,Ford,F-150,2019,300,

        """

    /// `convert` to an output that is no regular file (`/dev/stdout` here; a pipe, a FIFO) when a
    /// key repeats writes once, the last record of each key: it wrote the stale first pass and then
    /// the second (two headers, two JSON arrays), and a FIFO blocked.
    @Test func convertToADeviceWritesOnce() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let input = dir.appendingPathComponent("d.csv")
        try Data(Self.repeated.utf8).write(to: input)
        let csv = try runVinyard(["convert", input.path, "-o", "/dev/stdout", "--format", "csv"])
        #expect(csv.status == 0, "\(csv.stderr)")
        let lines = csv.stdout.split(separator: "\n")
        #expect(lines.count == 3 && lines[0].hasPrefix("vin,make,model"), "\(csv.stdout)")
        #expect(lines.dropFirst().contains { $0.hasPrefix("1FTFW1E57KFA14352,") && $0.contains(",300,") }, "\(csv.stdout)")
        let json = try runVinyard(["convert", input.path, "-o", "/dev/stdout", "--format", "json"])
        let array = try #require(try JSONSerialization.jsonObject(with: json.stdoutData) as? [[String: Any]], "\(json.stdout)")
        #expect(array.count == 2)
    }

    /// Canonical `convert` output guards CSV formula cells as `export` does (it wrote them bare);
    /// `--raw-cells` writes them as they are, and `--source raw` changes no value.
    @Test func convertGuardsFormulaCells() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let input = dir.appendingPathComponent("f.csv")
        try Data("vin,make,notes\n1FTFW1E57KFA14352,Ford,\"=HYPERLINK(\"\"http://x\"\",\"\"y\"\")\"\n".utf8).write(to: input)
        func converted(_ extra: [String]) throws -> String {
            let out = dir.appendingPathComponent("o-\(extra.joined()).csv").path
            let r = try runVinyard(["convert", input.path, "-o", out, "-q"] + extra)
            #expect(r.status == 0, "\(r.stderr)")
            return try String(contentsOfFile: out, encoding: .utf8)
        }
        #expect(try converted([]).contains(#"'=HYPERLINK("#))
        let bare = ",\"=HYPERLINK("  // the cell as written, quoted for its quotes
        #expect(try converted(["--raw-cells"]).contains(bare))
        #expect(try converted(["--source", "raw"]).contains(bare))
        #expect(try !converted([]).contains(bare))
        // Imported again, the guard comes off.
        let db = dir.appendingPathComponent("g.db").path
        #expect(try runVinyard(["import", dir.appendingPathComponent("o-.csv").path, "--db", db, "-q"]).status == 0)
        let store = try VinyardStore(path: db, readOnly: true)
        #expect(try store.connection.scalarText("SELECT notes FROM vehicles") == #"=HYPERLINK("http://x","y")"#)
    }

    /// A file `convert` wrote from a source keyed by its own id (AutoScout, fleet records without
    /// a VIN) loads back as the original does: same keys, same `source` (its records were
    /// rejected for want of a VIN, or loaded under `fleet`).
    @Test func convertedFilesLoadBackAsTheirSource() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        for name in ["autoscout.json", "fleet-record.json", "random-vehicle.json"] {
            let converted = dir.appendingPathComponent("\(name).csv").path
            #expect(try runVinyard(["convert", sample(name), "-o", converted, "-q"]).status == 0)
            let direct = dir.appendingPathComponent("\(name)-direct.db").path
            let back = dir.appendingPathComponent("\(name)-back.db").path
            #expect(try runVinyard(["import", sample(name), "--db", direct, "-q"]).status == 0)
            let r = try runVinyard(["import", converted, "--db", back, "--report", "json"])
            #expect(r.status == 0 && r.stdout.contains(#""rejected" : 0"#), "\(name): \(r.stdout)")
            func rows(_ db: String) throws -> [String] {
                let store = try VinyardStore(path: db, readOnly: true)
                let statement = try store.connection.prepare(
                    "SELECT _key || '|' || ifnull(source, '') || '|' || ifnull(source_id, '') || '|' || ifnull(make, '') || '|' || ifnull(odometer_km, '') FROM vehicles ORDER BY _key")
                var out: [String] = []
                while try statement.step() { out.append(statement.text(0) ?? "") }
                return out
            }
            let original = try rows(direct)
            let loadedBack = try rows(back)
            #expect(!original.isEmpty && original == loadedBack, "\(name)")
        }
        // A fleet file whose `source` column says where a vehicle was listed, with a VIN and no
        // id: keyed by its VIN, not rejected for want of an AutoScout id.
        let listed = dir.appendingPathComponent("listed.csv")
        try Data("vin,make,source\n1FTFW1E57KFA14352,Ford,AutoScout\n".utf8).write(to: listed)
        let r = try runVinyard(["import", listed.path, "--db", dir.appendingPathComponent("l.db").path, "--report", "json"])
        #expect(r.status == 0 && r.stdout.contains(#""inserted" : 1"#), "\(r.stdout) \(r.stderr)")
    }

    /// Generated rows are consistent as a real fleet's: every VIN decodes to its row's make and
    /// model year, battery-electric models run on electricity, a model is not older than itself,
    /// odometers fit the car's age, no registration lies after mid-2026, plates follow the city.
    @Test func generatedRowsAreConsistent() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent("g.csv").path
        #expect(try runVinyard(["generate", "--rows", "4000", "--seed", "11", "-o", file]).status == 0)
        let rows = try String(contentsOfFile: file, encoding: .utf8).split(separator: "\n").dropFirst().map {
            $0.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
        }
        #expect(rows.count == 4000)
        var plates = Set<Int>()
        for row in rows {
            let analysis = VINEngine.analyze(row[0], currentYear: 2026)
            #expect(analysis.valid && analysis.modelYear == Int(row[3]), "\(row)")
            #expect(analysis.make.map(Schema.fold) == Schema.fold(row[1]), "\(row[0]) \(row[1]) decodes as \(analysis.make ?? "-")")
            if ["Model 3", "Model Y", "Leaf", "ID.3", "i4", "Zoe", "Bolt", "e-tron", "Model S"].contains(row[2]) {
                #expect(["electric", "EV", "Electric", "BEV"].contains(row[5]), "\(row)")
            } else {
                #expect(!["electric", "EV", "Electric", "BEV"].contains(row[5]), "\(row)")
            }
            if row[2] == "Model Y" || row[2] == "ID.3" { #expect(Int(row[3])! >= 2020, "\(row)") }
            let age = 2026 - Int(row[3])!
            #expect(Int(row[7])! <= 30_000 * age + 15_100, "\(row)")
            #expect(row[12] <= "2026-06", "\(row)")
            plates.insert(row[8].count)
        }
        #expect(plates.count >= 4, "plate lengths \(plates)")
    }

    /// `generate -o x.tsv` writes tabs (it wrote commas), and an output name that says no format
    /// is a usage error (`x.geojson` got CSV).
    @Test func generateFollowsTheOutputName() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let tsv = dir.appendingPathComponent("x.tsv").path
        #expect(try runVinyard(["generate", "--rows", "3", "-o", tsv]).status == 0)
        let text = try String(contentsOfFile: tsv, encoding: .utf8)
        #expect(text.hasPrefix("vin\tmake\tmodel\t") && !text.contains(","), "\(text)")
        let geo = try runVinyard(["generate", "--rows", "3", "-o", dir.appendingPathComponent("x.geojson").path])
        #expect(geo.status == 64 && geo.stderr.contains("generate cannot write .geojson"), "\(geo.stderr)")
        let part = dir.appendingPathComponent("x.csv.part").path
        #expect(try runVinyard(["generate", "--rows", "3", "-o", part]).status == 0)
        #expect(try String(contentsOfFile: part, encoding: .utf8).hasPrefix("vin,make,model,"))
    }
}
