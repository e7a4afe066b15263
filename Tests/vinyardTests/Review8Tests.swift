import Foundation
import Testing
import VinyardKit

/// Black-box findings of review 8, each run through the built binary.
@Suite struct Review8Tests {
    /// The JSON Lines rejects file, one object per line.
    static func rejectObjects(_ path: String) throws -> [[String: Any]] {
        try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n").map {
            try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
        }
    }

    /// A VIN cell written `-` or `...` (a placeholder spreadsheets use) normalizes to nothing:
    /// the record is rejected, and the reject and the report say why (it was rejected with no
    /// finding at all, in the rejects file, the report and the `rejects` table).
    @Test func vinThatNormalizesToNothingIsRejectedWithAReason() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let input = dir.appendingPathComponent("dash.csv")
        try Data("vin,make\n-,Ford\n...,Opel\n1FTFW1E57KFA14352,Ford\n".utf8).write(to: input)
        let rejects = dir.appendingPathComponent("rejects.jsonl").path
        let r = try runVinyard(["validate", input.path, "--rejects", rejects, "--report", "json", "--quiet"])
        #expect(r.status == 1, "\(r.stderr)")
        let report = try #require(try JSONSerialization.jsonObject(with: r.stdoutData) as? [String: Any])
        #expect(report["rejected"] as? Int == 2)
        #expect((report["findings"] as? [String: Int])?["field.required"] == 2, "\(report)")
        let objects = try Self.rejectObjects(rejects)
        #expect(objects.count == 2)
        for object in objects {
            let findings = try #require(object["_findings"] as? [[String: Any]])
            #expect(findings.first?["code"] as? String == "field.required", "\(object)")
            #expect(findings.first?["field"] as? String == "vin", "\(object)")
        }

        let db = dir.appendingPathComponent("fleet.db").path
        _ = try runVinyard(["import", input.path, "--db", db, "--quiet"])
        let e = try runVinyard(["export", "--db", db, "--table", "rejects", "--columns", "line,reason", "--format", "csv"])
        #expect(e.status == 0, "\(e.stderr)")
        let rows = e.stdout.split(separator: "\n").dropFirst()
        #expect(rows.count == 2)
        #expect(rows.allSatisfy { $0.contains("field.required") }, "\(e.stdout)")
    }

    /// `Odometer (mi.)` is a miles column as much as `Odometer (mi)`: its values are converted to
    /// km (they were loaded as kilometres, 1.6 times too low, with no warning).
    @Test func abbreviatedUnitWithADotConverts() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let input = dir.appendingPathComponent("miles.csv")
        try Data("VIN,Odometer (mi.),Power (kW.)\n1FTFW1E57KFA14352,1000,100\n".utf8).write(to: input)
        let r = try runVinyard(["convert", input.path, "-o", "-", "--format", "jsonl", "--quiet"])
        #expect(r.status == 0, "\(r.stderr)")
        let object = try #require(try JSONSerialization.jsonObject(with: r.stdoutData) as? [String: Any])
        #expect(object["odometer_km"] as? Int == 1609, "\(r.stdout)")
        #expect(object["power_kw"] as? Double == 100, "\(r.stdout)")
    }

    /// Header spellings of real fleet lists: `VIN No.` and `Vehicle VIN` (the file was refused as
    /// of no known source, exit 64), `No. of Doors` and `Fleet No.` (dropped as unmapped).
    @Test func moreFleetHeaderSpellingsAreMapped() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let input = dir.appendingPathComponent("fleet.csv")
        try Data("VIN No.,No. of Doors,Fleet No.\n1FTFW1E57KFA14352,4,F-12\n".utf8).write(to: input)
        let r = try runVinyard(["convert", input.path, "-o", "-", "--format", "jsonl", "--quiet"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(!r.stderr.contains("not loaded"), "\(r.stderr)")
        let object = try #require(try JSONSerialization.jsonObject(with: r.stdoutData) as? [String: Any])
        #expect(object["vin"] as? String == "1FTFW1E57KFA14352")
        #expect(object["doors"] as? Int == 4)
        #expect(object["source_id"] as? String == "F-12")

        let other = dir.appendingPathComponent("other.csv")
        try Data("Vehicle VIN,Make\n1FTFW1E57KFA14352,Ford\n".utf8).write(to: other)
        let v = try runVinyard(["validate", other.path, "--quiet"])
        #expect(v.status == 0, "\(v.stderr)")
        #expect(v.stdout.contains("fleet (csv), 1 read, 0 rejected"), "\(v.stdout)")
    }

    /// Harley-Davidson (1HD, 5HD), BMW Motorrad (WB1), KTM (VBK) and Isuzu trucks (JAL) were
    /// missing from the offline WMI table: every such VIN got `vin.wmi_unknown` and no
    /// manufacturer. W0V is stamped on Vauxhalls as well as Opels: declaring Vauxhall is no
    /// `vin.make_mismatch`.
    @Test func motorcycleAndTruckWMIsDecode() throws {
        let r = try runVinyard([
            "decode", "1HD1KEL12FB100001", "WB10A1103FZ100001", "VBKEXC400FM100001", "--format", "json",
        ])
        #expect(r.status == 0, "\(r.stderr)")
        let objects = try #require(try JSONSerialization.jsonObject(with: r.stdoutData) as? [[String: Any]])
        #expect(objects.count == 3)
        #expect(objects.map { $0["manufacturer"] as? String } == ["Harley-Davidson", "BMW", "KTM"], "\(r.stdout)")
        for object in objects {
            let codes = (object["findings"] as? [[String: Any]] ?? []).compactMap { $0["code"] as? String }
            #expect(!codes.contains("vin.wmi_unknown"), "\(object)")
        }

        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let input = dir.appendingPathComponent("uk.csv")
        try Data("vin,make\nW0VBD8EG8FG100001,Vauxhall\n1HD1KEL12FB100001,Harley-Davidson\n".utf8).write(to: input)
        let v = try runVinyard(["validate", input.path, "--report", "json", "--quiet"])
        #expect(v.status == 0, "\(v.stderr)")
        let report = try #require(try JSONSerialization.jsonObject(with: v.stdoutData) as? [String: Any])
        #expect((report["findings"] as? [String: Int]) == [:], "\(v.stdout)")
    }

    /// `--rejects rejects.json` wrote CSV text into the `.json` file (convert's help even promised
    /// JSON); it is now a JSON array of the objects JSON Lines would hold, `[]` when nothing is
    /// rejected.
    @Test func rejectsFileEndingInJSONIsAJSONArray() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let input = dir.appendingPathComponent("fleet.csv")
        try Data("vin,make\nBAD,Ford\n1FTFW1E57KFA14352,Ford\nALSOBAD,Opel\n".utf8).write(to: input)
        let rejects = dir.appendingPathComponent("rejects.json").path
        let r = try runVinyard(["validate", input.path, "--rejects", rejects, "--quiet"])
        #expect(r.status == 1, "\(r.stderr)")
        let text = try String(contentsOfFile: rejects, encoding: .utf8)
        let array = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [[String: Any]], "\(text)")
        #expect(array.map { $0["_line"] as? Int } == [2, 4])
        #expect(array.map { $0["vin"] as? String } == ["BAD", "ALSOBAD"])

        let clean = dir.appendingPathComponent("clean.csv")
        try Data("vin\n1FTFW1E57KFA14352\n".utf8).write(to: clean)
        let none = dir.appendingPathComponent("none.json").path
        let c = try runVinyard(["convert", clean.path, "-o", dir.appendingPathComponent("out.csv").path, "--rejects", none, "--quiet"])
        #expect(c.status == 0, "\(c.stderr)")
        let empty = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: none))) as? [Any]
        #expect(empty?.isEmpty == true)
    }

    /// A trailing comma in a JSON array (`[{…},{…},]`) was read as one more element: a phantom
    /// `row.malformed` reject with no text, and `read` one more than the file's records. It is a
    /// syntax error between the elements, which is fatal (exit 65) naming the line and column.
    @Test func trailingCommaInAJSONArrayIsNoPhantomRecord() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        for (name, text, at) in [
            ("trailing.json", "[\n{\"vin\":\"1FTFW1E57KFA14352\"},\n{\"vin\":\"1HGCV1F52MA000123\"},\n]\n", "trailing.json:4:1"),
            ("wrapped.json", "{\"vehicles\":[{\"vin\":\"1FTFW1E57KFA14352\"},,{\"vin\":\"1HGCV1F52MA000123\"}]}", "wrapped.json:1:42"),
        ] {
            let input = dir.appendingPathComponent(name)
            try Data(text.utf8).write(to: input)
            let r = try runVinyard(["validate", input.path, "--quiet"])
            #expect(r.status == 65, "\(name): \(r.stdout) \(r.stderr)")
            #expect(r.stderr.contains(at), "\(r.stderr)")
            #expect(r.stderr.contains("comma"), "\(r.stderr)")
        }
    }

    /// Exports that end every data row with a delimiter the header lacks (`vin,make` over
    /// `1FT…,Ford,`), or the other way round, had every row rejected as `row.ragged`. Empty
    /// fields beyond the header (or empty-named header columns a row lacks) are now absorbed; a
    /// row with a value beyond the header stays ragged.
    @Test func trailingDelimiterOnRowsOnlyIsNotRagged() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        for text in [
            "vin,make\r\n1FTFW1E57KFA14352,Ford,\r\n1HGCV1F52MA000123,Honda,\r\nJM1GJ1W65E1143959,Mazda,x\r\n",
            "vin;make;\nJM1GJ1W65E1143959;Mazda;x;y\n1FTFW1E57KFA14352;Ford\n1HGCV1F52MA000123;Honda\n",
        ] {
            let input = dir.appendingPathComponent("trailing.csv")
            try Data(text.utf8).write(to: input)
            let r = try runVinyard(["validate", input.path, "--report", "json", "--quiet"])
            let report = try #require(try JSONSerialization.jsonObject(with: r.stdoutData) as? [String: Any], "\(r.stderr)")
            #expect(report["read"] as? Int == 3)
            #expect(report["inserted"] as? Int == 2, "\(r.stdout)")
            #expect(report["rejected"] as? Int == 1)
            #expect((report["findings"] as? [String: Int]) == ["row.ragged": 1], "\(r.stdout)")
        }
    }

    /// Rows of delimiters alone (`,,`, `"",""`), which spreadsheets leave below the data, were
    /// records: each a `field.required` reject, and `validate` exited 1 on a clean file. They
    /// are blank lines now.
    @Test func rowsOfDelimitersAloneAreBlankLines() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let input = dir.appendingPathComponent("excel.csv")
        try Data("VIN,Make,Model\r\n1FTFW1E57KFA14352,Ford,F-150\r\n,,\r\n\"\",\"\",\"\"\r\n,Opel,Astra\r\n,,\r\n".utf8)
            .write(to: input)
        let r = try runVinyard(["validate", input.path, "--report", "json", "--quiet"])
        #expect(r.status == 1, "\(r.stderr)")
        let report = try #require(try JSONSerialization.jsonObject(with: r.stdoutData) as? [String: Any], "\(r.stderr)")
        #expect(report["read"] as? Int == 2, "\(r.stdout)")
        #expect(report["rejected"] as? Int == 1, "the row with a make and no VIN is still a reject")
        #expect((report["finding_examples"] as? [String: [String]])?["field.required"]?.first?.hasSuffix(":5") == true, "\(r.stdout)")
    }

    /// A JSON feed whose first record lacks the keys that name its source (a fleet record with
    /// its VIN key left out, a place without coordinates) was refused whole (exit 64, "cannot
    /// tell the source"). The source is now taken from the first record that names one, and the
    /// records before it are read with it (here: a field.required reject). A feed in which no
    /// record names a source is still refused.
    @Test func sourceIsDetectedFromTheFirstRecordThatNamesOne() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let fleet = dir.appendingPathComponent("fleet.jsonl")
        try Data("{\"make\":\"Opel\",\"model\":\"Astra\"}\n{\"vin\":\"1FTFW1E57KFA14352\",\"make\":\"Ford\"}\n".utf8).write(to: fleet)
        let places = dir.appendingPathComponent("places.json")
        try Data("[{\"name\":\"Depot\"},{\"name\":\"Amsterdam\",\"lat\":52.3547498,\"long\":4.8339215}]".utf8).write(to: places)
        for (input, source) in [(fleet, "fleet"), (places, "locations")] {
            let r = try runVinyard(["validate", input.path, "--report", "json", "--quiet"])
            #expect(r.status == 1, "\(r.stderr)")
            let report = try #require(try JSONSerialization.jsonObject(with: r.stdoutData) as? [String: Any], "\(r.stderr)")
            #expect(report["read"] as? Int == 2)
            #expect(report["inserted"] as? Int == 1)
            #expect(report["rejected"] as? Int == 1)
            #expect((report["findings"] as? [String: Int])?["field.required"] != nil, "\(r.stdout)")
            let inputs = try #require(report["inputs"] as? [[String: Any]])
            #expect(inputs.first?["source"] as? String == source)
        }
        let none = dir.appendingPathComponent("none.jsonl")
        try Data("{\"make\":\"Opel\"}\n{\"make\":\"Ford\"}\n".utf8).write(to: none)
        let n = try runVinyard(["validate", none.path, "--quiet"])
        #expect(n.status == 64)
        #expect(n.stderr.contains("cannot tell the source"), "\(n.stderr)")
    }

    /// A places file was recognized only by a header or key spelled exactly `lat`, `latitude`,
    /// `Lat` or `Latitude`: `LAT;LONG`, `GPS Latitude` or `Latitude (deg)` (all of which the
    /// mapping reads) were refused with "cannot tell the source" (exit 64). Detection now
    /// matches the latitude field's name and aliases as the mapping does.
    @Test func locationsAreDetectedByAnySpellingOfLatitude() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        for header in ["NAME;LAT;LONG", "Place Name;Latitude (deg);Longitude (deg)", "name;GPS Latitude;GPS Longitude"] {
            let input = dir.appendingPathComponent("places.csv")
            try Data("\(header)\nAmsterdam;52,3547498;4,8339215\n".utf8).write(to: input)
            let r = try runVinyard(["validate", input.path, "--report", "json", "--quiet"])
            #expect(r.status == 0, "\(header): \(r.stderr)")
            let report = try #require(try JSONSerialization.jsonObject(with: r.stdoutData) as? [String: Any], "\(r.stderr)")
            let inputs = try #require(report["inputs"] as? [[String: Any]])
            #expect(inputs.first?["source"] as? String == "locations", "\(header)")
            #expect(inputs.first?["warnings"] as? [String] == [], "\(header): \(r.stdout)")
            #expect(report["inserted"] as? Int == 1)
        }
    }

    /// `import --rejects` was not checked against the run's files as validate's and convert's
    /// outputs are: `--rejects fleet.db` wrote the rejects CSV over the database (a new one was
    /// left malformed, exit 0), and `--rejects a.csv` emptied the input. Both are usage errors
    /// (exit 64) now, and the files are left as they were.
    @Test func importRejectsFileMayNotBeTheDatabaseOrAnInput() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let input = dir.appendingPathComponent("a.csv")
        let text = "vin,make\nBAD,Ford\n1FTFW1E57KFA14352,Ford\n"
        try Data(text.utf8).write(to: input)
        let db = dir.appendingPathComponent("fleet.db").path

        let fresh = try runVinyard(["import", input.path, "--db", db, "--rejects", db, "--quiet"])
        #expect(fresh.status == 64, "\(fresh.stdout) \(fresh.stderr)")
        #expect(!FileManager.default.fileExists(atPath: db))

        #expect(try runVinyard(["import", input.path, "--db", db, "--quiet"]).status == 0)
        let again = try runVinyard(["import", input.path, "--db", db, "--rejects", dir.path + "/./fleet.db", "--quiet"])
        #expect(again.status == 64, "\(again.stderr)")
        let stats = try runVinyard(["stats", "--db", db, "--format", "json"])
        #expect(stats.status == 0, "\(stats.stderr)")

        let clobber = try runVinyard(["import", input.path, "--db", db, "--rejects", input.path, "--quiet"])
        #expect(clobber.status == 64, "\(clobber.stderr)")
        #expect(try String(contentsOf: input, encoding: .utf8) == text)
    }

    /// `generate -o data.csv --truth data.csv` wrote the truth JSON over the start of the data
    /// (exit 0, both files spoiled); the two outputs must differ (exit 64), as convert's do.
    @Test func generateOutputAndTruthMustDiffer() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let out = dir.appendingPathComponent("data.csv").path
        let r = try runVinyard(["generate", "--rows", "5", "-o", out, "--truth", dir.path + "/./data.csv"])
        #expect(r.status == 64, "\(r.stderr)")
        #expect(r.stderr.contains("same file"), "\(r.stderr)")
        #expect(!FileManager.default.fileExists(atPath: out))
    }

    /// A JSON record whose first key holds an empty list (`[{"car_options": [], "vin": …}]`, or
    /// the same object alone) was taken for an empty wrapper: zero records read, exit 0, the
    /// vehicle dropped without a word. It is a record; `{"vehicles": [], "count": 0}` still
    /// reads as an empty wrapper.
    @Test func recordStartingWithAnEmptyListIsNotAnEmptyWrapper() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let record = "{\"car_options\":[],\"vin\":\"1FTFW1E57KFA14352\",\"make_and_model\":\"Ford F-150\"}"
        for (name, text, read) in [
            ("array.json", "[\(record)]", 1), ("single.json", record, 1), ("empty.json", "{\"vehicles\": [], \"count\": 0}", 0),
        ] {
            let input = dir.appendingPathComponent(name)
            try Data(text.utf8).write(to: input)
            let r = try runVinyard(["validate", input.path, "--report", "json", "--quiet"])
            #expect(r.status == 0, "\(name): \(r.stderr)")
            let report = try #require(try JSONSerialization.jsonObject(with: r.stdoutData) as? [String: Any], "\(r.stderr)")
            #expect(report["read"] as? Int == read, "\(name): \(r.stdout)")
            #expect(report["inserted"] as? Int == read, "\(name)")
        }
    }

    /// Descending sequences (`98765432109876543`, `ZYXWVUTSRPNMLKJHG`) and a short unit repeated
    /// throughout (`12121212121212121`, `ABCABCABCABCABCAB`), and masked VINs (`WDBXXXXXXXXXXXXXX`)
    /// were valid VINs (loaded as vehicles outside North America, where they also collided as
    /// duplicates of each other); DESIGN.md lists sequences as placeholders. Real VINs are not.
    @Test func descendingAndRepeatedPlaceholdersAreRejected() throws {
        let fakes = [
            "98765432109876543", "ZYXWVUTSRPNMLKJHG", "12121212121212121", "ABCABCABCABCABCAB", "WDBXXXXXXXXXXXXXX",
        ]
        let real = ["1FTFW1E57KFA14352", "WVWZZZ1JZ3W386752", "JM1GJ1W65E1143959", "KNAFU4A2XD5739551"]
        let r = try runVinyard(["decode"] + fakes + real + ["--format", "json"])
        #expect(r.status == 0, "\(r.stderr)")
        let objects = try #require(try JSONSerialization.jsonObject(with: r.stdoutData) as? [[String: Any]])
        #expect(objects.count == fakes.count + real.count)
        for object in objects {
            let codes = (object["findings"] as? [[String: Any]] ?? []).compactMap { $0["code"] as? String }
            let fake = fakes.contains(object["vin"] as? String ?? "")
            #expect(codes.contains("vin.placeholder") == fake, "\(object)")
            #expect((object["valid"] as? Bool) == !fake, "\(object)")
        }
    }

    /// US and UK fleet exports name their columns `Unit #`, `Model Yr`, `Mfr`, `Ext Color`, `Tag`
    /// (or `Lic. Plate No.`, `Reg`), `Kms`, `Purchase Price`: all were dropped as unmapped.
    @Test func usAndUKFleetHeadersAreMapped() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let input = dir.appendingPathComponent("fleet.csv")
        try Data("Unit #,VIN,Model Yr,Mfr,Ext Color,Tag,Kms,Purchase Price\nU-7,1FTFW1E57KFA14352,2019,Ford,Blue,7XYZ123,1200,35000\n".utf8)
            .write(to: input)
        let r = try runVinyard(["convert", input.path, "-o", "-", "--format", "jsonl", "--quiet"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(!r.stderr.contains("not loaded"), "\(r.stderr)")
        let o = try #require(try JSONSerialization.jsonObject(with: r.stdoutData) as? [String: Any])
        #expect(o["source_id"] as? String == "U-7")
        #expect(o["model_year"] as? Int == 2019)
        #expect(o["make"] as? String == "Ford")
        #expect(o["color"] as? String == "Blue")
        #expect(o["license_plate"] as? String == "7XYZ123")
        #expect(o["odometer_km"] as? Int == 1200)
        #expect(o["price"] as? Double == 35000)
    }

    /// `--rejects rejects.tsv` wrote comma-separated text into the `.tsv` file (convert's `-o
    /// x.tsv` writes tabs); it is tab-separated now.
    @Test func rejectsFileEndingInTSVHasTabs() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let input = dir.appendingPathComponent("fleet.tsv")
        try Data("vin\tmake\nBAD\tFord, Inc.\n".utf8).write(to: input)
        let rejects = dir.appendingPathComponent("rejects.tsv").path
        let r = try runVinyard(["validate", input.path, "--rejects", rejects, "--quiet"])
        #expect(r.status == 1, "\(r.stderr)")
        let lines = try String(contentsOfFile: rejects, encoding: .utf8).split(separator: "\n")
        #expect(lines.first == "vin\tmake\t_input\t_line\t_findings\t_extra", "\(lines)")
        #expect(lines.dropFirst().first?.hasPrefix("BAD\tFord, Inc.\t") == true, "\(lines)")
    }

    /// Exports joined with `cat` repeat the header (with its byte order mark): each repeated
    /// header was a record, a `vin.length` reject, and `validate` exited 1 on clean data.
    @Test func repeatedHeaderOfJoinedFilesIsNotARecord() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let part1 = "VIN,Make\r\n1FTFW1E57KFA14352,Ford\r\n"
        let part2 = "\u{FEFF}VIN,Make\r\n1HGCV1F52MA000123,Honda\r\n"
        let input = dir.appendingPathComponent("all.csv")
        try Data((part1 + part2 + "VIN,Make\r\nVIN,Opel\r\n").utf8).write(to: input)
        let r = try runVinyard(["validate", input.path, "--report", "json", "--quiet"])
        #expect(r.status == 1, "\(r.stderr)")
        let report = try #require(try JSONSerialization.jsonObject(with: r.stdoutData) as? [String: Any], "\(r.stderr)")
        #expect(report["read"] as? Int == 3, "\(r.stdout)")
        #expect(report["inserted"] as? Int == 2)
        #expect(report["rejected"] as? Int == 1, "a row that only starts like the header is still read")
    }

    /// A single vehicle object (or one in a one-element array) whose first key holds a list of
    /// objects (`{"service_history": [{…}], "vin": …}`) was read as an envelope around that
    /// list: its service entries became the records, refused as of no known source (exit 64).
    @Test func vehicleWithAListOfObjectsFirstIsOneRecord() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let record = "{\"service_history\":[{\"date\":\"2020-01-01\",\"km\":1000}],\"VIN\":\"1FTFW1E57KFA14352\",\"make\":\"Ford\"}"
        for (name, text) in [("single.json", record), ("array.json", "[\(record)]")] {
            let input = dir.appendingPathComponent(name)
            try Data(text.utf8).write(to: input)
            let r = try runVinyard(["validate", input.path, "--report", "json", "--quiet"])
            #expect(r.status == 0, "\(name): \(r.stderr)")
            let report = try #require(try JSONSerialization.jsonObject(with: r.stdoutData) as? [String: Any], "\(r.stderr)")
            #expect(report["inserted"] as? Int == 1, "\(name): \(r.stdout)")
        }
    }

    /// Decimal-comma coordinates with three decimals (`48,137;11,575`, common in European
    /// exports) were rejected as "not a number": the `1,234` thousands-or-decimal ambiguity of
    /// other numbers does not arise in degrees, which never group thousands.
    @Test func threeDecimalCommaCoordinatesAreDegrees() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let input = dir.appendingPathComponent("fleet.csv")
        try Data("VIN;Lat;Lon\n1FTFW1E57KFA14352;48,137;11,575\n".utf8).write(to: input)
        let r = try runVinyard(["convert", input.path, "-o", "-", "--format", "jsonl", "--quiet"])
        #expect(r.status == 0, "\(r.stderr)")
        let o = try #require(try JSONSerialization.jsonObject(with: r.stdoutData) as? [String: Any], "\(r.stderr)")
        #expect(o["latitude"] as? Double == 48.137)
        #expect(o["longitude"] as? Double == 11.575)

        let places = dir.appendingPathComponent("places.csv")
        try Data("name;lat;long\nMunich;48,137;11,575\nBad;\"48,137,5\";11\n".utf8).write(to: places)
        let v = try runVinyard(["validate", places.path, "--report", "json", "--quiet"])
        let report = try #require(try JSONSerialization.jsonObject(with: v.stdoutData) as? [String: Any], "\(v.stderr)")
        #expect(report["inserted"] as? Int == 1)
        #expect((report["findings"] as? [String: Int]) == ["coord.latitude": 1], "\(v.stdout)")
    }
}
