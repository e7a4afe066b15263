import Testing
@testable import VinyardKit

@Suite struct SourceDetectorTests {
    let detector: SourceDetector
    init() throws { detector = SourceDetector(catalog: try SchemaCatalog.bundled()) }

    @Test(arguments: [
        (["id", "uid", "vin", "make_and_model", "color", "transmission", "drive_type", "fuel_type", "car_type",
          "car_options", "specs", "doors", "mileage", "kilometrage", "license_plate"], nil, "random-vehicle"),
        (["ID", "Make", "FuelType", "Price", "Mileage (km)", "FirstRegistration", "AccidentFree", "Images", "Address",
          "PowerKW"], "vehicles", "autoscout"),
        (["ID", "Make", "FuelType", "Price", "Mileage (km)", "FirstRegistration", "AccidentFree"], nil, "autoscout"),
        (["id", "make", "model", "year", "type", "licensePlate", "vin", "fuelType", "tankCapacity", "odometer",
          "status", "notes", "lastSyncDate"], nil, "fleet-record"),
        (["id", "make", "model", "year", "type", "licensePlate", "fuelType", "odometer", "status"], nil, "fleet-record"),
        (["name", "lat", "long"], "locations", "locations"),
        (["lat", "long"], nil, "locations"),
        (["Vehicle Identification Number", "Make", "Model", "Model Year", "Reg. plate", "Odometer (km)"], nil, "fleet"),
        (["VIN", "Make", "Latitude", "Longitude", "Notes"], nil, "fleet"),
        (["Chassis Number", "Colour", "Something Else"], nil, "fleet"),
    ] as [([String], String?, String)])
    func detects(_ keys: [String], _ wrapper: String?, _ expected: String) throws {
        #expect(try detector.detect(keys: keys, wrapper: wrapper, inputName: "in").name == expected)
    }

    @Test func unknownShapeIsUsageError() throws {
        do {
            _ = try detector.detect(keys: ["foo", "bar"], inputName: "mystery.csv")
            Issue.record("expected an error")
        } catch let e as VinyardError {
            #expect(e.code == .usage)
            #expect(e.message.contains("mystery.csv"))
            #expect(e.message.contains("make_and_model"), "lists what each source expects: \(e.message)")
            #expect(e.message.contains("--source"))
        }
        #expect(throws: VinyardError.self) { try detector.detect(keys: [], inputName: "empty.csv") }
    }

    @Test func wrapperExcludesOtherShapes() throws {
        // A locations wrapper never picks a vehicle mapping, even with a VIN column.
        #expect(try detector.detect(keys: ["name", "lat", "long", "vin"], wrapper: "locations", inputName: "x").name == "locations")
    }

    // A fleet file that carries a vehicle name and coordinates ties with `locations` on share of
    // known keys; its VIN column decides for a vehicle source.
    @Test(arguments: [
        ["name", "latitude", "longitude", "vin"],
        ["Name", "Lat", "Long", "VIN"],
        ["name", "lat", "lng", "Chassis Number"],
        ["vin", "lat", "long"],
    ])
    func vinColumnMakesAFleetFile(_ keys: [String]) throws {
        #expect(try detector.detect(keys: keys, inputName: "x").name == "fleet")
        #expect(!detector.scores(keys: keys).contains { $0.mapping == "locations" })
    }

    @Test func ambiguity() throws {
        var catalog = try SchemaCatalog.bundled()
        for name in ["depot-a", "depot-b"] {
            try catalog.add(
                SourceMapping(
                    name: name, schema: "location",
                    fields: [.init(source: "Depot", target: "name"), .init(source: "Y", target: "latitude"),
                             .init(source: "X", target: "longitude")],
                    key: .location, detect: .init(all: ["Depot", "X", "Y"])))
        }
        let d = SourceDetector(catalog: catalog)
        do {
            _ = try d.detect(keys: ["Depot", "X", "Y"], inputName: "depots.csv")
            Issue.record("expected an ambiguity error")
        } catch let e as VinyardError {
            #expect(e.code == .usage)
            #expect(e.message.contains("depot-a") && e.message.contains("depot-b"))
        }
        let scores = d.scores(keys: ["Depot", "X", "Y"])
        // Both depot mappings, and the bundled locations (X and Y are its coordinates' aliases),
        // which knows fewer of the keys.
        #expect(scores.count == 3)
        #expect(scores.last?.mapping == "locations")
    }

    @Test func scoresPreferTheBetterFit() throws {
        let scores = detector.scores(keys: ["id", "uid", "vin", "make_and_model", "kilometrage"])
        #expect(scores.first?.mapping == "random-vehicle")
        #expect(scores.contains { $0.mapping == "fleet" })
    }

