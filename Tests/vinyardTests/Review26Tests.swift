import Foundation
import Testing
import VinyardKit

/// Findings of review 26 (session 23): audits of a dirty leasing export, of the contract line by
/// line and of seed-shaped source files, and gaps left open by earlier sessions, each run through
/// the built binary where a user would meet it.
@Suite struct Review26Tests {
    /// A reading without a unit (`"odometer": {"value": 5000}`) is the number in the field's own
    /// unit, as a plain `5000` and `{"value": 5000, "unit": null}` are; it was a `field.type`
    /// reject. With a unit it is converted as before.
    @Test func aReadingWithoutItsUnitIsInTheFieldsUnit() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let input = try Review12Tests.write(
            #"{"vin": "1FTFW1E57KFA14352", "make": "Ford", "odometer": {"value": 5000}}"# + "\n"
                + #"{"vin": "1HGCV1F52MA000123", "make": "Honda", "odometer": {"value": 5000, "unit": "mi"}}"# + "\n"
                + #"{"vin": "1C4PJMAK2CW184491", "make": "Jeep", "odometer": 5000}"# + "\n",
            "readings.jsonl", in: dir)
        let db = dir.appendingPathComponent("r.db").path
        let r = try runVinyard(["import", input, "--db", db, "--report", "json", "--quiet"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(try ParsedReport(r).int("rejected") == 0, "\(r.stdout)")
        let rows = try Review12Tests.rows(db, "vehicles", columns: "vin,odometer_km")
        #expect(rows.sorted() == ["1C4PJMAK2CW184491,5000", "1FTFW1E57KFA14352,5000", "1HGCV1F52MA000123,8047"], "\(rows)")
    }
}

extension Review26Tests {
    /// A mistyped check digit explains any check-digit failure as well as a common typo does: a
    /// VIN whose only error was its check digit was told it was "probably" one with a right
    /// character changed (`1FTFW1E5XKFA14352`: `…1ESX…`). The message names the change and gives
    /// the VIN with the expected check digit beside it.
    @Test func aProbableVINNamesItsChangeAndTheCheckDigitReading() throws {
        let r = try runVinyard(["decode", "1FTFW1E5XKFA14352", "1FTFW1ES7KFA14352", "--format", "json"])
        #expect(r.status == 0 || r.status == 1, "\(r.stderr)")
        let items = try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [[String: Any]])
        let messages = items.map { (($0["findings"] as? [[String: Any]])?.first?["message"] as? String) ?? "" }
        #expect(messages[0].contains("probable VIN 1FTFW1ESXKFA14352 (5 to S at position 8), or 1FTFW1E57KFA14352 if the check digit is the typo"), "\(messages[0])")
        #expect(messages[1].contains("probable VIN 1FTFW1E57KFA14352 (S to 5 at position 8), or 1FTFW1ESXKFA14352 if the check digit is the typo"), "\(messages[1])")
        // The suggestion field stays the one repair.
        #expect(items.map { $0["suggestion"] as? String } == ["1FTFW1ESXKFA14352", "1FTFW1E57KFA14352"])
        // No second reading where the repair is the check digit itself, or where the VIN as written
        // is none whatever its check digit (a letter in the serial; found by review).
        let one = try runVinyard(["decode", "1HGCV1F5ZMA000123", "1FTFW1E5XPFB1Z346"])
        #expect(one.stdout.contains("probable VIN 1HGCV1F52MA000123 (Z to 2 at position 9)\n"), "\(one.stdout)")
        #expect(one.stdout.contains("probable VIN 1FTFW1E5XPFB12346 (Z to 2 at position 14)\n"), "\(one.stdout)")
        #expect(!one.stdout.contains("if the check digit is the typo"), "\(one.stdout)")
    }
}

