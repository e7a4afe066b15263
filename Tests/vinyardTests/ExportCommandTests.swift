import Foundation
import Testing
import VinyardKit

/// End-to-end tests of `vinyard export` and `vinyard emissions` through the built binary.
@Suite struct ExportCommandTests {
    private static let schema = Schema(
        name: "vehicles",
        fields: [
            Field(name: "vin", type: .string), Field(name: "make", type: .string), Field(name: "model", type: .string),
            Field(name: "model_year", type: .integer, aliases: ["year"]),
            Field(name: "body_class", type: .string, aliases: ["car_type"]),
            Field(name: "odometer_km", type: .number, aliases: ["odometer", "kilometrage"]),
            Field(name: "status", type: .string), Field(name: "latitude", type: .number, aliases: ["lat"]),
            Field(name: "longitude", type: .number, aliases: ["long", "lon", "lng"]),
            Field(name: "notes", type: .string),
        ],
        primaryKey: ["vin"])

    /// (key, vin, make, model, year, body, km, status, lat, lon, notes)
    private static let rows: [(String, String?, String, String, Int64, String, Double?, String, Double?, Double?, String?)] = [
        ("1HGCV1F52MA000123", "1HGCV1F52MA000123", "Honda", "Accord", 2021, "sedan", 5000, "active", 52.3547498, 4.8339215, "=1+1"),
        ("1FTFW1E57KFA14352", "1FTFW1E57KFA14352", "Ford", "F-150", 2019, "pickup", 5001, "maintenance", 40.4380638, -3.7495758, nil),
        ("WBA8E9G50GNT12345", "WBA8E9G50GNT12345", "BMW", "3 Series", 2016, "sedan", 0, "active", nil, nil, "50%_off"),
        ("WBAKS410X00C12345", "WBAKS410X00C12345", "BMW", "X5", 2014, "suv", nil, "retired", nil, nil, "5000 off"),
        ("autoscout:42", nil, "Volkswagen", "Golf", 2018, "hatchback", 12000.5, "active", 19.0823998, 72.8111468, "@home"),
    ]

    private func makeDatabase() throws -> (dir: URL, db: String) {
        let dir = try makeTemporaryDirectory()
        let db = dir.appendingPathComponent("fleet.db").path
        let store = try VinyardStore(path: db)
        let session = try store.beginImport()
        for (i, r) in Self.rows.enumerated() {
            let provenance = Provenance(input: "fleet.csv", line: i + 2)
            let values: [FieldValue?] = [
                r.1.map(FieldValue.text), .text(r.2), .text(r.3), .integer(r.4), .text(r.5), r.6.map(FieldValue.real), .text(r.7),
                r.8.map(FieldValue.real), r.9.map(FieldValue.real), r.10.map(FieldValue.text),
            ]
            let record = CanonicalRecord(
                values: values, key: r.0, provenance: provenance, findings: [],
                raw: RawRecord(fields: [RawField("vin", r.1.map(RawValue.string) ?? .null)], provenance: provenance))
            try session.write(record, schema: Self.schema, source: r.1 == nil ? "autoscout" : "fleet")
        }
        _ = try session.finish()
        return (dir, db)
    }

    private func vehicleCount(_ db: String) throws -> Int64? {
        let statement = try Connection(path: db, mode: .readOnly).prepare("SELECT count(*) FROM vehicles")
        return try statement.step() ? statement.int64(0) : nil
    }