    // A random-data-api record that lacks some optional keys is still one: `make_and_model` is its
    // own key, and read as a fleet file its make and model were dropped and its `mileage` (miles)
    // loaded as kilometres.
    @Test(arguments: [
        ["id", "vin", "make_and_model", "mileage"],
        ["make_and_model", "license_plate", "vin", "id", "doors", "color"],
        ["vin", "make_and_model", "fuel_type", "transmission", "drive_type"],
    ])
    func randomVehicleWithoutOptionalKeys(_ keys: [String]) throws {
        #expect(try detector.detect(keys: keys, inputName: "x").name == "random-vehicle")
    }

    // A listing of a new car has no FirstRegistration; when it comes first, the whole file failed
    // detection (exit 64) although its other keys are AutoScout's own.
    @Test(arguments: [
        (["ID", "Make", "Model", "FuelType", "Price", "Mileage (km)", "AccidentFree", "Images", "Address", "PowerKW"], "vehicles"),
        (["ID", "Make", "Model", "FuelType", "Price", "Mileage", "AccidentFree", "Images", "PowerKW"], nil),
        (["ID", "Make", "Price", "AccidentFree"], nil),
    ] as [([String], String?)])
    func autoscoutWithoutFirstRegistration(_ keys: [String], _ wrapper: String?) throws {
        #expect(try detector.detect(keys: keys, wrapper: wrapper, inputName: "x").name == "autoscout")
    }

    @Test func idMakeModelWithAVINStaysFleet() throws {
        #expect(try detector.detect(keys: ["ID", "VIN", "Make", "Model", "Year"], inputName: "x").name == "fleet")
    }

    // The locations feed's first place may lack a coordinate (it is then a coord.incomplete
    // reject); the wrapper key still names the source. It failed detection with exit 64.
    @Test(arguments: [
        (["name", "long"], "locations", "locations"),
        (["name"], "places", "locations"),
        (["id", "make", "model"], "records", "fleet-record"),
    ] as [([String], String, String)])
    func wrapperOfOneSourceDecidesWhenNoSignatureHolds(_ keys: [String], _ wrapper: String, _ expected: String) throws {
        #expect(try detector.detect(keys: keys, wrapper: wrapper, inputName: "x").name == expected)
    }

    @Test func wrapperDoesNotOverrideAHoldingSignature() throws {
        // A generic fleet table wrapped in `fleet` (a fleet-record wrapper) stays a fleet file.
        #expect(try detector.detect(keys: ["vin", "make", "model"], wrapper: "fleet", inputName: "x").name == "fleet")
        // `vehicles` is listed by several sources: it names none of them.
        #expect(throws: VinyardError.self) { try detector.detect(keys: ["foo"], wrapper: "vehicles", inputName: "x") }
    }

    /// A vehicle source's full signature beats another vehicle source's wrapper: autoscout
    /// listings under `records` (fleet-record's) were read as fleet-record and all rejected.
    @Test func signatureBeatsAnotherVehicleSourcesWrapper() throws {
        let listing = ["ID", "Make", "FuelType", "Price", "Mileage (km)", "FirstRegistration", "AccidentFree"]
        #expect(try detector.detect(keys: listing, wrapper: "records", inputName: "x").name == "autoscout")
        let record = ["id", "make", "model", "year", "type", "licensePlate", "vin", "fuelType", "odometer", "status"]
        #expect(try detector.detect(keys: record, wrapper: "records", inputName: "x").name == "fleet-record")
        #expect(try detector.detect(keys: record, wrapper: "vehicles", inputName: "x").name == "fleet-record")
        let random = ["id", "uid", "vin", "make_and_model", "color", "kilometrage", "license_plate"]
        #expect(try detector.detect(keys: random, wrapper: "records", inputName: "x").name == "random-vehicle")
    }

    // An API envelope key no mapping lists (`{"status": "ok", "data": [...]}`) says nothing about
    // the source: the records' keys decide, as for a bare array. It excluded every source that
    // lists wrappers, so an AutoScout page under `data` failed detection (exit 64).
    @Test(arguments: [
        (["ID", "Make", "FuelType", "Price", "Mileage (km)", "FirstRegistration", "AccidentFree"], "autoscout"),
        (["id", "uid", "vin", "make_and_model", "kilometrage"], "random-vehicle"),
        (["name", "lat", "long"], "locations"),
    ])
    func unknownWrapperExcludesNothing(_ keys: [String], _ expected: String) throws {
        for wrapper in ["data", "items", "results"] {
            #expect(try detector.detect(keys: keys, wrapper: wrapper, inputName: "x").name == expected)
        }
        // A known wrapper of another source still excludes: locations are no vehicles.
        if expected != "locations" {
            #expect(!detector.scores(keys: keys, wrapper: "locations").contains { $0.mapping == expected })
        }
    }
}
