import Foundation
import Testing
import VinyardKit

/// Findings of review 21 (session 18), each run through the built binary.
@Suite struct Review21Tests {
    /// `export`, `stats` and `emissions` open the database read-only, which left a `-wal` and a
    /// `-shm` file beside a database that had none. They are gone after each command; while
    /// another connection has the file open they stay (removing them then would lose its log).
    @Test func readCommandsLeaveNoLogFilesBehind() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let db = dir.appendingPathComponent("fleet.db").path
        let imported = try runVinyard(["import", sample("fleet.csv"), "--db", db, "-q"])
        #expect(imported.status == 0, "\(imported.stderr)")
        let fm = FileManager.default
        #expect(!fm.fileExists(atPath: db + "-wal") && !fm.fileExists(atPath: db + "-shm"))
        let commands: [[String]] = [
            ["export", "--db", db, "-o", dir.appendingPathComponent("out.csv").path],
            ["export", "--db", db, "--format", "json"],
            ["stats", "--db", db],
            ["emissions", "--db", db],
        ]
        for arguments in commands {
            let r = try runVinyard(arguments)
            #expect(r.status == 0, "\(arguments): \(r.stderr)")
            #expect(!fm.fileExists(atPath: db + "-wal"), "\(arguments) left \(db)-wal")
            #expect(!fm.fileExists(atPath: db + "-shm"), "\(arguments) left \(db)-shm")
        }
        let exported = try String(contentsOfFile: dir.appendingPathComponent("out.csv").path, encoding: .utf8)
        #expect(exported.split(separator: "\n").count > 1)

