import ArgumentParser
import Foundation
import VinyardKit

/// Runs a command body, turning a ``VinyardError`` into a one-line `error: …` on standard error
/// and its documented exit status.
///
/// With `jsonReport` (`--report json`, whose report is on standard output) the failure is also
/// one JSON object on standard output, `{"error": {"kind", "message", "exit_status"}}`, so a
/// script that parses the report gets an object on every run instead of nothing (a malformed
/// input printed no report at all).
func reportingErrors(jsonReport: Bool = false, _ body: () throws -> Void) throws {
    do {
        try body()
    } catch let error as VinyardError {
        FileHandle.standardError.write(Data("error: \(error.description)\n".utf8))
        if jsonReport { try? FileByteSink.writeStandardOutput(errorReportJSON(error) + "\n") }
        throw ExitCode(error.code.exitStatus)
    }
}

/// `{"error": {"exit_status": 65, "kind": "malformed_input", "message": "…"}}`.
func errorReportJSON(_ error: VinyardError) -> String {
    // `malformedInput` → `malformed_input`, as the report's other keys are written.
    let kind = error.code.description.reduce(into: "") { out, c in
        if c.isUppercase { out += "_" + c.lowercased() } else { out.append(c) }
    }
    return errorReportJSON(kind: kind, message: error.description, exitStatus: error.code.exitStatus)
}

/// `{"error": {"exit_status": …, "kind": …, "message": …}}` for any ending (`interrupted`, 130).
func errorReportJSON(kind: String, message: String, exitStatus: Int32) -> String {
    let object: [String: Any] = [
        "error": ["kind": kind, "message": message, "exit_status": Int(exitStatus)] as [String: Any]
    ]
    guard
        let data = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes])
    else {
        return "{}"
    }
    return String(decoding: data, as: UTF8.self)
}
