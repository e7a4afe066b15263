import Foundation
import Testing
@testable import VinyardKit

@Suite struct UTF16ByteSourceTests {
    private func transcode(_ bytes: [UInt8], bigEndian: Bool, chunk: Int, readSize: Int) throws -> [UInt8] {
        let source = UTF16ByteSource(
            source: MemoryByteSource(bytes, chunk: chunk), bigEndian: bigEndian, chunkSize: max(4, chunk * 3))
        var out: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: readSize)
        while true {
            let n = try buffer.withUnsafeMutableBytes { try source.read(into: $0) }
            if n == 0 { break }
            out += buffer[0..<n]
        }
        return out
    }

    /// Whatever the chunking of the input and the size of the reads, the UTF-8 is the text's:
    /// ASCII, two- and three-byte characters, a surrogate pair split across reads, CRLF; the byte
    /// order mark is dropped.
    @Test(arguments: [1, 2, 3, 5, 7, 64])
    func transcodesWholeTextAcrossAnyChunking(chunk: Int) throws {
        let text = "VIN\tMarke\tNotiz\r\nWBAY5XR10GY000002\tBMW\tGrün, 1.200 € 🚗\r\nZFA\tFiat\t日本\n"
        for bigEndian in [false, true] {
            let body = Array(text.data(using: bigEndian ? .utf16BigEndian : .utf16LittleEndian)!)
            let bom: [UInt8] = bigEndian ? [0xFE, 0xFF] : [0xFF, 0xFE]
            for readSize in [1, 3, 8, 9, 64, 4096] {
                #expect(try transcode(bom + body, bigEndian: bigEndian, chunk: chunk, readSize: readSize) == Array(text.utf8))
                #expect(try transcode(body, bigEndian: bigEndian, chunk: chunk, readSize: readSize) == Array(text.utf8))
            }
        }
    }

    /// Half a surrogate pair (high without low, a low alone, a high at the very end) and an odd
    /// last byte each become U+FFFD; the characters around them are kept.
    @Test func brokenUnitsBecomeReplacementCharacters() throws {
        let le: [UInt16] = [0x61, 0xD83D, 0x62, 0xDE97, 0x63, 0xD83D]
        var bytes = le.flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] }
        bytes.append(0x64)  // an odd byte at the end
        for chunk in [1, 3, 64] {
            let out = try transcode(bytes, bigEndian: false, chunk: chunk, readSize: 16)
            #expect(String(decoding: out, as: UTF8.self) == "a\u{FFFD}b\u{FFFD}c\u{FFFD}\u{FFFD}")
        }
    }

    /// Through `openInput`: a UTF-16 CSV reads the same records, at the same lines, as its UTF-8
    /// text, and so does a gzip-compressed one.
    @Test func openInputReadsUTF16LikeItsUTF8() throws {
        let text = "vin;make;notes\n1HGCM82633A004352;Honda;\"Grün\n2 Zeilen\"\n1FTFW1E52KFA00021;Ford;ok €\n"
        let utf16 = [0xFF, 0xFE] + Array(text.data(using: .utf16LittleEndian)!)
        let plain = try readAll(try openInput(path: try temporaryFile("u8.csv", Array(text.utf8))))
        for (name, bytes) in [("u16.csv", utf16), ("u16.csv.gz", try gzip(utf16))] {
            let read = try readAll(try openInput(path: try temporaryFile(name, bytes)))
            #expect(read.compactMap(\.record).map(\.strings) == plain.compactMap(\.record).map(\.strings))
            #expect(read.compactMap(\.record).map(\.provenance.line) == [2, 4])
        }
    }
}
