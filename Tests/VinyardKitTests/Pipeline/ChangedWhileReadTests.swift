import Foundation
import Testing
@testable import VinyardKit

/// A sink that appends a line to the input when it receives the first record: the file changes
/// while the pipeline reads it (as a file cut short or rewritten by another process would).
private final class TouchingSink: RecordSink {
    let path: String
    var touched = false
    let inner = ValidationSink()
    init(path: String) { self.path = path }

    func accept(_ record: CanonicalRecord, schema: Schema, source: String) throws -> WriteResult {
        if !touched {
            touched = true
            guard let handle = FileHandle(forWritingAtPath: path) else { throw VinyardError(.io, "cannot open \(path)") }
            handle.seekToEndOfFile()
            handle.write(Data("1FTFW1E52KFA00021,Ford\n".utf8))
            try handle.close()
        }
        return try inner.accept(record, schema: schema, source: source)
    }
    func reject(_ record: CanonicalRecord, schema: Schema, source: String) throws { try inner.reject(record, schema: schema, source: source) }
    func reject(_ reject: RawReject, source: String?) throws { try inner.reject(reject, source: source) }
}

@Suite struct ChangedWhileReadTests {
    /// A file that changes while it is read fails the run (an import then rolls back) instead of
    /// ending as if the rows read so far were the whole file; one left alone reads as before.
    @Test func aFileChangedWhileItIsReadFailsTheRun() throws {
        let path = try temporaryFile("changing.csv", Array("vin,make\n1HGCM82633A004352,Honda\n".utf8))
        let pipeline = Pipeline(options: PipelineOptions(), catalog: try SchemaCatalog.bundled())
        #expect {
            _ = try pipeline.run(inputs: [path], into: TouchingSink(path: path))
        } throws: { error in
            let e = error as? VinyardError
            return e?.code == .io && e!.message.contains("changing.csv: the file changed while it was read")
        }
        let report = try pipeline.run(inputs: [path], into: ValidationSink())
        #expect(report.read == 2)
    }
}
