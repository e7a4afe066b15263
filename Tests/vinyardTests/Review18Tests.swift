import Foundation
import Testing
import VinyardKit

/// Findings of review 18 (session 15), each run through the built binary.
@Suite struct Review18Tests {
    /// JSON's grammar lets `\ud800` through, but half a UTF-16 surrogate pair is no character: it
    /// is read as U+FFFD, and the record now says so with a `row.encoding` warning naming the key
    /// (it was replaced silently). A proper pair is a character and no warning.
    @Test func aLoneSurrogateEscapeIsAnEncodingWarning() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        for (name, text) in [
            ("in.json", #"[{"vin":"1FTFW1E57KFA14352","make":"Ford","notes":"a\ud800b"},"#
                + #"{"vin":"1HGCV1F52MA000123","make":"Honda","notes":"\ud83d\ude97 ok"}]"#),
            ("in.jsonl", #"{"vin":"1FTFW1E57KFA14352","make":"Ford","notes":"a\udc00b"}"# + "\n"
                + #"{"vin":"1HGCV1F52MA000123","make":"Honda","notes":"\ud83d\ude97 ok"}"# + "\n"),
        ] {
            let input = dir.appendingPathComponent(name)
            try Data(text.utf8).write(to: input)
            let db = dir.appendingPathComponent(name + ".db").path
            let r = try runVinyard(["import", input.path, "--db", db, "--report", "json"])
            #expect(r.status == 0, "\(name): \(r.stderr)")
            let report = try #require(try JSONSerialization.jsonObject(with: r.stdoutData) as? [String: Any])
            let findings = report["findings"] as? [String: Any] ?? [:]
            #expect(findings["row.encoding"] as? Int == 1, "\(name): \(report)")
            let store = try VinyardStore(path: db, readOnly: true)
            #expect(try store.connection.scalarText("SELECT notes FROM vehicles WHERE vin LIKE '1FT%'") == "a\u{FFFD}b")
            #expect(try store.connection.scalarText("SELECT notes FROM vehicles WHERE vin LIKE '1HG%'") == "\u{1F697} ok")
            let message = try store.connection.scalarText("SELECT message FROM findings WHERE code = 'row.encoding'") ?? ""
            #expect(message.contains("'notes'") && message.contains("surrogate"), "\(name): \(message)")
        }
    }
}

extension Review18Tests {
    /// A fleet-record file whose first record has no `licensePlate` (a van not yet registered)
    /// was read as `fleet`, where every record with `vin: null` is rejected: fleet-record is now
    /// recognized by `id`, two of its plain keys and one of its camelCase ones. A generic fleet
    /// file with an `id` column and no camelCase key stays `fleet`.
    @Test func aFleetRecordFileIsRecognizedWithoutALicensePlateFirst() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let records = dir.appendingPathComponent("records.json")
        try Data(
            """
            [{"id":"a1","make":"Ford","model":"Transit","year":2019,"type":"van","vin":null,"fuelType":"diesel","odometer":12000,"status":"active"},
             {"id":"a2","make":"Honda","model":"CB500","year":2020,"type":"motorcycle","licensePlate":"AB-12-CD","vin":null,"fuelType":"petrol","odometer":5000,"status":"maintenance"}]
            """.utf8
        ).write(to: records)
        let r = try runVinyard(["validate", records.path, "--report", "json"])
        #expect(r.status == 0, "\(r.stdout)\(r.stderr)")
        let report = try #require(try JSONSerialization.jsonObject(with: r.stdoutData) as? [String: Any])
        let inputs = try #require(report["inputs"] as? [[String: Any]])
        #expect(inputs.first?["source"] as? String == "fleet-record", "\(report)")
        #expect(report["inserted"] as? Int == 2, "\(report)")

        // Generic fleet files with an `id`: without a camelCase key, or with one but not three of
        // year/type/odometer/status (review: an `id` and `fuelType` took a fleet file over).
        for (n, text) in [
            #"[{"id":7,"vin":"1FTFW1E57KFA14352","make":"Ford","model":"F-150","year":2019,"status":"active","odometer":1200}]"#,
            #"[{"id":1,"vin":"1FTFW1E57KFA14352","make":"Ford","model":"F-150","year":2019,"fuelType":"gasoline"}]"#,
        ].enumerated() {
            let generic = dir.appendingPathComponent("generic\(n).json")
            try Data(text.utf8).write(to: generic)
            let g = try runVinyard(["validate", generic.path, "--report", "json"])
            #expect(g.status == 0, "\(g.stdout)\(g.stderr)")
            let greport = try #require(try JSONSerialization.jsonObject(with: g.stdoutData) as? [String: Any])
            #expect((greport["inputs"] as? [[String: Any]])?.first?["source"] as? String == "fleet", "\(greport)")
        }
    }
}