extension Review26Tests {
    /// A rejects file of rows read as Windows-1252 (an Excel export in its code page) is UTF-8:
    /// without a byte order mark Excel reads it in its code page too (`N° de chÃ¢ssis`). The
    /// mark is put first when the file is finished, gzip-compressed too; a pure ASCII reject of
    /// such a file and the rejects of a UTF-8 input get none.
    @Test func rejectsOfWindows1252RowsGetAByteOrderMark() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let input = dir.appendingPathComponent("leasing.csv")
        // An ASCII reject first (the header is written then), a Windows-1252 one after it.
        var bytes = Array("Fahrgestellnummer;Marke\r\nTBD;Ford\r\n1FTFW1E5XKFA14352;Ford M".utf8)
        bytes += [0xFC] + Array("ller\r\n".utf8)
        try Data(bytes).write(to: input)
        for name in ["r.csv", "r.csv.gz"] {
            let rejects = dir.appendingPathComponent(name).path
            let r = try runVinyard(["validate", input.path, "--rejects", rejects, "--quiet"])
            #expect(r.status == 1, "\(r.stderr)")
            var written = try Data(contentsOf: URL(fileURLWithPath: rejects))
            if name.hasSuffix(".gz") {
                let plain = dir.appendingPathComponent("plain.csv").path
                let c = try runVinyard(["convert", rejects, "-o", plain, "--source", "raw", "--quiet"])
                #expect(c.status == 0, "\(c.stderr)")
                // Read back by our own reader, the mark is no part of the first column's name.
                #expect(String(decoding: try Data(contentsOf: URL(fileURLWithPath: plain)), as: UTF8.self).hasPrefix("Fahrgestellnummer,Marke,"))
                let gunzip = Process()
                gunzip.executableURL = URL(fileURLWithPath: "/bin/sh")
                gunzip.arguments = ["-c", "gzip -dc '\(rejects)' > '\(plain)'"]
                try gunzip.run()
                gunzip.waitUntilExit()
                written = try Data(contentsOf: URL(fileURLWithPath: plain))
            }
            #expect(Array(written.prefix(3)) == [0xEF, 0xBB, 0xBF], "\(name): \(Array(written.prefix(8)))")
            let text = String(decoding: written.dropFirst(3), as: UTF8.self)
            #expect(text.hasPrefix("Fahrgestellnummer;Marke;_input") && text.contains("Ford Müller"), "\(text)")
        }
        // Read as Windows-1252 throughout (`--encoding`, which gives no `row.encoding`): the mark
        // too (found by review).
        let forced = dir.appendingPathComponent("forced.csv").path
        _ = try runVinyard(["validate", input.path, "--encoding", "windows-1252", "--rejects", forced, "--quiet"])
        #expect(try Data(contentsOf: URL(fileURLWithPath: forced)).prefix(3) == Data([0xEF, 0xBB, 0xBF]))
        // Only the ASCII row rejected: no mark.
        let ascii = dir.appendingPathComponent("ascii.csv")
        var other = Array("Fahrgestellnummer;Marke\r\nTBD;Ford\r\n1FTFW1E57KFA14352;Ford M".utf8)
        other += [0xFC] + Array("ller\r\n".utf8)
        try Data(other).write(to: ascii)
        let plainRejects = dir.appendingPathComponent("a.csv").path
        _ = try runVinyard(["validate", ascii.path, "--rejects", plainRejects, "--quiet"])
        #expect(try Data(contentsOf: URL(fileURLWithPath: plainRejects)).prefix(3) == Data("Fah".utf8))
    }
}

