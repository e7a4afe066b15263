import Foundation
import Testing

/// Options that say how an input writes its values, through the built binary.
@Suite struct InputOptionTests {
    /// `--date-format MM/dd/yyyy` reads US dates (ISO ones too), also those that alone are
    /// ambiguous (`3/4/2019`); a pattern without a year or month is a usage error.
    @Test func dateFormatOption() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let input = dir.appendingPathComponent("us.csv")
        try Data("VIN,In Service Date,Purchase Price\n1FTFW1E57KFA14352,3/4/2019,\"$32,500.00\"\n1HGCV1F52MA000123,2021-06-01,\n".utf8)
            .write(to: input)
        let plain = try runVinyard(["validate", input.path, "--report", "json", "--quiet"])
        #expect(plain.status == 1, "\(plain.stderr)")
        let r = try runVinyard(["convert", input.path, "-o", "-", "--format", "jsonl", "--date-format", "M/d/yyyy", "--quiet"])
        #expect(r.status == 0, "\(r.stderr)")
        let rows = try r.stdout.split(separator: "\n").map {
            try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
        }
        #expect(rows.map { $0["first_registration"] as? String } == ["2019-03-04", "2021-06-01"])
        #expect(rows.first?["price"] as? Double == 32500)
        let bad = try runVinyard(["validate", input.path, "--date-format", "dd/MM", "--quiet"])
        #expect(bad.status == 64)
        #expect(bad.stderr.contains("--date-format 'dd/MM'"), "\(bad.stderr)")
    }
}
