import Foundation
import Synchronization

/// A batch of input items on its way through the pipeline's threads: filled with raw items by
/// the reading thread, mapped and VIN-checked by a mapping worker, then counted and written by the
/// calling thread, in input order, and handed back for reuse (the records' storage is kept from
/// batch to batch). A batch belongs to one thread at a time: no lock per record.
final class RecordBatch: @unchecked Sendable {
    static let capacity = 256

    /// The batch's place in the input (the sink takes batches in this order).
    var sequence = 0
    /// The items as read, in input order.
    var items: [ReadItem] = []
    /// The mapping of every record in this batch (a batch never spans a change of mapping); nil
    /// while no record has been read.
    var mappingName: String?
    /// The mapped records, one per `.record` item, in order (slots beyond `recordCount` are old
    /// storage kept for reuse).
    var records: [CanonicalRecord] = []
    var recordCount = 0
    /// Per record slot: its row hash, computed by the mapping worker for sinks that want it.
    var rowHashes: [Int64?] = []
    /// Per record slot: its key's ``RowHasher`` hash for sinks that want row hashes (0: none).
    var keyHashes: [UInt64] = []
    /// The worker's mapper that mapped the records (the sink thread reads only its constants).
    var mapper: Mapper?
    /// The input's byte count when the batch was handed over (for the progress line).
    var bytesRead: Int64 = 0
    /// The error that ended reading, after the batch's items.
    var failure: (any Error)?
    /// A mapping worker could not set up its mapper: the batch's records are not mapped.
    var mappingFailure: (any Error)?
    /// The input's last batch.
    var isLast = false
    /// JSON keys another key of the same record shadows, from the mapper (usually none).
    var shadowedKeys: [(column: Mapper.ShadowedColumn, provenance: Provenance)] = []
    /// JSON keys no field of the source takes, from the mapper (usually none).
    var unmappedKeys: [(name: String, provenance: Provenance)] = []
    /// CSV columns without a name found holding a value, from the mapper (usually none).
    var unnamedColumns: [(column: Int, provenance: Provenance)] = []

    /// The field arrays of the batch's last records, collected by ``reset(sequence:mappingName:)``
    /// for the reader to fill again (``InputReader/recycle(_:)``): uniquely held, so the reader
    /// writes the next record's values in place instead of allocating an array and retaining
    /// every field name per record.
    var spareFields: [[RawField]] = []

    /// Fields in a batch before it is handed on, whatever its record count: 256 records of a
    /// 100,000-column file held 1.2 GB across the batches in flight (an audit), 256 of 13 columns
    /// hold 3,328 fields.
    static let fieldCapacity = 32_768

    /// The fields of the batch's records so far.
    private(set) var fieldCount = 0

    /// Bytes of input (decompressed) in a batch before it is handed on, whatever its record
    /// count: 256 records with a 1 MB `notes` cell each held 1.8 GB across the batches in flight
    /// (an audit); 256 usual records are about 30 KB. The reading thread checks it.
    static let byteCapacity = 4 << 20

    var isFull: Bool { items.count >= Self.capacity || fieldCount >= Self.fieldCapacity }

    /// Adds an item as read.
    func append(_ item: ReadItem) {
        if case .record(let raw) = item { fieldCount += raw.fields.count }
        items.append(item)
    }

    func reset(sequence: Int, mappingName: String?) {
        self.sequence = sequence
        // The record slots share the items' field arrays (`raw`): let go of them first.
        records.withUnsafeMutableBufferPointer { records in
            for i in records.indices where !records[i].raw.fields.isEmpty { records[i].raw.fields = [] }
        }
        for item in items {
            if case .record(let raw) = item, !raw.fields.isEmpty { spareFields.append(raw.fields) }
        }
        items.removeAll(keepingCapacity: true)
        fieldCount = 0
        self.mappingName = mappingName
        recordCount = 0
        mapper = nil
        bytesRead = 0
        failure = nil
        mappingFailure = nil
        isLast = false
        if !shadowedKeys.isEmpty { shadowedKeys = [] }
        if !unmappedKeys.isEmpty { unmappedKeys = [] }
        if !unnamedColumns.isEmpty { unnamedColumns = [] }
    }

    /// The record slot for the next mapped record.
    func nextRecordSlot(provenance: Provenance) -> Int {
        if recordCount == records.count {
            records.append(
                CanonicalRecord(
                    values: [], key: nil, provenance: provenance, findings: [],
                    raw: RawRecord(fields: [], provenance: provenance)))
            rowHashes.append(nil)
            keyHashes.append(0)
        }
        recordCount += 1
        return recordCount - 1
    }
}

/// Moves batches between the reading thread, the mapping workers and the sink thread: free →
/// filled (raw) → mapped → back to free. Bounded by the number of batches, so memory stays flat
/// whatever the input size; the sink takes mapped batches strictly in input order.
///
/// One lock, and a condition per kind of waiter, signalled only when such a thread waits: with one
/// condition broadcast at every hand-over, each batch the sink gave back also woke the mapping
/// workers waiting for raw batches (perf: the sink thread spent ~3% of a 1M-row import in
/// `futex_wake`, the woken threads as much again going back to sleep).
final class BatchFlow: @unchecked Sendable {
    private let lock = HandOffLock()
    private var free: [RecordBatch]
    private var filled: [RecordBatch] = []
    private var filledHead = 0
    private var mapped: [Int: RecordBatch] = [:]
    private var nextSequence = 0
    private var readingDone = false
    /// Threads waiting: the reader for a free batch, workers for a filled one, the sink for the
    /// mapped batch with this sequence number (-1: not waiting).
    private var readerWaits = false
    private var workersWaiting = 0
    private var sinkWaitsFor = -1
    /// Set when the sink thread stops early (a sink error): every other thread ends.
    private let cancelled = Atomic<Bool>(false)

