import Foundation
import Testing
import VinyardKit

/// Checks every hostile run shares: the process ended by itself (no signal, no hang).
func expectCleanExit(_ r: RunResult, _ label: String, sourceLocation: SourceLocation = #_sourceLocation) {
    #expect(!r.timedOut, "\(label): hung (killed after the timeout)", sourceLocation: sourceLocation)
    #expect(r.signal == nil, "\(label): crashed with signal \(r.signal ?? 0); stderr: \(r.stderr)",
            sourceLocation: sourceLocation)
}

// MARK: - Killed imports

/// SIGKILL in the middle of an import leaves the database as it was before the run (DESIGN.md
/// "Store": each import commits whole or not at all).
@Suite struct KilledImportTests {
    /// Starts `import input --db db`, waits until it has read `fraction` of the input, kills it.
    /// Returns false when the import finished before it could be killed.
    func killImport(_ input: String, db: String, afterReading fraction: Double) throws -> Bool {
        let size = fileSize(input)
        let process = try startVinyard(["import", input, "--db", db, "--quiet"])
        let pid = process.processIdentifier
        let reading = waitUntil(timeout: 60) {
            !process.isRunning || (readOffset(pid: pid, path: input) ?? 0) >= Int64(Double(size) * fraction)
        }
        if !reading || FileManager.default.fileExists(atPath: "/proc/\(pid)") == false {
            Thread.sleep(forTimeInterval: 1)  // no /proc: give it a second to get going
        }
        kill(pid, SIGKILL)
        process.waitUntilExit()
        return process.terminationReason == .uncaughtSignal
    }

    /// The counts `validate` reports for `input` (what an import into an empty database, or one
    /// holding none of its keys, must report).
    func validateCounts(_ input: String) throws -> ParsedReport {
        let r = try runVinyard(["validate", input, "--report", "json"], timeout: 60)
        #expect(r.status == 0 || r.status == 1, "\(r.stderr)")
        return try ParsedReport(r)
    }

