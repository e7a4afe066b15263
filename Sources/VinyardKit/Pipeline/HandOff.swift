import Foundation
import Synchronization

/// Records read, mapped and VIN-checked by the pipeline's reading thread, waiting for the sink
/// on the calling thread. A batch is filled by one thread, then handed whole to the other: no
/// lock per record. Batches go back to the reading thread once the sink is done with them, so the
/// records' `values`, `findings` and field storage is reused from batch to batch.
final class RecordBatch: @unchecked Sendable {
    enum Entry {
        /// `records[slot]`, mapped by ``mapper``.
        case record(slot: Int)
        case reject(RawReject)
    }

    static let capacity = 512

    var entries: [Entry] = []
    /// Slot storage, kept between uses (only the first `recordCount` are this batch's).
    var records: [CanonicalRecord] = []
    var recordCount = 0
    /// The mapper of every record in this batch (a batch never spans a change of mapper).
    var mapper: Mapper?
    /// The input's byte count when the batch was handed over (for the progress line).
    var bytesRead: Int64 = 0
    /// The error that ended reading, after the batch's entries.
    var failure: (any Error)?
    /// The input's last batch.
    var isLast = false

    var isFull: Bool { entries.count >= Self.capacity }

    func reset(mapper: Mapper?) {
        entries.removeAll(keepingCapacity: true)
        recordCount = 0
        self.mapper = mapper
        bytesRead = 0
        failure = nil
        isLast = false
    }

    /// The index of a free record slot for the next entry.
    func takeRecordSlot(provenance: Provenance) -> Int {
        if recordCount == records.count {
            records.append(
                CanonicalRecord(
                    values: [], key: nil, provenance: provenance, findings: [],
                    raw: RawRecord(fields: [], provenance: provenance)))
        }
        let slot = recordCount
        recordCount += 1
        entries.append(.record(slot: slot))
        return slot
    }
}

/// Two queues between the reading thread and the sink thread: full batches one way, used ones
/// back. Bounded by the number of batches (memory stays flat whatever the input size).
final class BatchHandOff: @unchecked Sendable {
    private let condition = NSCondition()
    private var full: [RecordBatch] = []
    private var free: [RecordBatch]
    /// Set by the sink thread when it stops early (a sink error): the reading thread ends.
    let cancelled = Atomic<Bool>(false)

    init(batches: Int = 4) {
        free = (0..<batches).map { _ in RecordBatch() }
    }

    /// A batch to fill, waiting for one; nil once cancelled.
    func takeFree() -> RecordBatch? {
        condition.lock()
        defer { condition.unlock() }
        while free.isEmpty && !cancelled.load(ordering: .relaxed) { condition.wait() }
        if cancelled.load(ordering: .relaxed) { return nil }
        return free.removeLast()
    }

    func send(_ batch: RecordBatch) {
        condition.lock()
        full.append(batch)
        condition.broadcast()
        condition.unlock()
    }

    /// The next full batch, waiting for it.
    func takeFull() -> RecordBatch {
        condition.lock()
        defer { condition.unlock() }
        while full.isEmpty { condition.wait() }
        return full.removeFirst()
    }

    func giveBack(_ batch: RecordBatch) {
        condition.lock()
        free.append(batch)
        condition.broadcast()
        condition.unlock()
    }

    func cancel() {
        condition.lock()
        cancelled.store(true, ordering: .relaxed)
        condition.broadcast()
        condition.unlock()
    }
}

/// A thread running one closure, which the caller waits for with ``join()``.
final class WorkerThread: @unchecked Sendable {
    private let done = DispatchSemaphore(value: 0)
    private var thread: Thread?

    init(name: String, _ body: @escaping @Sendable () -> Void) {
        let done = self.done
        let thread = Thread {
            body()
            done.signal()
        }
        thread.name = name
        thread.stackSize = 8 << 20
        self.thread = thread
        thread.start()
    }

    func join() {
        done.wait()
        thread = nil
    }
}

/// Hands values that are used by one thread at a time to another thread: the pipeline's reader,
/// mappers and VIN checker move to the reading thread and are not touched by the sink thread
/// until it joins.
struct Unchecked<Value>: @unchecked Sendable {
    let value: Value
    init(_ value: Value) { self.value = value }
}
