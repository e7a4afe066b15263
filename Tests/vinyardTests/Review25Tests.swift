import Foundation
import Testing
import VinyardKit

/// Findings of review 25 (session 22): audits of real-world VINs, of the generator's truth and
/// of hostile inputs, each run through the built binary where a user would meet it.
@Suite struct Review25Tests {
    /// A fleet-record record with keys `fleet` also knows (`color`) was read as `fleet`, which
    /// knew more of its keys: records without a VIN were rejected (`fleet` requires one) instead
    /// of keyed by their id. A specific source now loads such keys into the schema fields it does
    /// not fill itself (by their names and aliases), so the colour is kept and the source stays.
    @Test func aSpecificSourcesExtraKeysLoadByTheSchemasAliases() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let input = try Review12Tests.write(
            #"{"id": "FR-1", "make": "Ford", "model": "Transit", "year": 2019, "type": "van", "licensePlate": "AB-123", "vin": null, "fuelType": "diesel", "odometer": 120000, "status": "active", "color": "white", "engine": "2.0"}"#
                + "\n"
                + #"{"id": "FR-2", "make": "Honda", "model": "Accord", "year": 2021, "type": "car", "licensePlate": "CD-456", "vin": "1HGCV1F52MA000123", "fuelType": "petrol", "odometer": 50000, "status": "active", "color": "red"}"#
                + "\n", "records.jsonl", in: dir)
        let db = dir.appendingPathComponent("r.db").path
        let r = try runVinyard(["import", input, "--db", db, "--report", "json", "--quiet"])
        #expect(r.status == 0, "\(r.stderr)")
        let report = try ParsedReport(r)
        #expect(report.int("inserted") == 2 && report.int("rejected") == 0, "\(r.stdout)")
        #expect(report.inputs.first?["source"] as? String == "fleet-record", "\(r.stdout)")
        // The key nothing maps is still named.
        let warnings = report.inputs.first?["warnings"] as? [String] ?? []
        #expect(warnings.count == 1 && warnings[0].contains("'engine'"), "\(warnings)")
        let rows = try Review12Tests.rows(db, "vehicles", columns: "_key,color,source,source_id")
        #expect(rows.sorted() == ["1HGCV1F52MA000123,red,fleet-record,FR-2", "fleet-record:FR-1,white,fleet-record,FR-1"], "\(rows)")

