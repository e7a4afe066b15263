import Foundation
@testable import VinyardKit

/// Builds a raw record from name/value pairs.
func rawRecord(_ pairs: [(String, RawValue)], input: String = "test.json", line: Int = 2) -> RawRecord {
    RawRecord(fields: pairs.map { RawField($0.0, $0.1) }, provenance: Provenance(input: input, line: line))
}

/// Builds a CSV-like raw record (all strings).
func csvRecord(_ header: [String], _ row: [String], line: Int = 2) -> RawRecord {
    RawRecord(
        fields: zip(header, row).map { RawField($0, .string($1)) }, provenance: Provenance(input: "test.csv", line: line))
}

func mapper(_ source: String, options: MapperOptions = MapperOptions(referenceYear: 2025)) throws -> Mapper {
    let catalog = try SchemaCatalog.bundled()
    return try Mapper(mapping: catalog.mapping(named: source), catalog: catalog, options: options)
}

extension CanonicalRecord {
    /// The value of a field by name, for tests.
    func value(_ name: String, in mapper: Mapper) -> FieldValue? {
        guard let i = mapper.schema.fields.firstIndex(where: { $0.name == name }) else { return nil }
        return values[i]
    }
    var codes: [String] { findings.map(\.code.rawValue) }
}

/// The package root: this file is Tests/VinyardKitTests/Schema/TestSupport.swift.
let schemaTestsPackageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().deletingLastPathComponent()
