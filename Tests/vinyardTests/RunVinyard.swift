import Foundation

/// The result of running the built `vinyard` binary.
struct RunResult {
    var status: Int32
    var stdout: String
    var stderr: String
    var stdoutData: Data
    /// True when the run outlived its `timeout` and was killed.
    var timedOut = false
    /// The signal that ended the process, if a signal did (a crash, or the timeout's kill).
    var signal: Int32? = nil
}

/// The built `vinyard` executable: beside the test bundle in the build folder, or `VINYARD_BIN`.
let vinyardBinary: URL = {
    if let path = ProcessInfo.processInfo.environment["VINYARD_BIN"] { return URL(fileURLWithPath: path) }
    var dir = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
    for _ in 0..<4 {
        let candidate = dir.appendingPathComponent("vinyard")
        if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
        dir = dir.deletingLastPathComponent()
    }
    return URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("vinyard")
}()

/// The package root (for `Samples/` and `Schemas/`).
let packageRoot: URL = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

/// Runs `vinyard` with arguments and optional standard input; waits for it to exit, or, with a
/// `timeout` in seconds, kills it (SIGKILL) when it runs longer and sets `timedOut`.
@discardableResult
func runVinyard(
    _ arguments: [String], stdin: Data? = nil, cwd: URL? = nil, environment: [String: String]? = nil,
    timeout: Double? = nil
) throws -> RunResult {
    let process = Process()
    process.executableURL = vinyardBinary
    process.arguments = arguments
    if let cwd { process.currentDirectoryURL = cwd }
    if let environment { process.environment = environment }
    let out = Pipe(), err = Pipe(), inp = Pipe()
    process.standardOutput = out
    process.standardError = err
    process.standardInput = inp
    try process.run()
    nonisolated(unsafe) var timedOut = false
    let watchdog = DispatchWorkItem {
        if process.isRunning {
            timedOut = true
            kill(process.processIdentifier, SIGKILL)
        }
    }
    if let timeout { DispatchQueue.global().asyncAfter(deadline: .now() + timeout, execute: watchdog) }
    // Drain both pipes concurrently so a large output cannot dead-lock the child.
    nonisolated(unsafe) var errData = Data()
    let group = DispatchGroup()
    group.enter()
    DispatchQueue.global().async {
        errData = err.fileHandleForReading.readDataToEndOfFile()
        group.leave()
    }
    if let stdin { inp.fileHandleForWriting.write(stdin) }
    try? inp.fileHandleForWriting.close()
    let outData = out.fileHandleForReading.readDataToEndOfFile()
    group.wait()
    process.waitUntilExit()
    watchdog.cancel()
    return RunResult(
        status: process.terminationStatus,
        stdout: String(decoding: outData, as: UTF8.self),
        stderr: String(decoding: errData, as: UTF8.self),
        stdoutData: outData,
        timedOut: timedOut,
        signal: process.terminationReason == .uncaughtSignal ? process.terminationStatus : nil)
}

/// A fresh temporary directory, removed by the caller when done.
func makeTemporaryDirectory() throws -> URL {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("vinyard-test-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
}