    func expectSameCounts(_ a: ParsedReport, _ b: ParsedReport, sourceLocation: SourceLocation = #_sourceLocation) {
        for key in ["read", "inserted", "updated", "unchanged", "duplicates", "rejected"] {
            #expect(a.int(key) == b.int(key), "\(key): \(a.int(key) ?? -1) vs \(b.int(key) ?? -1)",
                    sourceLocation: sourceLocation)
        }
    }

    @Test func killMidImportKeepsPreviousState() throws {
        let big = try GeneratedFiles.fleet(rows: 100_000, seed: 3)
        let small = try GeneratedFiles.fleet(rows: 5_000, seed: 4)
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let db = dir.appendingPathComponent("fleet.db").path
        let first = try runVinyard(["import", sample("fleet.csv"), sample("locations.json"), "--db", db], timeout: 30)
        try #require(first.status == 0, "\(first.stderr)")
        let before = try DatabaseState(db)

        #expect(try killImport(big, db: db, afterReading: 0.1), "the import finished before it was killed")
        #expect(try integrityCheck(db) == "ok")
        #expect(try DatabaseState(db) == before)

        let next = try runVinyard(["import", small, "--db", db, "--report", "json"], timeout: 60)
        #expect(next.status == 0, "\(next.stderr)")
        let report = try ParsedReport(next)
        #expect(report.invariantHolds)
        expectSameCounts(report, try validateCounts(small))
        let after = try DatabaseState(db)
        #expect(after.count("vehicles") == before.count("vehicles") + (report.int("inserted") ?? -1))
        #expect(after.count("import_runs") == 2)
        #expect(try integrityCheck(db) == "ok")
    }

    /// The first import into an empty table takes a fast path (no key index until it finishes);
    /// killed, it must leave no half-written table behind.
    @Test func killFirstImportIntoFreshDatabase() throws {
        let big = try GeneratedFiles.fleet(rows: 100_000, seed: 3)
        let small = try GeneratedFiles.fleet(rows: 5_000, seed: 4)
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let db = dir.appendingPathComponent("fresh.db").path

        #expect(try killImport(big, db: db, afterReading: 0.15), "the import finished before it was killed")
        // The first load into empty tables runs with a rollback journal: the kill leaves it hot,
        // and the read-only open below must roll it back rather than fail or read a torn file.
        #expect(FileManager.default.fileExists(atPath: db + "-journal"), "no rollback journal: not the bulk-load path")
        if FileManager.default.fileExists(atPath: db) {
            #expect(try integrityCheck(db) == "ok")
            // The read-only open rolled the journal back and put the file back in WAL mode.
            #expect(!FileManager.default.fileExists(atPath: db + "-journal"))
            #expect(try VinyardStore(path: db, readOnly: true).connection.scalarText("PRAGMA journal_mode") == "wal")
            let state = try DatabaseState(db)
            #expect(state.count("vehicles") == 0, "\(state)")
            #expect(state.count("import_runs") == 0, "\(state)")
            #expect(state.count("rejects") == 0, "\(state)")
            // An empty Vinyard database, tables included: export gives the header and nothing else
            // (it said "no table 'vehicles' to export", exit 64).
            let export = try runVinyard(["export", "--db", db], timeout: 30)
            #expect(export.status == 0, "\(export.stderr)")
            #expect(export.stdout.split(separator: "\n").count == 1 && export.stdout.hasPrefix("vin,"), "\(export.stdout)")
        }
        let next = try runVinyard(["import", small, "--db", db, "--report", "json"], timeout: 60)
        #expect(next.status == 0, "\(next.stderr)")
        let report = try ParsedReport(next)
        expectSameCounts(report, try validateCounts(small))
        let state = try DatabaseState(db)
        #expect(state.count("vehicles") == report.int("inserted"))
        #expect(state.count("import_runs") == 1)
        #expect(try integrityCheck(db) == "ok")
    }

    /// Killed while committing: the database holds either the previous state or the whole run,
    /// never a part of it. Into an existing database the commit is when the WAL file starts to
    /// grow. `fresh`: the first import into a new database (the store's bulk-load path: rollback
    /// journal, key index built at the end), killed once it has read the whole input.
    @Test(arguments: [false, true])
    func killDuringCommitIsAllOrNothing(fresh: Bool) throws {
        let input = try GeneratedFiles.fleet(rows: 10_000, seed: 5)
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let db = dir.appendingPathComponent("fleet.db").path
        if !fresh { #expect(try runVinyard(["import", sample("fleet.jsonl"), "--db", db], timeout: 30).status == 0) }
        let before = fresh ? nil : try DatabaseState(db)
        let expected = try validateCounts(input)

        let process = try startVinyard(["import", input, "--db", db, "--quiet"])
        let size = fileSize(input)
        var sawInput = false
        _ = waitUntil(timeout: 60, interval: 0.0005) {
            if !process.isRunning { return true }
            if !fresh { return fileSize(db + "-wal") > 0 }
            guard let offset = readOffset(pid: process.processIdentifier, path: input) else { return sawInput }
            sawInput = true
            return offset >= size
        }
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()

        // On a loaded machine the reading thread can read the whole input before the database
        // file is created: killed then, a fresh import leaves no file at all (nothing committed).
        let created = FileManager.default.fileExists(atPath: db)
        #expect(created || fresh, "the database vanished")
        if created { #expect(try integrityCheck(db) == "ok") }
        let state = created ? try DatabaseState(db) : nil
        let runs = fresh ? 0 : 1
        let committed = (state?.count("import_runs") ?? 0) > runs
        if let state, committed {
            #expect(state.count("import_runs") == runs + 1, "\(state)")
            #expect(state.count("vehicles") == (before?.count("vehicles") ?? 0) + (expected.int("inserted") ?? -1), "\(state)")
            #expect(state.count("rejects") == (before?.count("rejects") ?? 0) + (expected.int("rejected") ?? -1), "\(state)")
        } else if let before {
            #expect(state == before)
        } else if let state {
            #expect(state.count("vehicles") == 0 && state.count("rejects") == 0, "\(state)")
        }
        // Importing again completes and agrees with whichever state the kill left.
        let again = try runVinyard(["import", input, "--db", db, "--report", "json"], timeout: 60)
        #expect(again.status == 0, "\(again.stderr)")
        let report = try ParsedReport(again)
        #expect(report.invariantHolds)
        if committed {
            #expect(report.int("inserted") == 0 && report.int("updated") == 0, "\(again.stdout)")
        } else {
            expectSameCounts(report, expected)
        }
        #expect(try integrityCheck(db) == "ok")
    }
}

extension KilledImportTests {
    /// SIGINT (Ctrl-C) or SIGTERM during an import: the run is rolled back in the process, which
    /// says so and exits 128 + the signal; a first import removes the database it created. (The
    /// process died silently, leaving a hot journal and, for a first import, a new database file.)
    @Test(arguments: [SIGINT, SIGTERM])
    func interruptedImportRollsBackAndSaysSo(signal: Int32) throws {
        let big = try GeneratedFiles.fleet(rows: 100_000, seed: 3)
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let db = dir.appendingPathComponent("fleet.db").path
        try #require(try runVinyard(["import", sample("fleet.csv"), "--db", db, "--quiet"], timeout: 30).status == 0)
        let before = try DatabaseState(db)
        for path in [db, dir.appendingPathComponent("new.db").path] {
            let process = Process()
            process.executableURL = vinyardBinary
            process.arguments = ["import", big, "--db", path, "--quiet"]
            let stderr = Pipe()
            process.standardError = stderr
            process.standardOutput = FileHandle.nullDevice
            process.standardInput = FileHandle.nullDevice
            try process.run()
            let pid = process.processIdentifier
            #expect(waitUntil(timeout: 60) { !process.isRunning || (readOffset(pid: pid, path: big) ?? 0) >= fileSize(big) / 5 })
            kill(pid, signal)
            let message = String(decoding: stderr.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            process.waitUntilExit()
            #expect(process.terminationReason == .exit && process.terminationStatus == 128 + signal,
                    "\(process.terminationReason) \(process.terminationStatus): \(message)")
            #expect(message.contains("interrupted") && message.contains("rolled back"), "\(message)")
            #expect(!FileManager.default.fileExists(atPath: path + "-journal"))
            if path == db {
                #expect(try DatabaseState(db) == before)
                #expect(try integrityCheck(db) == "ok")
            } else {
                #expect(!FileManager.default.fileExists(atPath: path), "the interrupted first import left its database")
                // It says so (it said nothing of the run was in a file that was gone).
                #expect(message.contains("which it had created, was removed"), "\(message)")
            }
        }
    }
}

// MARK: - Concurrent imports

@Suite struct ConcurrentImportTests {
    /// Three imports at once into one database wait for each other (busy timeout) and all land.
    @Test func threeImportsAtOnce() throws {
        let a = try GeneratedFiles.fleet(rows: 3_000, seed: 21)
        let b = try GeneratedFiles.fleet(rows: 3_000, seed: 22)
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        // c shares 1,000 rows with a and 1,000 with b.
        let aLines = try String(contentsOfFile: a, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: true)
        let bLines = try String(contentsOfFile: b, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: true)
        let c = dir.appendingPathComponent("c.csv").path
        let cText = ([aLines[0]] + aLines[2001...] + bLines[1...1000]).joined(separator: "\n") + "\n"
        try Data(cText.utf8).write(to: URL(fileURLWithPath: c))
        let db = dir.appendingPathComponent("shared.db").path

        let inputs = [a, b, c]
        nonisolated(unsafe) var results = [RunResult?](repeating: nil, count: inputs.count)
        let lock = NSLock()
        let group = DispatchGroup()
        for (i, input) in inputs.enumerated() {
            group.enter()
            Thread {
                let r = try? runVinyard(["import", input, "--db", db, "--report", "json", "--quiet"], timeout: 90)
                lock.lock()
                results[i] = r
                lock.unlock()
                group.leave()
            }.start()
        }
        group.wait()

        var inserted = 0, rejected = 0, seenBefore = 0
        for (i, result) in results.enumerated() {
            let r = try #require(result)
            expectCleanExit(r, inputs[i])
            #expect(r.status == 0, "\(inputs[i]): \(r.stderr)")
            let report = try ParsedReport(r)
            #expect(report.invariantHolds, "\(r.stdout)")
            inserted += report.int("inserted") ?? 0
            rejected += report.int("rejected") ?? 0
            seenBefore += (report.int("updated") ?? 0) + (report.int("unchanged") ?? 0)
        }
        let state = try DatabaseState(db)
        #expect(state.count("vehicles") == inserted, "\(state)")
        #expect(state.count("rejects") == rejected, "\(state)")
        #expect(state.count("import_runs") == 3, "\(state)")
        #expect(state.values["import_runs"]?.hasSuffix("completed,completed,completed") == true, "\(state)")
        #expect(seenBefore > 0, "the overlapping rows were not seen as existing keys")
        #expect(try integrityCheck(db) == "ok")
    }
}

extension ConcurrentImportTests {
    /// Two imports start on a path with no database: the first creates it and fails (--strict,
    /// a rejected record), the second waits for its lock and commits. The failed run removed "its"
    /// new database while the other was waiting for it, which then wrote into the removed file:
    /// exit 0, rows reported inserted, and no database.
    @Test func failedFirstImportKeepsTheOtherImportsDatabase() throws {
        let good = try GeneratedFiles.fleet(rows: 3_000, seed: 23)
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let db = dir.appendingPathComponent("new.db").path

        // The strict run reads standard input: it has begun its import (and holds the write lock,
        // with a rollback journal: the first load) while its input is still open.
        let strict = Process()
        strict.executableURL = vinyardBinary
        strict.arguments = ["import", "-", "--db", db, "--strict", "--quiet"]
        let stdin = Pipe()
        strict.standardInput = stdin
        strict.standardOutput = FileHandle.nullDevice
        strict.standardError = FileHandle.nullDevice
        try strict.run()
        stdin.fileHandleForWriting.write(Data("vin,make\n1HGCM82633A004352,Honda\nSHORT,Ford\n".utf8))
        #expect(waitUntil(timeout: 30) { FileManager.default.fileExists(atPath: db + "-journal") }, "the strict run never began")

        nonisolated(unsafe) var result: RunResult?
        let done = DispatchSemaphore(value: 0)
        Thread {
            result = try? runVinyard(["import", good, "--db", db, "--report", "json", "--quiet"], timeout: 90)
            done.signal()
        }.start()
        Thread.sleep(forTimeInterval: 1.5)  // the second run opens the file and waits for the lock
        try stdin.fileHandleForWriting.close()
        strict.waitUntilExit()
        #expect(strict.terminationStatus == 1)
        done.wait()

        let r = try #require(result)
        expectCleanExit(r, "second import")
        #expect(r.status == 0, "\(r.stderr)")
        let report = try ParsedReport(r)
        #expect(FileManager.default.fileExists(atPath: db), "the committed database was removed")
        let state = try DatabaseState(db)
        #expect(state.count("vehicles") == report.int("inserted"), "\(state)")
        #expect(state.count("import_runs") == 1, "\(state)")
        #expect(try integrityCheck(db) == "ok")
    }
}

// MARK: - Bad --db paths

@Suite struct BadDatabasePathTests {
    @Test(arguments: [
        ("notes.txt", Data("these are my notes, not a database\n".utf8)),
        ("random.db", Data((0..<4096).map { UInt8(truncatingIfNeeded: $0 &* 7919 &+ 13) })),
        ("corrupt.db", Data("SQLite format 3\0".utf8) + Data(repeating: 0xA5, count: 8192)),
    ])
    func notADatabaseIsLeftUntouched(_ name: String, _ bytes: Data) throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let db = dir.appendingPathComponent(name)
        try bytes.write(to: db)
        try expectRefusedAndUntouched(db, bytes)
    }

    /// `import` and `stats` on `db` exit 65 naming it, and leave its bytes as they are (no WAL either).
    private func expectRefusedAndUntouched(_ db: URL, _ bytes: Data) throws {
        for args in [["import", sample("fleet.csv"), "--db", db.path], ["stats", "--db", db.path]] {
            let r = try runVinyard(args, timeout: 30)
            expectCleanExit(r, args[0])
            #expect(r.status == 65, "\(args[0]): \(r.status) \(r.stderr)")
            #expect(r.stderr.contains(db.path), "\(r.stderr)")
            #expect(try Data(contentsOf: db) == bytes, "\(args[0]) changed \(db.lastPathComponent)")
            #expect(!FileManager.default.fileExists(atPath: db.path + "-wal"))
        }
    }

    /// A damaged SQLite file (a Vinyard database cut short, or with its schema page overwritten) is
    /// malformed input too, not an I/O error: exit 65, and the file is left as it was.
    @Test(arguments: ["truncated", "schema page"])
    func damagedDatabaseIsLeftUntouched(_ damage: String) throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let db = dir.appendingPathComponent("fleet.db")
        try #require(try runVinyard(["import", sample("fleet.csv"), "--db", db.path, "--quiet"]).status == 0)
        var bytes = try Data(contentsOf: db)
        try #require(bytes.count > 3 * 4096)
        if damage == "truncated" {
            bytes = bytes.prefix(512)
        } else {
            bytes.replaceSubrange(100..<4096, with: Data(repeating: 0xFF, count: 3996))
        }
        try bytes.write(to: db)
        try expectRefusedAndUntouched(db, bytes)
    }

    /// A FIFO, a device or a directory as --db: refused at once with a message (a FIFO hung both
    /// commands, waiting for a writer; /dev/null failed with "disk full or I/O error").
    @Test func nonRegularFilesAreRefused() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let fifo = dir.appendingPathComponent("fifo.db").path
        try #require(mkfifo(fifo, 0o644) == 0)
        for path in [fifo, "/dev/null"] {
            for args in [["import", sample("fleet.csv"), "--db", path], ["stats", "--db", path], ["export", "--db", path]] {
                let r = try runVinyard(args, timeout: 20)
                expectCleanExit(r, "\(args[0]) \(path)")
                // A database to read is an input (66, as an input file would be); one to write cannot be created (74).
                #expect(r.status == (args[0] == "import" ? 74 : 66), "\(args[0]) \(path): \(r.status) \(r.stderr)")
                #expect(r.stderr.contains("\(path) is not a regular file"), "\(r.stderr)")
            }
        }
        let directory = dir.appendingPathComponent("adir")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: false)
        for args in [["import", sample("fleet.csv"), "--db", directory.path], ["stats", "--db", directory.path], ["export", "--db", directory.path]] {
            let r = try runVinyard(args, timeout: 20)
            #expect(r.status == (args[0] == "import" ? 74 : 66), "\(args[0]): \(r.status) \(r.stderr)")
            #expect(r.stderr.contains("is a directory, not a database file"), "\(r.stderr)")
        }
        var info = stat()
        #expect(stat(fifo, &info) == 0 && info.st_mode & S_IFMT == S_IFIFO)
        #expect(!FileManager.default.fileExists(atPath: "/dev/null-wal"))
    }

    /// A database file without write permission (chmod 0444) is not written, also by root (whom
    /// the permission does not stop: the import went through); reading it still works.
    @Test func readOnlyDatabaseFileIsLeftUntouched() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let db = dir.appendingPathComponent("fleet.db").path
        try #require(try runVinyard(["import", sample("fleet.csv"), "--db", db, "--quiet"]).status == 0)
        try FileManager.default.setAttributes([.posixPermissions: 0o444], ofItemAtPath: db)
        let bytes = try Data(contentsOf: URL(fileURLWithPath: db))
        let r = try runVinyard(["import", sample("fleet.jsonl"), "--db", db], timeout: 30)
        expectCleanExit(r, "import")
        #expect(r.status == 74, "\(r.status) \(r.stderr)")
        #expect(r.stderr.contains("cannot write the database \(db)"), "\(r.stderr)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: db)) == bytes)
        let stats = try runVinyard(["stats", "--db", db], timeout: 30)
        #expect(stats.status == 0, "\(stats.stderr)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: db)) == bytes)
    }

    /// --db a symbolic link to a file not yet there: a first import that fails removes the file
    /// it created through the link and keeps the link (it removed the link and left the file).
    @Test func failedFirstImportThroughALinkKeepsTheLink() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let link = dir.appendingPathComponent("link.db").path
        let target = dir.appendingPathComponent("target.db").path
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: target)
        let r = try runVinyard(["import", sample("fleet.csv"), "--db", link, "--strict", "--quiet"], timeout: 30)
        #expect(r.status == 1, "\(r.stderr)")
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: link) == target, "the link was removed")
        let left = try FileManager.default.contentsOfDirectory(atPath: dir.path).sorted()
        #expect(left == ["link.db"], "\(left)")
    }

    @Test func uncreatableDatabasePaths() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent("file.txt")
        try Data("x\n".utf8).write(to: file)
        var paths = [file.appendingPathComponent("x.db").path, dir.appendingPathComponent("missing/x.db").path]
        if FileManager.default.fileExists(atPath: "/proc/self") { paths.append("/proc/vinyard-test.db") }
        if getuid() != 0 {
            let locked = dir.appendingPathComponent("locked")
            try FileManager.default.createDirectory(at: locked, withIntermediateDirectories: true)
            try FileManager.default.setAttributes([.posixPermissions: 0o555], ofItemAtPath: locked.path)
            defer { try? FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: locked.path) }
            paths.append(locked.appendingPathComponent("x.db").path)
        } else {
            print("note: running as root, the read-only directory case (chmod 0o555) is not enforced; skipped")
        }
        for path in paths {
            let r = try runVinyard(["import", sample("fleet.csv"), "--db", path], timeout: 30)
            expectCleanExit(r, path)
            #expect(r.status == 74, "\(path): \(r.status) \(r.stderr)")
            #expect(r.stderr.contains(path), "\(r.stderr)")
            #expect(r.stderr.hasPrefix("error: "), "\(r.stderr)")
            #expect(!FileManager.default.fileExists(atPath: path))
        }
        let underFile = try runVinyard(["import", sample("fleet.csv"), "--db", paths[0]], timeout: 30)
        #expect(underFile.stderr.contains("is a file, not a directory"), "\(underFile.stderr)")
    }
}