extension Review26Tests {
    /// An unclosed quote in a `;` or tab-separated header is the unterminated quote it is (exit
    /// 65, naming line 1), as with `,`: with no complete line to count delimiters on, the header
    /// was split at `,` and the run refused as a source it could not tell (exit 64).
    @Test func anUnclosedQuoteInASemicolonHeaderIsMalformedInput() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        for (name, d) in [("h.csv", ";"), ("h.tsv", "\t"), ("p.csv", "|")] {
            let input = try Review12Tests.write("VIN\(d)Make\(d)\"Model\r\n1FTFW1E57KFA14352\(d)Ford\(d)F150\r\n", name, in: dir)
            let r = try runVinyard(["validate", input])
            #expect(r.status == 65, "\(name): \(r.status) \(r.stderr)")
            #expect(r.stderr.contains("\(name):1: unterminated quoted field in the header"), "\(r.stderr)")
        }
        // A delimiter inside the open quote is no delimiter (`,` twice, the `;` quoted: found by review).
        let comma = try Review12Tests.write("VIN,Make,\"Model; trim\r\n1FTFW1E57KFA14352,Ford,F150\r\n", "c.csv", in: dir)
        let c = try runVinyard(["validate", comma])
        #expect(c.status == 65 && c.stderr.contains("c.csv:1: unterminated quoted field in the header"), "\(c.status) \(c.stderr)")
        // An inch mark is no quote: the delimiter there most often splits the header (audit).
        for (name, header) in [("i1.csv", "vin,make,Rims; 17\""), ("i2.csv", "vin;make;model;Rims, 17\"")] {
            let d = header.contains(";make") ? ";" : ","
            let inch = try Review12Tests.write("\(header)\n1FTFW1E57KFA14352\(d)Ford\(d)x\(d == ";" ? ";y" : "")\n", name, in: dir)
            let i = try runVinyard(["validate", inch, "--report", "json"])
            #expect(i.status == 0, "\(name): \(i.status) \(i.stderr)")
        }
    }
}

extension Review26Tests {
    /// A title line above the header is shown decoded as the rows are: a Windows-1252 title
    /// (`Société`) showed as `Soci�t�`, under --encoding windows-1252 too.
    @Test func aWindows1252TitleLineIsShownDecoded() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let input = dir.appendingPathComponent("title.csv")
        var bytes = Array("Export flotte - Soci".utf8) + [0xE9] + Array("t".utf8) + [0xE9]
        bytes += Array(" de Leasing SA\r\nVIN;Marque\r\n1FTFW1E57KFA14352;Ford\r\n".utf8)
        try Data(bytes).write(to: input)
        for extra in [[], ["--encoding", "windows-1252"]] {
            let r = try runVinyard(["validate", input.path] + extra)
            #expect(r.status == 0, "\(r.stderr)")
            #expect(r.stderr.contains("'Export flotte - Société de Leasing SA'"), "\(r.stderr)")
        }
    }
}

extension Review26Tests {
    /// Spellings of European fleet exports: a unit after "in" or "en" (`Laufleistung in km`,
    /// `Odometer in miles`), notes headers (`Bemerkungen`, `Commentaire`, `Opmerking`), and VIN
    /// placeholders (`unbekannt`, `fehlt`, `inconnu`) are `vin.placeholder`, not `vin.length`.
    @Test func europeanHeadersAndPlaceholders() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let input = try Review12Tests.write(
            "VIN;Kilometerstand in Meilen;Opmerking\r\nunbekannt;1;x\r\nfehlt;1;x\r\ninconnu;1;x\r\n1FTFW1E57KFA14352;1000;Kratzer\r\n",
            "nl.csv", in: dir)
        let db = dir.appendingPathComponent("n.db").path
        let r = try runVinyard(["import", input, "--db", db, "--report", "json", "--quiet"])
        #expect(r.status == 0, "\(r.stderr)")
        let report = try ParsedReport(r)
        #expect(report.int("rejected") == 3 && report.findings["vin.placeholder"] == 3, "\(r.stdout)")
        #expect(r.stderr.isEmpty, "no column left out: \(r.stderr)")
        #expect(try Review12Tests.rows(db, "vehicles", columns: "vin,odometer_km,notes") == ["1FTFW1E57KFA14352,1609,Kratzer"])
        for (k, header) in ["Laufleistung in km", "Odometer in miles", "Kilométrage en km"].enumerated() {
            let one = try Review12Tests.write("VIN,\(header),Bemerkungen\n1FTFW1E57KFA14352,1000,x\n", "one\(k).csv", in: dir)
            let oneDB = dir.appendingPathComponent("one\(k).db").path
            let v = try runVinyard(["import", one, "--db", oneDB, "--quiet"])
            #expect(v.status == 0 && !v.stderr.contains("not loaded"), "\(header): \(v.stderr)")
            let expected = header.contains("miles") ? "1609" : "1000"
            #expect(try Review12Tests.rows(oneDB, "vehicles", columns: "vin,odometer_km,notes") == ["1FTFW1E57KFA14352,\(expected),x"], "\(header)")
        }
    }
}