    @Test func csvToStdoutWithFiltersSortAndColumns() throws {
        let (_, db) = try makeDatabase()
        let r = try runVinyard([
            "export", "--db", db, "--where", "car_type=sedan", "--where", "year >= 2016", "--sort", "odometer:desc",
            "--columns", "vin,make,odometer,notes",
        ])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout == "vin,make,odometer_km,notes\n1HGCV1F52MA000123,Honda,5000,'=1+1\nWBA8E9G50GNT12345,BMW,0,50%_off\n")
        let raw = try runVinyard(["export", "--db", db, "--where", "make=Honda", "--columns", "notes", "--raw-cells"])
        #expect(raw.stdout == "notes\n=1+1\n")
    }

    @Test func operators() throws {
        let (_, db) = try makeDatabase()
        func keys(_ conditions: String...) throws -> [String] {
            var args = ["export", "--db", db, "--columns", "key"]
            for c in conditions { args += ["--where", c] }
            let r = try runVinyard(args)
            #expect(r.status == 0, "\(r.stderr)")
            return Array(r.stdout.split(separator: "\n").dropFirst().map(String.init))
        }
        #expect(try keys("status in active,maintenance") == ["1FTFW1E57KFA14352", "1HGCV1F52MA000123", "WBA8E9G50GNT12345", "autoscout:42"])
        #expect(try keys("notes~%_") == ["WBA8E9G50GNT12345"])
        #expect(try keys("notes~%") == ["WBA8E9G50GNT12345"])
        #expect(try keys("make!=BMW", "odometer<5001") == ["1HGCV1F52MA000123"])
        #expect(try keys("odometer>4999.5") == ["1FTFW1E57KFA14352", "1HGCV1F52MA000123", "autoscout:42"])
        #expect(try keys("make=BMW' OR 1=1 --").isEmpty)
        #expect(try keys("make=BMW'; DROP TABLE vehicles; --").isEmpty)
        #expect(try keys("vin=").elementsEqual(["autoscout:42"]))
    }

    @Test(arguments: [
        ["--sort", "vin; DROP TABLE vehicles"],
        ["--columns", "vin,(select 1)"],
        ["--where", "vin; DROP TABLE vehicles = 1"],
        ["--where", "colour=red"],
        ["--where", "year>=twenty"],
        ["--where", "make"],
        ["--table", "vehicles; DROP TABLE vehicles"],
        ["--format", "xml"],
        ["--format", "geojson", "--table", "import_runs"],
        ["--sort", "year", "--sort", "model_year:desc"],
    ])
    func usageErrorsExit64(_ extra: [String]) throws {
        let (dir, db) = try makeDatabase()
        let out = dir.appendingPathComponent("out.csv").path
        let r = try runVinyard(["export", "--db", db, "-o", out] + extra)
        #expect(r.status == 64, "\(r.stderr)")
        #expect(r.stderr.hasPrefix("error: "))
        #expect(!FileManager.default.fileExists(atPath: out))
        #expect(try vehicleCount(db) == 5)
    }

    @Test func unknownFieldListsValidFields() throws {
        let (_, db) = try makeDatabase()
        let r = try runVinyard(["export", "--db", db, "--sort", "colour"])
        #expect(r.status == 64)
        #expect(r.stderr.contains("unknown field 'colour'"))
        #expect(r.stderr.contains("valid fields: _key, vin, make, model"), "\(r.stderr)")
        #expect(r.stderr.contains("car_type for body_class"), "\(r.stderr)")
        #expect(r.stderr.utf8.count < 1000, "one line a user can read: \(r.stderr)")
    }

    @Test func formatsFromExtensionAndGzip() throws {
        let (dir, db) = try makeDatabase()
        let json = dir.appendingPathComponent("v.json").path
        #expect(try runVinyard(["export", "--db", db, "-o", json, "--limit", "2"]).status == 0)
        let array = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: json))) as? [[String: Any]])
        #expect(array.count == 2)
        #expect((array[0]["model_year"] as? NSNumber)?.intValue == 2019)

        let gz = dir.appendingPathComponent("v.jsonl.gz").path
        #expect(try runVinyard(["export", "--db", db, "-o", gz, "--columns", "key,make"]).status == 0)
        let gunzip = Process()
        gunzip.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        gunzip.arguments = ["gzip", "-dc", gz]
        let pipe = Pipe()
        gunzip.standardOutput = pipe
        try gunzip.run()
        let text = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        gunzip.waitUntilExit()
        #expect(gunzip.terminationStatus == 0)
        #expect(text.hasPrefix("{\"_key\":\"1FTFW1E57KFA14352\",\"make\":\"Ford\"}\n"))
        #expect(text.split(separator: "\n").count == 5)
    }

    @Test func geoJSONReportsSkippedRows() throws {
        let (dir, db) = try makeDatabase()
        let out = dir.appendingPathComponent("v.geojson").path
        let r = try runVinyard(["export", "--db", db, "-o", out, "--columns", "vin"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stderr == "geojson: skipped 2 rows without both latitude and longitude\n")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: out))) as? [String: Any])
        let features = try #require(object["features"] as? [[String: Any]])
        #expect(features.count == 3)
        #expect((features[0]["geometry"] as? [String: Any])?["coordinates"] as? [Double] == [-3.7495758, 40.4380638])
    }

    @Test func emissionsTextReport() throws {
        let (_, db) = try makeDatabase()
        let r = try runVinyard(["emissions", "--db", db])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout.contains("1FTFW1E57KFA14352  Ford              F-150                     5001        5001.5\n"))
        #expect(r.stdout.contains("[autoscout:42]     Volkswagen        Golf                   12000.5      15500.75\n"))
        #expect(r.stdout.contains("Vehicles: 4\nFleet total: 25502.25 units\n"))
        #expect(r.stdout.hasSuffix("1 vehicle without a usable odometer_km reading (not estimated):\n  WBAKS410X00C12345\n"))
    }

    /// The text table stays aligned when a vehicle keyed without a VIN shows its key, longer than
    /// a VIN, in the vin column: on the bundled samples, `[autoscout:271004312]` pushed the
    /// other columns of its row four characters to the right.
    @Test func emissionsTextTableIsAlignedOnSamples() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let db = dir.appendingPathComponent("s.db").path
        let samples = ["fleet.csv", "autoscout.json", "fleet-record.json"].map { packageRoot.appendingPathComponent("Samples/" + $0).path }
        #expect(try runVinyard(["import"] + samples + ["--db", db]).status == 0)
        let r = try runVinyard(["emissions", "--db", db])
        #expect(r.status == 0, "\(r.stderr)")
        let lines = r.stdout.split(separator: "\n", omittingEmptySubsequences: false)
        let header = try #require(lines.firstIndex { $0.hasPrefix("vin ") })
        let table = lines[header...].prefix { !$0.isEmpty }
        #expect(table.contains { $0.hasPrefix("[autoscout:271004312]") })
        #expect(table.count > 10)
        #expect(Set(table.map(\.count)).count == 1, "\(table.joined(separator: "\n"))")
    }

    @Test func emissionsFilesReportMissingOnStderr() throws {
        let (dir, db) = try makeDatabase()
        let out = dir.appendingPathComponent("e.csv").path
        let r = try runVinyard([
            "emissions", "--db", db, "-o", out, "--tiers", "1000:0,*:2", "--where", "make in BMW,Ford", "--sort", "emissions:desc",
        ])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(try String(contentsOfFile: out, encoding: .utf8) == "vin,make,model,odometer_km,emissions\n1FTFW1E57KFA14352,Ford,F-150,5001,8002\nWBA8E9G50GNT12345,BMW,3 Series,0,0\n")
        #expect(r.stderr.contains("1 vehicle without a usable odometer_km reading"))
        #expect(r.stderr.contains("WBAKS410X00C12345"))

        let json = try runVinyard(["emissions", "--db", db, "--format", "jsonl", "--where", "vin=", "--columns", "key,emissions"])
        #expect(json.stdout == "{\"_key\":\"autoscout:42\",\"emissions\":15500.75}\n")
    }

    @Test(arguments: [["--tiers", "5000:1,1000:2,*:1"], ["--tiers", "5000:1"], ["--tiers", "x"], ["--where", "emissions>5"],
        ["--sort", "vin; DROP TABLE vehicles"], ["--format", "xml"]])
    func emissionsUsageErrors(_ extra: [String]) throws {
        let (_, db) = try makeDatabase()
        let r = try runVinyard(["emissions", "--db", db] + extra)
        #expect(r.status == 64, "\(r.stderr)")
        #expect(try vehicleCount(db) == 5)
    }

    @Test func helpHasExamples() throws {
        let export = try runVinyard(["export", "--help"])
        #expect(export.stdout.contains("vinyard export --db fleet.db --where make=BMW --where 'year>=2015'"))
        #expect(export.stdout.contains("--raw-cells"))
        // The discussion describes how text values match (normalized, any case), not the old
        // exact comparison, and how an `in` value keeps its commas.
        let prose = export.stdout.replacingOccurrences(of: "\n", with: " ")
        #expect(!prose.contains("others compare as text, exactly"))
        #expect(prose.contains("fuel_type=Petrol finds gasoline"))
        #expect(prose.contains("in 'Berlin, Mitte',Paris"))
        let emissions = try runVinyard(["emissions", "--help"])
        #expect(emissions.stdout.contains("--tiers 5000:1,*:1.5"))
        #expect(emissions.stdout.contains("vinyard emissions --db fleet.db --where make=Toyota"))
    }

    @Test func missingDatabase() throws {
        let dir = try makeTemporaryDirectory()
        let r = try runVinyard(["export", "--db", dir.appendingPathComponent("none.db").path])
        #expect(r.status == 66)
    }

    /// An empty file as --db (a database nothing was imported into) says so for every table; it
    /// offered "choose one of: rejects, findings, duplicates, import_runs", none of which exists.
    @Test func emptyDatabaseFile() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let db = dir.appendingPathComponent("empty.db").path
        #expect(FileManager.default.createFile(atPath: db, contents: Data()))
        for args in [["export"], ["export", "--table", "rejects"], ["emissions"]] {
            let r = try runVinyard(args + ["--db", db])
            // Nothing to export: a missing input (66), as a missing --db is (it was 64).
            #expect(r.status == 66, "\(args)")
            #expect(r.stderr.contains("empty.db is empty: nothing has been imported into it"), "\(args): \(r.stderr)")
            #expect(!r.stderr.contains("choose one of"), "\(args): \(r.stderr)")
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: db)).isEmpty)
    }

    /// `=`, `!=` and `in` on text fields match as input is stored: the value is normalized like an
    /// imported one (fuel synonyms, make spellings, VIN folding, enum case) and compared without
    /// regard to case; the expected rows come from an unfiltered export of the same database.
    @Test func textValuesMatchAsNormalized() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let db = dir.appendingPathComponent("fleet.db").path
        let load = try runVinyard(["import", sample("fleet.csv"), sample("fleet.jsonl"), "--db", db])
        #expect(load.status == 0, "\(load.stderr)")
        let all = try runVinyard(["export", "--db", db, "--columns", "key,vin,make,fuel_type,status"])
        let rows = all.stdout.split(separator: "\n").dropFirst().map { $0.split(separator: ",", omittingEmptySubsequences: false).map(String.init) }
        func keys(where pick: ([String]) -> Bool) -> [String] { rows.filter(pick).map { $0[0] } }
        func exported(_ conditions: String..., command: String = "export") throws -> [String] {
            var args = [command, "--db", db, "--format", "csv", "--sort", "key"] + (command == "export" ? ["--columns", "key"] : [])
            for c in conditions { args += ["--where", c] }
            let r = try runVinyard(args)
            #expect(r.status == 0, "\(r.stderr)")
            return r.stdout.split(separator: "\n").dropFirst().map { String($0.split(separator: ",")[0]) }
        }
        let gasoline = keys { $0[3] == "gasoline" }
        #expect(!gasoline.isEmpty)
        #expect(try exported("fuel_type=Petrol") == gasoline)
        #expect(try exported("fuel=BENZIN") == gasoline)
        #expect(try exported("fuel_type!=petrol") == keys { $0[3] != "gasoline" })
        let bmw = keys { $0[2] == "BMW" }
        #expect(!bmw.isEmpty)
        #expect(try exported("make=bmw") == bmw)
        #expect(try exported("make in bmw,vw") == keys { $0[2] == "BMW" || $0[2] == "Volkswagen" })
        #expect(try exported("status in ACTIVE,Maintenance") == keys { $0[4] == "active" || $0[4] == "maintenance" })
        let vin = try #require(rows.first { !$0[1].isEmpty })
        #expect(try exported("vin=\(vin[1].lowercased())") == [vin[0]])
        // emissions filters the same way (its first column is the VIN).
        #expect(try exported("make=bmw", command: "emissions") == rows.filter { $0[2] == "BMW" }.map { $0[1] }.sorted())
    }

}

