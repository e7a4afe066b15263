import Foundation
import Testing
import VinyardKit

/// Black-box findings of review 13, each run through the built binary.
@Suite struct Review13Tests {
    /// Writes `text` to `name` in `dir` and returns its path.
    static func write(_ text: String, _ name: String, in dir: URL) throws -> String {
        let url = dir.appendingPathComponent(name)
        try Data(text.utf8).write(to: url)
        return url.path
    }

    /// Keys nested in objects are read as fields, so they name the source too: a locations feed
    /// whose coordinates sit under `location`/`gps` (`{"name", "location": {"lat", "lng"}}`) was
    /// refused with "cannot tell the source from its keys (name, location)".
    @Test func nestedKeysNameTheSource() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let input = try Self.write(
            #"[{"name": "Depot A", "location": {"lat": 52.3547498, "lng": 4.8339215}}, {"name": "Depot B", "gps": {"lat": 19.0823998, "lon": 72.8111468}}]"#,
            "depots.json", in: dir)
        let db = dir.appendingPathComponent("v.db").path
        let r = try runVinyard(["import", input, "--db", db, "--quiet"])
        #expect(r.status == 0, "\(r.stderr)")
        let out = try runVinyard(["export", "--db", db, "--table", "locations", "--columns", "name,latitude,longitude"])
        #expect(out.stdout == "name,latitude,longitude\nDepot A,52.3547498,4.8339215\nDepot B,19.0823998,72.8111468\n")
    }
}

extension Review13Tests {
    /// A nested member is named by its path in warnings (`gps.lat`), as the members no field takes
    /// are (`gps.accuracy`); the shadowing warning named `gps lat`, a key the input does not have.
    @Test func nestedMembersAreNamedByTheirPath() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let input = try Self.write(
            #"[{"vin": "1HGCV1F52MA000123", "latitude": 50, "gps": {"lat": 52.1, "lon": 4.5, "accuracy": 3}}]"#,
            "gps.json", in: dir)
        let r = try runVinyard(["validate", input])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stderr.contains("keys 'latitude' and 'gps.lat' both map to field latitude"), "\(r.stderr)")
        #expect(r.stderr.contains("key 'gps.accuracy'"), "\(r.stderr)")
        #expect(!r.stderr.contains("gps lat"), "\(r.stderr)")
    }
}

extension Review13Tests {
    /// A short ragged row rejected first does not name the rejects file's columns: they are the
    /// header's (`vin,make,model`), not the short row's (`vin`, every later reject's make and model
    /// going to `_extra`).
    @Test func shortRaggedRowFirstDoesNotNameTheRejectsColumns() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let input = try Self.write(
            "vin,make,model\n1FTFW1E57KFA14352\nBAD,Ford,X\n1HGCV1F52MA000123,Honda,Civic,extra\n", "short.csv", in: dir)
        let rejects = dir.appendingPathComponent("rejects.csv").path
        let r = try runVinyard(["validate", input, "--rejects", rejects, "--quiet"])
        #expect(r.status == 1, "\(r.stderr)")
        let lines = try String(contentsOfFile: rejects, encoding: .utf8).split(separator: "\n").map(String.init)
        #expect(lines.first == "vin,make,model,_input,_line,_findings,_extra")
        #expect(lines.count == 4)
        #expect(lines[2].hasPrefix("BAD,Ford,X,"), "\(lines)")
        #expect(lines[3].hasPrefix("1HGCV1F52MA000123,Honda,Civic,"), "\(lines)")

        // Ragged rows alone: the one with the most of the header's columns names them.
        let ragged = try Self.write("vin,make,model\n1FTFW1E57KFA14352\n1HGCV1F52MA000123,Honda,Civic,extra\n", "ragged.csv", in: dir)
        #expect(try runVinyard(["validate", ragged, "--rejects", rejects, "--quiet"]).status == 1)
        let only = try String(contentsOfFile: rejects, encoding: .utf8).split(separator: "\n").map(String.init)
        #expect(only.first == "vin,make,model,_input,_line,_findings,_extra")
        #expect(only.count == 3)
    }
}