        // Another connection with the file open: its log stays, and it still reads.
        var other: Connection? = try Connection(path: db, mode: .readWrite)
        let before = try other?.scalarInt("SELECT count(*) FROM vehicles")
        #expect(fm.fileExists(atPath: db + "-wal"))
        let r = try runVinyard(["stats", "--db", db])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(fm.fileExists(atPath: db + "-wal") && fm.fileExists(atPath: db + "-shm"))
        #expect(try other?.scalarInt("SELECT count(*) FROM vehicles") == before)
        other = nil
        #expect(!fm.fileExists(atPath: db + "-wal"), "closing the last connection removes the log")
    }

    /// A quote that is never closed (`"Felgen 17"",1000` with no quote after it in the file) made
    /// the whole file fail (exit 65, nothing loaded), while the same row with a quote somewhere
    /// below it was a `row.malformed` reject: it is now a reject either way, cut at its first line
    /// end, and the next lines are rows. A quote opened on the last line makes that row a reject.
    @Test func aQuoteNeverClosedIsAMalformedRowNotAFatalError() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let inch = dir.appendingPathComponent("inch.csv")
        try Data(
            "VIN,Make,Notes\n1FTFW1E52KFA00021,Ford,ok\n1FTFW1E54KFA00022,Ford,\"Felgen 17\"\",1000\r\n1FTFW1E56KFA00023,Ford,after\n"
                .utf8
        ).write(to: inch)
        let db = dir.appendingPathComponent("x.db").path
        let r = try runVinyard(["import", inch.path, "--db", db, "--report", "json"])
        #expect(r.status == 0, "\(r.stderr)")
        let report = try ParsedReport(r)
        #expect(report.int("read") == 3 && report.int("inserted") == 2 && report.int("rejected") == 1, "\(r.stdout)")
        let store = try VinyardStore(path: db, readOnly: true)
        #expect(try store.connection.scalarInt("SELECT line FROM rejects") == 3)
        let reason = try store.connection.scalarText("SELECT reason FROM rejects") ?? ""
        #expect(reason.contains("row.malformed") && reason.contains("never closed"), "\(reason)")
        #expect(reason.contains("or the field unquoted; the next lines are read as rows of their own"), "\(reason)")
        #expect(try store.connection.scalarText("SELECT notes FROM vehicles WHERE vin LIKE '%23'") == "after")

        let last = dir.appendingPathComponent("last.csv")
        try Data("VIN,Make,Notes\n1FTFW1E52KFA00021,Ford,ok\n1FTFW1E56KFA00023,Ford,\"after".utf8).write(to: last)
        let v = try runVinyard(["validate", last.path, "--rejects", "-"])
        #expect(v.status == 1, "\(v.stderr)")
        #expect(v.stdout.contains("\(last.path),3,") && v.stdout.contains("the row ends the file"), "\(v.stdout)")
        #expect(v.stderr.contains("inserted   1"), "\(v.stderr)")

        // In the header there is nothing to read the rows by: still a malformed file.
        let header = dir.appendingPathComponent("header.csv")
        try Data("VIN,\"Make,Notes\n1FTFW1E52KFA00021,Ford,ok\n".utf8).write(to: header)
        let h = try runVinyard(["validate", header.path])
        #expect(h.status == 65 && h.stderr.contains("\(header.path):1: unterminated quoted field in the header"), "\(h.stderr)")
    }

    /// A make written as its company (`BMW AG`, `Tesla Motors`, `Honda Motor Co., Ltd.`) was stored as
    /// written, so `--where make=BMW` missed it: a make the table does not know matches when up to
    /// three company words off its end leave one it knows. Words that leave no known make change
    /// nothing (`General Motors`), and a make and model text is still split on exact spellings.
    @Test func companyNamesOfMakesAreTheirMake() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let input = dir.appendingPathComponent("makes.csv")
        try Data(
            ("VIN,Make,Model\nWDD2050Z1JR000709,Mercedes-Benz AG,C\nWBA8E9GZ0JN000711,BMW AG,3\n"
                + "WVWZZZ1K2JW000713,VOLKSWAGEN AG,Golf\n5YJ3E1EA2JF000722,Tesla Motors,Model 3\nYV1DZ8259J2000724,Volvo Cars,XC60\n"
                + "1HGCM82633A004352,\"Honda Motor Co., Ltd.\",Accord\n1FTFW1E54KFA00022,Ford Motor Company,F-150\n"
                + "1FTFW1E52KFA00021,General Motors,x\n").utf8
        ).write(to: input)
        let db = dir.appendingPathComponent("x.db").path
        let r = try runVinyard(["import", input.path, "--db", db, "-q"])
        #expect(r.status == 0, "\(r.stderr)")
        let store = try VinyardStore(path: db, readOnly: true)
        #expect(
            try store.connection.scalarText("SELECT group_concat(make, '|') FROM (SELECT make FROM vehicles ORDER BY rowid)")
                == "Mercedes-Benz|BMW|Volkswagen|Tesla|Volvo|Honda|Ford|General Motors")
        // Only the General Motors row on a Ford VIN disagrees with its VIN.
        #expect(try store.connection.scalarInt("SELECT count(*) FROM findings WHERE code = 'vin.make_mismatch'") == 1)
        let bmw = try runVinyard(["export", "--db", db, "--where", "make=BMW", "--columns", "vin"])
        #expect(bmw.stdout == "vin\nWBA8E9GZ0JN000711\n", "\(bmw.stdout)")

        let table = try SchemaCatalog.bundled().makes
        #expect(table.canonical("Kia Motors America") == "Kia" && table.canonical("Bayerische Motoren Werke AG") == "BMW")
        #expect(table.canonical("Motors") == nil && table.canonical("AG") == nil)
        #expect(table.split("Ford SE")?.make == "Ford" && table.split("Ford SE")?.model == "SE")
    }

    /// Header spellings of German fleet files that matched no field (their columns were not
    /// loaded, or the file was refused for want of a VIN column).
    @Test func germanHeaderSpellingsMapToTheirFields() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let input = dir.appendingPathComponent("de.csv")
        try Data(
            ("Fahrzeug-Identifizierungsnummer;Marke;Laufleistung;EZ;Getriebeart\n"
                + "WBA8E9GZ0JN000711;BMW;45000;03.2018;Automatik\n").utf8
        ).write(to: input)
        let db = dir.appendingPathComponent("x.db").path
        let r = try runVinyard(["import", input.path, "--db", db])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(!r.stdout.contains("matches no field") && !r.stderr.contains("matches no field"), "\(r.stdout)\(r.stderr)")
        let store = try VinyardStore(path: db, readOnly: true)
        #expect(
            try store.connection.scalarText("SELECT odometer_km || ' ' || first_registration || ' ' || transmission FROM vehicles")
                == "45000 2018-03 automatic")
        for header in ["FIN-Nummer", "VIN/Serial", "km-Stand", "Kilometer", "Zulassungsdatum"] {
            let other = dir.appendingPathComponent("h.csv")
            try Data("\(header)\nx\n".utf8).write(to: other)
            let v = try runVinyard(["validate", other.path, "--source", "fleet"])
            #expect(!v.stderr.contains("matches no field"), "\(header): \(v.stderr)")
        }
    }

    /// A North American maker code the table does not know is mostly a trailer, RV or other
    /// low-volume maker, whose position 7 is no year mark: the position-7 rule made
    /// `7XJBB3236TS001714` (a 2026 trailer, from vPIC's own examples) a 1996 one, and a row declaring
    /// 2026 a `vin.year_mismatch`. Known makers keep the rule (`1FTEF15N4S…` is a 1995 F-150).
    @Test func anUnknownNorthAmericanMakerGetsNoPosition7Rule() throws {
        let decoded = try runVinyard(["decode", "7XJBB3236TS001714", "1FTEF15N4SLA00001", "KMYDA5204EK012345", "--format", "json"])
        let objects = try #require(try JSONSerialization.jsonObject(with: Data(decoded.stdout.utf8)) as? [[String: Any]])
        #expect(objects.map { $0["model_year"] as? Int } == [2026, 1995, 2014], "\(decoded.stdout)")

        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let input = dir.appendingPathComponent("trailers.csv")
        // Also: `HD` is Harley-Davidson, and the header again in other letter case is no row.
        try Data("vin,make,model_year\n7XJBB3236TS001714,BUILT,2026\n1HD1GP4558K319097,HD,2008\nVIN,MAKE,Model_Year\n".utf8)
            .write(to: input)
        let r = try runVinyard(["validate", input.path, "--report", "json"])
        #expect(r.status == 0, "\(r.stderr)")
        let report = try ParsedReport(r)
        #expect(report.int("read") == 2 && report.int("rejected") == 0, "\(r.stdout)")
        #expect(!r.stdout.contains("vin.year_mismatch") && !r.stdout.contains("vin.make_mismatch"), "\(r.stdout)")
    }

    /// Maker codes that were unknown (`vin.wmi_unknown`) though common: GM's passenger vans (1GA,
    /// 1GJ), Hyundai Canada (2HM), Mercedes-Benz Argentina (8AC), Honda's Thai motorcycles (MLH).
    @Test func commonMakerCodesAreKnown() throws {
        let vins = ["1GAZGPFG0H1123456", "1GJZ7PFG0H1123456", "2HMJF31J9PH123456", "8AC90613XHE123456", "MLHJC6112H5012345"]
        let r = try runVinyard(["decode"] + vins + ["--format", "json"])
        #expect(r.status == 0, "\(r.stderr)")
        let objects = try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [[String: Any]])
        #expect(objects.map { $0["manufacturer"] as? String } == ["Chevrolet", "GMC", "Hyundai", "Mercedes-Benz", "Honda"])
        #expect(objects.map { $0["country"] as? String } == ["United States", "United States", "Canada", "Argentina", "Thailand"])
        #expect(objects.allSatisfy { ($0["findings"] as? [Any])?.isEmpty == true }, "\(r.stdout)")
    }

    /// Spellings of seed-shaped `random-vehicle` records that were rejects or split wrongly:
    /// `Flex`, `Liquified petroleum`, `Gasoline Plug-in Hybrid`, `Biodiesel`, `Part-time 4WD`,
    /// `Direct drive`; `Great Wall Haval H6` was the make `Great`; `Mercedes-AMG` stayed as
    /// written. A year-month with a one-digit month (`2019-4`) was a `field.date` reject.
    @Test func moreSpellingsOfSeedShapedRecordsNormalize() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let input = dir.appendingPathComponent("rv.json")
        try Data(
            #"""
            [{"id":1,"uid":"a","vin":"1FTFW1E57KFA14352","make_and_model":"Great Wall Haval H6","fuel_type":"Flex","drive_type":"Part-time 4WD","transmission":"Direct drive"},
            {"id":2,"uid":"b","vin":"1HGCV1F52MA000123","make_and_model":"Mercedes-AMG GT","fuel_type":"Liquified petroleum","drive_type":"4x2/2-wheel drive","transmission":"Automanual"},
            {"id":3,"uid":"c","vin":"1C4PJMAK2CW184491","make_and_model":"Jeep Liberty","fuel_type":"Gasoline Plug-in Hybrid","drive_type":"AWD","transmission":"CVT"},
            {"id":4,"uid":"d","vin":"2HKRM3H38EH550410","make_and_model":"Honda CR-V","fuel_type":"Biodiesel","drive_type":"RWD","transmission":"Manual"}]
            """#.utf8
        ).write(to: input)
        let db = dir.appendingPathComponent("x.db").path
        let r = try runVinyard(["import", input.path, "--db", db, "--report", "json"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(try ParsedReport(r).int("inserted") == 4, "\(r.stdout)")
        let store = try VinyardStore(path: db, readOnly: true)
        let rows = try store.connection.scalarText(
            "SELECT group_concat(make || '/' || model || '/' || fuel_type || '/' || drive_type || '/' || transmission, '|') "
                + "FROM (SELECT * FROM vehicles ORDER BY source_id)")
        #expect(
            rows
                == "Great Wall/Haval H6/flex_fuel/4wd/automatic|Mercedes-Benz/GT/lpg/2wd/automated_manual|"
                + "Jeep/Liberty/plug_in_hybrid/awd/cvt|Honda/CR-V/diesel/rwd/manual")

        let dates = dir.appendingPathComponent("d.csv")
        try Data("vin,first_registration\n1FTFW1E57KFA14352,2019-4\n1HGCV1F52MA000123,4.2019\n".utf8).write(to: dates)
        let out = dir.appendingPathComponent("d.out.csv")
        let c = try runVinyard(["convert", dates.path, "-o", out.path])
        #expect(c.status == 0, "\(c.stderr)")
        let text = try String(contentsOf: out, encoding: .utf8)
        #expect(text.contains(",2019-04,") && !text.contains("2019-4"), "\(text)")
    }

    /// `--where` audit: a decomposed value (`Citroe\u{0308}n`, as macOS input writes it) found
    /// nothing with `~`; `=` on a date-time compared text while `<=` and `>=` compared instants
    /// (`last_sync=2024-06-30T15:15:00Z` missed `2024-06-30T08:15:00-07:00`, which both range
    /// filters found); a hexadecimal number (`0x7E2`) was read as 2018.
    @Test func whereFiltersNormalizeTextAndCompareInstants() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let input = dir.appendingPathComponent("f.csv")
        try Data(
            ("vin,make,model_year,last_sync\nVF7SA9HD8CW000001,Citroën,2018,2024-06-30T08:15:00-07:00\n"
                + "1FTFW1E57KFA14352,Ford,2019,2024-06-30T15:16:00Z\n").utf8
        ).write(to: input)
        let db = dir.appendingPathComponent("x.db").path
        #expect(try runVinyard(["import", input.path, "--db", db, "-q"]).status == 0)
        func vins(_ filter: String) throws -> String {
            let r = try runVinyard(["export", "--db", db, "--where", filter, "--columns", "vin"])
            #expect(r.status == 0, "\(filter): \(r.stderr)")
            return r.stdout.split(separator: "\n").dropFirst().joined(separator: ",")
        }
        #expect(try vins("make~Citroe\u{0308}n") == "VF7SA9HD8CW000001")
        #expect(try vins("make>=Citroe\u{0308}n") == "1FTFW1E57KFA14352,VF7SA9HD8CW000001")
        #expect(try vins("last_sync=2024-06-30T15:15:00Z") == "VF7SA9HD8CW000001")
        #expect(try vins("last_sync!=2024-06-30T15:15:00Z") == "1FTFW1E57KFA14352")
        #expect(try vins("last_sync=2024-06-30T17:15:00+02:00") == "VF7SA9HD8CW000001")
        // `in` with an empty value also finds a missing one, as `=''` does.
        let blank = dir.appendingPathComponent("blank.csv")
        try Data("vin,make\n2HKRM3H38EH550410,\n".utf8).write(to: blank)
        #expect(try runVinyard(["import", blank.path, "--db", db, "-q"]).status == 0)
        #expect(try vins("make in '',Ford") == "1FTFW1E57KFA14352,2HKRM3H38EH550410")
        #expect(try vins("make=''") == "2HKRM3H38EH550410")
        let hex = try runVinyard(["export", "--db", db, "--where", "model_year=0x7E2"])
        #expect(hex.status == 64 && hex.stderr.contains("must be a number"), "\(hex.stderr)")
    }

    /// ISO 3780 gives 7A-7E to New Zealand; only 7F-70 are the United States' (SAE's newer
    /// allocation: 7FA Honda, 7SA Tesla). 7A-7E VINs were United States, North America, with a
    /// mandatory check digit.
    @Test func sevenAToEIsNewZealand() throws {
        let r = try runVinyard(["decode", "7AT0H63KX5Y123456", "7SAYGDEE5PF123456", "--format", "json"])
        let objects = try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [[String: Any]], "\(r.stdout)")
        #expect(objects.map { $0["country"] as? String } == ["New Zealand", "United States"])
        #expect(objects.map { $0["region"] as? String } == ["Oceania", "North America"])
        let findings = (objects[0]["findings"] as? [[String: Any]]) ?? []
        #expect(
            findings.allSatisfy { $0["code"] as? String != "vin.check_digit" || $0["severity"] as? String == "warning" },
            "\(findings)")
    }

    /// A first-character typo that turns a North American VIN into an unknown non-North-American
    /// one (`SNP…` for Hyundai's `5NP…`) was a check-digit warning, and the row was loaded: it is
    /// an error, with the repair as its suggestion. The report counted 100 suggestions at most and
    /// said "… 80 more" of 369; it now counts them all.
    @Test func aNorthAmericanVINWithAFirstCharacterTypoIsRejected() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        // 5NPD84LF1JHD25863 with the S/5 typo, then 129 North American VINs each with a 0 written
        // as O, which the repair explains.
        var rows = ["vin", "SNPD84LF1JHD25863"]
        for i in 0..<129 {
            let serial = String(format: "%06d", 100_000 + i)
            let good = try #require(Self.withCheckDigit("1FTFW1E5?KF" + serial))
            var bytes = Array(good.utf8)
            bytes[12] = UInt8(ascii: "O")  // position 13's 0 written as O: vin.characters with the repair
            rows.append(String(decoding: bytes, as: UTF8.self))
        }
        let input = dir.appendingPathComponent("typos.csv")
        try Data((rows.joined(separator: "\n") + "\n").utf8).write(to: input)
        let r = try runVinyard(["validate", input.path, "--report", "json"])
        #expect(r.status == 1, "\(r.stderr)")
        let report = try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])
        #expect(report["rejected"] as? Int == 130, "\(r.stdout.prefix(600))")
        #expect(report["suggestion_count"] as? Int == 130)
        #expect((report["suggestions"] as? [Any])?.count == 100)
        let first = try #require((report["suggestions"] as? [[String: Any]])?.first)
        #expect(first["suggestion"] as? String == "5NPD84LF1JHD25863" && first["line"] as? Int == 2)
        let text = try runVinyard(["validate", input.path])
        #expect(text.stderr.contains("… 110 more") || text.stdout.contains("… 110 more"), "\(text.stdout)\(text.stderr)")
    }

    /// `vin` with its `?` (position 9) set to the right check digit.
    static func withCheckDigit(_ vin: String) -> String? {
        let weights = [8, 7, 6, 5, 4, 3, 2, 10, 0, 9, 8, 7, 6, 5, 4, 3, 2]
        let values: [Character: Int] = [
            "A": 1, "B": 2, "C": 3, "D": 4, "E": 5, "F": 6, "G": 7, "H": 8, "J": 1, "K": 2, "L": 3, "M": 4, "N": 5,
            "P": 7, "R": 9, "S": 2, "T": 3, "U": 4, "V": 5, "W": 6, "X": 7, "Y": 8, "Z": 9,
        ]
        var sum = 0
        for (i, c) in vin.enumerated() where i != 8 {
            guard let v = c.wholeNumberValue ?? values[c] else { return nil }
            sum += v * weights[i]
        }
        let digit = sum % 11 == 10 ? "X" : String(sum % 11)
        return vin.replacingOccurrences(of: "?", with: digit)
    }

    /// `validate --findings FILE` lists every finding and every duplicate with its line (the report
    /// lists the first five places of each code, and a rejects file only rejected rows): a fleet
    /// manager asked which VINs are duplicated, or disagree with the make or model year beside
    /// them, and could get the full list only by importing into a scratch database. A conflict
    /// names the record it was compared with (the one a later record replaces), not the first.
    @Test func validateWritesEveryFindingAndDuplicate() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let input = dir.appendingPathComponent("fleet.csv")
        try Data(
            ("vin,make,model_year\n1FTFW1E57KFA14352,Ford,2019\n1FTFW1E57KFA14352,Ford,2018\n"
                + "1HGCV1F52MA000123,Toyota,2021\n1HGCV1F52MA000124,Honda,2021\n1FTFW1E57KFA14352,Ford,2019\n").utf8
        ).write(to: input)
        let out = dir.appendingPathComponent("findings.csv")
        let r = try runVinyard(["validate", input.path, "--findings", out.path, "--report", "json"])
        #expect(r.status == 1, "\(r.stderr)")
        let report = try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])
        #expect(report["findings_file"] as? String == out.path)
        let lines = try String(contentsOf: out, encoding: .utf8).split(separator: "\n").map(String.init)
        #expect(lines.first == FindingsWriter.columns.joined(separator: ","))
        let rows = lines.dropFirst().map { $0.split(separator: ",", omittingEmptySubsequences: false).map(String.init) }
        // line, severity, code for every row, in input order.
        #expect(
            rows.map { "\($0[1]) \($0[3]) \($0[4])" } == [
                "3 warning vin.year_mismatch", "3 warning key.conflict", "3 info duplicate", "4 warning vin.make_mismatch",
                "5 error vin.check_digit", "6 warning key.conflict", "6 info duplicate",
            ])
        // Line 6 repeats line 2, but is compared with line 3, which replaced it.
        #expect(lines.last?.contains("(last at \(input.path):3)") == true, "\(lines)")
        #expect(lines.contains { $0.hasPrefix("\(input.path),6,") && $0.contains("appeared before (line 3)") }, "\(lines)")
        #expect(rows.allSatisfy { $0[6].hasPrefix("1") })  // the VIN of each row

        // JSON Lines, and standard output (the report then goes to standard error).
        let jsonl = try runVinyard(["validate", input.path, "--findings", "-", "--report", "json"])
        let objects = jsonl.stdout.split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
        #expect(objects.isEmpty, "CSV on standard output: \(jsonl.stdout.prefix(200))")
        #expect(jsonl.stdout.hasPrefix("input,line,") && jsonl.stderr.contains("\"findings_file\""), "\(jsonl.stderr)")
        let asJSON = dir.appendingPathComponent("findings.jsonl")
        #expect(try runVinyard(["validate", input.path, "--findings", asJSON.path]).status == 1)
        let parsed = try String(contentsOf: asJSON, encoding: .utf8).split(separator: "\n").map {
            try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
        }
        #expect(parsed.count == 7 && parsed[4]["code"] as? String == "vin.check_digit" && parsed[4]["line"] as? Int == 5)
        // The findings file cannot be an input.
        let same = try runVinyard(["validate", input.path, "--findings", input.path])
        #expect(same.status == 64, "\(same.stderr)")
    }

    /// Standard output redirected into a file the run reads was not refused: `convert in.csv -o - >>
    /// in.csv` appended to the input it was reading until the disk was full, and `export --db x.db
    /// >> x.db` appended CSV to the database. Both are usage errors, before anything is written.
    @Test func standardOutputRedirectedIntoAnInputIsRefused() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let input = dir.appendingPathComponent("in.csv")
        try FileManager.default.copyItem(at: URL(fileURLWithPath: sample("fleet.csv")), to: input)
        let before = try Data(contentsOf: input)
        let db = dir.appendingPathComponent("x.db").path
        #expect(try runVinyard(["import", sample("fleet.csv"), "--db", db, "-q"]).status == 0)
        let dbBefore = try Data(contentsOf: URL(fileURLWithPath: db))
        func appendingStandardOutput(to path: String, _ arguments: [String]) throws -> (Int32, String) {
            let process = Process()
            process.executableURL = vinyardBinary
            process.arguments = arguments
            let out = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
            out.seekToEndOfFile()
            let err = Pipe()
            process.standardOutput = out
            process.standardError = err
            try process.run()
            let message = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            process.waitUntilExit()
            try out.close()
            return (process.terminationStatus, message)
        }
        let convert = try appendingStandardOutput(to: input.path, ["convert", input.path, "-o", "-", "--source", "raw"])
        #expect(convert.0 == 64 && convert.1.contains("redirected into the input"), "\(convert)")
        #expect(try Data(contentsOf: input) == before)
        let export = try appendingStandardOutput(to: db, ["export", "--db", db])
        #expect(export.0 == 64 && export.1.contains("redirected into the database"), "\(export)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: db)) == dbBefore)
        // Standard output into another file is fine.
        let other = dir.appendingPathComponent("out.csv")
        try Data().write(to: other)
        #expect(try appendingStandardOutput(to: other.path, ["export", "--db", db]).0 == 0)
    }

    /// A header of many columns mapped to one field named each shadowed column: 150,000 `vin`
    /// columns printed 149,999 warnings. At most 20 are named, then how many more there are.
    @Test func shadowedColumnsAreNamedTwentyAtMost() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let input = dir.appendingPathComponent("wide.csv")
        let n = 500
        try Data(
            (Array(repeating: "vin", count: n).joined(separator: ",") + "\n"
                + Array(repeating: "1FTFW1E57KFA14352", count: n).joined(separator: ",") + "\n").utf8
        ).write(to: input)
        let r = try runVinyard(["validate", input.path, "--report", "json"])
        #expect(r.status == 0, "\(r.stderr)")
        let warnings = try #require(try ParsedReport(r).inputs.first?["warnings"] as? [String])
        #expect(warnings.count == 21, "\(warnings.count)")
        #expect(warnings.last?.hasPrefix("\(n - 1 - 20) more columns are shadowed") == true, "\(warnings.last ?? "")")
    }
}
