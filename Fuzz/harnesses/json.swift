// JSON reader (array, object, wrapper shapes) and JSON Lines reader over the same bytes, every
// encoding, small reads; plus JSONParser directly with partial buffers (needMore must agree with
// the final parse).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let input = FuzzInput(data, size)
    let payload = input.payload
    let smallBuffer = input.control & 4 != 0
    func buffer() -> InputBuffer {
        InputBuffer(
            source: FuzzMemorySource(payload, chunk: input.readChunk), chunkSize: smallBuffer ? 16 : 256 * 1024,
            maxRecordBytes: smallBuffer ? 4096 : 1 << 20)
    }
    let json = JSONReader(buffer: buffer(), encoding: input.encoding)
    drain(json)
    if let lines = try? JSONLinesReader(buffer: buffer(), encoding: input.encoding) {
        drain(lines)
    }
    _ = try? sniffFormat(buffer())

    // The parser on a prefix: a value there must be the same value on the whole input.
    var parser = JSONParser(maxDepth: input.control & 8 != 0 ? 4 : 512, encoding: input.encoding)
    payload.withUnsafeBufferPointer { p in
        let whole = parser.parse(p, from: 0, final: true)
        let cut = p.count / 2
        let partial = parser.parse(UnsafeBufferPointer(rebasing: p[0..<cut]), from: 0, final: false)
        if case .value(let v, let end) = partial {
            guard case .value(let w, let end2) = whole, w == v, end == end2 else {
                fatalError("a value parsed from a prefix differs from the full parse")
            }
        }
        if case .value(_, let end) = whole, end > p.count { fatalError("end past the input") }
    }
    return 0
}
