import Foundation
import Testing
import VinyardKit

@Suite struct StatsCommandTests {
    private func makeDatabase() throws -> String {
        let dir = try makeTemporaryDirectory()
        let path = dir.appendingPathComponent("fleet.db").path
        let schema = Schema(
            name: "vehicles", fields: [Field(name: "vin", type: .string), Field(name: "make", type: .string)],
            primaryKey: ["vin"])
        let store = try VinyardStore(path: path)
        let session = try store.beginImport()
        for (i, (vin, make)) in [("VIN1", "BMW"), ("VIN2", "BMW"), ("VIN3", "Kia"), ("VIN1", "BMW")].enumerated() {
            let provenance = Provenance(input: "fleet.csv", line: i + 2)
            let record = CanonicalRecord(
                values: [.text(vin), .text(make)], key: vin, provenance: provenance, findings: [],
                raw: RawRecord(fields: [RawField("vin", .string(vin))], provenance: provenance))
            try session.write(record, schema: schema, source: "fleet")
        }
        _ = try session.finish()
        return path
    }

    @Test func textReport() throws {
        let path = try makeDatabase()
        let r = try runVinyard(["stats", "--db", path])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout.contains("Tables\n  table     rows\n  vehicles     3\n"))
        #expect(r.stdout.contains("vehicles by make (all 2)\n  make  rows\n  BMW      2\n  Kia      1\n"))
        #expect(r.stdout.contains("Duplicates: 1"))
        #expect(r.stdout.contains("Import runs: 1"))
    }

    @Test func jsonReport() throws {
        let path = try makeDatabase()
        let r = try runVinyard(["stats", "--db", path, "--format", "json"])
        #expect(r.status == 0, "\(r.stderr)")
        let object = try #require(try JSONSerialization.jsonObject(with: r.stdoutData) as? [String: Any])
        let tables = try #require(object["tables"] as? [[String: Any]])
        #expect(tables.first?["rows"] as? Int == 3)
        let runs = try #require(object["runs"] as? [[String: Any]])
        let counts = try #require(runs.first?["counts"] as? [String: Any])
        #expect(counts["read"] as? Int == 4)
        #expect(counts["duplicates"] as? Int == 1)
        #expect(object["duplicates"] as? Int == 1)
    }

    @Test func missingAndForeignFiles() throws {
        let dir = try makeTemporaryDirectory()
        let missing = try runVinyard(["stats", "--db", dir.appendingPathComponent("nope.db").path])
        #expect(missing.status == 66)
        #expect(missing.stderr.hasPrefix("error: no database at"))
        let text = dir.appendingPathComponent("notes.txt")
        try Data("hello\n".utf8).write(to: text)
        let refused = try runVinyard(["stats", "--db", text.path])
        #expect(refused.status == 65)
        #expect(refused.stderr.contains("is not a Vinyard database"))
        #expect(try Data(contentsOf: text) == Data("hello\n".utf8))
    }

    /// A damaged SQLite file (its header intact, its first page overwritten) is malformed input,
    /// exit 65 with a message that says so, for stats and export alike; it was exit 74 with the
    /// SQL of the query that tripped over it.
    @Test func damagedDatabaseIsMalformedInput() throws {
        let path = try makeDatabase()
        var bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        try #require(bytes.count > 4096)
        bytes.replaceSubrange(100..<4096, with: Data(repeating: 0x5A, count: 3996))
        try bytes.write(to: URL(fileURLWithPath: path))
        for command in [["stats"], ["export"], ["emissions"]] {
            let r = try runVinyard(command + ["--db", path])
            #expect(r.status == 65, "\(command): \(r.stderr)")
            #expect(r.stderr.contains("is damaged"), "\(command): \(r.stderr)")
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == bytes)
    }
}
