import Foundation
@testable import VinyardKit

/// A byte source over bytes in memory named `mem` (the library's ``MemoryByteSource``).
func MemorySource(_ bytes: [UInt8], name: String = "mem", chunk: Int = 1 << 20) -> MemoryByteSource {
    MemoryByteSource(bytes, name: name, chunk: chunk)
}

func MemorySource(_ text: String, name: String = "mem", chunk: Int = 1 << 20) -> MemoryByteSource {
    MemoryByteSource(text, name: name, chunk: chunk)
}

/// A sink collecting bytes in memory.
final class MemorySink: ByteSink {
    var bytes: [UInt8] = []
    var closed = false
    func write(_ b: UnsafeRawBufferPointer) throws { bytes.append(contentsOf: b) }
    func close() throws { closed = true }
    var text: String { String(decoding: bytes, as: UTF8.self) }
}

func readAll(_ reader: some RecordReader) throws -> [ReadItem] {
    var r = reader
    var items: [ReadItem] = []
    while let item = try r.next() { items.append(item) }
    return items
}

extension ReadItem {
    var record: RawRecord? { if case .record(let r) = self { r } else { nil } }
    var reject: RawReject? { if case .reject(let r) = self { r } else { nil } }
}

extension RawRecord {
    var strings: [String] { fields.map { $0.value.scalarText ?? "<\($0.value)>" } }
}

func gzip(_ bytes: [UInt8]) throws -> [UInt8] {
    let sink = MemorySink()
    let gz = try GzipByteSink(sink: sink)
    try bytes.withUnsafeBytes { try gz.write($0) }
    try gz.close()
    return sink.bytes
}

func temporaryFile(_ name: String, _ bytes: [UInt8]) throws -> String {
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent("vinyard-kit-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    let url = dir.appendingPathComponent(name)
    try Data(bytes).write(to: url)
    return url.path
}
