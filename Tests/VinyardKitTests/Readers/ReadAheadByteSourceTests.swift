import Foundation
import Testing

@testable import VinyardKit

/// A source that fails after giving `good` bytes.
private final class FailingSource: ByteSource {
    let name = "failing"
    private var left: Int
    init(good: Int) { left = good }
    func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        guard left > 0 else { throw VinyardError(.malformedInput, "failing: corrupt at byte 1000") }
        let n = min(left, buffer.count, 300)
        for i in 0..<n { buffer[i] = UInt8(truncatingIfNeeded: i) }
        left -= n
        return n
    }
}

@Suite struct ReadAheadByteSourceTests {
    private func drain(_ source: any ByteSource, readSize: Int) throws -> [UInt8] {
        var out: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: readSize)
        while true {
            let n = try buffer.withUnsafeMutableBytes { try source.read(into: $0) }
            if n == 0 { return out }
            out += buffer[0..<n]
        }
    }

    @Test(arguments: [1, 7, 4096, 1 << 20])
    func bytesComeOutInOrderWhateverTheReadSize(readSize: Int) throws {
        var rng = SplitMix64(seed: UInt64(readSize))
        let bytes = (0..<300_000).map { _ in UInt8(truncatingIfNeeded: rng.next()) }
        let counter = CountingByteSource(MemoryByteSource(bytes, chunk: 5000))
        let ahead = ReadAheadByteSource(counter, counter: counter, chunks: 3, chunkSize: 777)
        #expect(try drain(ahead, readSize: readSize) == bytes)
        #expect(ahead.countedBytes == Int64(bytes.count))
        #expect(try drain(ahead, readSize: readSize).isEmpty)
    }

    @Test func anErrorComesAfterTheBytesBeforeIt() throws {
        let ahead = ReadAheadByteSource(FailingSource(good: 2000), counter: nil, chunks: 2, chunkSize: 512)
        var got = 0
        var buffer = [UInt8](repeating: 0, count: 100)
        let error = #expect(throws: VinyardError.self) {
            while true {
                let n = try buffer.withUnsafeMutableBytes { try ahead.read(into: $0) }
                if n == 0 { break }
                got += n
            }
        }
        #expect(got == 2000)
        #expect(error?.message.contains("corrupt at byte 1000") == true)
    }

    @Test func stoppingBeforeTheEndDoesNotHang() throws {
        let bytes = [UInt8](repeating: 7, count: 1 << 20)
        let ahead = ReadAheadByteSource(MemoryByteSource(bytes, chunk: 1000), counter: nil, chunks: 2, chunkSize: 1000)
        var buffer = [UInt8](repeating: 0, count: 10)
        #expect(try buffer.withUnsafeMutableBytes { try ahead.read(into: $0) } == 10)
        ahead.stop()
        ahead.stop()
    }

    @Test func aGzipInputReadsTheSameAsItsPlainText() throws {
        var text = "vin,make\n"
        for i in 0..<20_000 { text += "VIN\(i),Make \(i % 7)\n" }
        let plain = try temporaryFile("f.csv", Array(text.utf8))
        let sink = try GzipByteSink(sink: FileByteSink(path: plain + ".gz"))
        var t = text
        try t.withUTF8 { try sink.write(UnsafeRawBufferPointer($0)) }
        try sink.close()
        func rows(_ path: String) throws -> ([[String]], Int64) {
            let reader = try openInput(path: path)
            var rows: [[String]] = []
            while let item = try reader.next() {
                if case .record(let r) = item { rows.append(r.fields.map { $0.value.scalarText ?? "" }) }
            }
            _ = reader.contentHash
            return (rows, reader.bytesRead)
        }
        let (a, _) = try rows(plain)
        let (b, bytes) = try rows(plain + ".gz")
        #expect(a.count == 20_000)
        #expect(a == b)
        let size = try FileManager.default.attributesOfItem(atPath: plain + ".gz")[.size] as? Int
        #expect(bytes == Int64(size ?? -1))
    }
}
