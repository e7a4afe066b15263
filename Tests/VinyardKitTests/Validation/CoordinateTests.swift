import Testing
@testable import VinyardKit

@Suite struct CoordinateTests {
    func codes(_ lat: String?, _ lon: String?) -> [String] {
        CoordinateValidator.check(latitude: lat, longitude: lon).findings.map(\.code.rawValue)
    }

    @Test func validPairs() {
        let c = CoordinateValidator.check(latitude: "52.3547498", longitude: "4.8339215")
        #expect(c.findings.isEmpty)
        #expect(c.latitude == 52.3547498 && c.longitude == 4.8339215)
        #expect(codes("-90", "180") == [])
        #expect(codes("40.4380638", "-3.7495758") == [])
    }

    @Test func bothAbsentIsFine() {
        #expect(codes(nil, nil) == [])
        #expect(codes("", "  ") == [])
    }

    @Test(arguments: [
        ("91", "4", ["coord.swapped"]), ("91", "95", ["coord.latitude"]), ("-200", "4", ["coord.latitude"]), ("abc", "4", ["coord.latitude"]),
        ("52", "181", ["coord.longitude"]), ("52", "east", ["coord.longitude"]), ("52", nil, ["coord.incomplete"]),
        (nil, "4", ["coord.incomplete"]), ("95", nil, ["coord.incomplete", "coord.latitude"]),
        ("139.6917", "35.6895", ["coord.swapped"]), ("-151.2", "-33.8", ["coord.swapped"]),
        ("100", "100", ["coord.latitude"]), ("200", "300", ["coord.latitude", "coord.longitude"]),
        ("0", "0", ["coord.null_island"]), ("x", "y", ["coord.latitude", "coord.longitude"]),
    ] as [(String?, String?, [String])])
    func defects(_ lat: String?, _ lon: String?, _ expected: [String]) {
        #expect(codes(lat, lon) == expected)
    }

    @Test func swappedSuggestsTheSwap() throws {
        let c = CoordinateValidator.check(latitude: "139.6917", longitude: "35.6895")
        let f = try #require(c.findings.first)
        #expect(f.severity == .error)
        #expect(f.message.contains("swapped"))
        #expect(f.suggestion == "35.6895,139.6917")
        #expect(c.latitude == nil)
    }

    @Test func nullIslandIsAWarningAndKeepsValues() {
        let c = CoordinateValidator.check(latitude: "0", longitude: "0")
        #expect(c.findings.map(\.severity) == [.warning])
        #expect(c.latitude == 0 && c.longitude == 0)
    }

    @Test func decimalComma() {
        let c = CoordinateValidator.check(latitude: "55,6713442", longitude: "12,523785", decimal: .comma)
        #expect(c.findings.isEmpty)
        #expect(c.latitude == 55.6713442)
    }
}
