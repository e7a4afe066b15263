import Foundation
import Testing

@Suite struct GenerateCommandTests {
    @Test func sameSeedSameData() throws {
        let a = try runVinyard(["generate", "--rows", "200", "--seed", "9"])
        let b = try runVinyard(["generate", "--rows", "200", "--seed", "9"])
        let c = try runVinyard(["generate", "--rows", "200", "--seed", "10"])
        #expect(a.status == 0)
        #expect(a.stdout == b.stdout)
        #expect(a.stdout != c.stdout)
        #expect(a.stdout.split(separator: "\n").count == 201)
    }

    @Test func cleanDataValidatesClean() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let csv = dir.appendingPathComponent("clean.csv").path
        #expect(try runVinyard(["generate", "--rows", "3000", "-o", csv]).status == 0)
        let r = try runVinyard(["validate", csv, "--report", "json"])
        #expect(r.status == 0, "\(r.stdout)")
        let report = try ParsedReport(r)
        #expect(report.int("inserted") == 3000)
        // Makes and model years agree with the VINs: no cross-check warnings, no unknown WMIs.
        #expect(report.findings.isEmpty, "\(report.findings)")
    }

    @Test(arguments: ["csv", "jsonl", "json"], [3, 7])
    func dirtyDataMatchesItsTruth(_ format: String, seed: Int) throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent("dirty.\(format)").path
        let truthPath = dir.appendingPathComponent("truth.json").path
        let g = try runVinyard([
            "generate", "--rows", "5000", "--dirty", "0.2", "--seed", "\(seed)", "-o", file, "--truth", truthPath,
        ])
        #expect(g.status == 0, "\(g.stderr)")
        let truth = try #require(
            try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: truthPath))) as? [String: Any])
        let report = try ParsedReport(try runVinyard(["validate", file, "--report", "json"]))
        #expect(report.int("read") == truth["read"] as? Int)
        #expect(report.int("rejected") == truth["rejected"] as? Int)
        #expect(report.int("duplicates") == truth["duplicates"] as? Int)
        #expect(report.int("inserted") == truth["loaded"] as? Int)
        let expected = truth["findings"] as? [String: Int] ?? [:]
        for (code, count) in expected {
            #expect(report.findings[code, default: 0] >= count, "\(code)")
        }
        // Each duplicated key appears twice at most: exactly one conflict per conflicting copy.
        #expect(report.findings["key.conflict", default: 0] == expected["key.conflict", default: 0])
    }

    /// `--dirty RATE` puts a defect in exactly RATE × rows rows (rounded), not in each row with
    /// probability RATE: 20,000 rows at 0.1 have 2,000 defects, whatever the seed.
    @Test(arguments: [(20000, 0.1, 7), (1000, 0.05, 1), (333, 0.5, 2), (10, 1.0, 3), (7, 0.01, 4)])
    func dirtyRateIsExact(_ rows: Int, _ rate: Double, _ seed: Int) throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let truthPath = dir.appendingPathComponent("truth.json").path
        let g = try runVinyard([
            "generate", "--rows", "\(rows)", "--dirty", "\(rate)", "--seed", "\(seed)", "-o",
            dir.appendingPathComponent("d.csv").path, "--truth", truthPath,
        ])
        #expect(g.status == 0, "\(g.stderr)")
        let truth = try #require(
            try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: truthPath))) as? [String: Any])
        let defects = truth["defects"] as? [String: Int] ?? [:]
        #expect(defects.values.reduce(0, +) == Int((Double(rows) * rate).rounded()))
        #expect(truth["rejected"] as? Int == defects.values.reduce(0, +) - (truth["duplicates"] as? Int ?? -1))
    }

    /// A --truth path that cannot be written fails at once, before any row is generated, with a
    /// one-line message (it failed after writing all rows, with a Foundation error dump).
    @Test func unwritableTruthFailsFirst() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let out = dir.appendingPathComponent("d.csv").path
        let truth = dir.appendingPathComponent("missing/truth.json").path
        let r = try runVinyard(["generate", "--rows", "10", "-o", out, "--truth", truth])
        #expect(r.status == 74)
        #expect(r.stderr.hasPrefix("error: \(truth): cannot create"), "\(r.stderr)")
        #expect(!r.stderr.contains("NSCocoaErrorDomain"))
        #expect(!FileManager.default.fileExists(atPath: out))
    }

    @Test func gzipOutputReadsBack() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent("f.jsonl.gz").path
        #expect(try runVinyard(["generate", "--rows", "100", "-o", file]).status == 0)
        let report = try ParsedReport(try runVinyard(["validate", file, "--report", "json"]))
        #expect(report.int("read") == 100)
    }

    /// `--format` takes any case, as `export --format` does.
    @Test func formatIgnoresCase() throws {
        let r = try runVinyard(["generate", "--rows", "2", "--format", "JSON"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout.hasPrefix("["), "\(r.stdout)")
        #expect(try runVinyard(["generate", "--rows", "2", "--format", "xml"]).status == 64)
    }
}
