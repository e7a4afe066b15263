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
///
/// The signals are blocked first, in this thread (and so in every thread it starts later), and the
/// function returns once the sources are registered: a signal that came while the signal was
/// ignored but before its source was registered (which libdispatch does on another thread, later)
/// was lost, and a run waiting on standard input never ended (a test under heavy load hung on
/// it). A blocked signal waits, pending, for the source.
func removeStagedOutputsOnSignal(command: String, json: JSONReportDestination = .none) {
    guard cleanupSources.isEmpty else { return }
    var blocked = sigset_t()
    sigemptyset(&blocked)
    sigaddset(&blocked, SIGINT)
    sigaddset(&blocked, SIGTERM)
    pthread_sigmask(SIG_BLOCK, &blocked, nil)
    let registered = DispatchSemaphore(value: 0)
    for number in [SIGINT, SIGTERM] {
        signal(number, SIG_IGN)
        let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
        source.setRegistrationHandler { registered.signal() }
        source.setEventHandler {
            let hadOutputs = StagedOutputs.removeAll()
            let name = number == SIGINT ? "SIGINT" : "SIGTERM"
            let message = "\(command) interrupted by \(name)" + (hadOutputs ? "; its unfinished output files were removed" : "")
            // On a terminal, over the progress line if one is drawn.
            let clear = isatty(STDERR_FILENO) == 1 ? "\r\u{1B}[K" : ""
            StandardError.write("\(clear)error: \(message)\n")
            json.write(errorReportJSON(kind: "interrupted", message: message, exitStatus: 128 + number))
            exit(128 + number)
        }
        source.resume()
        cleanupSources.append(source)
    }
    for _ in 0..<2 { _ = registered.wait(timeout: .now() + 5) }
}
