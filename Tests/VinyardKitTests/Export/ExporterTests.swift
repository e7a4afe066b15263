import Foundation
import Testing
@testable import VinyardKit

@Suite struct ExporterTests {
    private func export(
        _ path: String, _ query: ExportQuery, format: ExportFormat = .csv, guardFormulas: Bool = true
    ) throws -> (text: String, summary: ExportSummary) {
        let store = try VinyardStore(path: path, readOnly: true)
        let sink = MemorySink()
        let summary = try Exporter(store: store, guardFormulas: guardFormulas).export(query, format: format, to: sink)
        #expect(sink.closed)
        return (sink.text, summary)
    }

    /// The keys an export with `conditions` returns, in order.
    private func exportedKeys(_ path: String, _ conditions: [String], sort: [String] = []) throws -> [String] {
        let query = ExportQuery(
            conditions: try conditions.map(Condition.parse), sort: try sort.map(SortKey.parse), columns: ["key"])
        let lines = try export(path, query).text.split(separator: "\n").map(String.init)
        #expect(lines.first == "_key")
        return Array(lines.dropFirst())
    }

    private func sqlKeys(_ path: String, _ whereSQL: String, order: String = "_key") throws -> [String] {
        try independentRows(path, "SELECT _key FROM vehicles WHERE \(whereSQL) ORDER BY \(order)").map {
            $0[0]?.text ?? ""
        }
    }

    @Test(arguments: [
        (["make=BMW"], "make = 'BMW'"),
        (["make!=BMW"], "make IS NOT 'BMW'"),
        (["year>=2016"], "model_year >= 2016"),
        (["year > 2016"], "model_year > 2016"),
        (["model_year<2016"], "model_year < 2016"),
        (["year<=2014"], "model_year <= 2014"),
        (["odometer>5000"], "odometer_km > 5000"),
        (["kilometrage>=5000.5"], "odometer_km >= 5000.5"),
        (["odometer_km<1000"], "odometer_km < 1000"),
        (["car_type=sedan"], "lower(body_class) = 'sedan'"),  // text matches ignore case
        (["body_style~SEDAN"], "lower(body_class) LIKE '%sedan%'"),
        (["status in active,maintenance"], "status IN ('active','maintenance')"),
        (["status in active,maintenance", "year>=2019"], "status IN ('active','maintenance') AND model_year >= 2019"),
        (["notes~100%"], "instr(notes, '100%') > 0"),
        (["notes~sure_"], "instr(notes, 'sure_') > 0"),
        (["notes~%"], "instr(notes, '%') > 0"),
        (["make~w"], "lower(make) LIKE '%w%'"),
        (["vin>=K"], "vin >= 'K'"),
        (["accident_free=true"], "accident_free = 1"),
        (["accident_free=no"], "accident_free = 0"),
        (["lat>0", "lon<0"], "latitude > 0 AND longitude < 0"),
        (["notes="], "(notes IS NULL OR notes = '')"),
        (["vin!="], "vin IS NOT NULL AND vin <> ''"),
        (["make=BMW' OR 1=1 --"], "make = 'BMW'' OR 1=1 --'"),
        (["make=bmw"], "lower(make) = 'bmw'"),
        (["make in bmw,KIA"], "lower(make) IN ('bmw','kia')"),
        (["make!=bmw"], "lower(make) IS NOT 'bmw'"),
        (["_source=autoscout"], "_source = 'autoscout'"),
        (["model=6"], "model = '6'"),
    ])
    func filtersMatchIndependentSQL(_ conditions: [String], _ whereSQL: String) throws {
        let path = try makeExportDatabase()
        let expected = try sqlKeys(path, whereSQL)
        #expect(try exportedKeys(path, conditions) == expected)
    }