extension Review18Tests {
    /// A fleet-record record with neither a vin nor an id has one defect and one finding (the
    /// mapping's "source_id is required" came as well: two field.required for one record).
    @Test func aRecordWithNeitherVINNorIDHasOneFinding() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let input = dir.appendingPathComponent("records.json")
        try Data(
            #"[{"id":null,"make":"Ford","model":"Transit","year":2019,"type":"van","licensePlate":"X-1","vin":null,"fuelType":"diesel","odometer":1,"status":"active"}]"#.utf8
        ).write(to: input)
        let r = try runVinyard(["validate", input.path, "--source", "fleet-record", "--report", "json"])
        #expect(r.status == 1, "\(r.stdout)\(r.stderr)")
        let report = try #require(try JSONSerialization.jsonObject(with: r.stdoutData) as? [String: Any])
        #expect(report["rejected"] as? Int == 1, "\(report)")
        #expect((report["findings"] as? [String: Any])?["field.required"] as? Int == 1, "\(report)")
    }
}

extension Review18Tests {
    /// Headers and values of real exports that were not read (audit): a bare `Miles` column is the
    /// odometer in miles (it was not loaded: the odometer was lost), `PS` the power in metric
    /// horsepower; German and Dutch registration headers name their fields; AutoScout's
    /// `Elektro/Benzin` is a hybrid and `Sonstige` other (both were rejects).
    @Test func moreHeadersAndFuelLabelsOfRealExportsAreRead() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let input = dir.appendingPathComponent("in.csv")
        try Data(
            """
            VIN,Hersteller,Handelsbenaming,Miles,PS,Kraftstoffart,Aandrijving,Karosserieform,Datum eerste toelating
            1FTFW1E57KFA14352,Ford,F-150,100,150,Elektro/Benzin,Allrad,Limousine,2019-03-05
            1HGCV1F52MA000123,Honda,Accord,0,,Sonstige,,,2021-06

            """.utf8
        ).write(to: input)
        let db = dir.appendingPathComponent("t.db").path
        let r = try runVinyard(["import", input.path, "--db", db])
        #expect(r.status == 0, "\(r.stdout)\(r.stderr)")
        #expect(!r.stderr.contains("not loaded"), "\(r.stderr)")
        let store = try VinyardStore(path: db, readOnly: true)
        let row = try store.connection.scalarText(
            "SELECT make || '|' || model || '|' || odometer_km || '|' || power_kw || '|' || fuel_type || '|' || drive_type "
                + "|| '|' || body_class || '|' || first_registration FROM vehicles WHERE vin LIKE '1FT%'")
        #expect(row == "Ford|F-150|161|110.3248|hybrid|awd|sedan|2019-03-05", "\(row ?? "nil")")
        #expect(try store.connection.scalarText("SELECT fuel_type FROM vehicles WHERE vin LIKE '1HG%'") == "other")
    }

    /// Headers that look like a unit or a field but are not (review): `MI` beside a driver's names
    /// is a middle initial, not miles; `Antriebsart` in German exports is often the fuel. They
    /// stay not loaded, and the vehicle loads.
    @Test func headersThatOnlyLookLikeAFieldAreNotLoaded() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let input = dir.appendingPathComponent("in.csv")
        try Data(
            """
            VIN,Make,Model,Driver First Name,MI,Driver Last Name,Antriebsart
            1FTFW1E57KFA14352,Ford,F-150,John,Q,Smith,Diesel

            """.utf8
        ).write(to: input)
        let r = try runVinyard(["validate", input.path, "--report", "json"])
        #expect(r.status == 0, "\(r.stdout)\(r.stderr)")
        let report = try #require(try JSONSerialization.jsonObject(with: r.stdoutData) as? [String: Any])
        #expect(report["inserted"] as? Int == 1, "\(report)")
        let warnings = ((report["inputs"] as? [[String: Any]])?.first?["warnings"] as? [String])?.joined() ?? ""
        #expect(warnings.contains("'MI'") && warnings.contains("'Antriebsart'"), "\(report)")
    }
}

