import Foundation

/// The result of running the built `vinyard` binary.
struct RunResult {
    var status: Int32
    var stdout: String
    var stderr: String
    var stdoutData: Data
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

/// Runs `vinyard` with arguments and optional standard input; waits for it to exit.
@discardableResult
func runVinyard(_ arguments: [String], stdin: Data? = nil, cwd: URL? = nil, environment: [String: String]? = nil)
    throws -> RunResult
{
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
    return RunResult(
        status: process.terminationStatus,
        stdout: String(decoding: outData, as: UTF8.self),
        stderr: String(decoding: errData, as: UTF8.self),
        stdoutData: outData)
}

/// A fresh temporary directory, removed by the caller when done.
func makeTemporaryDirectory() throws -> URL {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("vinyard-test-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
}
