import Foundation
import Testing
import VinyardKit

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

/// Re-importing an input that holds a key twice with different values (the later line wins)
/// changes nothing: the row's first occurrence rewrote it and the later one put it back, which
/// stamped the row with the new run and left a `replaced` entry for a row that was never
/// replaced (found by audit).
@Suite struct NetUnchangedReimportTests {
    private func dump(_ db: String, _ sql: String) throws -> [String] {
        let connection = try Connection(path: db, mode: .readOnly)
        let statement = try connection.prepare(sql)
        var rows: [String] = []
        while try statement.step() {
            rows.append((0..<statement.columnCount).map { statement.text($0) ?? "NULL" }.joined(separator: "|"))
        }
        return rows
    }

    @Test func reimportLeavesRowsAsTheyWere() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let csv = "VIN,Make,Model,Odometer\n1FTFW1E57KFA14352,Ford,F-150,1000\n1FTFW1E57KFA14352,Ford,F-150,2000\n"
            + "1HGCV1F52MA000123,Honda,Accord,500\n"
        let first = try Review12Tests.write(csv, "x1.csv", in: dir)
        let copy = try Review12Tests.write(csv, "x2.csv", in: dir)
        let db = dir.appendingPathComponent("x.db").path
        _ = try Review12Tests.importJSON([first, "--db", db])
        let rows = "SELECT * FROM vehicles ORDER BY _key"
        let before = try dump(db, rows)
        Thread.sleep(forTimeInterval: 0.01)  // a later `_updated_at` if the row were stamped again
        let again = try Review12Tests.importJSON([first, "--db", db])
        #expect(again["unchanged"] as? Int == 2 && again["updated"] as? Int == 0, "\(again)")
        #expect(try dump(db, rows) == before)
        // The same records under another name: the rows now stand for its lines, their values and
        // run stamps stay, and the copy's own replaced line 2 takes the place of the first name's
        // (the same bytes: see Review26Tests.aRenamedCopyDoesNotPileUpBookkeeping).
        _ = try Review12Tests.importJSON([copy, "--db", db])
        let moved = try dump(db, "SELECT _run_id, _updated_at, odometer_km, _input, _line FROM vehicles ORDER BY _key")
        #expect(moved.count == 2 && moved.allSatisfy { $0.hasPrefix("1|") && $0.contains("/x2.csv|") }, "\(moved)")
        let entries = try dump(db, "SELECT action, input, line FROM duplicates ORDER BY id")
            .map { $0.replacingOccurrences(of: dir.path + "/", with: "") }
        #expect(entries == ["replaced|x2.csv|2"], "\(entries)")
    }

    /// The key's first line matches the row, a later one changes it and the last puts it back
    /// (Blue, Red, Blue): the row is still as it was, run stamps included (review).
    @Test func firstLineUnchangedThenChangedBack() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let csv = "VIN,Make,Colour\n1FTFW1E57KFA14352,Ford,Blue\n1FTFW1E57KFA14352,Ford,Red\n1FTFW1E57KFA14352,Ford,Blue\n"
        let input = try Review12Tests.write(csv, "b.csv", in: dir)
        let db = dir.appendingPathComponent("b.db").path
        _ = try Review12Tests.importJSON([input, "--db", db])
        let rows = "SELECT * FROM vehicles ORDER BY _key"
        let before = try dump(db, rows)
        let entries = try dump(db, "SELECT action, input, line, raw FROM duplicates ORDER BY input, line")
        Thread.sleep(forTimeInterval: 0.01)
        let again = try Review12Tests.importJSON([input, "--db", db])
        #expect(again["unchanged"] as? Int == 1, "\(again)")
        #expect(try dump(db, rows) == before)
        #expect(try dump(db, "SELECT action, input, line, raw FROM duplicates ORDER BY input, line") == entries)
    }

    /// An input given as a symbolic link is read again for a replaced record's raw fields, as its
    /// target is (a type check that did not follow links stored the row's values instead; review).
    @Test func replacedRecordOfALinkedInputIsTheRecordAsRead() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let target = try Review12Tests.write(
            "VIN,Make,Colour\n1FTFW1E57KFA14352,Ford,Blue\n1FTFW1E57KFA14352,Ford,Red\n", "dup.csv", in: dir)
        let link = dir.appendingPathComponent("link.csv").path
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: target)
        let db = dir.appendingPathComponent("l.db").path
        _ = try Review12Tests.importJSON([link, "--db", db])
        let raw = try dump(db, "SELECT raw FROM duplicates")
        #expect(raw == [#"{"VIN":"1FTFW1E57KFA14352","Make":"Ford","Colour":"Blue"}"#], "\(raw)")
    }
}

/// `validate` finds the `key.conflict`s `import` finds on an empty database (DESIGN.md), also
/// when the later record leaves fields empty and the differing values are past the 16th filled
/// field (it compared a byte of the first 16 only: none found here, where import found one).
@Suite struct ValidateConflictTests {
    @Test func conflictPastTheSixteenthFieldIsFound() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let header = "vin,make,model,model_year,trim,body_class,vehicle_type,color,fuel_type,transmission,drive_type,doors,"
            + "power_kw,odometer_km,license_plate,status,first_registration,price,notes"
        let full = "1FTFW1E57KFA14352,Ford,F-150,2019,XLT,pickup,truck,Blue,gasoline,automatic,4wd,4,290,45210,AB-123,active,2019-03,31000,first"
        let later = "1FTFW1E57KFA14352,Ford,F-150,2019,,pickup,truck,Blue,gasoline,automatic,4wd,4,290,45210,AB-123,active,2019-03,32000,second"
        // Many keys, each later record differing in one late field only, to catch 1-in-256 misses too.
        var lines = [header, full, later]
        for n in 0..<300 {
            let vin = VINEngine.withCheckDigit(String(format: "1FTFW1E50KF%06d", n))
            lines.append("\(vin),Ford,F-150,2019,XLT,pickup,truck,Blue,gasoline,automatic,4wd,4,290,45210,AB-123,active,2019-03,31000,note \(n)")
            lines.append("\(vin),Ford,F-150,2019,,pickup,truck,Blue,gasoline,automatic,4wd,4,290,45210,AB-123,active,2019-03,31000,note \(n + 1000)")
        }
        let input = try Review12Tests.write(lines.joined(separator: "\n") + "\n", "conf.csv", in: dir)
        let validate = try runVinyard(["validate", input, "--report", "json"])
        let imported = try runVinyard(["import", input, "--db", dir.appendingPathComponent("c.db").path, "--report", "json"])
        let v = try ParsedReport(validate), i = try ParsedReport(imported)
        #expect(i.findings["key.conflict"] == 301, "\(imported.stdout)")
        #expect(v.findings == i.findings)
    }
}