// MARK: - Hostile inputs

/// One hostile input: a file name, how to make its bytes, and what `validate` must do with it.
struct HostileInput: CustomTestStringConvertible, Sendable {
    var name: String
    var status: Int32
    /// Texts stderr (for exits 64/65) or the text report (for 0/1) must contain; `{}` is the path.
    var mentions: [String]
    var read: Int? = nil
    var findings: [String: Int] = [:]
    /// A query on the imported database and the text it must return.
    var stored: (sql: String, value: String)? = nil
    var make: @Sendable () -> Data
    var testDescription: String { name }
}

let fleetGzip: Data = {
    // Many copies so the stream is longer than one read buffer.
    let csv = (try? Data(contentsOf: URL(fileURLWithPath: sample("fleet.csv")))) ?? Data()
    let path = FileManager.default.temporaryDirectory.appendingPathComponent("vinyard-gz-\(UUID().uuidString)")
    var body = csv
    let rows = csv.split(separator: UInt8(ascii: "\n")).dropFirst()
    for _ in 0..<200 { for row in rows { body.append(contentsOf: row); body.append(UInt8(ascii: "\n")) } }
    defer { try? FileManager.default.removeItem(at: path) }
    guard (try? body.write(to: path)) != nil else { return Data() }
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/bin/sh")
    process.arguments = ["-c", "gzip -9 -c '\(path.path)'"]
    let out = Pipe()
    process.standardOutput = out
    guard (try? process.run()) != nil else { return Data() }
    let data = out.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return data
}()