extension Review26Tests {
    /// An operator written back to front (`status=!active`) read as `= '!active'`, which the
    /// enum's normalization made `active`: the opposite rows, exit 0. An unquoted value that
    /// starts with an operator character is now a usage error naming the operator meant; quoted,
    /// it is matched as before.
    @Test func anOperatorWrittenBackToFrontIsAUsageError() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let db = dir.appendingPathComponent("s.db").path
        let i = try runVinyard(["import", sample("fleet.csv"), "--db", db, "--quiet"])
        #expect(i.status == 0 || i.status == 1, "\(i.stderr)")
        for (condition, meant) in [("status=!active", "'!='"), ("year=>2015", "'>='"), ("year=<2015", "'<='"), ("make=~BMW", "'~'")] {
            let r = try runVinyard(["export", "--db", db, "--where", condition])
            #expect(r.status == 64 && r.stdout.isEmpty, "\(condition): \(r.status)")
            #expect(r.stderr.contains("did you mean \(meant)"), "\(condition): \(r.stderr)")
        }
        let quoted = try runVinyard(["export", "--db", db, "--where", "make='=BMW'", "--format", "jsonl"])
        // (Normalized as an imported make is: the guard's `=` goes, and BMW rows match.)
        #expect(quoted.status == 0 && quoted.stdout.contains("\"make\":\"BMW\""), "\(quoted.stderr)")
        let right = try runVinyard(["export", "--db", db, "--where", "status!=active", "--format", "jsonl"])
        #expect(right.status == 0 && !right.stdout.isEmpty && !right.stdout.contains("\"status\":\"active\""), "\(right.stdout)")
    }
}

extension Review26Tests {
    /// An autoscout listing that gives a VIN kept it nowhere (not loaded) and was keyed
    /// `autoscout:ID`: the same car from a fleet file was a second row. It is now keyed by its
    /// VIN, as a fleet-record is; a listing without one keeps its `autoscout:ID` key.
    @Test func anAutoscoutListingWithAVINIsKeyedByIt() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let fleet = try Review12Tests.write("VIN,Make,Model,Odometer (km)\n1FTFW1E57KFA14352,Ford,F-150,150\n", "fleet.csv", in: dir)
        let listings = try Review12Tests.write(
            #"{"vehicles": [{"ID": "271004312", "Make": "Ford", "Model": "F-150", "FuelType": "Benzin", "Mileage (km)": 160, "FirstRegistration": "03/2019", "VIN": "1FTFW1E57KFA14352"}, "#
                + #"{"ID": "271004313", "Make": "BMW", "Model": "320d", "FuelType": "Diesel", "Mileage (km)": 90000, "FirstRegistration": "05/2018"}]}"#,
            "listings.json", in: dir)
        let db = dir.appendingPathComponent("a.db").path
        let r = try runVinyard(["import", fleet, listings, "--db", db, "--report", "json", "--quiet"])
        #expect(r.status == 0, "\(r.stderr)")
        let report = try ParsedReport(r)
        #expect(report.int("inserted") == 2 && report.int("duplicates") == 1, "\(r.stdout)")
        #expect(report.inputs.last?["source"] as? String == "autoscout", "\(r.stdout)")
        #expect(!r.stderr.contains("not loaded"), "\(r.stderr)")
        let rows = try Review12Tests.rows(db, "vehicles", columns: "_key,vin,source,source_id,odometer_km,first_registration")
        #expect(
            rows.sorted() == [
                "1FTFW1E57KFA14352,1FTFW1E57KFA14352,autoscout,271004312,160,2019-03", "autoscout:271004313,,autoscout,271004313,90000,2018-05",
            ], "\(rows)")
        let again = try runVinyard(["import", fleet, listings, "--db", db, "--report", "json", "--quiet"])
        #expect(try ParsedReport(again).int("unchanged") == 2, "\(again.stdout)")
        // The listing's optional VIN is no sign of a listing: a fleet CSV with an ID column stays
        // fleet (it was read as listings, and rows without an ID rejected; found by review).
        let table = try Review12Tests.write("ID,VIN,Make,Model,FuelType\n,1FTFW1E57KFA14352,Ford,F-150,Diesel\n", "ids.csv", in: dir)
        let t = try runVinyard(["validate", table, "--report", "json"])
        let tableSource = try ParsedReport(t).inputs.first?["source"] as? String
        #expect(t.status == 0 && tableSource == "fleet", "\(t.stdout)")
    }
}

