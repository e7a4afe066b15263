import Foundation
@testable import VinyardKit

/// A byte source over bytes in memory, handing out at most `chunk` bytes per read (to exercise
/// records that span reads).
final class MemorySource: ByteSource {
    let name: String
    private let bytes: [UInt8]
    private var offset = 0
    private let chunk: Int

    init(_ bytes: [UInt8], name: String = "mem", chunk: Int = 1 << 20) {
        self.bytes = bytes
        self.name = name
        self.chunk = chunk
    }
    convenience init(_ text: String, name: String = "mem", chunk: Int = 1 << 20) {
        self.init(Array(text.utf8), name: name, chunk: chunk)
    }

    func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        let n = min(buffer.count, bytes.count - offset, chunk)
        guard n > 0 else { return 0 }
        bytes.withUnsafeBytes { buffer.copyMemory(from: UnsafeRawBufferPointer(rebasing: $0[offset..<offset + n])) }
        offset += n
        return n
    }
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
