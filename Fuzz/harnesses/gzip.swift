// gzip decoding: the input as a (possibly multi-member, corrupt, truncated) gzip stream, read with
// different source read sizes, compressed-chunk sizes and output buffer sizes, which must all
// give the same bytes or all fail; and a round trip of the input through GzipByteSink.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let input = FuzzInput(data, size)
    let payload = input.payload

    func decode(readChunk: Int, chunkSize: Int, outSize: Int) -> [UInt8]? {
        guard let gz = try? GzipByteSource(source: FuzzMemorySource(payload, chunk: readChunk), chunkSize: chunkSize)
        else { fatalError("cannot start the decoder") }
        var out: [UInt8] = []
        var buf = [UInt8](repeating: 0, count: outSize)
        do {
            while true {
                let n = try buf.withUnsafeMutableBytes { try gz.read(into: $0) }
                if n == 0 { return out }
                out += buf[0..<n]
                if out.count > 64 << 20 { return nil }  // a bomb: stop (memory), not a finding
            }
        } catch {
            return nil
        }
    }
    let a = decode(readChunk: Int.max, chunkSize: 256 * 1024, outSize: 64 * 1024)
    let b = decode(readChunk: input.readChunk, chunkSize: Int(input.control & 31) + 1, outSize: Int(input.control & 7) + 1)
    if a != b { fatalError("decoding depends on read sizes: \(a?.count ?? -1) vs \(b?.count ?? -1) bytes") }

    // Round trip through the encoder (one member, or two members concatenated).
    final class Sink: ByteSink {
        var bytes: [UInt8] = []
        func write(_ b: UnsafeRawBufferPointer) throws { bytes.append(contentsOf: b) }
        func close() throws {}
    }
    do {
        let sink = Sink()
        let parts = input.control & 1 != 0 ? [payload, Array(payload.prefix(Int(input.control)))] : [payload]
        for part in parts {
            let gz = try GzipByteSink(sink: sink)
            try part.withUnsafeBytes { try gz.write($0) }
            try gz.close()
        }
        let expected = input.control & 1 != 0 ? payload + payload.prefix(Int(input.control)) : payload
        let gz = try GzipByteSource(source: FuzzMemorySource(sink.bytes, chunk: input.readChunk), chunkSize: 17)
        var out: [UInt8] = []
        var buf = [UInt8](repeating: 0, count: 4096)
        while true {
            let n = try buf.withUnsafeMutableBytes { try gz.read(into: $0) }
            if n == 0 { break }
            out += buf[0..<n]
        }
        if out != expected { fatalError("gzip round trip changed the bytes") }
    } catch {
        fatalError("gzip round trip failed: \(error)")
    }
    return 0
}