/// Schema array fields (`options`, `specs`, `images`, `vin_model_years`) are stored as JSON text;
/// JSON outputs write them as arrays (they were strings holding JSON), CSV keeps the JSON text.
@Suite struct ArrayFieldOutputTests {
    private func objects(_ data: Data, lines: Bool) throws -> [[String: Any]] {
        if lines {
            return try String(decoding: data, as: UTF8.self).split(separator: "\n").map {
                try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
            }
        }
        return try #require(try JSONSerialization.jsonObject(with: data) as? [[String: Any]])
    }

    private func checkJeep(_ rows: [[String: Any]]) throws {
        let jeep = try #require(rows.first { $0["vin"] as? String == "1C4PJMAK2CW184491" })
        #expect(jeep["options"] as? [String] == ["Sunroof", "Tow Package"])
        #expect(jeep["specs"] as? [String] == ["Roof rack"])
        #expect(jeep["vin_model_years"] as? [Int] == [1982, 2012])
    }

    @Test func exportAndConvertWriteArrays() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let db = dir.appendingPathComponent("fleet.db").path
        let imported = try runVinyard(["import", sample("random-vehicle.json"), "--db", db, "--quiet"])
        #expect(imported.status == 0, "\(imported.stderr)")

        for format in ["json", "jsonl"] {
            let r = try runVinyard(["export", "--db", db, "--format", format])
            #expect(r.status == 0, "\(r.stderr)")
            try checkJeep(try objects(r.stdoutData, lines: format == "jsonl"))
        }
        let geo = try runVinyard(["export", "--db", db, "--format", "geojson", "--where", "options~sunroof"])
        #expect(geo.status == 0, "\(geo.stderr)")
        let csv = try runVinyard(["export", "--db", db, "--columns", "vin,options", "--where", "vin=1C4PJMAK2CW184491"])
        #expect(csv.stdout == "vin,options\n1C4PJMAK2CW184491,\"[\"\"Sunroof\"\",\"\"Tow Package\"\"]\"\n")

