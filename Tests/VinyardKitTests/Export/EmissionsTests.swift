import Foundation
import Testing
@testable import VinyardKit

@Suite struct EmissionsTests {
    private func run(
        _ path: String, _ query: ExportQuery = ExportQuery(), tiers: EmissionTiers = .standard, format: EmissionsFormat = .csv
    ) throws -> (text: String, summary: EmissionsSummary) {
        let store = try VinyardStore(path: path, readOnly: true)
        let sink = MemorySink()
        let summary = try EmissionsCalculator(store: store, tiers: tiers).run(query, format: format, to: sink)
        #expect(sink.closed)
        return (sink.text, summary)
    }

    /// The fixed-point path for whole-km readings gives the text and sum `Decimal` gives.
    @Test(arguments: ["5000:1,*:1.5", "1000:0.125,2500:2,*:1.333333", "1:0,*:0.000001", "10:2,20:0.5,*:0"])
    func fixedPointAgreesWithDecimal(_ spec: String) throws {
        let tiers = try EmissionTiers.parse(spec)
        let fixed = try #require(tiers.fixedPoint())
        var fixedSum: Int64 = 0
        var decimalSum = Decimal(0)
        for km in [0.0, 1, 2, 999, 1000, 1001, 2499, 2500, 2501, 4999, 5000, 5001, 12345, 150_000, 987_654_321, -5] {
            let e = try #require(fixed.emissions(km: km))
            let d = tiers.emissions(km: km)
            #expect(fixed.text(e) == "\(d)", "\(spec) at \(km) km")
            fixedSum += e
            decimalSum += d
        }
        #expect(fixed.decimal(fixedSum) == decimalSum)
        // Fractions and thresholds or rates that do not fit go through Decimal.
        #expect(fixed.emissions(km: 12000.5) == nil)
        #expect(try EmissionTiers.parse("5000.5:1,*:1.5").fixedPoint() == nil)
        #expect(try EmissionTiers.parse("5000:1.0000001,*:1.5").fixedPoint() == nil)
    }

