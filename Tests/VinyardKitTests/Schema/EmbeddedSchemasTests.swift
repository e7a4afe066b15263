import Foundation
import Testing
@testable import VinyardKit

@Suite struct EmbeddedSchemasTests {
    /// Every JSON file under Schemas/ is embedded byte-for-byte, and nothing else is.
    @Test func embeddedCopiesMatchFiles() throws {
        let dir = schemaTestsPackageRoot.appendingPathComponent("Schemas")
        let enumerator = try #require(FileManager.default.enumerator(at: dir, includingPropertiesForKeys: nil))
        var onDisk: [String: Data] = [:]
        for case let url as URL in enumerator where url.pathExtension == "json" {
            let relative = String(url.standardizedFileURL.path.dropFirst(dir.standardizedFileURL.path.count + 1))
            onDisk[relative] = try Data(contentsOf: url)
        }
        #expect(!onDisk.isEmpty)
        #expect(Set(onDisk.keys) == Set(EmbeddedSchemas.files.keys), "rerun Scripts/embed-schemas.py")
        for (path, data) in onDisk {
            #expect(Data(EmbeddedSchemas.files[path, default: ""].utf8) == data, "\(path) drifted: rerun Scripts/embed-schemas.py")
        }
    }

    @Test func bundledCatalogLoads() throws {
        let catalog = try SchemaCatalog.bundled()
        #expect(Set(catalog.mappings.map(\.name)) == ["fleet", "random-vehicle", "autoscout", "fleet-record", "locations"])
        #expect(try catalog.schema(named: "vehicle").name == "vehicles")
        #expect(try catalog.schema(named: "locations").name == "locations")
        for name in ["fuel", "drive_type", "transmission", "body_class", "vehicle_type", "status", "make"] {
            #expect(catalog.synonyms[name] != nil, "synonym table \(name)")
        }
        let vehicle = try catalog.schema(named: "vehicle")
        let names = vehicle.fields.map(\.name)
        for required in [
            "vin", "make", "model", "model_year", "trim", "body_class", "vehicle_type", "color", "fuel_type",
            "transmission", "drive_type", "doors", "power_kw", "odometer_km", "license_plate", "status",
            "first_registration", "price", "accident_free", "latitude", "longitude", "address", "notes", "source",
            "source_id", "vin_manufacturer", "vin_country", "vin_model_years",
        ] {
            #expect(names.contains(required), "vehicle schema lacks \(required)")
        }
        #expect(vehicle.primaryKey == ["vin"])
    }

    @Test(arguments: [
        ("year", "model_year"), ("Model Year", "model_year"), ("MY", "model_year"), ("car_type", "body_class"),
        ("Body Style", "body_class"), ("Colour", "color"), ("fuel", "fuel_type"), ("Fuel Type", "fuel_type"),
        ("kilometrage", "odometer_km"), ("Odometer (km)", "odometer_km"), ("Mileage (km)", "odometer_km"),
        ("plate", "license_plate"), ("Reg. plate", "license_plate"), ("Registration", "license_plate"),
        ("Number Plate", "license_plate"), ("lat", "latitude"), ("long", "longitude"), ("lng", "longitude"),
        ("lon", "longitude"), ("Vehicle Identification Number", "vin"), ("Chassis Number", "vin"),
    ])
    func aliases(_ header: String, _ field: String) throws {
        let schema = try SchemaCatalog.bundled().schema(named: "vehicle")
        let i = try #require(schema.fieldIndex(named: header))
        #expect(schema.fields[i].name == field)
    }

    @Test func userMappingAndSchemaFiles() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("vinyard-schema-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let mappingFile = dir.appendingPathComponent("depot.json")
        try #"{"name": "depot", "schema": "location", "fields": [{"source": "Depot", "target": "name"}, {"source": "Y", "target": "latitude"}, {"source": "X", "target": "longitude"}], "key": "location", "detect": {"all": ["Depot", "X", "Y"]}}"#
            .write(to: mappingFile, atomically: true, encoding: .utf8)
        var catalog = try SchemaCatalog.bundled()
        try catalog.loadMapping(file: mappingFile.path)
        let m = try Mapper(mapping: catalog.mapping(named: "depot"), catalog: catalog)
        let r = m.map(rawRecord([("Depot", .string("North")), ("Y", .number("52.1")), ("X", .number("4.2"))]))
        #expect(r.findings.isEmpty)
        #expect(r.key == "north|52.100000,4.200000")

        let bad = dir.appendingPathComponent("bad.json")
        try #"{"name": "bad", "schema": "vehicle", "fields": [{"source": "a", "target": "nope"}], "key": "vin"}"#
            .write(to: bad, atomically: true, encoding: .utf8)
        #expect(throws: VinyardError.self) { try catalog.loadMapping(file: bad.path) }
        #expect(throws: VinyardError.self) { try catalog.loadMapping(file: dir.appendingPathComponent("missing.json").path) }

        let schemaFile = dir.appendingPathComponent("vehicle.schema.json")
        try #"{"name": "vehicles", "primaryKey": ["vin"], "fields": [{"name": "vin", "format": "vin"}, {"name": "source"}, {"name": "colour_code", "aliases": ["paint code"]}]}"#
            .write(to: schemaFile, atomically: true, encoding: .utf8)
        try catalog.loadSchema(file: schemaFile.path)
        let fleet = try Mapper(mapping: catalog.mapping(named: "fleet"), catalog: catalog)
        let r2 = fleet.map(csvRecord(["VIN", "Paint Code"], ["1hgcv1f52ma000123", "LY9B"]))
        #expect(r2.value("colour_code", in: fleet) == .text("LY9B"))
        #expect(r2.key == "1HGCV1F52MA000123")
    }

    @Test func unknownNamesAreUsageErrors() throws {
        let catalog = try SchemaCatalog.bundled()
        #expect(throws: VinyardError.self) { try catalog.mapping(named: "nope") }
        do {
            _ = try catalog.mapping(named: "nope")
        } catch let e as VinyardError {
            #expect(e.code == .usage)
            #expect(e.message.contains("autoscout"))
        }
    }
}