let hostileInputs: [HostileInput] = [
    HostileInput(name: "truncated.csv.gz", status: 65, mentions: ["{}", "byte", "truncated"]) {
        fleetGzip.prefix(fleetGzip.count / 2)
    },
    HostileInput(name: "corrupt.csv.gz", status: 65, mentions: ["{}", "byte"]) {
        var d = fleetGzip
        let mid = d.count / 2
        for i in mid..<min(mid + 24, d.count) { d[i] ^= 0x5A }
        return d
    },
    HostileInput(name: "garbage.dat", status: 65, mentions: ["{}", "binary"]) {
        var rng = SplitMix64(seed: 42)
        return Data((0..<65_536).map { i in i % 97 == 0 ? 0 : UInt8(truncatingIfNeeded: rng.next()) })
    },
    // The first element is skipped as a reject; the bytes after it are no array: fatal.
    HostileInput(name: "garbage.json", status: 65, mentions: ["{}:"]) {
        var rng = SplitMix64(seed: 43)
        return Data([UInt8(ascii: "[")] + (0..<65_536).map { i in i % 97 == 0 ? 0 : UInt8(truncatingIfNeeded: rng.next()) })
    },
    HostileInput(
        name: "excel-1252.csv", status: 0, mentions: ["{}:2", "{}:3"], read: 2, findings: ["row.encoding": 2],
        stored: ("SELECT group_concat(color, '|') FROM (SELECT color FROM vehicles ORDER BY vin)", "Weiß|Grün")
    ) {
        // "Grün", "Weiß" in Windows-1252: ü = 0xFC, ß = 0xDF.
        Data("vin,make,model,color\n1HGCM82633A004352,Honda,Accord,Gr".utf8) + Data([0xFC])
            + Data("n\n1FTFW1E57KFA14352,Ford,F-150,Wei".utf8) + Data([0xDF]) + Data("\n".utf8)
    },
    HostileInput(
        name: "huge-field.csv", status: 0, mentions: ["{}"], read: 2,
        stored: ("SELECT max(length(notes)) FROM vehicles", String(30 * 1024 * 1024))
    ) {
        Data("vin,make,model,notes\n1HGCM82633A004352,Honda,Accord,".utf8)
            + Data(repeating: UInt8(ascii: "x"), count: 30 * 1024 * 1024)
            + Data("\n1FTFW1E57KFA14352,Ford,F-150,ok\n".utf8)
    },
    HostileInput(name: "wide.csv", status: 0, mentions: ["{}"], read: 2) {
        let extra = (0..<9_997).map { "c\($0)" }.joined(separator: ",")
        let values = String(repeating: ",v", count: 9_997)
        return Data(
            ("vin,make,model," + extra + "\n1HGCM82633A004352,Honda,Accord" + values + "\n1FTFW1E57KFA14352,Ford,F-150"
                + values + "\n").utf8)
    },
    // An array whose one element nests 100,000 deep: that element is a reject, found without
    // recursion (the top-level object case below has no element to skip: fatal).
    HostileInput(name: "deep.json", status: 1, mentions: ["{}"], read: 1, findings: ["row.malformed": 1]) {
        Data(repeating: UInt8(ascii: "["), count: 100_000) + Data(repeating: UInt8(ascii: "]"), count: 100_000)
    },
    HostileInput(name: "deep-object.json", status: 65, mentions: ["{}:1:", "nesting"]) {
        Data((String(repeating: #"{"a":"#, count: 100_000) + "1" + String(repeating: "}", count: 100_000)).utf8)
    },
    HostileInput(name: "empty.csv", status: 0, mentions: ["{}"], read: 0) { Data() },
    HostileInput(name: "empty.json", status: 65, mentions: ["{}:1:1", "empty"]) { Data() },
    HostileInput(name: "empty.jsonl", status: 0, mentions: ["{}"], read: 0) { Data() },
    HostileInput(name: "header-only.csv", status: 0, mentions: ["{}"], read: 0) { Data("vin,make,model\r\n".utf8) },
    HostileInput(name: "bom-only.csv", status: 0, mentions: ["{}"], read: 0) { Data([0xEF, 0xBB, 0xBF]) },
    HostileInput(name: "crlf-only.csv", status: 0, mentions: ["{}"], read: 0) {
        Data(String(repeating: "\r\n", count: 50).utf8)
    },
    HostileInput(name: "all-broken.jsonl", status: 1, mentions: ["{}:1", "{}:5"], read: 5) {
        Data((1...5).map { #"{"vin": "1HGCM82633A00435\#($0)", "make": broken"# + "\n" }.joined().utf8)
    },
    // A quote never closed: the row is cut at its first line end, a `row.malformed` reject, and
    // the next line is a row of its own (a ragged reject here); a file that ends inside the quotes
    // was fatal, where a quote closed somewhere after it was not.
    HostileInput(
        name: "unterminated-quote.csv", status: 1, mentions: ["{}:2", "{}:3"], read: 2,
        findings: ["row.malformed": 1, "row.ragged": 1]
    ) {
        Data("vin,make\n\"1HGCM82633A004352,Honda\n".utf8) + Data(repeating: UInt8(ascii: "y"), count: 100_000)
    },
]

@Suite struct HostileInputTests {
    @Test(arguments: hostileInputs)
    func validateAndImport(_ input: HostileInput) throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent(input.name).path
        try input.make().write(to: URL(fileURLWithPath: path))
        let mentions = input.mentions.map { $0.replacingOccurrences(of: "{}", with: path) }

        let v = try runVinyard(["validate", path, "--report", "json", "--quiet"], timeout: 30)
        expectCleanExit(v, "validate \(input.name)")
        #expect(v.status == input.status, "validate: \(v.status) \(v.stderr)")
        // Messages name the file (and line) on stderr for errors, in the report (inputs, finding
        // examples) otherwise.
        let text = input.status >= 64 ? v.stderr : v.stdout.replacingOccurrences(of: "\\/", with: "/")
        for m in mentions { #expect(text.contains(m), "'\(m)' missing from: \(text.prefix(600))") }
        if input.status < 64 {
            let report = try ParsedReport(v)
            #expect(report.invariantHolds)
            if let read = input.read { #expect(report.int("read") == read) }
            for (code, n) in input.findings { #expect(report.findings[code] == n, "\(code)") }
        }

        let db = dir.appendingPathComponent("x.db").path
        let i = try runVinyard(["import", path, "--db", db, "--report", "json", "--quiet"], timeout: 30)
        expectCleanExit(i, "import \(input.name)")
        #expect(i.status == (input.status == 1 ? 0 : input.status), "import: \(i.status) \(i.stderr)")
        if i.status == 0 {
            let report = try ParsedReport(i)
            #expect(report.invariantHolds)
            let state = try DatabaseState(db)
            #expect(state.count("vehicles") + state.count("locations") == report.int("inserted"), "\(state)")
            #expect(state.count("rejects") == report.int("rejected"), "\(state)")
            if let (sql, value) = input.stored {
                #expect(try VinyardStore(path: db, readOnly: true).connection.scalarText(sql) == value, "\(sql)")
            }
        } else if FileManager.default.fileExists(atPath: db) {
            #expect(try DatabaseState(db).count("import_runs") == 0)
        }
    }
}

// MARK: - Mutated samples

/// A mutated copy of a sample: byte flips, insertions, deletions or a truncation, from a seed.
struct Mutant: CustomTestStringConvertible, Sendable {
    var number: Int
    var sampleName: String { allSampleNames[number % allSampleNames.count] }
    var kind: String { ["flip", "insert", "delete", "truncate"][(number / allSampleNames.count) % 4] }
    var testDescription: String { "#\(number) \(kind) \(sampleName)" }

    func bytes() throws -> Data {
        var data = [UInt8](try Data(contentsOf: URL(fileURLWithPath: sample(sampleName))))
        var rng = SplitMix64(seed: UInt64(number) &* 7_919 &+ 1)
        func position() -> Int { Int(rng.next() % UInt64(max(data.count, 1))) }
        let edits = 1 + Int(rng.next() % 6)
        switch kind {
        case "flip":
            for _ in 0..<edits where !data.isEmpty { data[position()] ^= UInt8(1 + rng.next() % 255) }
        case "insert":
            let pool: [UInt8] = Array(",;\"\n\r{}[]:\\ \t0".utf8) + [0x00, 0xC3, 0xFF, 0xE2, 0x80]
            for _ in 0..<edits {
                let b = rng.next() % 2 == 0 ? pool[Int(rng.next() % UInt64(pool.count))] : UInt8(truncatingIfNeeded: rng.next())
                data.insert(b, at: position())
            }
        case "delete":
            for _ in 0..<edits where !data.isEmpty {
                let start = position()
                data.removeSubrange(start..<min(data.count, start + 1 + Int(rng.next() % 16)))
            }
        default:
            data = Array(data.prefix(position()))
        }
        return Data(data)
    }
}

let allSampleNames = [
    "fleet.csv", "fleet-export.csv.gz", "fleet.jsonl", "random-vehicle.json", "autoscout.json", "fleet-record.json",
    "locations.json",
]

@Suite struct MutatedSampleTests {
    @Test(arguments: (0..<60).map(Mutant.init(number:)))
    func mutantIsHandled(_ mutant: Mutant) throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("m\(mutant.number)-\(mutant.sampleName)").path
        try mutant.bytes().write(to: URL(fileURLWithPath: path))
        let db = dir.appendingPathComponent("m.db").path
        for (command, args) in [("validate", ["validate", path]), ("import", ["import", path, "--db", db])] {
            let r = try runVinyard(args + ["--report", "json", "--quiet"], timeout: 30)
            let label = "\(command) \(mutant.testDescription)"
            expectCleanExit(r, label)
            switch r.status {
            case 0, 1:
                #expect(command == "validate" || r.status == 0, "\(label): import without --strict exits 1")
                let report = try ParsedReport(r)
                #expect(report.invariantHolds, "\(label): \(r.stdout)")
                if command == "import" {
                    let state = try DatabaseState(db)
                    #expect(state.count("vehicles") + state.count("locations") == report.int("inserted"), "\(label) \(state)")
                    #expect(state.count("rejects") == report.int("rejected"), "\(label) \(state)")
                }
            case 65:
                #expect(r.stderr.contains(path), "\(label): \(r.stderr)")
            case 64:
                let undetectable = ["cannot tell the source", "several sources", "cannot tell the delimiter"]
                #expect(undetectable.contains { r.stderr.contains($0) }, "\(label): 64 without a detection error: \(r.stderr)")
                #expect(r.stderr.contains(path), "\(label): \(r.stderr)")
            default:
                Issue.record("\(label): exit \(r.status): \(r.stderr)")
            }
        }
    }
}

// MARK: - Paths with spaces and non-ASCII characters

@Suite struct UnusualPathTests {
    @Test func spacesAndUmlautsInPaths() throws {
        let root = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: root) }
        let dir = root.appendingPathComponent("Fahrzeuge Überblick")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let input = dir.appendingPathComponent("flotte ä.csv").path
        try FileManager.default.copyItem(atPath: sample("fleet.csv"), toPath: input)
        let gz = dir.appendingPathComponent("export ß 2024.csv.gz").path
        try FileManager.default.copyItem(atPath: sample("fleet-export.csv.gz"), toPath: gz)
        let rejects = dir.appendingPathComponent("zurück an Händler.jsonl").path

        let v = try runVinyard(["validate", input, gz, "--report", "json", "--rejects", rejects], timeout: 30)
        #expect(v.status == 1, "\(v.stderr)")
        let report = try ParsedReport(v)
        #expect(report.inputs.compactMap { $0["name"] as? String } == [input, gz])
        let lines = try String(contentsOfFile: rejects, encoding: .utf8).split(separator: "\n")
        #expect(lines.count == report.int("rejected"))
        let named = try lines.map {
            try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])["_input"] as? String
        }
        #expect(Set(named.compactMap { $0 }) == [input, gz])

        let csvRejects = dir.appendingPathComponent("zurück.csv").path
        #expect(try runVinyard(["validate", input, "--rejects", csvRejects], timeout: 30).status == 1)
        #expect(try String(contentsOfFile: csvRejects, encoding: .utf8).contains(input))

        let db = dir.appendingPathComponent("flotte ö.db").path
        let i = try runVinyard(["import", input, gz, "--db", db, "--report", "json"], timeout: 30)
        #expect(i.status == 0, "\(i.stderr)")
        #expect(try ParsedReport(i).inputs.compactMap { $0["name"] as? String } == [input, gz])
        let store = try VinyardStore(path: db, readOnly: true)
        let runInputs = try #require(try store.connection.scalarText("SELECT inputs FROM import_runs"))
        let parsed = try #require(try JSONSerialization.jsonObject(with: Data(runInputs.utf8)) as? [[String: Any]])
        #expect(parsed.compactMap { $0["name"] as? String } == [input, gz], "\(runInputs)")
        #expect(try store.connection.scalarInt("SELECT count(DISTINCT input) FROM rejects") == 2)
        #expect(try store.connection.scalarText("SELECT min(input) FROM rejects") == [input, gz].min())
        #expect(try store.connection.scalarText("SELECT _input FROM vehicles LIMIT 1").map { [input, gz].contains($0) } == true)

        let out = dir.appendingPathComponent("ausgabe ü.json").path
        let c = try runVinyard(["convert", input, "-o", out, "--rejects", dir.appendingPathComponent("r ü.csv").path], timeout: 30)
        #expect(c.status == 0, "\(c.stderr)")
        let rows = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: out))) as? [[String: Any]]
        #expect(rows?.count == 15)
    }
}

