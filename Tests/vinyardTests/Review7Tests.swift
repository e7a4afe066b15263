import Foundation
import Testing
import VinyardKit

/// Black-box findings of review 7, each run through the built binary.
@Suite struct Review7Tests {
    /// Splits a CSV text into rows of fields (RFC 4180: quotes, doubled quotes, embedded newlines).
    static func parseCSV(_ text: String) -> [[String]] {
        var rows: [[String]] = [], row: [String] = [], field = "", quoted = false, i = text.startIndex
        while i < text.endIndex {
            let c = text[i]
            if quoted {
                if c == "\"" {
                    let n = text.index(after: i)
                    if n < text.endIndex, text[n] == "\"" { field.append("\""); i = n } else { quoted = false }
                } else { field.append(c) }
            } else if c == "\"" { quoted = true
            } else if c == "," { row.append(field); field = ""
            } else if c == "\n" || c == "\r\n" { row.append(field); rows.append(row); row = []; field = ""
            } else { field.append(c) }
            i = text.index(after: i)
        }
        if !field.isEmpty || !row.isEmpty { row.append(field); rows.append(row) }
        return rows
    }

    /// Excel exports often end every line with empty columns (`VIN,Make,,`), and files repeat a
    /// header (`vin,make,vin`). The rejects file must give each column its own value instead of
    /// moving the second of two same-named columns into `_extra` on every row.
    @Test func rejectsCSVKeepsRepeatedHeaderNamesInTheirColumns() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let input = dir.appendingPathComponent("excel.csv")
        try Data("VIN,Make,Odometer (mi),,\r\nBADVIN,Ford,5,,\r\nXYZ,Opel,7,a,b\r\n".utf8).write(to: input)
        let rejects = dir.appendingPathComponent("rejects.csv").path
        let r = try runVinyard(["validate", input.path, "--rejects", rejects, "--quiet"])
        #expect(r.status == 1, "\(r.stderr)")
        let rows = Self.parseCSV(try String(contentsOfFile: rejects, encoding: .utf8))
        #expect(rows.count == 3, "\(rows)")
        #expect(rows[0] == ["VIN", "Make", "Odometer (mi)", "", "", "_input", "_line", "_findings", "_extra"])
        #expect(Array(rows[1].prefix(5)) == ["BADVIN", "Ford", "5", "", ""])
        #expect(rows[1].last == "", "nothing beyond the header's columns: \(rows[1])")
        #expect(Array(rows[2].prefix(5)) == ["XYZ", "Opel", "7", "a", "b"])
        #expect(rows[2].last == "", "\(rows[2])")