        // An autoscout listing's `Gearbox` is the transmission; a VIN beside a listing is no
        // field of it (the listing is keyed by its ID), and says so.
        let listing = try Review12Tests.write(
            #"{"vehicles": [{"ID": "A1", "Make": "BMW", "Model": "320d", "FirstRegistration": "05/2018", "Gearbox": "Automatic", "VIN": "WBA8E9G52HNU12345"}]}"#,
            "listing.json", in: dir)
        let adb = dir.appendingPathComponent("a.db").path
        let a = try runVinyard(["import", listing, "--db", adb, "--report", "json", "--quiet"])
        #expect(a.status == 0, "\(a.stderr)")
        let aw = try ParsedReport(a).inputs.first?["warnings"] as? [String] ?? []
        #expect(aw.count == 1 && aw[0].contains("'VIN'"), "\(aw)")
        #expect(try Review12Tests.rows(adb, "vehicles", columns: "_key,transmission,vin") == ["autoscout:A1,automatic,"])
    }

    /// Mercedes-Benz's European VINs have the model series as digits at positions 4-6 and no
    /// model year at position 10 (the steering side): a VIN whose position 9 passed the check by
    /// chance (one in 11) decoded as a 2001 car and got a `vin.year_mismatch` beside its real year.
    /// Its US-market VINs (letters there) keep their year.
    @Test func europeanMercedesVINsDecodeNoModelYear() throws {
        let d = try runVinyard(["decode", "W1K2050081R123456", "WDD2040081A167295", "WDDGF8AB2DR123456", "--format", "json"])
        #expect(d.status == 0, "\(d.stderr)")
        let rows = try #require(try JSONSerialization.jsonObject(with: Data(d.stdout.utf8)) as? [[String: Any]])
        #expect(rows.count == 3)
        #expect(rows[0]["model_years"] as? [Int] == [] && rows[0]["model_year"] is NSNull, "\(rows[0])")
        #expect(rows[1]["model_years"] as? [Int] == [], "\(rows[1])")
        #expect(rows[2]["model_year"] as? Int == 2013, "\(rows[2])")
        #expect(rows.allSatisfy { $0["manufacturer"] as? String == "Mercedes-Benz" })

        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let csv = try Review12Tests.write(
            "vin,make,model,model_year\nW1K2050081R123456,Mercedes-Benz,C 200,2020\nWDD2050081F654321,Mercedes-Benz,C 180,2016\n",
            "merc.csv", in: dir)
        let v = try runVinyard(["validate", csv, "--report", "json"])
        #expect(v.status == 0, "\(v.stdout)")
        #expect(try ParsedReport(v).findings.isEmpty, "\(v.stdout)")
        let db = dir.appendingPathComponent("m.db").path
        _ = try runVinyard(["import", csv, "--db", db, "--quiet"])
        #expect(try Review12Tests.rows(db, "vehicles", columns: "model_year,vin_model_years").sorted() == ["2016,", "2020,"])
    }

    /// A wrong check digit on a North American VIN with a letter at position 7 (dated 2010-2039
    /// by the position-7 rule) was "probably" the VIN with a digit there: a 2017 Bolt became a 1987
    /// car, for one of every ten wrong digits. Letter and digit are both legal there; only an
    /// illegal I, O or Q at position 7 is still repaired, and other positions are as before.
    @Test func noRepairMovesTheModelYearByThirtyYears() throws {
        let analysis = VINEngine.analyze("1G1FW6S03H4100000", currentYear: 2026)
        #expect(analysis.findings.map(\.code) == [.vinCheckDigit])
        #expect(analysis.suggestion == nil, "\(analysis.suggestion ?? "")")
        #expect(analysis.modelYear == 2017)
        // A typo elsewhere is still found (O for 0 in the serial).
        #expect(VINEngine.analyze("1HGCV1F52MA0O0123", currentYear: 2026).suggestion == "1HGCV1F52MA000123")
        let d = try runVinyard(["decode", "1G1FW6S03H4100000", "--format", "json"])
        let row = try #require((try JSONSerialization.jsonObject(with: Data(d.stdout.utf8)) as? [[String: Any]])?.first)
        #expect(row["suggestion"] is NSNull, "\(row)")
    }

    /// A make written as its brand or as the company (`Scion` on a Subaru-built FR-S, `Zeekr` on
    /// Geely's L6T, `Daimler AG`, `PSA`, `JLR`, `Stellantis`, `Kia Motors Corporation`) was a
    /// `vin.make_mismatch`; a make of another group still is.
    @Test func brandsAndCompanyNamesAgreeWithTheirMakersVINs() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let rows = [
            "JF1ZNAA19D1700000,Scion", "3C3CFFJH9DT123456,Abarth", "LJ1EEASP5N4123456,NIO", "L6TCX2E71NE123456,Zeekr",
            "LC0CE4CB9N0123456,Denza", "LVVDB11B5KD123456,Omoda", "LGWEF4A52KF123456,Ora", "LSJA24U33NS123456,Roewe",
            "WDD20500XKR456789,Daimler AG", "VF38DAHX3JL123456,PSA", "JF1GJAA65EH123456,Fuji Heavy Industries",
            "SALGA2BE1KA123456,JLR", "1C4RJFAG6FC123456,Stellantis", "KNAFU4A2XD5739551,Kia Motors Corporation",
            "1FTFW1E57KFA14352,Toyota",
        ]
        let csv = try Review12Tests.write("vin,make\n" + rows.joined(separator: "\n") + "\n", "makes.csv", in: dir)
        let findings = dir.appendingPathComponent("f.csv").path
        let r = try runVinyard(["validate", csv, "--findings", findings, "--report", "json"])
        #expect(r.status == 0, "\(r.stdout)")
        // Only Toyota on Ford's 1FT, the last line.
        let mismatches = try String(contentsOfFile: findings, encoding: .utf8).split(separator: "\n").filter { $0.contains("vin.make_mismatch") }
        #expect(mismatches.count == 1 && mismatches[0].contains(",16,") && mismatches[0].contains("'Toyota'"), "\(mismatches)")
        #expect(try ParsedReport(r).findings.keys.sorted() == ["vin.make_mismatch"], "\(r.stdout)")
    }
}
