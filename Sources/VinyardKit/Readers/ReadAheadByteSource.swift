import Foundation

/// Reads another source ahead, on its own thread, into a few fixed chunks: for a gzip input,
/// inflating then overlaps parsing instead of adding to it (zlib inflates a fleet CSV at about the
/// speed the CSV reader parses it). Bytes, errors and the end come out in order; memory is the
/// chunks, whatever the input size.
final class ReadAheadByteSource: ByteSource {
    let name: String
    private let shared: Shared
    /// Read by this side only once the reading thread has finished.
    private let counter: CountingByteSource?
    private var current: [UInt8] = []
    private var currentCount = 0
    private var offset = 0
    /// The underlying counter's count when the chunk being read was read (compressed bytes
    /// consumed so far, for a gzip input).
    private(set) var countedBytes: Int64 = 0

    private struct Chunk {
        var bytes: [UInt8]
        var count: Int
        var counted: Int64
    }

    /// Everything both threads touch, under `condition`.
    private final class Shared: @unchecked Sendable {
        let condition = NSCondition()
        var ready: [Chunk] = []
        var free: [[UInt8]]
        var failure: (any Error)?
        var finished = false
        var cancelled = false
        let done = DispatchSemaphore(value: 0)
        var joined = false

        init(chunks: Int, chunkSize: Int) {
            free = (0..<chunks).map { _ in [UInt8](repeating: 0, count: chunkSize) }
        }
    }

    /// - Parameters:
    ///   - source: the source to read ahead (not touched by the caller afterwards).
    ///   - counter: a counter below `source` whose count is reported with each chunk.
    init(_ source: any ByteSource, counter: CountingByteSource?, chunks: Int = 4, chunkSize: Int = 256 * 1024) {
        name = source.name
        self.counter = counter
        let shared = Shared(chunks: max(2, chunks), chunkSize: max(1, chunkSize))
        self.shared = shared
        let work = Unchecked((source: source, counter: counter))
        let thread = Thread {
            Self.produce(work.value.source, counter: work.value.counter, into: shared)
            shared.done.signal()
        }
        thread.name = "vinyard-read-ahead"
        thread.start()
    }

    deinit { stop() }

    private static func produce(_ source: any ByteSource, counter: CountingByteSource?, into shared: Shared) {
        while true {
            shared.condition.lock()
            while shared.free.isEmpty && !shared.cancelled { shared.condition.wait() }
            if shared.cancelled {
                shared.condition.unlock()
                return
            }
            var buffer = shared.free.removeLast()
            shared.condition.unlock()
            let n: Int
            do {
                n = try buffer.withUnsafeMutableBytes { try source.read(into: $0) }
            } catch {
                shared.condition.lock()
                shared.failure = error
                shared.finished = true
                shared.condition.broadcast()
                shared.condition.unlock()
                return
            }
            shared.condition.lock()
            if n == 0 {
                shared.finished = true
                shared.free.append(buffer)
            } else {
                shared.ready.append(Chunk(bytes: buffer, count: n, counted: counter?.count ?? 0))
            }
            shared.condition.broadcast()
            shared.condition.unlock()
            if n == 0 { return }
        }
    }

    func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        while true {
            if offset < currentCount {
                let n = min(buffer.count, currentCount - offset)
                current.withUnsafeBytes { bytes in
                    buffer.baseAddress?.copyMemory(from: bytes.baseAddress! + offset, byteCount: n)
                }
                offset += n
                return n
            }
            shared.condition.lock()
            if currentCount > 0 {
                shared.free.append(current)
                current = []
                currentCount = 0
                offset = 0
                shared.condition.broadcast()
            }
            while shared.ready.isEmpty && !shared.finished { shared.condition.wait() }
            if !shared.ready.isEmpty {
                let chunk = shared.ready.removeFirst()
                shared.condition.unlock()
                current = chunk.bytes
                currentCount = chunk.count
                offset = 0
                countedBytes = chunk.counted
                continue
            }
            let failure = shared.failure
            shared.condition.unlock()
            if let failure { throw failure }
            // The reading thread is done with the counter: the whole input's count.
            countedBytes = counter?.count ?? countedBytes
            return 0
        }
    }

    /// Stops reading ahead and waits for the thread to end (then the counter below may be read
    /// from this thread).
    func stop() {
        shared.condition.lock()
        shared.cancelled = true
        shared.condition.broadcast()
        let wait = !shared.joined
        shared.joined = true
        shared.condition.unlock()
        if wait { shared.done.wait() }
    }
}
