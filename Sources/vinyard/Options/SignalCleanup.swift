import Dispatch
import Foundation
import VinyardKit

/// The signal sources that remove staging files; kept for the life of the process.
nonisolated(unsafe) private var cleanupSources: [any DispatchSourceSignal] = []

/// On SIGINT or SIGTERM, removes the staging files of unfinished outputs (``StagedOutputs``) and
/// exits with 128 + the signal: an interrupted `export`, `emissions`, `convert` or `validate
/// --rejects` left its hidden staging file behind. (`import` has its own handling,
/// ``ImportInterruption``, which removes them too.)
func removeStagedOutputsOnSignal() {
    guard cleanupSources.isEmpty else { return }
    for number in [SIGINT, SIGTERM] {
        signal(number, SIG_IGN)
        let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
        source.setEventHandler {
            StagedOutputs.removeAll()
            exit(128 + number)
        }
        source.resume()
        cleanupSources.append(source)
    }
}