    /// `~` ignores case in every script, not only ASCII (SQLite's lower() folds ASCII only).
    @Test func containsIgnoresCaseBeyondASCII() throws {
        let dir = try makeStoreDirectory()
        let path = dir.appendingPathComponent("v.db").path
        let store = try VinyardStore(path: path)
        _ = try store.importRecords([
            testRecord("TMBJJ7NE9J0123456", make: "Škoda", line: 2),
            testRecord("WVWZZZ1JZXW000001", make: "VOLKSWAGEN", line: 3),
            testRecord("VF1RFB00858123456", make: "Citroën", line: 4),
        ])
        #expect(try exportedKeys(path, ["make~škoda"]) == ["TMBJJ7NE9J0123456"])
        #expect(try exportedKeys(path, ["make~ŠKODA"]) == ["TMBJJ7NE9J0123456"])
        #expect(try exportedKeys(path, ["make~CITROËN"]) == ["VF1RFB00858123456"])
        #expect(try exportedKeys(path, ["make~wagen"]) == ["WVWZZZ1JZXW000001"])
        #expect(try exportedKeys(path, ["make~zz"]).isEmpty)
    }

    @Test func percentAndUnderscoreAreLiteral() throws {
        let path = try makeExportDatabase()
        #expect(try exportedKeys(path, ["notes~100%"]) == ["WBA8E9G50GNT12345"])
        #expect(try exportedKeys(path, ["notes~sure_thing"]) == ["WBA8E9G50GNT12345"])
        #expect(try exportedKeys(path, ["notes~_"]) == ["WBA8E9G50GNT12345"])
        #expect(try exportedKeys(path, ["make=BMW' OR 1=1 --"]) == ["ZZZ00000000000001"])
        #expect(try exportedKeys(path, ["make=x' OR '1'='1"]).isEmpty)
    }

    @Test func numericComparisonIsNumeric() throws {
        // As text, "80000" < "9"; as numbers it is not.
        let path = try makeExportDatabase()
        #expect(try exportedKeys(path, ["odometer_km>9"]).count == 6)
        let expected = try sqlKeys(path, "model > '5'")
        #expect(try exportedKeys(path, ["model>5"]) == expected)
    }

    /// Missing values sort last in either direction.
    @Test(arguments: [
        (["make"], "make NULLS LAST, _key"),
        (["odometer:desc"], "odometer_km DESC NULLS LAST, _key"),
        (["year:desc", "make"], "model_year DESC NULLS LAST, make NULLS LAST, _key"),
        (["car_type", "lat:desc"], "body_class NULLS LAST, latitude DESC NULLS LAST, _key"),
        (["lat"], "latitude NULLS LAST, _key"),
        ([], "_key"),
    ])
    func sortsMatchIndependentSQL(_ sort: [String], _ order: String) throws {
        let path = try makeExportDatabase()
        let expected = try sqlKeys(path, "1", order: order)
        #expect(try exportedKeys(path, [], sort: sort) == expected)
    }

