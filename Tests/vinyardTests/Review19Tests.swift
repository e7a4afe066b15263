import Foundation
import Testing
import VinyardKit

/// Findings of review 19 (session 16), each run through the built binary.
@Suite struct Review19Tests {
    /// An import interrupted while it waits for standard input (outside SQLite, where the
    /// interruption cannot reach it): the watcher ends the run after 3 s with exit 130, a JSON
    /// report's reader gets its JSON error (it got nothing), a database the run created is removed
    /// (it was left, empty, with a journal), and an existing one is left as it was.
    @Test func anImportWaitingForStandardInputIsInterruptedCleanly() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let existing = dir.appendingPathComponent("fleet.db").path
        try #require(try runVinyard(["import", sample("fleet.csv"), "--db", existing, "--quiet"], timeout: 30).status == 0)
        let before = try DatabaseState(existing)
        for db in [dir.appendingPathComponent("new.db").path, existing] {
            let process = Process()
            process.executableURL = vinyardBinary
            process.arguments = ["import", "-", "--db", db, "--report", "json"]
            let stdin = Pipe(), stdout = Pipe(), stderr = Pipe()
            process.standardInput = stdin  // held open, nothing written
            process.standardOutput = stdout
            process.standardError = stderr
            try process.run()
            #expect(waitUntil(timeout: 30) { FileManager.default.fileExists(atPath: db) })
            Thread.sleep(forTimeInterval: 1)  // the run's transaction is open, the reader waits
            kill(process.processIdentifier, SIGINT)
            let out = stdout.fileHandleForReading.readDataToEndOfFile()
            let err = String(decoding: stderr.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            process.waitUntilExit()
            try? stdin.fileHandleForWriting.close()
            #expect(process.terminationStatus == 130, "\(err)")
            let object = try #require(
                try JSONSerialization.jsonObject(with: out) as? [String: Any], "\(String(decoding: out, as: UTF8.self))")
            let error = try #require(object["error"] as? [String: Any])
            #expect(error["kind"] as? String == "interrupted" && error["exit_status"] as? Int == 130, "\(error)")
            if db == existing {
                #expect(err.contains("nothing of it is in"), "\(err)")
                #expect(try DatabaseState(existing) == before)
                #expect(try integrityCheck(existing) == "ok")
            } else {
                #expect(err.contains("which it had created, was removed"), "\(err)")
                let left = try FileManager.default.contentsOfDirectory(atPath: dir.path).filter { $0.hasPrefix("new.db") }
                #expect(left.isEmpty, "\(left)")
            }
        }
    }
}

extension Review19Tests {
    /// The `row.encoding` warning of a lone surrogate names the key whose value held it, not the
    /// first key holding a U+FFFD (which may be the value's own, written in the input).
    @Test func aLoneSurrogateWarningNamesItsKey() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let input = dir.appendingPathComponent("in.jsonl")
        let line = #"{"vin":"1FTFW1E57KFA14352","make":"Ford","notes":"old \ufffd mark","color":"gr\udc00ey"}"#
        try Data((line + "\n").utf8).write(to: input)
        let db = dir.appendingPathComponent("f.db").path
        let r = try runVinyard(["import", input.path, "--db", db, "-q"])
        #expect(r.status == 0, "\(r.stderr)")
        let store = try VinyardStore(path: db, readOnly: true)
        let message = try store.connection.scalarText("SELECT message FROM findings WHERE code = 'row.encoding'") ?? ""
        #expect(message.contains("'color'"), "\(message)")
        #expect(!message.contains("notes"), "\(message)")
    }
}
