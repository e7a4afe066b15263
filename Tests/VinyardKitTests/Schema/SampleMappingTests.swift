import Foundation
import Testing
@testable import VinyardKit

/// Maps the JSON samples in Samples/ (parsed here with a small test-only decoder, not the
/// readers) and checks the non-VIN findings listed in Samples/README.md.
@Suite struct SampleMappingTests {
    /// A JSON value decoded into a RawValue (key order is not kept; the mapper does not need it).
    struct JSONRaw: Decodable {
        var value: RawValue
        struct Key: CodingKey {
            var stringValue: String
            var intValue: Int? { nil }
            init(stringValue: String) { self.stringValue = stringValue }
            init?(intValue: Int) { nil }
        }
        init(from decoder: any Decoder) throws {
            if let keyed = try? decoder.container(keyedBy: Key.self) {
                value = .object(
                    try keyed.allKeys.sorted { $0.stringValue < $1.stringValue }.map {
                        RawField($0.stringValue, try keyed.decode(JSONRaw.self, forKey: $0).value)
                    })
                return
            }
            if var list = try? decoder.unkeyedContainer() {
                var items: [RawValue] = []
                while !list.isAtEnd { items.append(try list.decode(JSONRaw.self).value) }
                value = .array(items)
                return
            }
            let c = try decoder.singleValueContainer()
            if c.decodeNil() { value = .null }
            else if let b = try? c.decode(Bool.self) { value = .bool(b) }
            else if let i = try? c.decode(Int64.self) { value = .number(String(i)) }
            else if let d = try? c.decode(Double.self) { value = .number("\(d)") }
            else { value = .string(try c.decode(String.self)) }
        }
    }

    func records(_ file: String) throws -> [RawRecord] {
        let url = schemaTestsPackageRoot.appendingPathComponent("Samples").appendingPathComponent(file)
        let data = try Data(contentsOf: url)
        var objects: [RawValue] = []
        if file.hasSuffix(".jsonl") {
            for line in String(decoding: data, as: UTF8.self).split(separator: "\n") {
                if let v = try? JSONDecoder().decode(JSONRaw.self, from: Data(line.utf8)).value { objects.append(v) }
            }
        } else {
            var top = try JSONDecoder().decode(JSONRaw.self, from: data).value
            if case .object(let fields) = top, fields.count == 1, case .array = fields[0].value { top = fields[0].value }
            if case .array(let items) = top { objects = items }
        }
        return objects.enumerated().compactMap { i, v in
            guard case .object(let fields) = v else { return nil }
            return RawRecord(fields: fields, provenance: Provenance(input: file, line: i + 1, index: i))
        }
    }

    func counts(_ file: String, _ source: String) throws -> (records: Int, codes: [String: Int], keys: [String?]) {
        let m = try mapper(source)
        let mapped = try records(file).map(m.map)
        var codes: [String: Int] = [:]
        for r in mapped { for f in r.findings { codes[f.code.rawValue, default: 0] += 1 } }
        return (mapped.count, codes, mapped.map(\.key))
    }

    @Test func randomVehicle() throws {
        let c = try counts("random-vehicle.json", "random-vehicle")
        #expect(c.records == 12)
        #expect(c.codes == ["field.required": 1, "field.range": 1, "field.enum": 1])
        #expect(c.keys.filter { $0 == "1C4PJMAK2CW184491" }.count == 2, "duplicate VIN")
    }

    @Test func autoscout() throws {
        let c = try counts("autoscout.json", "autoscout")
        #expect(c.records == 9)
        #expect(c.codes == ["vehicle.accident": 1, "field.date": 1, "field.enum": 1])
        #expect(c.keys.filter { $0 == "autoscout:271004312" }.count == 2, "duplicate listing")
    }

    @Test func fleetRecord() throws {
        let c = try counts("fleet-record.json", "fleet-record")
        #expect(c.records == 8)
        #expect(c.codes == ["field.enum": 1, "field.range": 1])
        #expect(c.keys.contains("fleet-record:veh-004") && c.keys.contains("fleet-record:veh-005"))
    }

    @Test func locations() throws {
        let c = try counts("locations.json", "locations")
        #expect(c.records == 8)
        #expect(c.codes == ["coord.swapped": 1, "coord.incomplete": 1, "coord.null_island": 1])
        #expect(c.keys.filter { $0 == "amsterdam|52.354750,4.833922" }.count == 2, "duplicate place")
        #expect(c.keys.contains("|40.438064,-3.749576"))
    }

    @Test func fleetJSONLines() throws {
        let c = try counts("fleet.jsonl", "fleet")
        #expect(c.records == 9, "the malformed line is the reader's reject")
        #expect(c.codes == ["coord.swapped": 1, "field.range": 1])
    }

    @Test(arguments: [
        ("random-vehicle.json", nil, "random-vehicle"), ("autoscout.json", "vehicles", "autoscout"),
        ("fleet-record.json", nil, "fleet-record"), ("locations.json", "locations", "locations"),
        ("fleet.jsonl", nil, "fleet"),
    ] as [(String, String?, String)])
    func detection(_ file: String, _ wrapper: String?, _ source: String) throws {
        let first = try #require(try records(file).first)
        let detector = SourceDetector(catalog: try SchemaCatalog.bundled())
        #expect(try detector.detect(keys: first.fields.map(\.name), wrapper: wrapper, inputName: file).name == source)
    }
}
