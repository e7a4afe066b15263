import Dispatch
import Foundation
import VinyardKit

/// The signal sources that remove staging files; kept for the life of the process.
nonisolated(unsafe) private var cleanupSources: [any DispatchSourceSignal] = []

/// On SIGINT or SIGTERM, removes the staging files of unfinished outputs (``StagedOutputs``), says
/// so on standard error (and as the JSON report's error object, `interrupted`, with `json`), and
/// exits with 128 + the signal: an interrupted `export`, `emissions`, `convert` or `validate
/// --rejects` left its hidden staging file behind, and ended without a word. (`import` has its
/// own handling, ``ImportInterruption``, which removes them too.)
func removeStagedOutputsOnSignal(command: String, json: JSONReportDestination = .none) {
    guard cleanupSources.isEmpty else { return }
    for number in [SIGINT, SIGTERM] {
        signal(number, SIG_IGN)
        let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
        source.setEventHandler {
            let hadOutputs = StagedOutputs.removeAll()
            let name = number == SIGINT ? "SIGINT" : "SIGTERM"
            let message = "\(command) interrupted by \(name)" + (hadOutputs ? "; its unfinished output files were removed" : "")
            // On a terminal, over the progress line if one is drawn.
            let clear = isatty(STDERR_FILENO) == 1 ? "\r\u{1B}[K" : ""
            FileHandle.standardError.write(Data("\(clear)error: \(message)\n".utf8))
            json.write(errorReportJSON(kind: "interrupted", message: message, exitStatus: 128 + number))
            exit(128 + number)
        }
        source.resume()
        cleanupSources.append(source)
    }
}
