import Foundation
import Testing
import VinyardKit

/// Black-box findings of review 14 (an audit of the output side: export, emissions, decode,
/// generate/stats, exit codes), each run through the built binary.
@Suite struct Review14Tests {
    /// Writes `text` to `name` in `dir` and returns its path.
    static func write(_ text: String, _ name: String, in dir: URL) throws -> String {
        let url = dir.appendingPathComponent(name)
        try Data(text.utf8).write(to: url)
        return url.path
    }

    /// Imports `text` (saved as `name`) into a new database in `dir` and returns its path.
    static func database(_ text: String, _ name: String, in dir: URL) throws -> String {
        let input = try write(text, name, in: dir)
        let db = dir.appendingPathComponent("v.db").path
        let r = try runVinyard(["import", input, "--db", db, "--quiet"])
        #expect(r.status == 0, "\(r.stderr)")
        return db
    }

    /// Numbers are written as they are, in every format: a small or huge real came out in
    /// exponent form (`1e-05`, `5e-05`, `1e+16`), which spreadsheets and CSV readers take for
    /// text or another number.
    @Test func numbersAreNeverWrittenWithAnExponent() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let db = try Self.database(
            #"[{"vin": "JM1GJ1W65E1143959", "make": "Mazda", "odometer_km": 5001, "price": 1e16, "latitude": 0.00001, "longitude": -0.00002}, {"vin": "1HGCV1F52MA000123", "make": "Honda", "price": 0.00005, "latitude": 40.6515, "longitude": -73.9442}]"#,
            "tiny.json", in: dir)
        let csv = try runVinyard(["export", "--db", db, "--columns", "vin,price,latitude,longitude"])
        #expect(csv.status == 0, "\(csv.stderr)")
        #expect(
            csv.stdout
                == "vin,price,latitude,longitude\n1HGCV1F52MA000123,0.00005,40.6515,-73.9442\nJM1GJ1W65E1143959,10000000000000000,0.00001,-0.00002\n")
        let json = try runVinyard(["export", "--db", db, "--columns", "vin,price,latitude", "--format", "jsonl"])
        #expect(
            json.stdout
                == "{\"vin\":\"1HGCV1F52MA000123\",\"price\":0.00005,\"latitude\":40.6515}\n{\"vin\":\"JM1GJ1W65E1143959\",\"price\":10000000000000000,\"latitude\":0.00001}\n")
        let geo = try runVinyard(["export", "--db", db, "--format", "geojson", "--columns", "vin", "--where", "vin~JM1"])
        #expect(geo.stdout.contains("\"coordinates\":[-0.00002,0.00001]"), "\(geo.stdout)")
        let emissions = try runVinyard(["emissions", "--db", db, "--format", "csv", "--columns", "vin,price,emissions", "--where", "vin~JM1"])
        #expect(emissions.stdout == "vin,price,emissions\nJM1GJ1W65E1143959,10000000000000000,5001.5\n", "\(emissions.stdout)")
    }
}
