import Foundation
import VinyardKit

/// A vehicle schema resembling the real one (fields, types, aliases) for export tests.
let exportVehicleSchema = Schema(
    name: "vehicles",
    fields: [
        Field(name: "vin", type: .string, format: "vin"),
        Field(name: "make", type: .string),
        Field(name: "model", type: .string),
        Field(name: "model_year", type: .integer, aliases: ["year"]),
        Field(name: "body_class", type: .string, aliases: ["car_type", "body_style"]),
        Field(name: "odometer_km", type: .number, aliases: ["kilometrage", "odometer"]),
        Field(name: "status", type: .string),
        Field(name: "accident_free", type: .boolean),
        Field(name: "latitude", type: .number, format: "latitude", aliases: ["lat"]),
        Field(name: "longitude", type: .number, format: "longitude", aliases: ["long", "lon", "lng"]),
        Field(name: "notes", type: .string),
    ],
    primaryKey: ["vin"])

let exportLocationSchema = Schema(
    name: "locations",
    fields: [
        Field(name: "name", type: .string),
        Field(name: "latitude", type: .number, aliases: ["lat"]),
        Field(name: "longitude", type: .number, aliases: ["long", "lon", "lng"]),
    ],
    primaryKey: ["name", "latitude", "longitude"])

/// One test vehicle; `key` defaults to the VIN (autoscout-style rows pass a key and no VIN).
struct TestVehicle {
    var key: String
    var vin: String?
    var make: String?
    var model: String?
    var year: Int64?
    var body: String?
    var km: Double?
    var status: String?
    var accidentFree: Bool?
    var lat: Double?
    var lon: Double?
    var notes: String?

    var values: [FieldValue?] {
        [
            vin.map(FieldValue.text), make.map(FieldValue.text), model.map(FieldValue.text), year.map(FieldValue.integer),
            body.map(FieldValue.text), km.map(FieldValue.real), status.map(FieldValue.text),
            accidentFree.map(FieldValue.bool), lat.map(FieldValue.real), lon.map(FieldValue.real), notes.map(FieldValue.text),
        ]
    }
}

let testFleet: [TestVehicle] = [
    TestVehicle(
        key: "1HGCV1F52MA000123", vin: "1HGCV1F52MA000123", make: "Honda", model: "Accord", year: 2021, body: "sedan",
        km: 5000, status: "active", accidentFree: true, lat: 52.3547498, lon: 4.8339215, notes: "=HYPERLINK(\"http://x\")"),
    TestVehicle(
        key: "1FTFW1E57KFA14352", vin: "1FTFW1E57KFA14352", make: "Ford", model: "F-150", year: 2019, body: "pickup",
        km: 5001, status: "maintenance", accidentFree: false, lat: 40.4380638, lon: -3.7495758, notes: "-dash first"),
    TestVehicle(
        key: "WBA8E9G50GNT12345", vin: "WBA8E9G50GNT12345", make: "BMW", model: "3 Series", year: 2016, body: "sedan",
        km: 0, status: "active", notes: "100% sure_thing"),
    TestVehicle(
        key: "WBAKS410X00C12345", vin: "WBAKS410X00C12345", make: "BMW", model: "X5", year: 2014, body: "suv",
        status: "retired", notes: "100 percent sure thing"),
    TestVehicle(
        key: "autoscout:42", make: "Volkswagen", model: "Golf", year: 2018, body: "hatchback", km: 12000.5,
        status: "active", accidentFree: true, lat: 19.0823998, lon: 72.8111468, notes: "@home"),
    TestVehicle(
        key: "JM1GJ1W65E1143959", vin: "JM1GJ1W65E1143959", make: "Mazda", model: "6", year: 2014, body: "sedan",
        km: 150000, status: "inactive", notes: "plain, with comma and \"quotes\""),
    TestVehicle(
        key: "KNAFU4A2XD5739551", vin: "KNAFU4A2XD5739551", make: "Kia", model: "Forte", year: 2013, body: "Sedan",
        km: 80000, status: "active", lat: 55.6713442),
    TestVehicle(
        key: "ZZZ00000000000001", vin: "ZZZ00000000000001", make: "BMW' OR 1=1 --", model: "Trick", year: 2020,
        km: 10, status: "active"),
]

/// Builds a database with `vehicles` (``testFleet``) and `locations` through ``ImportSession``.
func makeExportDatabase(vehicles: [TestVehicle] = testFleet) throws -> String {
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent("vinyard-export-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    let path = dir.appendingPathComponent("fleet.db").path
    let store = try VinyardStore(path: path)
    let session = try store.beginImport()
    for (i, v) in vehicles.enumerated() {
        let provenance = Provenance(input: "fleet.csv", line: i + 2)
        let record = CanonicalRecord(
            values: v.values, key: v.key, provenance: provenance, findings: [],
            raw: RawRecord(fields: [RawField("vin", v.vin.map(RawValue.string) ?? .null)], provenance: provenance))
        try session.write(record, schema: exportVehicleSchema, source: v.vin == nil ? "autoscout" : "fleet")
    }
    let places: [(String?, Double, Double)] = [
        ("Amsterdam", 52.3547498, 4.8339215), ("Mumbai", 19.0823998, 72.8111468), ("Copenhagen", 55.6713442, 12.523785),
        (nil, 40.4380638, -3.7495758),
    ]
    for (i, p) in places.enumerated() {
        let provenance = Provenance(input: "locations.json", line: 1, index: i)
        let record = CanonicalRecord(
            values: [p.0.map(FieldValue.text), .real(p.1), .real(p.2)], key: "\(p.0 ?? ""):\(p.1):\(p.2)",
            provenance: provenance, findings: [], raw: RawRecord(fields: [], provenance: provenance))
        try session.write(record, schema: exportLocationSchema, source: "locations")
    }
    _ = try session.finish()
    return path
}

/// All rows of `sql` on a second, independent connection.
func independentRows(_ path: String, _ sql: String) throws -> [[FieldValue?]] {
    let connection = try Connection(path: path, mode: .readOnly)
    let statement = try connection.prepare(sql)
    var rows: [[FieldValue?]] = []
    while try statement.step() { rows.append((0..<statement.columnCount).map { statement.value($0) }) }
    return rows
}
