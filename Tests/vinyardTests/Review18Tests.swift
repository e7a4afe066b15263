import Foundation
import Testing
import VinyardKit

/// Findings of review 18 (session 15), each run through the built binary.
@Suite struct Review18Tests {
    /// JSON's grammar lets `\ud800` through, but half a UTF-16 surrogate pair is no character: it
    /// is read as U+FFFD, and the record now says so with a `row.encoding` warning naming the key
    /// (it was replaced silently). A proper pair is a character and no warning.
    @Test func aLoneSurrogateEscapeIsAnEncodingWarning() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        for (name, text) in [
            ("in.json", #"[{"vin":"1FTFW1E57KFA14352","make":"Ford","notes":"a\ud800b"},"#
                + #"{"vin":"1HGCV1F52MA000123","make":"Honda","notes":"\ud83d\ude97 ok"}]"#),
            ("in.jsonl", #"{"vin":"1FTFW1E57KFA14352","make":"Ford","notes":"a\udc00b"}"# + "\n"
                + #"{"vin":"1HGCV1F52MA000123","make":"Honda","notes":"\ud83d\ude97 ok"}"# + "\n"),
        ] {
            let input = dir.appendingPathComponent(name)
            try Data(text.utf8).write(to: input)
            let db = dir.appendingPathComponent(name + ".db").path
            let r = try runVinyard(["import", input.path, "--db", db, "--report", "json"])
            #expect(r.status == 0, "\(name): \(r.stderr)")
            let report = try #require(try JSONSerialization.jsonObject(with: r.stdoutData) as? [String: Any])
            let findings = report["findings"] as? [String: Any] ?? [:]
            #expect(findings["row.encoding"] as? Int == 1, "\(name): \(report)")
            let store = try VinyardStore(path: db, readOnly: true)
            #expect(try store.connection.scalarText("SELECT notes FROM vehicles WHERE vin LIKE '1FT%'") == "a\u{FFFD}b")
            #expect(try store.connection.scalarText("SELECT notes FROM vehicles WHERE vin LIKE '1HG%'") == "\u{1F697} ok")
            let message = try store.connection.scalarText("SELECT message FROM findings WHERE code = 'row.encoding'") ?? ""
            #expect(message.contains("'notes'") && message.contains("surrogate"), "\(name): \(message)")
        }
    }
}
