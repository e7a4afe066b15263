import Foundation
import Testing

/// Under `--on-duplicate merge`, a later record's warnings join the row only for what the row
/// took from it (found by audit: a `vin.make_mismatch` on a make the row did not take was listed
/// among the loaded row's findings within a run, though not across runs).
@Suite struct MergeFindingsTests {
    private let vin = "1G1ZD5ST8LF034567"

    private func importAndRead(_ files: [[String]], oneRun: Bool) throws -> (findings: [String], duplicates: [String], make: String) {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        var paths: [String] = []
        for (i, lines) in files.enumerated() {
            paths.append(try Review12Tests.write(lines.joined(separator: "\n") + "\n", "w\(i + 1).csv", in: dir))
        }
        let db = dir.appendingPathComponent("m.db").path
        for run in oneRun ? [paths] : paths.map({ [$0] }) {
            _ = try Review12Tests.importJSON(run + ["--db", db, "--on-duplicate", "merge"])
        }
        let findings = try Review12Tests.rows(db, "findings", columns: "code,line")
        let duplicates = try Review12Tests.rows(db, "duplicates", columns: "action,findings")
        let make = try Review12Tests.rows(db, "vehicles", columns: "make").first ?? ""
        return (findings, duplicates, make)
    }

    @Test(arguments: [true, false])
    func warningOnAValueNotTakenStaysWithTheDuplicate(oneRun: Bool) throws {
        let r = try importAndRead(
            [["VIN,Make,Model,Year", "\(vin),Chevrolet,Malibu,2020"], ["VIN,Make,Model,Year,Color", "\(vin),Ford,Malibu,2020,Red"]],
            oneRun: oneRun)
        #expect(r.make == "Chevrolet")
        #expect(!r.findings.contains { $0.hasPrefix("vin.make_mismatch") }, "\(r.findings)")
        #expect(r.findings.contains { $0.hasPrefix("key.conflict") }, "\(r.findings)")
        #expect(r.duplicates.count == 1 && r.duplicates[0].contains("vin.make_mismatch"), "\(r.duplicates)")
    }

    @Test(arguments: [true, false])
    func warningOnAFilledValueJoinsTheRow(oneRun: Bool) throws {
        let r = try importAndRead(
            [["VIN,Make,Model,Year", "\(vin),,Malibu,2020"], ["VIN,Make,Model,Year,Color", "\(vin),Ford,Malibu,2020,Red"]],
            oneRun: oneRun)
        #expect(r.make == "Ford")
        #expect(r.findings.contains { $0.hasPrefix("vin.make_mismatch") }, "\(r.findings)")
    }
}
