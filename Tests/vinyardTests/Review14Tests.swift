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

extension Review14Tests {
    /// A list field (`options`) whose cell is bracketed but not a JSON array (`[not json]`) was
    /// stored as written and exported into JSON as it was, which made the whole JSON output
    /// unreadable; it is now a one-element list of that text, as any other text cell is.
    @Test func bracketedTextThatIsNotJSONIsOneListItem() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let db = try Self.database(
            "vin,options,specs\n1FTFW1E57KFA14352,[not json],\"[\"\"a\"\", \"\"b\"\"]\"\n1HGCV1F52MA000123,\"[1,2\",[Sunroof]\n",
            "lists.csv", in: dir)
        let r = try runVinyard(["export", "--db", db, "--columns", "vin,options,specs", "--format", "json"])
        #expect(r.status == 0, "\(r.stderr)")
        let rows = try #require(try JSONSerialization.jsonObject(with: r.stdoutData) as? [[String: Any]], "\(r.stdout)")
        #expect(rows.count == 2)
        #expect(rows[0]["options"] as? [String] == ["[not json]"])
        #expect(rows[0]["specs"] as? [String] == ["a", "b"])
        #expect(rows[1]["options"] as? [String] == ["[1,2"])
        #expect(rows[1]["specs"] as? [String] == ["[Sunroof]"])
        // convert writes the same lists.
        let out = dir.appendingPathComponent("out.json").path
        let c = try runVinyard(["convert", dir.appendingPathComponent("lists.csv").path, "-o", out, "--quiet"])
        #expect(c.status == 0, "\(c.stderr)")
        let converted = try #require(
            try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: out))) as? [[String: Any]])
        #expect(converted.first?["options"] as? [String] == ["[not json]"])
    }
}

extension Review14Tests {
    /// `~` (contains) on a number or boolean field matches the value as exports write it: it
    /// searched SQLite's own text of the stored value (`1000000.0` for a whole price, `1.0e-05`,
    /// `1`/`0` for true/false), so `price~.0` found whole prices, `latitude~0.00001` found
    /// nothing and `accident_free~true` found nothing.
    @Test func containsOnNumbersAndBooleansMatchesTheWrittenValue() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let db = try Self.database(
            "vin,price,latitude,longitude,accident_free\n1FTFW1E57KFA14352,1000000,0.00001,4.5,true\n1HGCV1F52MA000123,32500.5,52.3547498,4.8339215,false\n",
            "c.csv", in: dir)
        func vins(_ condition: String) throws -> [String] {
            let r = try runVinyard(["export", "--db", db, "--columns", "vin", "--where", condition])
            #expect(r.status == 0, "\(condition): \(r.stderr)")
            return Array(r.stdout.split(separator: "\n").dropFirst().map(String.init))
        }
        #expect(try vins("price~.0") == [])
        #expect(try vins("price~00000") == ["1FTFW1E57KFA14352"])
        #expect(try vins("price~.5") == ["1HGCV1F52MA000123"])
        #expect(try vins("latitude~0.00001") == ["1FTFW1E57KFA14352"])
        #expect(try vins("latitude~e") == [])
        #expect(try vins("accident_free~true") == ["1FTFW1E57KFA14352"])
        #expect(try vins("accident_free~FALS") == ["1HGCV1F52MA000123"])
        #expect(try vins("accident_free~1") == [])
    }
}

