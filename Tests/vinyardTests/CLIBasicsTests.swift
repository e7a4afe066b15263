import Foundation
import Testing

@Suite struct CLIBasicsTests {
    @Test func versionPrints() throws {
        let r = try runVinyard(["--version"])
        #expect(r.status == 0)
        #expect(r.stdout.trimmingCharacters(in: .whitespacesAndNewlines).split(separator: ".").count == 3)
    }

    @Test func unknownSubcommandIsUsageError() throws {
        let r = try runVinyard(["no-such-command"])
        #expect(r.status == 64)
    }

    /// The help discussions are prose that argument-parser wraps at 80 columns: a hard line break
    /// inside a sentence left a stub line ("was (also") before the rest of the sentence.
    @Test(arguments: [
        [], ["import"], ["validate"], ["export"], ["emissions"], ["convert"], ["decode"], ["generate"], ["stats"],
    ])
    func helpProseIsNotBrokenMidSentence(_ command: [String]) throws {
        let r = try runVinyard(command + ["--help"], environment: ["COLUMNS": "80"])
        #expect(r.status == 0)
        let lines = r.stdout.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        var stubs: [String] = []
        for (line, next) in zip(lines, lines.dropFirst()) {
            guard let first = line.first, !first.isWhitespace, line.count < 50, let end = line.last,
                !".:".contains(end), let nextFirst = next.first, !nextFirst.isWhitespace
            else { continue }
            stubs.append(line + " ⏎ " + next)
        }
        #expect(stubs.isEmpty, "\(command): \(stubs)")
    }
}

/// A report that cannot be written (a full disk, a closed standard output) is an I/O error, exit
/// 74 with a message, never a crash or a silently lost report.
@Suite struct StandardOutputFailureTests {
    func runToDevFull(_ arguments: [String]) throws -> (status: Int32, stderr: String) {
        let process = Process()
        process.executableURL = vinyardBinary
        process.arguments = arguments
        process.standardOutput = try #require(FileHandle(forWritingAtPath: "/dev/full"))
        let err = Pipe()
        process.standardError = err
        try process.run()
        let stderr = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationReason == .exit, "\(arguments): ended by a signal; \(stderr)")
        return (process.terminationStatus, stderr)
    }

    @Test func everyReportingCommandExits74() throws {
        guard FileManager.default.fileExists(atPath: "/dev/full") else { return }
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let db = dir.appendingPathComponent("f.db").path
        let runs: [[String]] = [
            ["decode", "1HGCM82633A004352", "--format", "json"],
            ["decode", "1HGCM82633A004352"],
            ["validate", sample("fleet.csv"), "--report", "json"],
            ["validate", sample("fleet.csv")],
            ["import", sample("fleet.csv"), "--db", db],
            ["stats", "--db", db],
        ]
        for arguments in runs {
            let r = try runToDevFull(arguments)
            #expect(r.status == 74, "\(arguments): exit \(r.status); \(r.stderr)")
            #expect(r.stderr.contains("standard output"), "\(arguments): \(r.stderr)")
        }
    }
}