        for name in ["out.json", "out.jsonl"] {
            let out = dir.appendingPathComponent(name).path
            let r = try runVinyard(["convert", sample("random-vehicle.json"), "-o", out])
            #expect(r.status == 0, "\(r.stderr)")
            try checkJeep(try objects(try Data(contentsOf: URL(fileURLWithPath: out)), lines: name.hasSuffix("l")))
        }
    }
}

/// `--where` on list and date fields, found by an export audit: a list compared as JSON text
/// (`vin_model_years>=2017` matched `[1982,2012]`, `=2017` matched nothing), a date-time compared
/// as text whatever its offset, and a date bound that is no date matching all rows or none.
@Suite struct ExportListAndDateConditionTests {
    private func makeDatabase() throws -> (dir: URL, db: String) {
        let dir = try makeTemporaryDirectory()
        let db = dir.appendingPathComponent("fleet.db").path
        let records = dir.appendingPathComponent("records.json")
        try Data("""
            [{"id": "a", "make": "Ford", "model": "Transit", "year": 2019, "type": "van", "licensePlate": "A-1",
              "fuelType": "diesel", "odometer": 1000, "status": "active", "lastSyncDate": "2024-06-30T08:15:00-07:00"},
             {"id": "b", "make": "Ford", "model": "Transit", "year": 2020, "type": "van", "licensePlate": "B-2",
              "fuelType": "diesel", "odometer": 2000, "status": "active", "lastSyncDate": "2024-06-30T11:00:00Z"},
             {"id": "c", "make": "Ford", "model": "Transit", "year": 2021, "type": "van", "licensePlate": "C-3",
              "fuelType": "diesel", "odometer": 3000, "status": "active", "lastSyncDate": "2024-06-30T13:00:00+02:00"}]
            """.utf8).write(to: records)
        let r = try runVinyard(["import", sample("fleet.csv"), records.path, "--db", db])
        try #require(r.status == 0, "\(r.stderr)")
        return (dir, db)
    }

