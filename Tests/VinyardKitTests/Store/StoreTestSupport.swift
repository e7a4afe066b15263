import Foundation
import VinyardKit

/// A fresh temporary directory for one test's database files.
func makeStoreDirectory() throws -> URL {
    let url = FileManager.default.temporaryDirectory
        .appendingPathComponent("vinyard-store-tests-\(UUID().uuidString)", isDirectory: true)
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
}

let testSchema = Schema(
    name: "vehicles",
    fields: [
        Field(name: "vin", type: .string),
        Field(name: "make", type: .string),
        Field(name: "model_year", type: .integer),
        Field(name: "odometer_km", type: .number),
        Field(name: "accident_free", type: .boolean),
        Field(name: "notes", type: .string),
    ],
    primaryKey: ["vin"])

func testRecord(
    _ vin: String?, make: String? = nil, year: Int64? = nil, km: Double? = nil, accidentFree: Bool? = nil,
    notes: String? = nil, input: String = "a.csv", line: Int, findings: [Finding] = []
) -> CanonicalRecord {
    let provenance = Provenance(input: input, line: line)
    var raw: [RawField] = [RawField("VIN", vin.map(RawValue.string) ?? .null)]
    if let make { raw.append(RawField("Make", .string(make))) }
    if let year { raw.append(RawField("Year", .number(String(year)))) }
    return CanonicalRecord(
        values: [
            vin.map(FieldValue.text), make.map(FieldValue.text), year.map(FieldValue.integer), km.map(FieldValue.real),
            accidentFree.map(FieldValue.bool), notes.map(FieldValue.text),
        ],
        key: vin, provenance: provenance, findings: findings, raw: RawRecord(fields: raw, provenance: provenance))
}

extension VinyardStore {
    /// All rows of `sql` as field values.
    func rows(_ sql: String, _ arguments: [FieldValue?] = []) throws -> [[FieldValue?]] {
        let statement = try prepareQuery(sql, arguments: arguments)
        var rows: [[FieldValue?]] = []
        while try statement.step() { rows.append((0..<statement.columnCount).map { statement.value($0) }) }
        return rows
    }

    func count(_ sql: String, _ arguments: [FieldValue?] = []) throws -> Int64 {
        guard case .integer(let n)? = try rows(sql, arguments).first?.first else { return -1 }
        return n
    }

    /// Imports `records` in one run and returns the report.
    func importRecords(_ records: [CanonicalRecord], policy: DuplicatePolicy = .last, schema: Schema = testSchema)
        throws -> ImportRunReport
    {
        let session = try beginImport(options: ["on-duplicate": policy.rawValue])
        for record in records { try session.write(record, schema: schema, source: "fleet", policy: policy) }
        return try session.finish()
    }
}
