import Foundation
import Testing
import VinyardKit

/// Black-box findings of review 10 (hostile and real-world inputs), each run through the built binary.
@Suite struct Review10Tests {
    /// Writes `text` to `name` in `dir` and returns its path.
    static func write(_ text: String, _ name: String, in dir: URL) throws -> String {
        let url = dir.appendingPathComponent(name)
        try Data(text.utf8).write(to: url)
        return url.path
    }

    /// The JSON report of a run.
    static func report(_ r: RunResult) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: r.stdoutData) as? [String: Any], "\(r.stderr)")
    }

    /// A `{"vehicles": [...]}` envelope whose array holds a non-object element (`null`, a number)
    /// reads like a bare array: that element is a `row.malformed` reject and the objects load. The
    /// envelope was read as one record with the key `vehicles`, which names no source (exit 64).
    @Test func wrappedArrayWithANonObjectElementRejectsOnlyThatElement() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        for (name, text) in [
            ("lead.json", #"{"vehicles": [null, {"vin":"1FTFW1E57KFA14352","make":"Ford"}, {"vin":"1HGCV1F52MA000123"}]}"#),
            ("mid.json", #"{"count": 3, "vehicles": [{"vin":"1FTFW1E57KFA14352","make":"Ford"}, 7, {"vin":"1HGCV1F52MA000123"}]}"#),
            ("inarray.json", #"[{"vehicles": [1, {"vin":"1FTFW1E57KFA14352","make":"Ford"}, {"vin":"1HGCV1F52MA000123"}]}]"#),
        ] {
            let input = try Self.write(text, name, in: dir)
            let r = try runVinyard(["validate", input, "--report", "json", "--quiet"])
            #expect(r.status == 1, "\(name): \(r.stderr)")
            let report = try Self.report(r)
            #expect(report["read"] as? Int == 3, "\(name): \(report)")
            #expect(report["inserted"] as? Int == 2, "\(name): \(report)")
            #expect(report["rejected"] as? Int == 1, "\(name): \(report)")
            #expect((report["findings"] as? [String: Int])?["row.malformed"] == 1, "\(name): \(report)")
        }
        // A record with a list of scalars under a key that is no wrapper key is still one record.
        let one = try Self.write(#"[{"vin":"1FTFW1E57KFA14352","options":["a", "b"]}]"#, "one.json", in: dir)
        let r = try runVinyard(["validate", one, "--report", "json", "--quiet"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(try Self.report(r)["inserted"] as? Int == 1)
    }
}
