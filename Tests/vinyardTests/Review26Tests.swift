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