/// A database in a folder its reader cannot write (a shared, read-only folder): `stats` and
/// `export` still read it. Tests run as root here, where permissions are not enforced, so the test
/// runs the binary as `nobody` through `su` when it can.
@Suite struct ReadOnlyFolderTests {
    static let su = "/bin/su"
    static var canSwitchUser: Bool { getuid() == 0 && FileManager.default.isExecutableFile(atPath: su) }

    func asNobody(_ arguments: [String]) throws -> RunResult {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Self.su)
        let quoted = ([vinyardBinary.path] + arguments).map { "'" + $0.replacingOccurrences(of: "'", with: "'\\''") + "'" }
        process.arguments = ["nobody", "-s", "/bin/sh", "-c", quoted.joined(separator: " ")]
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        let o = out.fileHandleForReading.readDataToEndOfFile()
        let e = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return RunResult(
            status: process.terminationStatus, stdout: String(decoding: o, as: UTF8.self),
            stderr: String(decoding: e, as: UTF8.self), stdoutData: o)
    }

    @Test(.enabled(if: canSwitchUser, "needs root and su to run as nobody"))
    func readsADatabaseInAReadOnlyFolder() throws {
        let dir = URL(fileURLWithPath: "/tmp/vinyard-ro-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let db = dir.appendingPathComponent("fleet ä.db").path
        #expect(try runVinyard(["import", sample("fleet.csv"), "--db", db, "--quiet"]).status == 0)
        try FileManager.default.setAttributes([.posixPermissions: 0o555], ofItemAtPath: dir.path)
        try FileManager.default.setAttributes([.posixPermissions: 0o444], ofItemAtPath: db)
        let probe = try asNobody(["--version"])
        try #require(probe.status == 0, "nobody cannot run the binary here: \(probe.stderr)")
        let stats = try asNobody(["stats", "--db", db])
        #expect(stats.status == 0, "\(stats.stderr)")
        #expect(stats.stdout.contains("vehicles"))
        let export = try asNobody(["export", "--db", db, "--columns", "vin"])
        #expect(export.status == 0, "\(export.stderr)")
        #expect(export.stdout.split(separator: "\n").count == 16)  // header + 15 vehicles
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: dir.path)
    }
}

