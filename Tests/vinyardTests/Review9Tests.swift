import Foundation
import Testing
import VinyardKit

/// Black-box findings of review 9, each run through the built binary.
@Suite struct Review9Tests {
    /// Writes `text` to `name` in `dir` and returns its path.
    static func write(_ text: String, _ name: String, in dir: URL) throws -> String {
        let url = dir.appendingPathComponent(name)
        try Data(text.utf8).write(to: url)
        return url.path
    }

    /// `key,action` rows of the `duplicates` table, sorted.
    static func duplicates(_ db: String) throws -> [String] {
        let r = try runVinyard(["export", "--db", db, "--table", "duplicates", "--columns", "key,action"])
        #expect(r.status == 0, "\(r.stderr)")
        return r.stdout.split(separator: "\n").dropFirst().map(String.init).sorted()
    }

    /// A re-import that drops a record's values (`first`: values that would fill the row's empty
    /// fields) or empties stored values (`last`: a later record with the field blank) keeps what
    /// is not loaded in `duplicates`; only conflicting values were kept, the others were lost.
    @Test func reimportKeepsValuesItDoesNotLoad() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let sparse = try Self.write(
            "vin,make,color,odometer_km\n1FTFW1E57KFA14352,Ford,,72400\n1HGCV1F52MA000123,Honda,Blue,\n", "sparse.csv", in: dir)
        let full = try Self.write(
            "vin,make,color,odometer_km\n1FTFW1E57KFA14352,Ford,Red,72400\n1HGCV1F52MA000123,Honda,Green,21100\n",
            "full.csv", in: dir)

        // first: the Ford's Red is not loaded, so the record is kept as dropped.
        let first = dir.appendingPathComponent("first.db").path
        #expect(try runVinyard(["import", sparse, "--db", first, "--quiet"]).status == 0)
        #expect(try runVinyard(["import", full, "--db", first, "--on-duplicate", "first", "--quiet"]).status == 0)
        #expect(try Self.duplicates(first) == ["1FTFW1E57KFA14352,dropped", "1HGCV1F52MA000123,dropped"])
        // Re-running it replaces the entries, it does not pile them up.
        #expect(try runVinyard(["import", full, "--db", first, "--on-duplicate", "first", "--quiet"]).status == 0)
        #expect(try Self.duplicates(first).count == 2)

        // last: the sparse run empties the Ford's Red, so the stored row is kept as replaced.
        let last = dir.appendingPathComponent("last.db").path
        #expect(try runVinyard(["import", full, "--db", last, "--quiet"]).status == 0)
        #expect(try runVinyard(["import", sparse, "--db", last, "--quiet"]).status == 0)
        #expect(try Self.duplicates(last) == ["1FTFW1E57KFA14352,replaced", "1HGCV1F52MA000123,replaced"])

