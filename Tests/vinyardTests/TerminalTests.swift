import Foundation
import Testing

/// Progress and colour appear only on a terminal: run the binary under a pseudo-terminal
/// (`script`, from util-linux) and through pipes, and compare.
@Suite struct TerminalTests {
    static let script = "/usr/bin/script"

    func generated(rows: Int, in dir: URL) throws -> String {
        let path = dir.appendingPathComponent("fleet.csv").path
        #expect(try runVinyard(["generate", "--rows", String(rows), "-o", path]).status == 0)
        return path
    }

    /// Runs a shell command line under a pseudo-terminal; returns everything it wrote there.
    func underTerminal(_ command: String, environment: [String: String] = [:]) throws -> (Int32, String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Self.script)
        process.arguments = ["-qec", command, "/dev/null"]
        var env = ProcessInfo.processInfo.environment
        env["NO_COLOR"] = nil  // the test runner may set it for itself
        for (k, v) in environment { env[k] = v }
        env["TERM"] = "xterm"
        process.environment = env
        let out = Pipe()
        process.standardOutput = out
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }

    /// A malformed first line puts every later count off the multiples of 1,024 that a per-record
    /// update draws at; the pipeline's per-batch update must draw anyway.
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: script), "needs /usr/bin/script (util-linux)"))
    func progressDrawnWhenCountsAreOffset() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let generated = dir.appendingPathComponent("g.jsonl").path
        #expect(try runVinyard(["generate", "--rows", "20000", "--format", "jsonl", "-o", generated]).status == 0)
        let path = dir.appendingPathComponent("fleet.jsonl").path
        let body = try String(contentsOfFile: generated, encoding: .utf8)
        try ("{not json\n" + body).write(toFile: path, atomically: true, encoding: .utf8)
        let (status, screen) = try underTerminal("'\(vinyardBinary.path)' validate '\(path)'")
        #expect(status == 1)
        #expect(screen.contains("\r\u{1B}[K"), "no progress line drawn")
        #expect(screen.contains("read 20001 ="))
    }

    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: script), "needs /usr/bin/script (util-linux)"))
    func progressOnTerminalOnly() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let csv = try generated(rows: 20_000, in: dir)
        let (status, screen) = try underTerminal("'\(vinyardBinary.path)' validate '\(csv)'")
        #expect(status == 0)
        #expect(screen.contains("\r\u{1B}[K"), "no progress line drawn")
        #expect(screen.contains("records"))
        #expect(screen.contains("read 20000 = inserted 20000"))

        let (_, quiet) = try underTerminal("'\(vinyardBinary.path)' validate --quiet '\(csv)'")
        #expect(!quiet.contains("\r\u{1B}[K"))

        let piped = try runVinyard(["validate", csv])
        #expect(piped.status == 0)
        #expect(!piped.stderr.contains("\u{1B}"), "escape codes on a pipe")
        #expect(!piped.stdout.contains("\u{1B}"))
    }

    /// Rows written to standard output on the terminal (`--rejects -`, `--findings -`, `convert
    /// -o -`) get no progress line between them; to a file they do (found by audit: validate and
    /// import drew it into the rejects).
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: script), "needs /usr/bin/script (util-linux)"))
    func noProgressBetweenRowsOnTheTerminal() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("d.csv").path
        #expect(try runVinyard(["generate", "--rows", "20000", "--dirty", "0.5", "-o", path]).status == 0)
        let binary = vinyardBinary.path
        for command in [
            "'\(binary)' validate '\(path)' --rejects -", "'\(binary)' validate '\(path)' --findings -",
            "'\(binary)' convert '\(path)' -o - --format csv",
        ] {
            let (_, screen) = try underTerminal(command)
            #expect(!screen.contains("\r\u{1B}[K"), "progress drawn: \(command)")
            #expect(screen.contains("_input") || screen.contains("vin,"), "no rows: \(command)")
        }
        let (_, toFile) = try underTerminal("'\(binary)' validate '\(path)' --rejects '\(dir.path)/r.csv'")
        #expect(toFile.contains("\r\u{1B}[K"), "no progress line drawn")
    }

    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: script), "needs /usr/bin/script (util-linux)"))
    func colourOnTerminalUnlessNoColor() throws {
        let command = "'\(vinyardBinary.path)' validate '\(packageRoot.path)/Samples/fleet.csv'"
        let (status, coloured) = try underTerminal(command)
        #expect(status == 1)
        #expect(coloured.contains("\u{1B}[31m"))
        let (_, plain) = try underTerminal(command, environment: ["NO_COLOR": "1"])
        #expect(!plain.contains("\u{1B}[31m"))
        #expect(plain.contains("vin.check_digit"))
    }
}
