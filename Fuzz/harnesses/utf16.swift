// UTF-16 → UTF-8 transcoding (Excel's "Unicode Text" inputs): any bytes, either byte order, any
// chunking of the source and any size of read give the UTF-8 that the standard library's UTF-16
// decoding gives (ill-formed units as U+FFFD), without the leading byte order mark, and an odd
// last byte as one more U+FFFD.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let input = FuzzInput(data, size)
    let bytes = input.payload
    let bigEndian = input.control & 1 != 0
    let readSize = [1, 2, 3, 8, 17, 4096][Int(input.control >> 1) % 6]
    let source = UTF16ByteSource(
        source: FuzzMemorySource(bytes, chunk: input.readChunk), bigEndian: bigEndian, chunkSize: 4 + Int(input.control >> 4) * 3)
    var out: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: readSize)
    while true {
        guard let n = try? buffer.withUnsafeMutableBytes({ try source.read(into: $0) }) else { fatalError("read threw") }
        if n == 0 { break }
        if n < 0 || n > readSize { fatalError("read returned \(n)") }
        out += buffer[0..<n]
    }
    var units: [UInt16] = []
    var i = 0
    while i + 1 < bytes.count {
        units.append(bigEndian ? UInt16(bytes[i]) << 8 | UInt16(bytes[i + 1]) : UInt16(bytes[i + 1]) << 8 | UInt16(bytes[i]))
        i += 2
    }
    if units.first == 0xFEFF { units.removeFirst() }
    var expected = Array(String(decoding: units, as: UTF16.self).utf8)
    if bytes.count % 2 == 1 { expected += [0xEF, 0xBF, 0xBD] }
    if out != expected { fatalError("transcoded \(out.count) bytes, expected \(expected.count)") }
    return 0
}