        let dup = dir.appendingPathComponent("dup.csv")
        try Data("vin,make,vin\nBAD,Ford,OTHER\n".utf8).write(to: dup)
        let rejects2 = dir.appendingPathComponent("rejects2.csv").path
        _ = try runVinyard(["validate", dup.path, "--rejects", rejects2, "--quiet"])
        let rows2 = Self.parseCSV(try String(contentsOfFile: rejects2, encoding: .utf8))
        #expect(rows2.count == 2, "\(rows2)")
        #expect(Array(rows2[1].prefix(3)) == ["BAD", "Ford", "OTHER"])
        #expect(rows2[1].last == "", "\(rows2[1])")
    }

    /// A malformed line of a CRLF JSON Lines file goes back in the rejects file as the user wrote
    /// it, without the line break's carriage return.
    @Test func malformedCRLFJSONLinesRejectHasNoCarriageReturn() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let input = dir.appendingPathComponent("crlf.jsonl")
        try Data("{\"vin\":\"1FTFW1E57KFA14352\"}\r\n{\"vin\": bad}\r\n[1]\r\n{\"vin\":\"1HGCV1F52MA000123\"}\r\n".utf8)
            .write(to: input)
        let rejects = dir.appendingPathComponent("rejects.jsonl").path
        let r = try runVinyard(["validate", input.path, "--rejects", rejects, "--quiet"])
        #expect(r.status == 1, "\(r.stderr)")
        let lines = try String(contentsOfFile: rejects, encoding: .utf8).split(separator: "\n")
        #expect(lines.count == 2)
        let texts = try lines.map { line in
            let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            return object["_text"] as? String
        }
        #expect(texts == ["{\"vin\": bad}", "[1]"])
    }

    /// Headers as real fleet exports write them map to their fields instead of being dropped
    /// as unmapped: `Plate No.`, `License No.`, `Odometer Reading (mi)` (miles converted),
    /// `Vehicle Year`, `Asset No.`.
    @Test func commonFleetExportHeadersAreMapped() throws {
        let csv = "VIN,Plate No.,Odometer Reading (mi),Vehicle Year,Asset No.\n1FTFW1E57KFA14352,AB-123-C,1000,2019,A-77\n"
        let r = try runVinyard(["validate", "-", "--input-format", "csv", "--report", "json", "--quiet"], stdin: Data(csv.utf8))
        #expect(r.status == 0, "\(r.stderr)")
        #expect(try ParsedReport(r).inputs.first?["warnings"] as? [String] == [], "\(r.stdout)")
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let input = dir.appendingPathComponent("fleet.csv")
        try Data(csv.utf8).write(to: input)
        let out = dir.appendingPathComponent("out.jsonl").path
        let c = try runVinyard(["convert", input.path, "-o", out, "--quiet"])
        #expect(c.status == 0, "\(c.stderr)")
        let object = try #require(
            try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: out))) as? [String: Any])
        #expect(object["license_plate"] as? String == "AB-123-C")
        #expect(object["odometer_km"] as? Int == 1609)
        #expect(object["model_year"] as? Int == 2019)
        #expect(object["source_id"] as? String == "A-77")
    }

    /// Excel writes `="0123"` (in a quoted field `"=""0123"""`) to keep a text value such as a VIN
    /// or a plate with leading zeros from being turned into a number. The reader takes the text
    /// inside, as a spreadsheet shows it, instead of rejecting the VIN for its `=` and quotes.
    @Test func excelTextFormulaCellsAreReadAsTheirText() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let input = dir.appendingPathComponent("excel.csv")
        let csv = "VIN,Make,Plate,Model Year\r\n"
            + "=\"1HGCV1F52MA000123\",Honda,\"=\"\"0123\"\"\",=\"2021\"\r\n"
            + "1FTFW1E57KFA14352,Ford,=\"007\",2019\r\n"
        try Data(csv.utf8).write(to: input)
        let out = dir.appendingPathComponent("out.jsonl").path
        let r = try runVinyard(["convert", input.path, "-o", out, "--quiet"])
        #expect(r.status == 0, "\(r.stderr)")
        let objects = try String(contentsOfFile: out, encoding: .utf8).split(separator: "\n").map {
            try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
        }
        #expect(objects.count == 2)
        #expect(objects.first?["vin"] as? String == "1HGCV1F52MA000123")
        #expect(objects.first?["license_plate"] as? String == "0123")
        #expect(objects.first?["model_year"] as? Int == 2021)
        #expect(objects.last?["license_plate"] as? String == "007")
        let raw = dir.appendingPathComponent("raw.jsonl").path
        _ = try runVinyard(["convert", input.path, "-o", raw, "--source", "raw", "--quiet"])
        #expect(try String(contentsOfFile: raw, encoding: .utf8).contains("\"Plate\":\"0123\""))
    }

    /// A UTF-16 file (Excel's "Unicode Text", PowerShell's Out-File) was read as "binary data",
    /// or as JSON Lines of NUL bytes that each became a reject; then it was refused (exit 65).
    /// Since session 19 it is read, whatever its name says, with or without a byte order mark:
    /// the same record as its UTF-8 text, at the same line.
    @Test(arguments: ["fleet.csv", "fleet.jsonl", "fleet.json", "fleet.txt"])
    func utf16InputIsReadAsItsText(name: String) throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let text = name.hasSuffix(".csv") || name.hasSuffix(".txt")
            ? "VIN\tMake\n1FTFW1E57KFA14352\tFord\n" : "{\"vin\":\"1FTFW1E57KFA14352\"}\n"
        for (suffix, data) in [
            ("bom", Data([0xFF, 0xFE]) + text.data(using: .utf16LittleEndian)!),
            ("le", text.data(using: .utf16LittleEndian)!),
            ("be", Data([0xFE, 0xFF]) + text.data(using: .utf16BigEndian)!),
        ] {
            let input = dir.appendingPathComponent("\(suffix)-\(name)")
            try data.write(to: input)
            let r = try runVinyard(["validate", input.path, "--quiet", "--report", "json"])
            #expect(r.status == 0, "\(suffix): \(r.stdout) \(r.stderr)")
            let report = try ParsedReport(r)
            #expect(report.int("read") == 1 && report.int("inserted") == 1, "\(suffix): \(r.stdout)")
        }
    }
}
