import Foundation
import Testing
import VinyardKit

/// Findings of review 21 (session 18), each run through the built binary.
@Suite struct Review21Tests {
    /// `export`, `stats` and `emissions` open the database read-only, which left a `-wal` and a
    /// `-shm` file beside a database that had none. They are gone after each command; while
    /// another connection has the file open they stay (removing them then would lose its log).
    @Test func readCommandsLeaveNoLogFilesBehind() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let db = dir.appendingPathComponent("fleet.db").path
        let imported = try runVinyard(["import", sample("fleet.csv"), "--db", db, "-q"])
        #expect(imported.status == 0, "\(imported.stderr)")
        let fm = FileManager.default
        #expect(!fm.fileExists(atPath: db + "-wal") && !fm.fileExists(atPath: db + "-shm"))
        let commands: [[String]] = [
            ["export", "--db", db, "-o", dir.appendingPathComponent("out.csv").path],
            ["export", "--db", db, "--format", "json"],
            ["stats", "--db", db],
            ["emissions", "--db", db],
        ]
        for arguments in commands {
            let r = try runVinyard(arguments)
            #expect(r.status == 0, "\(arguments): \(r.stderr)")
            #expect(!fm.fileExists(atPath: db + "-wal"), "\(arguments) left \(db)-wal")
            #expect(!fm.fileExists(atPath: db + "-shm"), "\(arguments) left \(db)-shm")
        }
        let exported = try String(contentsOfFile: dir.appendingPathComponent("out.csv").path, encoding: .utf8)
        #expect(exported.split(separator: "\n").count > 1)

        // Another connection with the file open: its log stays, and it still reads.
        var other: Connection? = try Connection(path: db, mode: .readWrite)
        let before = try other?.scalarInt("SELECT count(*) FROM vehicles")
        #expect(fm.fileExists(atPath: db + "-wal"))
        let r = try runVinyard(["stats", "--db", db])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(fm.fileExists(atPath: db + "-wal") && fm.fileExists(atPath: db + "-shm"))
        #expect(try other?.scalarInt("SELECT count(*) FROM vehicles") == before)
        other = nil
        #expect(!fm.fileExists(atPath: db + "-wal"), "closing the last connection removes the log")
    }
}