extension Review18Tests {
    /// Another application's WAL database whose last commits are still in its `-wal` was
    /// checkpointed (its file grew, the log went) by the open that then refused it as "left
    /// untouched"; a read command left a `-wal` and `-shm` beside one without pending commits.
    /// Both are refused now without a byte changed or a file added (audit).
    @Test func anotherApplicationsDatabaseIsLeftAsItWas() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let live = dir.appendingPathComponent("live")
        let copy = dir.appendingPathComponent("copy")
        try FileManager.default.createDirectory(at: live, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: copy, withIntermediateDirectories: true)
        let source = live.appendingPathComponent("app.db").path
        do {
            let c = try Connection(path: source, mode: .readWriteCreate)
            try c.execute("PRAGMA journal_mode=WAL; PRAGMA wal_autocheckpoint=0; CREATE TABLE orders(id INTEGER PRIMARY KEY, v TEXT)")
            try c.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            for _ in 0..<50 { try c.execute("INSERT INTO orders(v) VALUES('\(String(repeating: "x", count: 100))')") }
            // Copied while open: the copy's commits are only in its -wal, as after a crash.
            for suffix in ["", "-wal"] {
                try FileManager.default.copyItem(atPath: source + suffix, toPath: copy.appendingPathComponent("app.db" + suffix).path)
            }
        }
        let db = copy.appendingPathComponent("app.db").path
        func snapshot() throws -> [String: Data] {
            var out: [String: Data] = [:]
            for name in try FileManager.default.contentsOfDirectory(atPath: copy.path) {
                out[name] = try Data(contentsOf: copy.appendingPathComponent(name))
            }
            return out
        }
        let before = try snapshot()
        #expect(before.keys.sorted() == ["app.db", "app.db-wal"])
        let sample = sample("fleet.csv")
        for args in [["import", sample, "--db", db], ["stats", "--db", db], ["export", "--db", db]] {
            let r = try runVinyard(args)
            #expect(r.status == 65, "\(args[0]): \(r.stderr)")
            #expect(r.stderr.contains("not a Vinyard database") && r.stderr.contains("left untouched"), "\(r.stderr)")
            let after = try snapshot()
            #expect(after == before, "\(args[0]) changed the files: \(after.keys.sorted())")
        }
        // Tables, or an application id, in the log alone (the main file holds no table yet): the
        // normal open sees them and refuses; closing it checkpoints nothing and removes the
        // `-shm` it added (review: the log was checkpointed into the file).
        for (n, setup) in [
            "CREATE TABLE orders(id INTEGER PRIMARY KEY, v TEXT); INSERT INTO orders(v) VALUES('x')",
            "PRAGMA application_id=1234",
        ].enumerated() {
            let liveN = dir.appendingPathComponent("live\(n)"), copyN = dir.appendingPathComponent("copy\(n)")
            try FileManager.default.createDirectory(at: liveN, withIntermediateDirectories: true)
            try FileManager.default.createDirectory(at: copyN, withIntermediateDirectories: true)
            let path = liveN.appendingPathComponent("app.db").path
            let c = try Connection(path: path, mode: .readWriteCreate)
            try c.execute("PRAGMA journal_mode=WAL; PRAGMA wal_autocheckpoint=0")
            try c.execute(setup)
            for suffix in ["", "-wal"] {
                try FileManager.default.copyItem(atPath: path + suffix, toPath: copyN.appendingPathComponent("app.db" + suffix).path)
            }
            let copied = copyN.appendingPathComponent("app.db").path
            let bytes = try [copied, copied + "-wal"].map { try Data(contentsOf: URL(fileURLWithPath: $0)) }
            for args in [["import", sample, "--db", copied], ["stats", "--db", copied]] {
                let r = try runVinyard(args)
                #expect(r.status == 65, "\(n) \(args[0]): \(r.stderr)")
                #expect(r.stderr.contains("left untouched"), "\(r.stderr)")
                let after = try [copied, copied + "-wal"].map { try Data(contentsOf: URL(fileURLWithPath: $0)) }
                #expect(after == bytes, "\(n) \(args[0]) changed the files")
                #expect(try FileManager.default.contentsOfDirectory(atPath: copyN.path).sorted() == ["app.db", "app.db-wal"])
            }
        }