extension Review26Tests {
    /// A fleet-record vehicle met with and without its VIN, beside a fleet file's record of the
    /// same VIN: under `last` the fleet record made the VIN's row `fleet`, without the id, so the
    /// next record of the id without its VIN added the id's row again, and the record with the
    /// VIN folded it back in: re-importing the same three inputs went 2, 1, 2, 1 rows and piled up
    /// `duplicates`. The row's id is now kept in `id_keys` before a rewrite takes it; after the
    /// one-time fold of the first load's two rows (reported as `folded`), every re-import is a
    /// no-op. Imported one input a run, night after night, the id's row is not added again either.
    @Test func aFleetRecordIDKeepsItsVehicleAcrossSources() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let fleet = try Review12Tests.write("VIN,Make,Model,Odometer (km)\n1FTFW1E57KFA14352,Ford,F-150,150\n", "fleetA.csv", in: dir)
        let record = #"{"id":"veh-1","make":"Ford","model":"F-150","year":2019,"type":"truck","licensePlate":"A1","#
        let withoutVIN = try Review12Tests.write("[" + record + #""vin":null,"fuelType":"gasoline","odometer":100,"status":"active"}]"#, "fold1.json", in: dir)
        let withVIN = try Review12Tests.write(
            "[" + record + #""vin":"1FTFW1E57KFA14352","fuelType":"gasoline","odometer":200,"status":"active"}]"#, "fold2.json", in: dir)
        let db = dir.appendingPathComponent("o.db").path
        func run(_ inputs: [String], _ db: String) throws -> (report: ParsedReport, rows: Int, duplicates: Int) {
            let r = try runVinyard(["import"] + inputs + ["--db", db, "--report", "json", "--quiet"])
            #expect(r.status == 0, "\(r.stderr)")
            let c = try Connection(path: db, mode: .readOnly)
            return (try ParsedReport(r), Int(try c.scalarInt("SELECT count(*) FROM vehicles") ?? -1), Int(try c.scalarInt("SELECT count(*) FROM duplicates") ?? -1))
        }
        let first = try run([fleet, withoutVIN, withVIN], db)
        #expect(first.rows == 2 && first.report.int("folded") == 0)
        let second = try run([fleet, withoutVIN, withVIN], db)
        #expect(second.rows == 1 && second.report.int("folded") == 1 && second.report.int("inserted") == 0, "\(second)")
        for _ in 0..<3 {
            let again = try run([fleet, withoutVIN, withVIN], db)
            #expect(again.rows == 1 && again.duplicates == second.duplicates, "\(again)")
            #expect(again.report.int("inserted") == 0 && again.report.int("updated") == 0 && again.report.int("folded") == 0, "\(again)")
        }
        #expect(try Review12Tests.rows(db, "vehicles", columns: "_key,source,source_id,odometer_km") == ["1FTFW1E57KFA14352,fleet-record,veh-1,200"])

        // One input a run: the id finds its vehicle through the kept key each night.
        let nightly = dir.appendingPathComponent("n.db").path
        for night in 0..<3 {
            for input in [withoutVIN, withVIN, fleet] {
                let r = try run([input], nightly)
                #expect(r.rows == 1 && r.report.int("inserted") == (night == 0 && input == withoutVIN ? 1 : 0), "night \(night) \(input): \(r)")
                #expect(r.duplicates <= 2, "night \(night) \(input): \(r)")
            }
        }
        #expect(try Review12Tests.rows(nightly, "vehicles", columns: "_key,source,odometer_km") == ["1FTFW1E57KFA14352,fleet,150"])

        // The record with the VIN and the fleet file's in one run (the row this run wrote loses the
        // id to the fleet record), then the id alone: one row (found by review).
        let changed = try Review12Tests.write(
            "[" + record + #""vin":"1FTFW1E57KFA14352","fuelType":"gasoline","odometer":300,"status":"active"}]"#, "fold3.json", in: dir)
        for order in [[withVIN, fleet], [changed, fleet]] {
            let same = dir.appendingPathComponent("s\(order[0].count).db").path
            try? FileManager.default.removeItem(atPath: same)
            _ = try run([withVIN], same)
            _ = try run(order, same)
            let after = try run([withoutVIN], same)
            #expect(after.rows == 1 && after.report.int("inserted") == 0, "\(order): \(after)")
        }
    }
}

extension Review26Tests {
    /// An input with nothing to tell its source by (an empty file) reports `"source": null`, not
    /// an empty name; a forced source is still named.
    @Test func anEmptyInputsSourceIsNull() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let empty = try Review12Tests.write("", "empty.csv", in: dir)
        let r = try runVinyard(["validate", empty, "--report", "json"])
        #expect(r.status == 0, "\(r.stderr)")
        let input = try #require(try ParsedReport(r).inputs.first)
        #expect(input["source"] is NSNull, "\(r.stdout)")
        let forced = try runVinyard(["validate", empty, "--report", "json", "--source", "fleet"])
        #expect(try ParsedReport(forced).inputs.first?["source"] as? String == "fleet", "\(forced.stdout)")
    }
}

extension Review26Tests {
    /// A registration date no vehicle can have (`2099-01-01`, `1850-05-01`, `0001-01-01`) was
    /// loaded without a word: the schema's minimum and maximum are years for a date field, and
    /// `first_registration` takes 1886 to next year (`field.range`, an error). Next year's date
    /// and 1886 itself load.
    @Test func aRegistrationOutsideItsYearsIsAFieldRangeReject() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let next = VINDecoder.currentCalendarYear + 1
        let input = try Review12Tests.write(
            "vin,make,first_registration\n1FTFW1E57KFA14352,Ford,2099-01-01\n1HGCV1F52MA000123,Honda,1850-05-01\n"
                + "1C4PJMAK2CW184491,Jeep,0001-01-01\n2HKRM3H38EH550410,Honda,12/\(next)\nKNAFU4A2XD5739551,Kia,1886-01\n",
            "dates.csv", in: dir)
        let findings = dir.appendingPathComponent("f.csv").path
        let r = try runVinyard(["validate", input, "--findings", findings, "--report", "json"])
        #expect(r.status == 1, "\(r.stderr)")
        let report = try ParsedReport(r)
        #expect(report.int("rejected") == 3 && report.findings["field.range"] == 3, "\(r.stdout)")
        let text = try String(contentsOfFile: findings, encoding: .utf8)
        #expect(text.contains("'2099-01-01' is after \(next)") && text.contains("'0001-01-01' is before 1886"), "\(text)")
        // A Unix time and an OData date are checked too (they skipped it; found by audit).
        let json = try Review12Tests.write(
            #"{"vin": "1FTFW1E57KFA14352", "make": "Ford", "first_registration": 4102444800}"# + "\n"
                + #"{"vin": "1HGCV1F52MA000123", "make": "Honda", "first_registration": "/Date(4102444800000)/"}"# + "\n"
                + #"{"vin": "1C4PJMAK2CW184491", "make": "Jeep", "first_registration": 1500000000}"# + "\n",
            "dates.jsonl", in: dir)
        let j = try runVinyard(["validate", json, "--report", "json"])
        #expect(try ParsedReport(j).findings["field.range"] == 2 && ParsedReport(j).int("rejected") == 2, "\(j.stdout)")
    }
}

