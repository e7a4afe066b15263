import Foundation
import Testing
import VinyardKit

/// An output option that names a file the same run reads (an input, the database) or another
/// output of the run is a usage error, and the file is left as it was: opening it for writing
/// would truncate it before (or while) it is read.
@Suite struct OutputClobberTests {
    /// `{in}` is the input CSV, `{in2}` the same file by another spelling, `{db}` a database,
    /// `{out}` a fresh output path.
    @Test(arguments: [
        ["validate", "{in}", "--rejects", "{in}", "--quiet"],
        ["validate", "{in}", "--rejects", "{in2}", "--quiet"],
        ["convert", "{in}", "-o", "{in}", "--quiet"],
        ["convert", "{in}", "-o", "{in2}", "--source", "raw", "--quiet"],
        ["convert", "{in}", "-o", "{out}", "--rejects", "{in}", "--quiet"],
        ["convert", "{in}", "-o", "{out}", "--rejects", "{out}", "--quiet"],
        ["export", "--db", "{db}", "-o", "{db}"],
        ["emissions", "--db", "{db}", "-o", "{db}", "--format", "csv"],
    ])
    func refusesToOverwriteWhatItReads(_ template: [String]) throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let input = dir.appendingPathComponent("fleet.csv").path
        let csv = try Data(contentsOf: URL(fileURLWithPath: sample("fleet.csv")))
        try csv.write(to: URL(fileURLWithPath: input))
        let db = dir.appendingPathComponent("fleet.db").path
        try #require(try runVinyard(["import", input, "--db", db, "--quiet"]).status == 0)
        let dbBytes = try Data(contentsOf: URL(fileURLWithPath: db))
        let out = dir.appendingPathComponent("out.csv").path
        let arguments = template.map {
            $0.replacingOccurrences(of: "{in2}", with: dir.path + "/./fleet.csv")
                .replacingOccurrences(of: "{in}", with: input)
                .replacingOccurrences(of: "{db}", with: db)
                .replacingOccurrences(of: "{out}", with: out)
        }

        let r = try runVinyard(arguments, timeout: 60)
        #expect(r.status == 64, "\(arguments): \(r.status) \(r.stderr)")
        #expect(r.stderr.hasPrefix("error: "), "\(r.stderr)")
        let named = template.contains("{out}") && template.last(where: { $0.hasPrefix("{") }) == "{out}" ? out : "fleet."
        #expect(r.stderr.contains(named), "names the file: \(r.stderr)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: input)) == csv, "the input was overwritten")
        #expect(try Data(contentsOf: URL(fileURLWithPath: db)) == dbBytes, "the database was overwritten")
    }

    /// Distinct files, and the null device for both outputs, still work.
    @Test func distinctOutputsStillWork() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let out = dir.appendingPathComponent("out.csv").path
        let rejects = dir.appendingPathComponent("rejects.csv").path
        let a = try runVinyard(["convert", sample("fleet.csv"), "-o", out, "--rejects", rejects, "--quiet"])
        #expect(a.status == 0, "\(a.stderr)")
        #expect(FileManager.default.fileExists(atPath: rejects))
        let b = try runVinyard(["convert", sample("fleet.csv"), "-o", "/dev/null", "--format", "csv",
                                "--rejects", "/dev/null", "--quiet"])
        #expect(b.status == 0, "\(b.stderr)")
    }
}