    init(batches: Int) {
        free = (0..<max(2, batches)).map { _ in RecordBatch() }
    }

    /// True once the sink thread has cancelled (the reading thread checks it per item, so a sink
    /// error stops reading at once rather than at the next batch).
    var isCancelled: Bool { cancelled.load(ordering: .relaxed) }

    /// Reading thread: the next batch to fill (numbered in order), waiting for one; nil once
    /// cancelled.
    func takeFree(mappingName: String?) -> RecordBatch? {
        lock.lock()
        defer { lock.unlock() }
        while free.isEmpty && !isCancelled {
            readerWaits = true
            lock.wait(.free)
            readerWaits = false
        }
        if isCancelled { return nil }
        let batch = free.removeLast()
        batch.reset(sequence: nextSequence, mappingName: mappingName)
        nextSequence += 1
        return batch
    }

    /// Reading thread: a filled batch for the mapping workers; `last` ends the reading.
    func sendFilled(_ batch: RecordBatch, last: Bool) {
        lock.lock()
        filled.append(batch)
        if last {
            readingDone = true
            lock.broadcast(.filled)
        } else if workersWaiting > 0 {
            lock.signal(.filled)
        }
        lock.unlock()
    }

    /// Mapping worker: the oldest filled batch, waiting for one; nil when reading is over (or
    /// cancelled) and nothing is left to map.
    func takeFilled() -> RecordBatch? {
        lock.lock()
        defer { lock.unlock() }
        while filledHead == filled.count && !readingDone && !isCancelled {
            workersWaiting += 1
            lock.wait(.filled)
            workersWaiting -= 1
        }
        if isCancelled || filledHead == filled.count { return nil }
        let batch = filled[filledHead]
        filledHead += 1
        if filledHead == filled.count {
            filled.removeAll(keepingCapacity: true)
            filledHead = 0
        }
        return batch
    }

    /// Mapping worker: a mapped batch for the sink.
    func sendMapped(_ batch: RecordBatch) {
        lock.lock()
        mapped[batch.sequence] = batch
        if sinkWaitsFor == batch.sequence { lock.signal(.mapped) }
        lock.unlock()
    }

    /// Sink thread: mapped batch number `sequence`, waiting for it.
    func takeMapped(_ sequence: Int) -> RecordBatch {
        lock.lock()
        defer { lock.unlock() }
        while mapped[sequence] == nil {
            sinkWaitsFor = sequence
            lock.wait(.mapped)
            sinkWaitsFor = -1
        }
        return mapped.removeValue(forKey: sequence) ?? RecordBatch()
    }

    /// Sink thread: a batch it is done with.
    func giveBack(_ batch: RecordBatch) {
        lock.lock()
        free.append(batch)
        if readerWaits { lock.signal(.free) }
        lock.unlock()
    }

    /// Sink thread: stop everything (the other threads end at their next hand-over).
    func cancel() {
        lock.lock()
        cancelled.store(true, ordering: .relaxed)
        lock.broadcast(.free)
        lock.broadcast(.filled)
        lock.broadcast(.mapped)
        lock.unlock()
    }
}

/// A mutex with three condition variables (Foundation's `NSCondition` has one per mutex).
final class HandOffLock: @unchecked Sendable {
    enum Waiter: Int { case free, filled, mapped }

    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let conditions = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 3)

    init() {
        pthread_mutex_init(mutex, nil)
        for i in 0..<3 { pthread_cond_init(conditions + i, nil) }
    }

    deinit {
        for i in 0..<3 { pthread_cond_destroy(conditions + i) }
        pthread_mutex_destroy(mutex)
        conditions.deallocate()
        mutex.deallocate()
    }

    func lock() { pthread_mutex_lock(mutex) }
    func unlock() { pthread_mutex_unlock(mutex) }
    /// Waits for `waiter`'s condition (the lock held; spurious wake-ups possible: re-check).
    func wait(_ waiter: Waiter) { pthread_cond_wait(conditions + waiter.rawValue, mutex) }
    func signal(_ waiter: Waiter) { pthread_cond_signal(conditions + waiter.rawValue) }
    func broadcast(_ waiter: Waiter) { pthread_cond_broadcast(conditions + waiter.rawValue) }
}

/// A thread running one closure, which the caller waits for with ``join()``.
final class WorkerThread: @unchecked Sendable {
    private let done = DispatchSemaphore(value: 0)

    init(name: String, _ body: @escaping @Sendable () -> Void) {
        let done = self.done
        let thread = Thread {
            body()
            done.signal()
        }
        thread.name = name
        thread.stackSize = 8 << 20
        thread.start()
    }

    func join() { done.wait() }
}

/// Hands values that are used by one thread at a time to another thread: the pipeline's reader
/// moves to the reading thread and each worker's mappers stay on their worker.
struct Unchecked<Value>: @unchecked Sendable {
    let value: Value
    init(_ value: Value) { self.value = value }
}
