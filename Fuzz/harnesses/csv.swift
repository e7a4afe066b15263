// CSV reader: auto-detected and forced delimiters, every encoding (Windows-1252 fallback included),
// small reads and a small growing buffer, and padded inputs that exceed the 64 KiB header look-ahead
// (so that records straddle refills).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let input = FuzzInput(data, size)
    var payload = input.payload
    let control = input.control
    // Forced delimiter: any ASCII byte the CLI accepts.
    var forced: UInt8?
    if control & 4 != 0, let first = payload.first {
        let d = first & 0x7F
        forced = (d == UInt8(ascii: "\"") || d == 0x0A || d == 0x0D) ? UInt8(ascii: ",") : d
        payload.removeFirst()
    }
    // Padding: repeat the rows past the header beyond the reader's initial 64 KiB fill.
    // Reads of at least 4 KiB there: a record that arrives in tiny reads is rescanned from its start
    // after each read (quadratic in the record's length; see Fuzz/README.md).
    // One input in eight: padded units are ~70 KB, hundreds of times the others, and at one in
    // four they took nearly all of the run's time (~120 executions/s).
    var readChunk = input.readChunk
    if control & 8 != 0, control & 16 != 0, control & 64 != 0, payload.count >= 8 {
        let original = payload
        while payload.count < 70_000 { payload += original }
        readChunk = max(readChunk, 4096)
    }
    let smallBuffer = control & 16 != 0 && control & 8 == 0
    let buffer = InputBuffer(
        source: FuzzMemorySource(payload, chunk: readChunk), chunkSize: smallBuffer ? 16 : 256 * 1024,
        maxRecordBytes: smallBuffer ? 4096 : 1 << 20)
    guard let reader = try? CSVReader(buffer: buffer, delimiter: forced, encoding: input.encoding) else { return 0 }
    let items = drain(reader)
    let header = reader.header
    for item in items {
        switch item {
        case .record(let r):
            if r.fields.count != header.count { fatalError("record with \(r.fields.count) fields, header \(header.count)") }
        case .reject(let r):
            if r.fields.count == header.count { fatalError("ragged reject with as many fields as the header") }
        }
    }
    return 0
}
