import ArgumentParser
import Foundation
import VinyardKit

/// Where a command's JSON report goes: nowhere (a text report), standard output, or standard
/// error (`--rejects -` puts the rejects on standard output).
enum JSONReportDestination: Sendable {
    case none, standardOutput, standardError

    /// The destination for `--report` and `--rejects`.
    init(report: ReportFormat, rejects: String?) {
        self = report != .json ? .none : rejects == "-" ? .standardError : .standardOutput
    }

    /// Writes `json` and a line end there (nothing for ``none``); a failed write is ignored (the
    /// exit status tells).
    func write(_ json: String) {
        switch self {
        case .none: break
        case .standardOutput: try? FileByteSink.writeStandardOutput(json + "\n")
        case .standardError: StandardError.write((json + "\n"))
        }
    }
}

/// Runs a command body, turning a ``VinyardError`` into a one-line `error: …` on standard error
/// and its documented exit status.
///
/// With a JSON report (`--report json`) the failure is also one JSON object where the report
/// would have gone, `{"error": {"kind", "message", "exit_status"}}`, so a script that parses the
/// report gets an object on every run instead of nothing (a malformed input printed no report at
/// all; with `--rejects -`, neither did any failure).
func reportingErrors(json: JSONReportDestination = .none, _ body: () throws -> Void) throws {
    do {
        try body()
    } catch let error as VinyardError {
        StandardError.write("error: \(error.description)\n")
        json.write(errorReportJSON(error))
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