    @Test func csvRowsAndTotals() throws {
        let path = try makeExportDatabase()
        let (text, summary) = try run(path)
        #expect(
            text == """
                vin,make,model,odometer_km,emissions
                1FTFW1E57KFA14352,Ford,F-150,5001,5001.5
                1HGCV1F52MA000123,Honda,Accord,5000,5000
                JM1GJ1W65E1143959,Mazda,6,150000,222500
                KNAFU4A2XD5739551,Kia,Forte,80000,117500
                WBA8E9G50GNT12345,BMW,3 Series,0,0
                ZZZ00000000000001,BMW' OR 1=1 --,Trick,10,10
                ,Volkswagen,Golf,12000.5,15500.75

                """)
        #expect(summary.vehicles == 7)
        #expect(summary.total == Decimal(string: "365512.25"))
        #expect(summary.withoutOdometer == 1)
        #expect(summary.withoutOdometerKeys == ["WBAKS410X00C12345"])
        // Cross-check the total against SQL arithmetic on the same rows.
        let sqlTotal = try independentRows(
            path,
            "SELECT sum(min(odometer_km, 5000) + max(odometer_km - 5000, 0) * 1.5) FROM vehicles WHERE odometer_km IS NOT NULL"
        ).first?.first
        #expect(sqlTotal == .real(365512.25))
    }

    /// GeoJSON, like export's: a FeatureCollection of points for the vehicles with coordinates,
    /// each with its row (emissions included) as properties.
    @Test func geoJSONPointsOfVehiclesWithCoordinates() throws {
        let path = try makeExportDatabase()
        let (text, summary) = try run(path, format: .geojson)
        let collection = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
        #expect(collection["type"] as? String == "FeatureCollection")
        let features = try #require(collection["features"] as? [[String: Any]])
        let located = try independentRows(
            path,
            "SELECT vin, longitude, latitude FROM vehicles WHERE typeof(odometer_km) IN ('integer','real') AND odometer_km >= 0 "
                + "AND typeof(latitude) IN ('integer','real') AND typeof(longitude) IN ('integer','real') ORDER BY _key")
        #expect(!located.isEmpty)
        #expect(features.count == located.count)
        #expect(summary.vehicles == located.count)
        for (feature, row) in zip(features, located) {
            let geometry = feature["geometry"] as? [String: Any]
            let coordinates = (geometry?["coordinates"] as? [NSNumber])?.map(\.doubleValue)
            func number(_ v: FieldValue??) -> Double? {
                switch v {
                case .some(.real(let d)?): d
                case .some(.integer(let i)?): Double(i)
                default: nil
                }
            }
            #expect(coordinates == [number(row[1]), number(row[2])].compactMap { $0 })
            let properties = feature["properties"] as? [String: Any]
            #expect(properties?["vin"] as? String == row[0]?.text)
            #expect(properties?["emissions"] is NSNumber)
        }
    }

    /// One line per vehicle in the text table, also when a cell holds a line break (it split the row).
    @Test func textTableKeepsOneLinePerVehicle() throws {
        let path = try makeExportDatabase(vehicles: [
            TestVehicle(key: "1HGCV1F52MA000123", vin: "1HGCV1F52MA000123", make: "Honda", model: "Accord\nEX-L", km: 6000),
            TestVehicle(key: "1FTFW1E57KFA14352", vin: "1FTFW1E57KFA14352", make: "Ford", model: "F-150\tXLT", km: 100),
        ])
        let (text, _) = try run(path, format: .text)
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        let rows = lines.filter { $0.hasPrefix("1HGCV1F52MA000123") || $0.hasPrefix("1FTFW1E57KFA14352") }
        #expect(rows.count == 2, "\(text)")
        #expect(rows.contains { $0.contains("Accord EX-L") && $0.hasSuffix("6500") }, "\(text)")
        #expect(rows.contains { $0.contains("F-150 XLT") && $0.hasSuffix("100") }, "\(text)")
        #expect(!lines.contains { $0.hasPrefix("EX-L") }, "\(text)")
    }

    @Test func filtersSortsTiersAndJSON() throws {
        let path = try makeExportDatabase()
        let query = ExportQuery(
            conditions: [try Condition.parse("status in active,maintenance")], sort: [SortKey(field: "emissions", descending: true)],
            limit: 2)
        let (text, summary) = try run(path, query, tiers: try EmissionTiers.parse("10000:1,*:2"), format: .json)
        let array = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [[String: Any]])
        #expect(array.map { $0["vin"] as? String } == ["KNAFU4A2XD5739551", nil])
        #expect((array[0]["emissions"] as? NSNumber)?.doubleValue == 150000)
        #expect((array[1]["emissions"] as? NSNumber)?.doubleValue == 14001)
        #expect(summary.total == 164001)
        #expect(summary.withoutOdometer == 0)
    }

    @Test func textReportEndsWithTotalAndMissing() throws {
        let path = try makeExportDatabase()
        let (text, _) = try run(path, ExportQuery(conditions: [try Condition.parse("make~bmw")]), format: .text)
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        #expect(lines.contains("vin                make              model              odometer_km     emissions"))
        #expect(lines.contains("WBA8E9G50GNT12345  BMW               3 Series                     0             0"))
        #expect(text.contains("Vehicles: 2\nFleet total: 10 units\n"))
        #expect(text.hasSuffix("1 vehicle without a usable odometer_km reading (not estimated):\n  WBAKS410X00C12345\n"))
        let all = try run(path, format: .text).text
        #expect(all.contains("\n[autoscout:42]     Volkswagen        Golf                   12000.5      15500.75\n\nVehicles: 7\nFleet total: 365512.25 units\n"))
    }

    @Test func keyColumnAndErrors() throws {
        let path = try makeExportDatabase()
        let (text, _) = try run(path, ExportQuery(conditions: [try Condition.parse("vin=")], columns: ["key", "emissions"]))
        #expect(text == "_key,emissions\nautoscout:42,15500.75\n")
        for query in [
            ExportQuery(conditions: [Condition(field: "emissions", op: .greater, values: ["5"])]),
            ExportQuery(columns: ["vin", "emissions", "emissions"]),
            ExportQuery(columns: ["vin", "(select 1)"]),
            ExportQuery(sort: [SortKey(field: "emissions; DROP TABLE vehicles")]),
            ExportQuery(table: "locations"),
        ] {
            #expect(throws: VinyardError.self) { try run(path, query) }
        }
    }

    @Test func manyMissingAreCountedAndListedBounded() throws {
        var fleet: [TestVehicle] = []
        for i in 0..<30 { fleet.append(TestVehicle(key: String(format: "VIN%05d", i), vin: String(format: "VIN%05d", i), make: "X")) }
        fleet.append(TestVehicle(key: "VIN99999", vin: "VIN99999", make: "X", km: 6000))
        let path = try makeExportDatabase(vehicles: fleet)
        let (_, summary) = try run(path)
        #expect(summary.withoutOdometer == 30)
        #expect(summary.withoutOdometerKeys.count == EmissionsSummary.listedKeys)
        #expect(summary.withoutOdometerLines.last == "  … and 10 more")
        #expect(summary.total == 6500)
    }
}