extension Review26Tests {
    /// The same export copied to a new name each night (`fleet-2026-11-02.csv`) added all its
    /// rejects, duplicates and conflict findings again each run (6 broken rows were 24 rejects
    /// after four nights) while the run said "nothing changed". What earlier runs kept of an input
    /// with the same bytes under another name now goes when this run keeps it again; what an
    /// update overwrote (a cross-run `replaced` entry) stays.
    @Test(arguments: ["last", "first", "merge"])
    func aRenamedCopyDoesNotPileUpBookkeeping(policy: String) throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let db = dir.appendingPathComponent("n.db").path
        let sampleText = try String(contentsOfFile: sample("fleet.csv"), encoding: .utf8)
        func tables() throws -> [Int] {
            let c = try Connection(path: db, mode: .readOnly)
            return try ["rejects", "duplicates", "findings"].map { Int(try c.scalarInt("SELECT count(*) FROM \($0)") ?? -1) }
        }
        var first: [Int] = []
        for night in 1...4 {
            let name = try Review12Tests.write(sampleText, "fleet-2026-11-0\(night).csv", in: dir)
            let r = try runVinyard(["import", name, "--db", db, "--on-duplicate", policy, "--quiet"])
            #expect(r.status == 0, "\(r.stderr)")
            if night == 1 { first = try tables() } else { #expect(try tables() == first, "night \(night)") }
            if night > 1 { #expect(r.stdout.contains("nothing changed"), "\(r.stdout)") }
        }
        #expect(first[0] > 0 && first[1] > 0, "\(first)")
        // An export changed and changed back under one name: the update back keeps the changed
        // values (a cross-run `replaced` entry, under last); the first bytes under yet another
        // name then forget that name's copies of those bytes, not what the update kept.
        func count(_ text: String) throws -> Int {
            Int(try Connection(path: db, mode: .readOnly).scalarInt("SELECT count(*) FROM duplicates WHERE raw LIKE '%\(text)%'") ?? -1)
        }
        let x = dir.appendingPathComponent("x.csv").path
        try sampleText.replacingOccurrences(of: ";45210;", with: ";45999;").write(toFile: x, atomically: true, encoding: .utf8)
        _ = try runVinyard(["import", x, "--db", db, "--on-duplicate", policy, "--quiet"])
        try sampleText.write(toFile: x, atomically: true, encoding: .utf8)
        _ = try runVinyard(["import", x, "--db", db, "--on-duplicate", policy, "--quiet"])
        let kept = try count("45999")
        if policy == "last" { #expect(kept >= 1) }
        let y = try Review12Tests.write(sampleText, "y.csv", in: dir)
        _ = try runVinyard(["import", y, "--db", db, "--on-duplicate", policy, "--quiet"])
        #expect(try count("45999") == kept)
        #expect(try tables()[0] == first[0], "rejects of the same bytes, once")
    }
}
