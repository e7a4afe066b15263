import ArgumentParser
import Foundation
import VinyardKit

/// Runs a command body, turning a ``VinyardError`` into a one-line `error: …` on standard error
/// and its documented exit status.
func reportingErrors(_ body: () throws -> Void) throws {
    do {
        try body()
    } catch let error as VinyardError {
        FileHandle.standardError.write(Data("error: \(error.description)\n".utf8))
        throw ExitCode(error.code.exitStatus)
    }
}
