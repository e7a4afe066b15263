import VinyardKit

/// An output opened at its first write (or close), so a command that fails validation before
/// writing anything leaves no empty or truncated file behind.
final class DeferredSink: ByteSink {
    private let path: String
    private var sink: (any ByteSink)?

    init(path: String) { self.path = path }

    private func opened() throws -> any ByteSink {
        if let sink { return sink }
        // Written beside its place and moved there when complete (an interrupted or failed
        // export left a truncated file that looked finished).
        let sink = try StagedFileSink(path: path)
        self.sink = sink
        return sink
    }

    func write(_ bytes: UnsafeRawBufferPointer) throws { try opened().write(bytes) }
    func close() throws { try opened().close() }
}
