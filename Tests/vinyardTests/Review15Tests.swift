import Foundation
import Testing
import VinyardKit

/// Black-box findings of review 15 (a VIN decoding audit and a dirty-fleet-file audit), each run
/// through the built binary.
@Suite struct Review15Tests {
    /// A VIN with Excel's autocorrected dash (an en dash, byte 0x96 in a Windows-1252 export) or a
    /// form feed was checked without it and stored with it: one vehicle became two keys, and the
    /// 18-character key had no finding.
    @Test func vinWithADashOfAnotherKindIsOneVehicle() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let input = dir.appendingPathComponent("cp.csv")
        var bytes = Array("VIN;Make\r\n1FTFW1E57KFA14352;Ford\r\n1FTFW1E57".utf8) + [0x96] + Array("KFA14352;Ford\r\n".utf8)
        bytes += Array("1FTFW1E57\u{0C}KFA14352;Ford\r\n".utf8)
        try Data(bytes).write(to: input)
        let db = dir.appendingPathComponent("cp.db").path
        let r = try runVinyard(["import", input.path, "--db", db, "--report", "json"])
        #expect(r.status == 0, "\(r.stderr)")
        let report = try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])
        #expect(report["inserted"] as? Int == 1, "\(r.stdout)")
        #expect(report["duplicates"] as? Int == 2, "\(r.stdout)")
        let keys = try runVinyard(["export", "--db", db, "--columns", "vin"])
        #expect(keys.stdout == "vin\n1FTFW1E57KFA14352\n", "\(keys.stdout)")
    }

    /// `decode` suggests only VINs that are valid themselves: a repair that would put U, Z or 0
    /// at position 10 (not a model-year code) is no suggestion.
    @Test func suggestionsAreValidVINs() throws {
        let r = try runVinyard(["decode", "1HGCM82622A004352", "1HGCM8269OA004352", "--format", "json"])
        let list = try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [[String: Any]])
        #expect(list.count == 2)
        for entry in list { #expect(entry["suggestion"] is NSNull, "\(entry)") }
    }

    /// A make of another group beside a VIN is a `vin.make_mismatch` where vPIC lists it among the
    /// WMI's makes but its patterns name it for other VINs (a Ford WMI lists Mazda and Nissan, 1C4
    /// Volkswagen, KNA Hyundai); a make of the VIN's own group (Dodge or Lancia on a
    /// Chrysler-group VIN, Lincoln on a Ford one) still agrees.
    @Test func makesOfAnotherGroupAreMismatches() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let rows = [
            ("1C4PJMAK2CW184491", "Volkswagen", true), ("1C4PJMAK2CW184491", "Lancia", false),
            ("1C4PJMAK2CW184491", "Dodge", false), ("1FTFW1E57KFA14352", "Mazda", true),
            ("1FTFW1E57KFA14352", "Nissan", true), ("1FTFW1E57KFA14352", "Lincoln", false),
            ("KNAFU4A2XD5739551", "Hyundai", true), ("KNAFU4A2XD5739551", "KIA", false),
            // Where vPIC's patterns say nothing about a listed make, it agrees: Hyundai Russia
            // (Z94, no patterns) builds Kias, GM South Africa Chevrolets, Mazda (JC1) the Abarth 124.
            ("Z94CB41ABHR123456", "Kia", false), ("ADMJA8A6XD1234567", "Chevrolet", false),
            ("JC1NFAEK3H0100123", "Abarth", false),
        ]
        for (vin, make, mismatch) in rows {
            let input = dir.appendingPathComponent("row.csv")
            try Data("VIN,Make\n\(vin),\(make)\n".utf8).write(to: input)
            let r = try runVinyard(["validate", input.path, "--report", "json"])
            let report = try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])
            let findings = report["findings"] as? [String: Int] ?? [:]
            #expect((findings["vin.make_mismatch"] ?? 0) == (mismatch ? 1 : 0), "\(vin) \(make): \(findings)")
        }
    }
}
