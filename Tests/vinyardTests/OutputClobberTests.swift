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

    /// A convert whose input fails part-way (a gzip stream cut off after thousands of records)
    /// leaves no output file, and an output that was there stays as it was: the output was
    /// truncated and half written, and looked finished.
    @Test(arguments: [[], ["--source", "raw"]])
    func convertThatFailsLeavesNoPartialOutput(_ extra: [String]) throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        var csv = "VIN,Make\n"
        for i in 0..<20_000 { csv += "1HGCV1F52MA\(String(format: "%06d", i)),Honda\n" }
        let whole = try gzipFile(Data(csv.utf8))
        let cut = dir.appendingPathComponent("cut.csv.gz").path
        try whole.prefix(whole.count * 3 / 4).write(to: URL(fileURLWithPath: cut))
        for name in ["new.json", "new.csv.gz", "old.json"] {
            let out = dir.appendingPathComponent(name).path
            if name == "old.json" { try Data("[]\n".utf8).write(to: URL(fileURLWithPath: out)) }
            let r = try runVinyard(["convert", cut, "-o", out] + extra, timeout: 60)
            #expect(r.status == 65, "\(name): \(r.status) \(r.stderr)")
            #expect(r.stderr.contains("cut.csv.gz"), "\(r.stderr)")
            if name == "old.json" {
                #expect(try Data(contentsOf: URL(fileURLWithPath: out)) == Data("[]\n".utf8))
            } else {
                #expect(!FileManager.default.fileExists(atPath: out), "\(name) was left behind")
            }
        }
        let left = try FileManager.default.contentsOfDirectory(atPath: dir.path).filter { $0.hasPrefix(".vinyard-") }
        #expect(left.isEmpty, "staging files left: \(left)")
        // A good input still lands in place, gzip by the name's ending.
        let good = dir.appendingPathComponent("good.csv").path
        try Data(csv.utf8).write(to: URL(fileURLWithPath: good))
        let out = dir.appendingPathComponent("good.json.gz").path
        let r = try runVinyard(["convert", good, "-o", out] + extra, timeout: 60)
        #expect(r.status == 0, "\(r.stderr)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: out)).prefix(2) == Data([0x1F, 0x8B]))
    }
}
