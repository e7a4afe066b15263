import Testing
@testable import VinyardKit

/// A batch is handed on at 256 records or at ``RecordBatch/fieldCapacity`` fields, whichever comes
/// first: 256 records of a 100,000-column file held 1.2 GB across the batches in flight.
@Suite struct RecordBatchTests {
    @Test func wideRecordsFillABatchEarly() {
        let batch = RecordBatch()
        let wide = rawRecord((0..<20_000).map { ("c\($0)", RawValue.string("x")) })
        batch.append(.record(wide))
        #expect(!batch.isFull)
        batch.append(.record(wide))
        #expect(batch.isFull)
        batch.reset(sequence: 1, mappingName: nil)
        #expect(batch.fieldCount == 0 && !batch.isFull)
        let narrow = rawRecord((0..<13).map { ("c\($0)", RawValue.string("x")) })
        for _ in 0..<255 { batch.append(.record(narrow)) }
        #expect(!batch.isFull)
        batch.append(.record(narrow))
        #expect(batch.isFull)
    }
}