extension Review14Tests {
    /// The position-7 model-year rule (49 CFR 565) is for North America, and for US-market cars
    /// from Japan and Korea (right check digit, known WMI); it was applied to every VIN before `S`
    /// with a right check digit, so a Brazilian Volkswagen, an Indian Suzuki or a South African
    /// Toyota of code E (1984 or 2014) with a digit at position 7 decoded as 1984.
    @Test func positionSevenRuleIsNotAppliedOutsideNorthAmericaJapanAndKorea() throws {
        let r = try runVinyard([
            "decode", "9BWAA05U7EP123456", "MA3FB32S3K0123456", "AHTFZ29G7E9123456", "KMHD841C6HU123456",
            "KNAFU4A2XD5739551", "1G1JC5244T7000001", "--format", "json",
        ])
        #expect(r.status == 0, "\(r.stderr)")
        let objects = try #require(try JSONSerialization.jsonObject(with: r.stdoutData) as? [[String: Any]])
        let years = objects.map { $0["model_year"] as? Int }
        // Brazil, India, South Africa: the latest candidate; Korea and the US keep the rule.
        #expect(years == [2014, 2019, 2014, 1987, 2013, 1996])
        #expect(objects.map { $0["model_years"] as? [Int] ?? [] }.prefix(3) == [[1984, 2014], [1989, 2019], [1984, 2014]])
    }
}

extension Review14Tests {
    /// Every command's `--help` has examples (README "Commands"); `convert` had none.
    @Test func everyCommandsHelpHasExamples() throws {
        for command in ["validate", "import", "export", "emissions", "convert", "decode", "generate", "stats"] {
            let r = try runVinyard([command, "--help"])
            #expect(r.status == 0, "\(command): \(r.stderr)")
            #expect(r.stdout.contains("Examples:"), "\(command) --help has no examples")
            #expect(r.stdout.contains("vinyard \(command) "), "\(command) --help shows no example of itself")
        }
    }
}

extension Review14Tests {
    /// The emissions text report shows a key column (`--columns key,…`, the way to name vehicles
    /// without a VIN) whole: it was cut to 16 characters with `…` (`ZFA31200XP01234…`,
    /// `autoscout:27100…`), which left the vehicles unidentifiable.
    @Test func emissionsTextReportShowsKeysWhole() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let db = dir.appendingPathComponent("v.db").path
        let samples = packageRoot.appendingPathComponent("Samples")
        let r = try runVinyard([
            "import", samples.appendingPathComponent("fleet.csv").path, samples.appendingPathComponent("autoscout.json").path,
            "--db", db, "--quiet",
        ])
        #expect(r.status == 0, "\(r.stderr)")
        let report = try runVinyard(["emissions", "--db", db, "--columns", "key,make,emissions"])
        #expect(report.status == 0, "\(report.stderr)")
        #expect(!report.stdout.contains("…"), "\(report.stdout)")
        #expect(report.stdout.contains("\nautoscout:271004312  Volkswagen "), "\(report.stdout)")
        #expect(report.stdout.contains("\n1FTFW1E57KFA14352    Ford "), "\(report.stdout)")
    }
}

extension Review14Tests {
    /// An S typed as 5 in the manufacturer code of a European VIN (SB1, Toyota UK; SAL, Land
    /// Rover) makes a North American VIN of an unknown WMI with a wrong check digit. The repair had
    /// to stay in North America, so it suggested nothing (`5ALGA2BEXLA400123`) or a second typo
    /// elsewhere that gave another unknown WMI (`5B1…` → `581KV58E0DF123456`); a repair of an
    /// unknown WMI into a known one is now allowed, and preferred.
    @Test func typoInAnUnknownWMIRepairsToTheKnownOne() throws {
        let r = try runVinyard([
            "decode", "5B1KV58E0DF123456", "5ALGA2BEXLA400123", "2FA31200XP0123456", "1FTFW1ES7KFA14352", "--format", "json",
        ])
        #expect(r.status == 0, "\(r.stderr)")
        let objects = try #require(try JSONSerialization.jsonObject(with: r.stdoutData) as? [[String: Any]])
        #expect(objects.map { $0["suggestion"] as? String } == [
            "SB1KV58E0DF123456", "SALGA2BEXLA400123",
            // A known WMI (2FA, Ford Canada) is not turned into another maker's (ZFA, Fiat).
            nil,
            "1FTFW1E57KFA14352",
        ])
    }
}
