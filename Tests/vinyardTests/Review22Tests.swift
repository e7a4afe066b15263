import Foundation
import Testing
import VinyardKit

/// Findings of review 22 (session 19), each run through the built binary.
@Suite struct Review22Tests {
    static let twoRows = "vin,make,model,year\n1HGCM82633A004352,Honda,Accord,2003\n1FTFW1E52KFA00021,Ford,F-150,2019\n"

    /// Zero bytes after the last gzip member (block padding, as tape and some archivers write
    /// it) were "trailing data", exit 65, where `gzip -d` reads the file; they now end the
    /// stream. Anything else after the padding is still a corrupt stream naming its byte.
    @Test func zeroPaddingAfterTheLastGzipMemberIsRead() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let gz = try gzipFile(Data(Self.twoRows.utf8))
        let padded = dir.appendingPathComponent("padded.csv.gz")
        try (gz + Data(count: 300 * 1024)).write(to: padded)
        let r = try runVinyard(["validate", padded.path, "--report", "json"])
        #expect(r.status == 0, "\(r.stderr)")
        let report = try ParsedReport(r)
        #expect(report.int("read") == 2 && report.int("inserted") == 2)

        let junk = dir.appendingPathComponent("junk.csv.gz")
        try (gz + Data(count: 100) + Data("x".utf8)).write(to: junk)
        let bad = try runVinyard(["validate", junk.path])
        #expect(bad.status == 65)
        #expect(
            bad.stderr.contains("junk.csv.gz: corrupt gzip stream at byte \(gz.count + 100) (trailing data after the zero padding)"),
            "\(bad.stderr)")
    }

    /// A file compressed twice was refused as "binary data (NUL byte) in the CSV header"; it is
    /// now named for what it is, with the way out.
    @Test func aFileCompressedTwiceIsNamedSo() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let twice = dir.appendingPathComponent("twice.csv.gz")
        try gzipFile(try gzipFile(Data(Self.twoRows.utf8))).write(to: twice)
        let r = try runVinyard(["validate", twice.path])
        #expect(r.status == 65)
        #expect(r.stderr.contains("twice.csv.gz: the file is gzip-compressed twice"), "\(r.stderr)")
    }

    /// A date column saved from a spreadsheet without its date format holds day numbers
    /// (`44927`). They stay `field.date` rejects (a number is not taken for a date), but the
    /// message says what the number is and the date it stands for.
    @Test func aSpreadsheetDayNumberIsRejectedWithTheDateItStandsFor() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let input = dir.appendingPathComponent("xl.csv")
        try Data(
            "vin,make,model,year,first_registration\n1HGCM82633A004352,Honda,Accord,2003,44927\n1FTFW1E52KFA00021,Ford,F-150,2019,36526\n1FTFW1E54KFA00022,Ford,F-150,2019,2019-03-01\n"
                .utf8
        ).write(to: input)
        let rejects = dir.appendingPathComponent("rejects.jsonl")
        let r = try runVinyard(["validate", input.path, "--rejects", rejects.path, "--report", "json"])
        #expect(r.status == 1, "\(r.stderr)")
        #expect(try ParsedReport(r).findings["field.date"] == 2)
        let text = try String(contentsOf: rejects, encoding: .utf8)
        #expect(text.contains("spreadsheet day number (2023-01-01 in Excel)"), "\(text)")
        #expect(text.contains("spreadsheet day number (2000-01-01 in Excel)"), "\(text)")
    }
}