        // merge: filling gaps loses nothing; only the conflicting Honda is kept.
        let merge = dir.appendingPathComponent("merge.db").path
        #expect(try runVinyard(["import", sparse, "--db", merge, "--quiet"]).status == 0)
        #expect(try runVinyard(["import", full, "--db", merge, "--on-duplicate", "merge", "--quiet"]).status == 0)
        #expect(try Self.duplicates(merge) == ["1HGCV1F52MA000123,merged"])
    }

    /// `--where` range operators on a date field read the value as the field reads dates
    /// (`01/2020` is `2020-01`), as `=` does: `first_registration>=01/2020` matched 2019 rows and
    /// `<06/2019` matched none (compared as typed, byte by byte).
    @Test func dateRangeFilterReadsTheDateAsTheFieldDoes() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let input = try Self.write(
            """
            {"vehicles":[{"ID":"1","Make":"BMW","FirstRegistration":"03/2019","Mileage (km)":1000},
            {"ID":"2","Make":"Audi","FirstRegistration":"01/2020","Mileage (km)":2000}]}
            """, "as.json", in: dir)
        let db = dir.appendingPathComponent("a.db").path
        #expect(try runVinyard(["import", input, "--db", db, "--quiet"]).status == 0)
        for (filter, keys) in [
            ("first_registration>=01/2020", ["autoscout:2"]), ("first_registration<06/2019", ["autoscout:1"]),
            ("first_registration<=2019-03", ["autoscout:1"]), ("first_registration>=2019", ["autoscout:1", "autoscout:2"]),
            // A year names all of it: after 2019 is 2020 on (compared as text, 2019-03 was after 2019).
            ("first_registration>2019", ["autoscout:2"]),
        ] {
            let r = try runVinyard(["export", "--db", db, "--where", filter, "--columns", "key"])
            #expect(r.status == 0, "\(r.stderr)")
            #expect(r.stdout.split(separator: "\n").dropFirst().map(String.init) == keys, "\(filter): \(r.stdout)")
        }
    }

    /// The report places a malformed JSON array element by its index, as it places every other
    /// finding of a JSON element: `rows.json:1 (element 2)`. It showed the line alone, the same
    /// for every element of a one-line array.
    @Test func malformedJSONElementIsPlacedByItsIndex() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        _ = try Self.write(
            #"[{"vin":"1FTFW1E57KFA14352","make":"Ford"}, 1, "x", {"vin":"1HGCV1F52MA000123"}, null]"#, "rows.json", in: dir)
        let r = try runVinyard(["validate", "rows.json", "--report", "json", "--quiet"], cwd: dir)
        #expect(r.status == 1, "\(r.stderr)")
        let report = try #require(try JSONSerialization.jsonObject(with: r.stdoutData) as? [String: Any])
        let examples = try #require(report["finding_examples"] as? [String: [String]])
        #expect(examples["row.malformed"] == ["rows.json:1 (element 1)", "rows.json:1 (element 2)", "rows.json:1 (element 4)"],
            "\(examples)")
        let text = try runVinyard(["validate", "rows.json", "--quiet"], cwd: dir)
        #expect(text.stdout.contains("rows.json:1 (element 1), rows.json:1 (element 2)"), "\(text.stdout)")
    }

    /// A stray NUL byte in a data row of a text CSV does not make the whole file "binary data"
    /// (exit 65): the row is checked like any other, as it already was past the first 64 KiB.
    /// Binary files (many NUL bytes) are still refused.
    @Test func strayNULByteInARowIsNotBinaryData() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        var rows = ["vin,make,model", "1FTFW1E57KFA14352,Ford,F-150", "1HGCV1F52MA0\u{0}00123,Honda,Accord"]
        rows += ["2HKRM3H38EH550410,Honda,CR\u{0}V", "JM1GJ1W65E1143959,Mazda,6"]
        let input = try Self.write(rows.joined(separator: "\n") + "\n", "nul.csv", in: dir)
        let r = try runVinyard(["validate", input, "--report", "json", "--quiet"])
        #expect(r.status == 1, "\(r.stderr)")
        let report = try #require(try JSONSerialization.jsonObject(with: r.stdoutData) as? [String: Any])
        #expect(report["read"] as? Int == 4)
        #expect(report["inserted"] as? Int == 3)
        #expect(report["rejected"] as? Int == 1)
        #expect((report["findings"] as? [String: Int])?["vin.characters"] == 1, "\(report)")

        var binary = Data((0..<4096).map { UInt8(truncatingIfNeeded: $0 &* 37) })
        for i in stride(from: 100, to: 4096, by: 64) { binary[i] = 0 }
        let garbage = dir.appendingPathComponent("garbage.dat")
        try binary.write(to: garbage)
        let g = try runVinyard(["validate", garbage.path, "--quiet"])
        #expect(g.status == 65, "\(g.stderr)")
        #expect(g.stderr.contains("binary data"), "\(g.stderr)")
    }

    /// Two outputs of one run on standard output are a usage error: `generate --truth -` (with
    /// -o standard output by default) appended the truth JSON to the CSV rows, and `convert -o -
    /// --rejects -` mixed the rejects into the converted rows.
    @Test func twoOutputsOnStandardOutputAreRefused() throws {
        let g = try runVinyard(["generate", "--rows", "2", "--truth", "-"])
        #expect(g.status == 64, "\(g.stdout)")
        #expect(g.stdout.isEmpty)
        #expect(g.stderr.contains("standard output"), "\(g.stderr)")
        let c = try runVinyard(["convert", sample("fleet.csv"), "-o", "-", "--rejects", "-", "--quiet"])
        #expect(c.status == 64, "\(c.stdout)")
        #expect(c.stdout.isEmpty)
        // One of them on standard output is fine.
        let one = try runVinyard(["generate", "--rows", "2", "--truth", "/dev/null"])
        #expect(one.status == 0, "\(one.stderr)")
        #expect(one.stdout.split(separator: "\n").count == 3)
    }
}
