import Foundation
import Testing

/// Where outputs go and how inputs are named, through the built binary.
@Suite struct OutputRoutingTests {
    /// `--rejects -` makes standard output the rejects file: the report (text or JSON) goes to
    /// standard error, so neither is spoiled by the other.
    @Test func rejectsOnStandardOutputMoveTheReportToStandardError() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let input = dir.appendingPathComponent("in.csv")
        try Data("vin,make\nBAD,Ford\n1FTFW1E57KFA14352,Ford\n".utf8).write(to: input)
        let r = try runVinyard(["validate", input.path, "--rejects", "-", "--report", "json"])
        #expect(r.status == 1, "\(r.stderr)")
        let lines = r.stdout.split(separator: "\n")
        #expect(lines.first == "vin,make,_input,_line,_findings,_extra", "\(r.stdout)")
        #expect(lines.count == 2, "only the rejects CSV on standard output: \(r.stdout)")
        let jsonStart = try #require(r.stderr.firstIndex(of: "{"), "\(r.stderr)")
        let report = try #require(
            try JSONSerialization.jsonObject(with: Data(r.stderr[jsonStart...].utf8)) as? [String: Any])
        #expect(report["rejected"] as? Int == 1)
        #expect(report["rejects_file"] as? String == "-")

        let text = try runVinyard(["validate", input.path, "--rejects", "-"])
        #expect(text.stdout.split(separator: "\n").count == 2, "\(text.stdout)")
        #expect(text.stderr.contains("read 2 = inserted 1"), "\(text.stderr)")
    }

    /// `export -o out.tsv` writes tabs, as `convert -o out.tsv` and `--rejects out.tsv` do.
    @Test func exportToATSVFileWritesTabs() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let input = dir.appendingPathComponent("in.csv")
        try Data("vin,make,model\n1FTFW1E57KFA14352,Ford,\"F-150, XL\"\n".utf8).write(to: input)
        let db = dir.appendingPathComponent("fleet.db").path
        #expect(try runVinyard(["import", input.path, "--db", db, "--quiet"]).status == 0)
        let tsv = dir.appendingPathComponent("out.tsv").path
        let r = try runVinyard(["export", "--db", db, "--columns", "vin,make,model", "-o", tsv])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(try String(contentsOfFile: tsv, encoding: .utf8) == "vin\tmake\tmodel\n1FTFW1E57KFA14352\tFord\tF-150, XL\n")
    }

    /// `emissions -o out.tsv` writes tabs too.
    @Test func emissionsToATSVFileWritesTabs() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let input = dir.appendingPathComponent("in.csv")
        try Data("vin,make,model,odometer\n1FTFW1E57KFA14352,Ford,\"F-150, XL\",10000\n".utf8).write(to: input)
        let db = dir.appendingPathComponent("fleet.db").path
        #expect(try runVinyard(["import", input.path, "--db", db, "--quiet"]).status == 0)
        let tsv = dir.appendingPathComponent("e.tsv").path
        let r = try runVinyard(["emissions", "--db", db, "-o", tsv])
        #expect(r.status == 0, "\(r.stderr)")
        let lines = try String(contentsOfFile: tsv, encoding: .utf8).split(separator: "\n")
        #expect(lines.first == "vin\tmake\tmodel\todometer_km\temissions")
        #expect(lines.dropFirst().first?.hasPrefix("1FTFW1E57KFA14352\tFord\tF-150, XL\t10000\t") == true, "\(lines)")
    }

    /// Re-running an input written another way (`./in.csv`, `.//in.csv`) replaces its earlier
    /// rejects and duplicates instead of adding to them.
    @Test func anInputSpelledAnotherWayIsTheSameInput() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let input = dir.appendingPathComponent("in.csv")
        try Data("vin,make\nBAD,Ford\n1FTFW1E57KFA14352,Ford\n1FTFW1E57KFA14352,Ford\n".utf8).write(to: input)
        let db = dir.appendingPathComponent("fleet.db").path
        for spelling in ["in.csv", "./in.csv", ".//in.csv", "././in.csv"] {
            let r = try runVinyard(["import", spelling, "--db", db, "--quiet"], cwd: dir)
            #expect(r.status == 0, "\(spelling): \(r.stderr)")
        }
        let e = try runVinyard(["export", "--db", db, "--table", "rejects", "--columns", "input,line", "--format", "csv"])
        #expect(e.stdout == "input,line\nin.csv,2\n", "\(e.stdout)")
        let d = try runVinyard(["export", "--db", db, "--table", "duplicates", "--columns", "input,line", "--format", "csv"])
        #expect(d.stdout == "input,line\nin.csv,3\n", "\(d.stdout)")  // last wins: line 3 is the duplicate kept aside
    }
}