    private func keys(_ db: String, _ conditions: String..., sort: [String] = []) throws -> (status: Int32, keys: [String], stderr: String) {
        var args = ["export", "--db", db, "--columns", "key"]
        for c in conditions { args += ["--where", c] }
        for s in sort { args += ["--sort", s] }
        let r = try runVinyard(args)
        return (r.status, Array(r.stdout.split(separator: "\n").dropFirst().map(String.init)), r.stderr)
    }

    @Test func listFieldsMatchElements() throws {
        let (dir, db) = try makeDatabase()
        defer { try? FileManager.default.removeItem(at: dir) }
        // 1FTFW1E57KFA14352 decodes to [1989, 2019]; 1C4PJMAK2CW184491 to [1982, 2012].
        let equal = try keys(db, "vin_model_years=2019")
        #expect(equal.status == 0, "\(equal.stderr)")
        #expect(equal.keys.contains("1FTFW1E57KFA14352") && !equal.keys.contains("1C4PJMAK2CW184491"), "\(equal.keys)")
        let within = try keys(db, "vin_model_years in 1982,1975")
        #expect(within.keys.contains("1C4PJMAK2CW184491") && !within.keys.contains("1FTFW1E57KFA14352"), "\(within.keys)")
        let not = try keys(db, "vin_model_years!=2019")
        #expect(!not.keys.contains("1FTFW1E57KFA14352") && not.keys.contains("1C4PJMAK2CW184491"), "\(not.keys)")
        let range = try keys(db, "vin_model_years>=2017")
        #expect(range.status == 64 && range.stderr.contains("is a list"), "\(range.stderr)")
    }