        // Without pending commits (the live one once closed): a read command adds no files.
        let clean = live.appendingPathComponent("app.db").path
        let files = try FileManager.default.contentsOfDirectory(atPath: live.path).sorted()
        let r = try runVinyard(["stats", "--db", clean])
        #expect(r.status == 65, "\(r.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: live.path).sorted() == files)
    }

    /// An output that cannot be created is named as given, not as its hidden staging file
    /// (`x.txt/.vinyard-123-out.csv: cannot create output`).
    @Test func anOutputThatCannotBeCreatedIsNamedAsGiven() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let db = dir.appendingPathComponent("t.db").path
        let loaded = try runVinyard(["import", sample("fleet.csv"), "--db", db, "-q"])
        #expect(loaded.status == 0, "\(loaded.stderr)")
        let file = dir.appendingPathComponent("x.txt")
        try Data("x".utf8).write(to: file)
        let output = file.appendingPathComponent("out.csv").path
        let r = try runVinyard(["export", "--db", db, "-o", output])
        #expect(r.status == 74, "\(r.stderr)")
        #expect(r.stderr.contains("\(output): cannot create output") && !r.stderr.contains(".vinyard-"), "\(r.stderr)")
        let c = try runVinyard(["convert", sample("fleet.csv"), "-o", output])
        #expect(c.status == 74, "\(c.stderr)")
        #expect(c.stderr.contains("\(output): cannot create output") && !c.stderr.contains(".vinyard-"), "\(c.stderr)")
    }
}

extension Review18Tests {
    /// An empty SQLite database that names its application (`application_id`, `user_version`)
    /// was taken over as a new Vinyard database and written; it is refused, untouched. An empty
    /// file is still a place for a new database.
    @Test func anEmptyDatabaseOfAnotherApplicationIsRefused() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let db = dir.appendingPathComponent("app.db").path
        do {
            let c = try Connection(path: db, mode: .readWriteCreate)
            try c.execute("PRAGMA application_id=1234; PRAGMA user_version=7")
        }
        let before = try Data(contentsOf: URL(fileURLWithPath: db))
        let r = try runVinyard(["import", sample("fleet.csv"), "--db", db])
        #expect(r.status == 65, "\(r.stderr)")
        #expect(r.stderr.contains("another application") && r.stderr.contains("left untouched"), "\(r.stderr)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: db)) == before)
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path) == ["app.db"])

        let empty = dir.appendingPathComponent("empty.db").path
        FileManager.default.createFile(atPath: empty, contents: Data())
        let e = try runVinyard(["import", sample("fleet.csv"), "--db", empty, "-q"])
        #expect(e.status == 0, "\(e.stderr)")
    }
}

extension Review18Tests {
    /// `--report json` on an import interrupted before its commit: standard output gets a JSON
    /// error object (`interrupted`, 130), as for the other failures; it got nothing. An
    /// interrupted first import also says that it removed the database it had created.
    @Test func anInterruptedImportEndsItsJSONReport() throws {
        let big = try GeneratedFiles.fleet(rows: 100_000, seed: 3)
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let db = dir.appendingPathComponent("new.db").path
        let process = Process()
        process.executableURL = vinyardBinary
        process.arguments = ["import", big, "--db", db, "--report", "json"]
        let stdout = Pipe(), stderr = Pipe()
        process.standardOutput = stdout
        process.standardError = stderr
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let pid = process.processIdentifier
        #expect(waitUntil(timeout: 60) { !process.isRunning || (readOffset(pid: pid, path: big) ?? 0) >= fileSize(big) / 5 })
        kill(pid, SIGINT)
        let out = stdout.fileHandleForReading.readDataToEndOfFile()
        let err = String(decoding: stderr.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 130, "\(err)")
        let object = try #require(try JSONSerialization.jsonObject(with: out) as? [String: Any], "\(String(decoding: out, as: UTF8.self))")
        let error = try #require(object["error"] as? [String: Any])
        #expect(error["kind"] as? String == "interrupted")
        #expect(error["exit_status"] as? Int == 130)
        #expect((error["message"] as? String)?.contains("was removed") == true, "\(error)")
        #expect(err.contains("which it had created, was removed"), "\(err)")
        #expect(!FileManager.default.fileExists(atPath: db))
    }
}