/// A database named with one character (`--db a`) is created in the working directory; its
/// directory check trapped in Foundation (SIGILL, found by audit).
@Suite struct ShortDatabaseNameTests {
    @Test func oneCharacterNameIsCreated() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let r = try runVinyard(["import", sample("fleet.csv"), "--db", "a"], cwd: dir, timeout: 60)
        #expect(r.status == 0, "\(r.stderr)")
        #expect(FileManager.default.fileExists(atPath: dir.appendingPathComponent("a").path))
        let dash = try runVinyard(["import", sample("fleet.csv"), "--db", "b/"], cwd: dir, timeout: 60)
        #expect(dash.status < 128, "\(dash.stderr)")
    }
}

/// An interrupted or failed `export` or `validate --rejects` leaves the output as it was, and no
/// staging file: they wrote straight into it (a partial file that looked complete, over the old
/// one), and an interrupted `convert` left its hidden staging file (found by audit).
@Suite struct InterruptedOutputTests {
    /// Starts `arguments`, waits for a staging file of `output` to appear, sends SIGTERM. False
    /// when the command finished first.
    func interrupt(_ arguments: [String], output: URL) throws -> (interrupted: Bool, status: Int32) {
        let dir = output.deletingLastPathComponent()
        let process = try startVinyard(arguments)
        let staged = waitUntil(timeout: 60) {
            !process.isRunning
                || ((try? FileManager.default.contentsOfDirectory(atPath: dir.path)) ?? []).contains { $0.hasPrefix(".vinyard-") }
        }
        let interrupted = staged && process.isRunning
        if interrupted { kill(process.processIdentifier, SIGTERM) }
        process.waitUntilExit()
        return (interrupted, process.terminationStatus)
    }