    @Test func dateBoundsMustBeDates() throws {
        let (dir, db) = try makeDatabase()
        defer { try? FileManager.default.removeItem(at: dir) }
        for bad in ["first_registration>=garbage", "first_registration>=13/2019", "last_sync<yesterday"] {
            let r = try keys(db, bad)
            #expect(r.status == 64 && r.stderr.contains(bad.hasPrefix("last_sync") ? "is a date-time field" : "is a date field"), "\(bad): \(r.stderr)")
        }
        let year = try keys(db, "first_registration>=2019")
        #expect(year.status == 0 && year.keys.contains("1FTFW1E57KFA14352"), "\(year.stderr)")
        #expect(!year.keys.contains("1C4PJMAK2CW184491"))
    }

    @Test func dateTimesCompareAsInstants() throws {
        let (dir, db) = try makeDatabase()
        defer { try? FileManager.default.removeItem(at: dir) }
        // a: 15:15Z, b: 11:00Z, c: 11:00Z+02:00 = 11:00Z.
        let before = try keys(db, "last_sync<2024-06-30T12:00:00Z")
        #expect(before.status == 0, "\(before.stderr)")
        #expect(before.keys == ["fleet-record:b", "fleet-record:c"], "\(before.keys)")
        let after = try keys(db, "last_sync>2024-06-30T12:00:00Z")
        #expect(after.keys == ["fleet-record:a"], "\(after.keys)")
        let sorted = try keys(db, "last_sync~2024", sort: ["last_sync:desc"])
        #expect(sorted.keys.first == "fleet-record:a", "\(sorted.keys)")
        // A year, month or day names a period: `<=` takes all of it, `>` none of it (julianday read
        // a bare year as a day number, 4700 BC, and a year-month as nothing).
        let all = ["fleet-record:a", "fleet-record:b", "fleet-record:c"]
        for (condition, expected) in [
            ("last_sync>=2099", []), ("last_sync<2030", all), ("last_sync<2024-07", all), ("last_sync<=2024-06", all),
            ("last_sync<=2024-06-30", all), ("last_sync>2024-06-30", []), ("last_sync>=2024", all), ("last_sync>2024", []),
            ("last_sync<2024-06-30", []),
        ] {
            let r = try keys(db, condition)
            #expect(r.status == 0 && r.keys == expected, "\(condition): \(r.keys) \(r.stderr)")
        }
    }

    @Test func datePeriodsAreWhole() throws {
        let (dir, db) = try makeDatabase()
        defer { try? FileManager.default.removeItem(at: dir) }
        // 1FTFW1E57KFA14352 was first registered 2019-03.
        #expect(try keys(db, "first_registration<=2019").keys.contains("1FTFW1E57KFA14352"))
        #expect(try !keys(db, "first_registration>2019").keys.contains("1FTFW1E57KFA14352"))
        #expect(try keys(db, "first_registration<=2019-03").keys.contains("1FTFW1E57KFA14352"))
        #expect(try !keys(db, "first_registration<2019-03").keys.contains("1FTFW1E57KFA14352"))
        #expect(try keys(db, "first_registration>2019-02").keys.contains("1FTFW1E57KFA14352"))
    }
}

/// `--format tsv` writes tab-separated cells to standard output too (only `-o FILE.tsv` did).
@Suite struct TSVFormatTests {
    @Test func exportEmissionsAndConvertTakeTSV() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let db = dir.appendingPathComponent("fleet.db").path
        try #require(try runVinyard(["import", sample("fleet.csv"), "--db", db]).status == 0)
        let export = try runVinyard(["export", "--db", db, "--format", "tsv", "--columns", "vin,make", "--limit", "1"])
        #expect(export.status == 0 && export.stdout == "vin\tmake\n1C4PJMAK2CW184491\tJeep\n", "\(export.stdout)\(export.stderr)")
        let emissions = try runVinyard(["emissions", "--db", db, "--format", "TSV", "--limit", "1"])
        #expect(emissions.stdout.hasPrefix("vin\tmake\tmodel\todometer_km\temissions\n"), "\(emissions.stdout)\(emissions.stderr)")
        let convert = try runVinyard(["convert", sample("fleet.csv"), "-o", "-", "--format", "tsv"])
        #expect(convert.status == 0 && convert.stdout.hasPrefix("vin\tmake\tmodel\t"), "\(convert.stderr)")
        #expect(try runVinyard(["export", "--db", db, "--format", "psv"]).status == 64)
    }
}