    @Test func csvMatchesTableRowForRow() throws {
        let path = try makeExportDatabase()
        let text = try export(path, ExportQuery(), guardFormulas: false).text
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines.first == Substring(exportVehicleSchema.fields.map(\.name).joined(separator: ",")))
        let rows = try independentRows(path, "SELECT vin, make, odometer_km, accident_free, longitude FROM vehicles ORDER BY _key")
        #expect(text.contains("1FTFW1E57KFA14352,Ford,F-150,2019,pickup,5001,maintenance,false,40.4380638,-3.7495758,-dash first\n"))
        #expect(text.contains(",Volkswagen,Golf,2018,hatchback,12000.5,active,true,19.0823998,72.8111468,@home\n"))
        #expect(text.contains("JM1GJ1W65E1143959,Mazda,6,2014,sedan,150000,inactive,,,,\"plain, with comma and \"\"quotes\"\"\"\n"))
        #expect(lines.count == rows.count + 2)  // header + rows + trailing empty
    }

    @Test func csvFormulaGuard() throws {
        let path = try makeExportDatabase()
        let query = ExportQuery(columns: ["vin", "longitude", "notes"])
        let guarded = try export(path, query).text
        #expect(guarded.contains("1HGCV1F52MA000123,4.8339215,\"'=HYPERLINK(\"\"http://x\"\")\"\n"))
        #expect(guarded.contains("1FTFW1E57KFA14352,-3.7495758,'-dash first\n"))
        #expect(guarded.contains(",72.8111468,'@home\n"))
        let raw = try export(path, query, guardFormulas: false).text
        #expect(raw.contains("1HGCV1F52MA000123,4.8339215,\"=HYPERLINK(\"\"http://x\"\")\"\n"))
        #expect(raw.contains("1FTFW1E57KFA14352,-3.7495758,-dash first\n"))
    }

    @Test func jsonIsTypedAndMatchesSQL() throws {
        let path = try makeExportDatabase()
        let text = try export(path, ExportQuery(), format: .json).text
        let array = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [[String: Any]])
        let rows = try independentRows(path, "SELECT vin, model_year, odometer_km, accident_free FROM vehicles ORDER BY _key")
        #expect(array.count == rows.count)
        for (object, row) in zip(array, rows) {
            #expect((object["vin"] as? String) == row[0]?.text)
            if case .integer(let y)? = row[1] { #expect((object["model_year"] as? NSNumber)?.int64Value == y) }
            if case .real(let km)? = row[2] { #expect((object["odometer_km"] as? NSNumber)?.doubleValue == km) }
            if row[2] == nil { #expect(object["odometer_km"] is NSNull) }
            if case .integer(let b)? = row[3] { #expect((object["accident_free"] as? Bool) == (b != 0)) }
            #expect(object.count == exportVehicleSchema.fields.count)
        }
        #expect(text.contains("\"accident_free\":true"))
        #expect(text.contains("\"vin\":null"))
        let empty = try export(path, ExportQuery(conditions: [try Condition.parse("make=none")]), format: .json).text
        #expect(empty == "[]\n")
    }

    @Test func jsonLinesAndLimit() throws {
        let path = try makeExportDatabase()
        let (text, summary) = try export(path, ExportQuery(sort: [SortKey(field: "vin")], columns: ["vin", "year"], limit: 3), format: .jsonl)
        #expect(summary.rows == 3)
        // The vehicle without a VIN sorts last.
        #expect(text.hasPrefix("{\"vin\":\"1FTFW1E57KFA14352\",\"model_year\":2019}\n{\"vin\":\"1HGCV1F52MA000123\",\"model_year\":2021}\n"))
        #expect(!text.contains("\"vin\":null"))
        let last = try export(path, ExportQuery(sort: [SortKey(field: "vin", descending: true)], columns: ["vin"]), format: .jsonl).text
        #expect(last.hasSuffix("{\"vin\":null}\n"), "\(last)")
    }

    @Test func geoJSON() throws {
        let path = try makeExportDatabase()
        let (text, summary) = try export(path, ExportQuery(columns: ["vin", "make"]), format: .geojson)
        #expect(summary.rows == 3)
        #expect(summary.skippedWithoutCoordinates == 5)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
        #expect(object["type"] as? String == "FeatureCollection")
        let features = try #require(object["features"] as? [[String: Any]])
        #expect(features.count == 3)
        let ford = try #require(features.first)
        #expect(ford["type"] as? String == "Feature")
        let geometry = try #require(ford["geometry"] as? [String: Any])
        #expect(geometry["type"] as? String == "Point")
        #expect(geometry["coordinates"] as? [Double] == [-3.7495758, 40.4380638])
        #expect(ford["properties"] as? [String: String] == ["vin": "1FTFW1E57KFA14352", "make": "Ford"])

        let locations = try export(path, ExportQuery(table: "locations"), format: .geojson)
        #expect(locations.summary.rows == 4)
        #expect(locations.text.contains("\"coordinates\":[4.8339215,52.3547498]},\"properties\":{\"name\":\"Amsterdam\"}"))
        #expect(locations.text.contains("\"properties\":{\"name\":null}"))

        #expect(throws: VinyardError.self) { try export(path, ExportQuery(table: "rejects"), format: .geojson) }
    }

    @Test func otherTables() throws {
        let path = try makeExportDatabase()
        let runs = try export(path, ExportQuery(table: "import_runs", columns: ["id", "read", "inserted"]), format: .jsonl).text
        #expect(runs == "{\"id\":1,\"read\":12,\"inserted\":12}\n")
        let locations = try export(path, ExportQuery(table: "locations", sort: [SortKey(field: "lat", descending: true)], columns: ["name"])).text
        #expect(locations == "name\nCopenhagen\nAmsterdam\n\nMumbai\n")
        let rejects = try export(path, ExportQuery(table: "rejects")).text
        #expect(rejects.hasPrefix("id,run_id,table_name,input,"))
    }

    @Test(arguments: [
        ExportQuery(conditions: [Condition(field: "vin; DROP TABLE vehicles", op: .equal, values: ["x"])]),
        ExportQuery(sort: [SortKey(field: "vin; DROP TABLE vehicles")]),
        ExportQuery(columns: ["vin", "(select 1)"]),
        ExportQuery(columns: ["vin", "vin"]),
        ExportQuery(conditions: [Condition(field: "year", op: .greater, values: ["twenty"])]),
        ExportQuery(conditions: [Condition(field: "accident_free", op: .equal, values: ["maybe"])]),
        ExportQuery(table: "vinyard_meta"),
        ExportQuery(table: "sqlite_schema"),
        ExportQuery(table: "vehicles; DROP TABLE vehicles"),
        ExportQuery(limit: -1),
    ])
    func usageErrors(_ query: ExportQuery) throws {
        let path = try makeExportDatabase()
        do {
            _ = try export(path, query)
            Issue.record("expected a usage error")
        } catch let error as VinyardError {
            #expect(error.code == .usage, "\(error)")
        }
        #expect(try independentRows(path, "SELECT count(*) FROM vehicles").first?.first == .integer(Int64(testFleet.count)))
    }

    @Test func unknownFieldMessageListsValidOnes() throws {
        let path = try makeExportDatabase()
        do {
            _ = try export(path, ExportQuery(sort: [SortKey(field: "colour")]))
            Issue.record("expected a usage error")
        } catch let error as VinyardError {
            #expect(error.message.contains("unknown field 'colour'"))
            #expect(error.message.contains("valid fields: _key, vin, make"), "\(error.message)")
            #expect(error.message.contains("schema aliases work too ("), "\(error.message)")
        }
        // A typo of a name or an alias is answered with the field it is near.
        for (typo, meant) in [("modle_year", "model_year"), ("longitud", "longitude"), ("yaer", "model_year")] {
            do {
                _ = try export(path, ExportQuery(sort: [SortKey(field: typo)]))
                Issue.record("expected a usage error for \(typo)")
            } catch let error as VinyardError {
                #expect(error.message.contains("(did you mean '\(meant)'?)"), "\(error.message)")
            }
        }
    }

    @Test func gzipOutputReadsBack() throws {
        let path = try makeExportDatabase()
        let out = (path as NSString).deletingLastPathComponent + "/out.csv.gz"
        let store = try VinyardStore(path: path, readOnly: true)
        try Exporter(store: store).export(ExportQuery(columns: ["vin", "make"]), format: .csv, to: try openOutput(path: out))
        let source = try GzipByteSource(source: try FileByteSource(path: out))
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let n = try buffer.withUnsafeMutableBytes { try source.read(into: $0) }
            if n == 0 { break }
            bytes += buffer[..<n]
        }
        let text = String(decoding: bytes, as: UTF8.self)
        #expect(text.hasPrefix("vin,make\n1FTFW1E57KFA14352,Ford\n"))
        #expect(text.hasSuffix("\n,Volkswagen\n"))
        #expect(text.split(separator: "\n").count == testFleet.count + 1)
    }

    @Test func exportFormatFromFileName() {
        #expect(ExportFormat(fileName: "a.csv.gz") == .csv)
        #expect(ExportFormat(fileName: "a.GeoJSON") == .geojson)
        #expect(ExportFormat(fileName: "a.geojson.gz") == .geojson)
        #expect(ExportFormat(fileName: "a.ndjson") == .jsonl)
        #expect(ExportFormat(fileName: "a.json") == .json)
        #expect(ExportFormat(fileName: "a.txt") == nil)
    }

    @Test func appendIntegerAndCells() {
        var out = OutputBuffer(sink: MemorySink())
        for v: Int64 in [0, 7, -7, 10, 1234567890, .min, .max] {
            out.bytes.removeAll()
            out.append(integer: v)
            #expect(String(decoding: out.bytes, as: UTF8.self) == String(v))
        }
        for d in [0.5, -3.7495758, 1e20, 5001.0, -0.0, 1e-7] {
            out.bytes.removeAll()
            out.append(real: d)
            #expect(String(decoding: out.bytes, as: UTF8.self) == FieldValue.decimalText(d))
        }
    }
}