    func leftovers(_ dir: URL) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: dir.path)) ?? []).filter { $0.hasPrefix(".vinyard-") }
    }

    @Test func interruptedOutputsStayAsTheyWere() throws {
        let big = try GeneratedFiles.fleet(rows: 100_000, seed: 3)
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let db = dir.appendingPathComponent("fleet.db").path
        try #require(try runVinyard(["import", big, "--db", db, "--quiet"], timeout: 120).status == 0)
        let old = Data("old contents\n".utf8)
        var interruptions = 0
        for (name, arguments) in [
            ("out.json", ["export", "--db", db, "-o"]),
            ("rejects.csv", ["validate", big, "--quiet", "--rejects"]),
            ("out.jsonl", ["convert", big, "--quiet", "-o"]),
        ] {
            let output = dir.appendingPathComponent(name)
            try old.write(to: output)
            let (interrupted, status) = try interrupt(arguments + [output.path], output: output)
            guard interrupted else { continue }  // finished before the signal: nothing to check
            interruptions += 1
            #expect(status == 143, "\(name)")
            #expect(try Data(contentsOf: output) == old, "\(name) was changed")
            #expect(leftovers(dir).isEmpty, "\(name): \(leftovers(dir))")
        }
        #expect(interruptions > 0, "every command finished before it could be interrupted")
        // Finished, the outputs are in place and nothing is left beside them.
        let done = try runVinyard(["export", "--db", db, "-o", dir.appendingPathComponent("out.json").path], timeout: 120)
        #expect(done.status == 0, "\(done.stderr)")
        #expect(try Data(contentsOf: dir.appendingPathComponent("out.json")).count > 1000)
        #expect(leftovers(dir).isEmpty)
    }
}
