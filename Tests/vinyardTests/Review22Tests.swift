import Foundation
import Testing
import VinyardKit

/// Findings of review 22 (session 19), each run through the built binary.
@Suite struct Review22Tests {
    static let twoRows = "vin,make,model,year\n1HGCM82633A004352,Honda,Accord,2003\n1FTFW1E52KFA00021,Ford,F-150,2019\n"

    /// Zero bytes after the last gzip member (block padding, as tape and some archivers write
    /// it) were "trailing data", exit 65, where `gzip -d` reads the file; they now end the
    /// stream. Anything else after the padding is still a corrupt stream naming its byte.
    @Test func zeroPaddingAfterTheLastGzipMemberIsRead() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let gz = try gzipFile(Data(Self.twoRows.utf8))
        let padded = dir.appendingPathComponent("padded.csv.gz")
        try (gz + Data(count: 300 * 1024)).write(to: padded)
        let r = try runVinyard(["validate", padded.path, "--report", "json"])
        #expect(r.status == 0, "\(r.stderr)")
        let report = try ParsedReport(r)
        #expect(report.int("read") == 2 && report.int("inserted") == 2)

        let junk = dir.appendingPathComponent("junk.csv.gz")
        try (gz + Data(count: 100) + Data("x".utf8)).write(to: junk)
        let bad = try runVinyard(["validate", junk.path])
        #expect(bad.status == 65)
        #expect(
            bad.stderr.contains("junk.csv.gz: corrupt gzip stream at byte \(gz.count + 100) (trailing data after the zero padding)"),
            "\(bad.stderr)")
    }

    /// A file compressed twice was refused as "binary data (NUL byte) in the CSV header"; it is
    /// now named for what it is, with the way out.
    @Test func aFileCompressedTwiceIsNamedSo() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let twice = dir.appendingPathComponent("twice.csv.gz")
        try gzipFile(try gzipFile(Data(Self.twoRows.utf8))).write(to: twice)
        let r = try runVinyard(["validate", twice.path])
        #expect(r.status == 65)
        #expect(r.stderr.contains("twice.csv.gz: the file is gzip-compressed twice"), "\(r.stderr)")
    }

    /// A date column saved from a spreadsheet without its date format holds day numbers
    /// (`44927`). They stay `field.date` rejects (a number is not taken for a date), but the
    /// message says what the number is and the date it stands for.
    @Test func aSpreadsheetDayNumberIsRejectedWithTheDateItStandsFor() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let input = dir.appendingPathComponent("xl.csv")
        try Data(
            "vin,make,model,year,first_registration\n1HGCM82633A004352,Honda,Accord,2003,44927\n1FTFW1E52KFA00021,Ford,F-150,2019,36526\n1FTFW1E54KFA00022,Ford,F-150,2019,2019-03-01\n"
                .utf8
        ).write(to: input)
        let rejects = dir.appendingPathComponent("rejects.jsonl")
        let r = try runVinyard(["validate", input.path, "--rejects", rejects.path, "--report", "json"])
        #expect(r.status == 1, "\(r.stderr)")
        #expect(try ParsedReport(r).findings["field.date"] == 2)
        let text = try String(contentsOf: rejects, encoding: .utf8)
        #expect(text.contains("spreadsheet day number (2023-01-01 in Excel)"), "\(text)")
        #expect(text.contains("spreadsheet day number (2000-01-01 in Excel)"), "\(text)")
    }

    /// The tool's own hp→kW conversion makes numbers such as 111.855 (150 hp), which a CSV
    /// `export` or `convert` wrote as they are, and which read back as ambiguous (a dot grouping
    /// thousands, or three decimals?): every such row was rejected on re-import, and a fresh
    /// database lost those vehicles. CSV outputs now write a fourth decimal (`111.8550`). A
    /// whole number past 2^64 (a price of 1e20) is written in full digits, which were refused as
    /// "more digits than a number field keeps" although the double holds them exactly.
    @Test func csvExportsOfThreeDecimalAndHugeNumbersLoadBack() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let input = dir.appendingPathComponent("hp.csv")
        try Data("vin,make,Power (hp),price\n1FTFW1E57KFA14352,Ford,150,1e20\n1HGCV1F52MA000123,Honda,190,12.5\n".utf8)
            .write(to: input)
        let db = dir.appendingPathComponent("hp.db").path
        #expect(try runVinyard(["import", input.path, "--db", db, "-q"]).status == 0)
        let exported = dir.appendingPathComponent("out.csv")
        let converted = dir.appendingPathComponent("conv.csv")
        #expect(try runVinyard(["export", "--db", db, "-o", exported.path]).status == 0)
        #expect(try runVinyard(["convert", input.path, "-o", converted.path, "-q"]).status == 0)
        for file in [exported, converted] {
            let text = try String(contentsOf: file, encoding: .utf8)
            #expect(text.contains(",111.8550,") && text.contains(",141.6830,"), "\(text)")
            #expect(text.contains(",100000000000000000000,"), "\(text)")
        }
        let again = try runVinyard(["import", exported.path, "--db", db, "--report", "json"])
        let report = try ParsedReport(again)
        #expect(report.int("unchanged") == 2 && report.int("rejected") == 0, "\(again.stdout)")
        let fresh = dir.appendingPathComponent("fresh.db").path
        let loaded = try ParsedReport(try runVinyard(["import", converted.path, "--db", fresh, "--report", "json"]))
        #expect(loaded.int("inserted") == 2 && loaded.int("rejected") == 0)
        let store = try Connection(path: fresh, mode: .readOnly)
        #expect(try store.scalarInt("SELECT count(*) FROM vehicles WHERE power_kw=111.855 AND price=1e20") == 1)
    }

    /// A record rejected again at another line (a row added above it) was stored twice: an
    /// earlier run's reject of the same record of the same input is replaced whatever its line.
    /// Other records' rejects stay: a file of the same name from another directory, a fixed record
    /// (replaced when a fixed rejects file is imported), and each run's from standard input.
    @Test func aRecordRejectedAgainAtAnotherLineIsStoredOnce() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let input = dir.appendingPathComponent("r.csv")
        let db = dir.appendingPathComponent("r.db").path
        for text in ["vin,make\n1FTFW1E57KFA14352,Ford\nBADVIN,Ford\n", "vin,make\nBADVIN,Ford\n"] {
            try Data(text.utf8).write(to: input)
            _ = try runVinyard(["import", input.path, "--db", db, "-q"])
        }
        let store = try Connection(path: db, mode: .readOnly)
        #expect(try store.scalarInt("SELECT count(*) FROM rejects WHERE input='\(input.path)'") == 1)
        #expect(try store.scalarInt("SELECT line FROM rejects WHERE input='\(input.path)'") == 2)
        try Data("vin,make\nOTHERBAD,Ford\n".utf8).write(to: input)
        _ = try runVinyard(["import", input.path, "--db", db, "-q"])
        #expect(try store.scalarInt("SELECT count(*) FROM rejects WHERE input='\(input.path)'") == 2, "another record's stays")

        for text in ["vin,make\nBADVIN1,Ford\n", "vin,make\nBADVIN2,Ford\n"] {
            _ = try runVinyard(["import", "-", "--db", db, "-q", "--input-format", "csv"], stdin: Data(text.utf8))
        }
        #expect(try store.scalarInt("SELECT count(*) FROM rejects WHERE input='-'") == 2)
    }

    /// A unit written beside the odometer (`Unit`, `Odometer Unit`, `distanceUnit`) was not
    /// applied: 45,000 miles were stored as 45,000 km, and `Unit`'s `mi` as the record's unit
    /// number (`source_id`). The unit now applies to a bare number beside it; a `Unit` value that
    /// is no unit is still the unit number; a number with its own unit keeps it; a unit that does
    /// not convert (`hours`) rejects the value instead of loading it as km.
    @Test func aUnitColumnBesideTheOdometerIsApplied() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let csv = dir.appendingPathComponent("u.csv")
        try Data(
            """
            VIN,Make,Odometer,Unit
            WBAY5XR10GY000002,BMW,45000,mi
            WAURFVK62NU000003,Audi,45000,Miles
            1FTFW1E57KFA14352,Ford,45000,T-104
            1HGCV1F52MA000123,Honda,72000 km,mi

            """.utf8
        ).write(to: csv)
        let out = dir.appendingPathComponent("u.jsonl")
        let r = try runVinyard(["convert", csv.path, "-o", out.path, "-q"])
        #expect(r.status == 0, "\(r.stderr)")
        let rows = try String(contentsOf: out, encoding: .utf8).split(separator: "\n").map {
            try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
        }
        #expect(rows.map { $0["odometer_km"] as? Int } == [72420, 72420, 45000, 72000])
        #expect(rows.map { $0["source_id"] as? String } == [nil, nil, "T-104", nil])

        let json = dir.appendingPathComponent("u.json")
        try Data(
            """
            [{"vin":"WBAY5XR10GY000002","make":"BMW","odometer":45000,"odometerUnit":"mi"},
             {"vin":"WAURFVK62NU000003","make":"Audi","mileage":45000,"distance_unit":"km"},
             {"vin":"1FTFW1E57KFA14352","make":"Ford","odometer":1200,"Odometer Unit":"hours"}]
            """.utf8
        ).write(to: json)
        let rejects = dir.appendingPathComponent("rejects.jsonl")
        let v = try runVinyard(["convert", json.path, "-o", out.path, "--rejects", rejects.path, "-q"])
        #expect(v.status == 0, "\(v.stderr)")
        let loaded = try String(contentsOf: out, encoding: .utf8)
        #expect(loaded.contains("\"odometer_km\":72420") && loaded.contains("\"odometer_km\":45000"), "\(loaded)")
        let rejected = try String(contentsOf: rejects, encoding: .utf8)
        #expect(rejected.contains("1FTFW1E57KFA14352") && rejected.contains("odometer_km"), "\(rejected)")
    }

    /// A `Location` holding `lat, lon` was loaded as the address, without a word, and GeoJSON
    /// left the vehicle out: it is the position now (checked as any position is: `95.5, 13.4` is
    /// `coord.swapped`), and a real address stays the address.
    @Test func aPositionWrittenWhereTheAddressGoesIsThePosition() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let csv = dir.appendingPathComponent("l.csv")
        try Data(
            """
            VIN,Make,Location
            WBAY5XR10GY000002,BMW,"52.520008, 13.404954"
            WAURFVK62NU000003,Audi,"Hauptstr. 1, 10115 Berlin"
            1FTFW1E57KFA14352,Ford,"(52.520008; 13.404954)"
            1HGCV1F52MA000123,Honda,"95.5, 13.4"

            """.utf8
        ).write(to: csv)
        let db = dir.appendingPathComponent("l.db").path
        let r = try runVinyard(["import", csv.path, "--db", db, "--report", "json"])
        let report = try ParsedReport(r)
        #expect(report.int("inserted") == 3 && report.int("rejected") == 1, "\(r.stdout)")
        #expect(report.findings["coord.swapped"] == 1, "\(report.findings)")
        let store = try Connection(path: db, mode: .readOnly)
        #expect(try store.scalarInt("SELECT count(*) FROM vehicles WHERE latitude=52.520008 AND longitude=13.404954 AND address IS NULL") == 2)
        #expect(try store.scalarInt("SELECT count(*) FROM vehicles WHERE address='Hauptstr. 1, 10115 Berlin' AND latitude IS NULL") == 1)
    }

    /// Date-times as spreadsheets write them (`15/03/2019 10:00`, `15.03.2019 10:00`,
    /// `3/15/2019 10:00:00 AM`) were `field.date` rejects, and the hint to pass `--date-format`
    /// did not help; they are read, and `--date-format` decides an ambiguous date part. An offset
    /// past +14:00 is no offset.
    @Test func spreadsheetDateTimesAreRead() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let csv = dir.appendingPathComponent("dt.csv")
        try Data(
            """
            VIN,Make,Last Sync,First Registration
            WBAY5XR10GY000002,BMW,15/03/2019 10:00,15.03.2019 10:00
            WAURFVK62NU000003,Audi,15.03.2019 10:00:05,2019-03-15
            1FTFW1E57KFA14352,Ford,3/15/2019 10:00:00 PM,3/15/2019 10:00:00 AM
            1HGCV1F52MA000123,Honda,03/04/2019 12:30 am,2019-03-04
            1FTFW1E52KFA00021,Ford,2021-03-04T10:00:00+15:00,2019-03-04

            """.utf8
        ).write(to: csv)
        let out = dir.appendingPathComponent("out.jsonl")
        let rejects = dir.appendingPathComponent("rejects.jsonl")
        let r = try runVinyard(["convert", csv.path, "-o", out.path, "--rejects", rejects.path, "-q"])
        #expect(r.status == 0, "\(r.stderr)")
        let loaded = try String(contentsOf: out, encoding: .utf8)
        #expect(loaded.contains("\"last_sync\":\"2019-03-15T10:00\""), "\(loaded)")
        #expect(loaded.contains("\"last_sync\":\"2019-03-15T10:00:05\""), "\(loaded)")
        #expect(loaded.contains("\"last_sync\":\"2019-03-15T22:00:00\""), "\(loaded)")
        #expect(loaded.contains("\"first_registration\":\"2019-03-15\""), "\(loaded)")
        let rejected = try String(contentsOf: rejects, encoding: .utf8)
        #expect(rejected.contains("is ambiguous: 2019-04-03 or 2019-03-04?"), "\(rejected)")
        #expect(rejected.contains("last_sync '2021-03-04T10:00:00+15:00' is not a valid date"), "\(rejected)")

        let decided = try runVinyard(["convert", csv.path, "-o", out.path, "--date-format", "MM/dd/yyyy", "-q"])
        #expect(decided.status == 0, "\(decided.stderr)")
        #expect(try String(contentsOf: out, encoding: .utf8).contains("\"last_sync\":\"2019-03-04T00:30\""))
    }

    /// Smaller shapes of real exports:
    /// - a line of delimiters alone above the header (`;;;`, a sheet starting on row 2) failed
    ///   the source detection (exit 64); it is blank, as among the rows;
    /// - a JSON:API resource's `type` (`"vehicle"`) was read as the vehicle type, rejecting every
    ///   record (one that is a vehicle type, `truck`, still is);
    /// - a spreadsheet's text prefix (`'WBAY5XR10GY000002`, `'2016`) rejected the VIN and numbers;
    /// - a file without a header, read with `--source`, lost its first vehicle into the header.
    @Test func smallerShapesOfRealExports() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        func validate(_ name: String, _ text: String, _ extra: [String] = []) throws -> RunResult {
            let file = dir.appendingPathComponent(name)
            try Data(text.utf8).write(to: file)
            return try runVinyard(["validate", file.path, "--report", "json"] + extra)
        }
        let sheet = try validate("b2.csv", ";;;\r\n;VIN;Make;Model\r\n;WBAY5XR10GY000002;BMW;X3\r\n")
        #expect(sheet.status == 0, "\(sheet.stderr)")
        #expect(try ParsedReport(sheet).int("inserted") == 1)

        let api = try validate(
            "ja.json", #"{"data":[{"type":"vehicle","id":"1","attributes":{"vin":"WBAY5XR10GY000002","make":"BMW"}}]}"#)
        #expect(api.status == 0, "\(api.stdout) \(api.stderr)")
        #expect(try ParsedReport(api).int("inserted") == 1)
        let typed = try validate(
            "jt.json", #"[{"id":"7","vin":"WBAY5XR10GY000002","type":"truck","attributes":{"color":"red"}}]"#)
        #expect(typed.stderr.contains("resource.type") == false, "\(typed.stderr)")
        #expect(try ParsedReport(typed).int("inserted") == 1)

        let guarded = try validate("a.csv", "VIN,Make,Model Year,Odometer\n'WBAY5XR10GY000002,BMW,'2016,'45000\n")
        #expect(guarded.status == 0, "\(guarded.stdout)")
        #expect(try ParsedReport(guarded).int("inserted") == 1)

        let headerless = try validate(
            "n.csv", "WBAY5XR10GY000002,BMW,X3\nWAURFVK62NU000003,Audi,e-tron\n", ["--source", "fleet"])
        #expect(headerless.status == 65)
        #expect(headerless.stderr.contains("the first line is a record, not a header ('WBAY5XR10GY000002' is a VIN)"), "\(headerless.stderr)")
    }

    /// `stats --format json` wrote a missing make as the text `(none)`, which a make could be
    /// called; it is `null` now (the text output still shows `(none)`).
    @Test func statsJSONWritesAMissingMakeAsNull() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let input = dir.appendingPathComponent("m.csv")
        try Data("vin,make\n1HGCM82633A004352,Honda\n1FTFW1E52KFA00021,\n".utf8).write(to: input)
        let db = dir.appendingPathComponent("m.db").path
        #expect(try runVinyard(["import", input.path, "--db", db, "-q"]).status == 0)
        let r = try runVinyard(["stats", "--db", db, "--format", "json"])
        let object = try #require(try JSONSerialization.jsonObject(with: r.stdoutData) as? [String: Any], "\(r.stderr)")
        let tables = try #require(object["tables"] as? [[String: Any]])
        let makes = try #require(tables.first { $0["name"] as? String == "vehicles" }?["by_make"] as? [[String: Any]])
        #expect(makes.contains { $0["value"] is NSNull && $0["count"] as? Int == 1 }, "\(makes)")
        #expect(makes.contains { $0["value"] as? String == "Honda" })
        #expect(try runVinyard(["stats", "--db", db]).stdout.contains("(none)"))
    }

    /// The second audit of this session's reading features:
    /// - UTF-16 with `--encoding windows-1252` became mojibake (the transcoder hands on UTF-8);
    /// - UTF-16 without a byte order mark starting with Cyrillic was refused as binary data;
    /// - a unit column was not applied to `1e5` or `45 000` with a no-break space, and digits in
    ///   it (`123`) were joined onto the reading (45,123 km);
    /// - `UOM` with `hours` loaded the number as km, and `Einheit` (also a department) holding
    ///   other text was dropped without the "not loaded" warning;
    /// - an address of two numbers out of range (`200.5, 300.5`) was rejected as a position, and a
    ///   position in a second address column (`Location` beside `Address`) was lost;
    /// - seconds `60` and offsets past ±14:00 (`+14:30`) were stored, which SQLite's date
    ///   functions cannot read; `--date-format 'dd/MM/yyyy HH:mm'` made every value fail;
    /// - a `"",""` line above the header failed detection; a headerless file whose VIN is
    ///   written `'1FTF…` was exit 64.
    @Test func secondAuditOfTheReadingFeatures() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        func convert(_ name: String, _ data: Data, _ extra: [String] = []) throws -> (rows: String, rejects: String, result: RunResult) {
            let file = dir.appendingPathComponent(name)
            try data.write(to: file)
            let out = dir.appendingPathComponent(name + ".out.jsonl"), rejects = dir.appendingPathComponent(name + ".rejects.jsonl")
            let r = try runVinyard(["convert", file.path, "-o", out.path, "--rejects", rejects.path, "-q"] + extra)
            return (
                (try? String(contentsOf: out, encoding: .utf8)) ?? "", (try? String(contentsOf: rejects, encoding: .utf8)) ?? "", r
            )
        }
        let utf16 = Data([0xFF, 0xFE]) + "vin,notes\nWBAY5XR10GY000002,Müller\n".data(using: .utf16LittleEndian)!
        #expect(try convert("w.csv", utf16, ["--encoding", "windows-1252"]).rows.contains("\"notes\":\"Müller\""))
        let cyrillic = "Отчёт\nvin,make\nWBAY5XR10GY000002,BMW\n".data(using: .utf16LittleEndian)!
        let title = try convert("t.csv", cyrillic)
        #expect(title.result.status == 0 && title.rows.contains("WBAY5XR10GY000002"), "\(title.result.stderr)")

        let units = try convert(
            "m.csv", Data("vin,odometer,Odometer Unit\nWBAY5XR10GY000002,1e5,mi\n1FTFW1E57KFA14352,45\u{A0}000,mi\n1HGCM82633A004352,45,123\n".utf8))
        #expect(units.rows.contains("\"odometer_km\":160934") && units.rows.contains("\"odometer_km\":72420"), "\(units.rows)")
        #expect(units.rejects.contains("odometer_km '45' has '123' beside it as its unit, which is no unit"), "\(units.rejects)")
        let uom = try convert("uom.csv", Data("vin,odometer,UOM\nWBAY5XR10GY000002,45000,hours\n1FTFW1E57KFA14352,45000,mi\n".utf8))
        #expect(uom.rows.contains("\"odometer_km\":72420") && uom.rejects.contains("'45000 hours'"), "\(uom.rejects)")
        let department = try convert("e.csv", Data("vin,Kilometerstand,Einheit\nWBAY5XR10GY000002,45000,Vertrieb\n".utf8))
        #expect(department.rows.contains("\"odometer_km\":45000"))
        #expect(department.result.stderr.contains("column 'Einheit' (column 3) matches no field"), "\(department.result.stderr)")

        let far = try convert("a2.csv", Data("vin,Address\nWBAY5XR10GY000002,\"200.5, 300.5\"\n".utf8))
        #expect(far.rows.contains("\"address\":\"200.5, 300.5\""), "\(far.rejects)")
        let both = try convert("a3.csv", Data("vin,Address,Location\nWBAY5XR10GY000002,Hauptstr. 1,\"52.52, 13.40\"\n".utf8))
        #expect(both.rows.contains("\"latitude\":52.52,\"longitude\":13.4,\"address\":\"Hauptstr. 1\""), "\(both.rows)")

        let times = try convert(
            "s.csv",
            Data(
                "vin,last_sync\nWBAY5XR10GY000002,2019-03-15 23:59:60\n1FTFW1E57KFA14352,2019-03-15T10:00+14:30\n1HGCM82633A004352,2019-03-15T10:00+14:00\n1FTFW1E52KFA00021,03/04/2019 10:00\n"
                    .utf8), ["--date-format", "dd/MM/yyyy HH:mm"])
        #expect(times.rows.contains("\"last_sync\":\"2019-03-15T10:00+14:00\"") && times.rows.contains("\"last_sync\":\"2019-04-03T10:00\""))
        #expect(times.rejects.contains("23:59:60") && times.rejects.contains("+14:30"), "\(times.rejects)")

        let quoted = try convert("q.csv", Data("\"\",\"\",\"\"\nvin,make,model\nWBAY5XR10GY000002,BMW,X3\n".utf8))
        #expect(quoted.result.status == 0 && quoted.rows.contains("WBAY5XR10GY000002"), "\(quoted.result.stderr)")
        let headerless = try convert("h.csv", Data("'1FTFW1E57KFA14352,Ford,F\n".utf8), ["--source", "fleet"])
        #expect(headerless.result.status == 65, "\(headerless.result.stderr)")
    }

    /// From the contract sweep: `000` and `XXXX` were `vin.length`, not `vin.placeholder`
    /// ("all one character"); a repeated `--columns` kept only the last list; a pretty-printed
    /// JSON array named `.jsonl` became one `row.malformed` reject per line.
    @Test func contractSweepFindings() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let decoded = try runVinyard(["decode", "000", "XXXX", "1HGCM826", "--format", "json"])
        let list = try #require(try JSONSerialization.jsonObject(with: decoded.stdoutData) as? [[String: Any]])
        let codes = list.map { ($0["findings"] as? [[String: Any]] ?? []).compactMap { $0["code"] as? String } }
        #expect(codes[0].contains("vin.placeholder") && codes[1].contains("vin.placeholder"), "\(codes)")
        #expect(codes[2] == ["vin.length"], "\(codes)")

        let db = dir.appendingPathComponent("c.db").path
        #expect(try runVinyard(["import", sample("fleet.csv"), "--db", db, "-q"]).status == 0)
        let columns = try runVinyard(["export", "--db", db, "--columns", "vin", "--columns", "make,model", "--limit", "1"])
        #expect(columns.stdout.hasPrefix("vin,make,model\n"), "\(columns.stdout) \(columns.stderr)")

        let pretty = dir.appendingPathComponent("rv.jsonl")
        try FileManager.default.copyItem(atPath: sample("random-vehicle.json"), toPath: pretty.path)
        let r = try runVinyard(["validate", pretty.path])
        #expect(r.status == 65, "\(r.stdout)")
        #expect(r.stderr.contains("rv.jsonl: this is one JSON document (it starts with '['), not JSON Lines"), "\(r.stderr)")
        let forced = try runVinyard(["validate", pretty.path, "--input-format", "json", "--report", "json"])
        #expect(try ParsedReport(forced).int("read") == 12, "\(forced.stderr)")
    }

    /// `validate` named the key field for a `key.conflict` and not what differed; `import` names
    /// the field. It now names the fields that differ (the first as the finding's field).
    @Test func validateNamesTheFieldsOfAKeyConflict() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let input = dir.appendingPathComponent("one.csv")
        try Data("vin,make,color,odometer\n1HGCM82633A004352,Honda,Red,100\n1HGCM82633A004352,Honda,Blue,100\n".utf8).write(to: input)
        let text = try runVinyard(["validate", input.path, "--findings", "-", "-q"]).stdout
        #expect(text.contains("key.conflict,color,1HGCM82633A004352"), "\(text)")
        #expect(text.contains("with different values of color;"), "\(text)")
    }

    /// A short ragged row (a cell left out) was written to the rejects file under the header's
    /// first names, so its odometer stood under `Colour`; read again unfixed, it loaded shifted.
    /// It is written as its text (`_text`), its columns empty, and rejected again until fixed.
    @Test func aShortRaggedRejectIsNotLoadedShiftedWhenReadAgain() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let input = dir.appendingPathComponent("shift.csv")
        try Data("VIN,Make,Model,Colour,Odometer\nWBAY5XR10GY000002,BMW,X3,45000\n1FTFW1E57KFA14352,Ford,F-150,Blue,12000\n".utf8)
            .write(to: input)
        let db = dir.appendingPathComponent("sh.db").path
        for name in ["rejects.csv", "rejects.jsonl"] {
            let rejects = dir.appendingPathComponent(name)
            #expect(try runVinyard(["import", input.path, "--db", db, "--rejects", rejects.path, "-q"]).status == 0)
            let text = try String(contentsOf: rejects, encoding: .utf8)
            #expect(text.contains("WBAY5XR10GY000002,BMW,X3,45000"), "\(text)")
            let again = try ParsedReport(try runVinyard(["import", rejects.path, "--db", db, "--report", "json"]))
            #expect(again.int("inserted") == 0 && again.int("rejected") == 1, "\(name)")
        }
        let store = try Connection(path: db, mode: .readOnly)
        #expect(try store.scalarInt("SELECT count(*) FROM vehicles WHERE vin='WBAY5XR10GY000002'") == 0)
    }

    /// `=` with a month or a year on a date field found only values stored at that precision
    /// (`=2019-03`: not `2019-03-15`; `=2019`: nothing), while `>=` and `<=` read the period:
    /// it is the period now, and `!=` the rest (missing values included).
    @Test func equalsAPeriodOnADateField() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let input = dir.appendingPathComponent("d.csv")
        try Data(
            "vin,make,first_registration\n1HGCM82633A004352,Honda,2019-03-15\n1FTFW1E52KFA00021,Ford,2019-03\n1FTFW1E54KFA00022,Ford,2019-04-01\n1FTFW1E56KFA00023,Ford,\n"
                .utf8
        ).write(to: input)
        let db = dir.appendingPathComponent("d.db").path
        #expect(try runVinyard(["import", input.path, "--db", db, "-q"]).status == 0)
        func vins(_ condition: String) throws -> [String] {
            let r = try runVinyard(["export", "--db", db, "--where", condition, "--columns", "vin", "--sort", "vin"])
            #expect(r.status == 0, "\(condition): \(r.stderr)")
            return r.stdout.split(separator: "\n").dropFirst().map(String.init)
        }
        #expect(try vins("first_registration=2019-03") == ["1FTFW1E52KFA00021", "1HGCM82633A004352"])
        #expect(try vins("first_registration=03/2019") == ["1FTFW1E52KFA00021", "1HGCM82633A004352"])
        #expect(try vins("first_registration=2019").count == 3)
        #expect(try vins("first_registration!=2019-03") == ["1FTFW1E54KFA00022", "1FTFW1E56KFA00023"])
        #expect(try vins("first_registration=2019-03-15") == ["1HGCM82633A004352"])
    }

    /// From the end-to-end audit: `VIN UNKNOWN`, `TBA` were `vin.length` ("missing characters");
    /// a Japanese or Korean VIN's repaired illegal character was suggested even when the repair
    /// failed the check digit their makers compute for export (8 of 8 in the audit).
    @Test func placeholderWordsAndJapaneseRepairs() throws {
        let r = try runVinyard([
            "decode", "VIN UNKNOWN", "TBA", "JH4KA7561PCO08269", "JH4KA7561PCO08268", "WVWZZZ1JZ3W38675O", "--format", "json",
        ])
        let list = try #require(try JSONSerialization.jsonObject(with: r.stdoutData) as? [[String: Any]])
        let codes = list.map { ($0["findings"] as? [[String: Any]] ?? []).compactMap { $0["code"] as? String } }
        #expect(codes[0] == ["vin.placeholder"] && codes[1] == ["vin.placeholder"], "\(codes)")
        #expect(list.map { $0["suggestion"] as? String } == [nil, nil, "JH4KA7561PC008269", nil, "WVWZZZ1JZ3W386750"])
    }

    /// The README's workflow, fix the rejects file and import it, left the earlier rejects
    /// behind: the database listed the fixed, loaded vehicles as rejects, and those still broken
    /// twice. A rejects file's record replaces the reject its `_input`/`_line` name.
    @Test func importingAFixedRejectsFileReplacesTheEarlierRejects() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let bad = dir.appendingPathComponent("bad.csv")
        try Data("VIN,Make\n1FTFW1E57KFA1435,Ford\n1HGCM82633A00435,Honda\n".utf8).write(to: bad)
        for name in ["rej.csv", "rej.jsonl"] {
            let db = dir.appendingPathComponent(name + ".db").path
            let rejects = dir.appendingPathComponent(name)
            _ = try runVinyard(["import", bad.path, "--db", db, "--rejects", rejects.path, "-q"])
            let fixed = try String(contentsOf: rejects, encoding: .utf8).replacingOccurrences(of: "1FTFW1E57KFA1435", with: "1FTFW1E57KFA14352")
            try Data(fixed.utf8).write(to: rejects)
            let r = try ParsedReport(try runVinyard(["import", rejects.path, "--db", db, "--report", "json"]))
            #expect(r.int("rejected") == 1, "\(name)")
            let store = try Connection(path: db, mode: .readOnly)
            #expect(try store.scalarInt("SELECT count(*) FROM rejects") == 1, "\(name)")
            #expect(try store.scalarInt("SELECT count(*) FROM rejects WHERE input='\(rejects.path)'") == 1, "\(name)")
            #expect(try store.scalarInt("SELECT count(*) FROM vehicles WHERE vin='1FTFW1E57KFA14352'") == 1)
        }
    }

    /// From the code review: a UTF-16 file whose long record nearly filled the read window was cut
    /// short without an error (a read of fewer than 8 bytes answered 0, the end); a missing-value
    /// marker (`-`, `N/A`) in a unit column rejected the reading; a `Units` column of quantities
    /// rejected every row; `--date-format 'dd MM yyyy HH:mm'` was cut to `dd`.
    @Test func codeReviewFindings() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        // (The reviewer's file: with these lengths the window's last read asked for fewer than 8 bytes.)
        var text = "vin,make,notes\r\n1HGCM82633A004352,Honda," + String(repeating: "y", count: 65_493) + "\r\n"
        text += "1FTFW1E57KFA14352,Ford,\"" + String(repeating: "x", count: 400_000) + "\"\r\nJM1GJ1W65E1143959,Mazda,after\r\n"
        let utf16 = dir.appendingPathComponent("long16.csv")
        try (Data([0xFF, 0xFE]) + text.data(using: .utf16LittleEndian)!).write(to: utf16)
        let long = try ParsedReport(try runVinyard(["validate", utf16.path, "--report", "json"]))
        #expect(long.int("read") == 3 && long.int("inserted") == 3)

        let units = dir.appendingPathComponent("units.csv")
        try Data("vin,odometer,Odometer Unit,units\n1HGCM82633A004352,30000,-,1\n1FTFW1E52KFA00021,30000,N/A,2\n".utf8).write(to: units)
        let r = try runVinyard(["validate", units.path, "--report", "json"])
        #expect(try ParsedReport(r).int("inserted") == 2, "\(r.stdout)")
        #expect(r.stderr.contains("'units'"), "the Units column is named as not loaded: \(r.stderr)")

        let dates = dir.appendingPathComponent("d.csv")
        try Data("vin,last_sync\n1HGCM82633A004352,03 04 2019 10:00\n".utf8).write(to: dates)
        let d = try runVinyard(["validate", dates.path, "--date-format", "dd MM yyyy HH:mm", "--report", "json"])
        #expect(d.status == 0, "\(d.stdout) \(d.stderr)")
    }
}
