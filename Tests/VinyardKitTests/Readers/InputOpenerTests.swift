import Foundation
import Testing
@testable import VinyardKit

@Suite struct InputOpenerTests {
    @Test(arguments: [
        ("x.csv", "a,b\n1,2\n", InputFormat.csv), ("x.json", "[{\"a\":1}]", .json), ("x.jsonl", "{\"a\":1}\n", .jsonl),
        ("x.ndjson", "{\"a\":1}\n", .jsonl), ("x.txt", "  [{\"a\":1}]", .json), ("x.dat", "{\"a\":1}\n{\"a\":2}\n", .jsonl),
        ("x.dat", "{\"vehicles\":[{\"a\":1}]}\n", .json), ("x.dat", "a;b\n1;2\n", .csv),
        // An object on its own line followed by more lines is JSON Lines whatever those lines
        // hold (as JSON, anything after the top-level object ends the input with an error).
        ("x.dat", "{\"a\":1}\ngarbage\n{\"a\":2}\n", .jsonl), ("x.dat", "{\"a\":1}\n# comment\n", .jsonl),
        ("x.dat", "{\"a\":1}\r\n\r\n[1]\r\n", .jsonl), ("x.dat", "{\n  \"vehicles\": [{\"a\": 1}]\n}\n\n", .json),
    ])
    func detectsFormat(name: String, content: String, expected: InputFormat) throws {
        let path = try temporaryFile(name, Array(content.utf8))
        let reader = try openInput(path: path)
        #expect(reader.format == expected)
        #expect(try readAll(reader).compactMap(\.record).count >= 1)
    }

    @Test func gzipByMagicAndMultiMember() throws {
        let part1 = try gzip(Array("a,b\n1,2\n".utf8)), part2 = try gzip(Array("3,4\n".utf8))
        let path = try temporaryFile("data.bin", part1 + part2)
        let reader = try openInput(path: path)
        #expect(reader.isGzip && reader.format == .csv)
        #expect(try readAll(reader).compactMap(\.record).map(\.strings) == [["1", "2"], ["3", "4"]])
    }

    @Test func truncatedGzipNamesFileAndOffset() throws {
        let full = try gzip(Array(String(repeating: "a,b\n1,2\n", count: 1000).utf8))
        let path = try temporaryFile("t.csv.gz", Array(full.prefix(full.count - 10)))
        #expect {
            _ = try readAll(try openInput(path: path))
        } throws: {
            let e = $0 as? VinyardError
            return e?.code == .malformedInput && e!.message.contains("t.csv.gz: corrupt gzip stream at byte \(full.count - 10)")
        }
    }

    @Test func corruptGzipNamesOffset() throws {
        var bytes = try gzip(Array(String(repeating: "x,y\n", count: 100).utf8))
        for i in 10..<min(bytes.count - 8, 30) { bytes[i] = 0xFF }
        let path = try temporaryFile("c.gz", bytes)
        #expect {
            _ = try readAll(try openInput(path: path, options: ReadOptions(format: .csv)))
        } throws: { ($0 as? VinyardError)?.code == .malformedInput && "\($0)".contains("corrupt gzip stream at byte") }
    }

    @Test func missingFileAndDirectory() throws {
        #expect { _ = try openInput(path: "/nonexistent/x.csv") } throws: { ($0 as? VinyardError)?.code == .missingInput }
        #expect { _ = try openInput(path: FileManager.default.temporaryDirectory.path) } throws: { ($0 as? VinyardError)?.code == .missingInput }
    }

    @Test func emptyFiles() throws {
        #expect(try readAll(try openInput(path: try temporaryFile("e.csv", []))).isEmpty)
        #expect(try readAll(try openInput(path: try temporaryFile("e.jsonl", []))).isEmpty)
        #expect(try readAll(try openInput(path: try temporaryFile("e.bin", []))).isEmpty)
        #expect(throws: VinyardError.self) { _ = try openInput(path: try temporaryFile("e.json", [])) }
    }

    @Test func binaryGarbageIsMalformed() throws {
        let path = try temporaryFile("g.bin", [0x00, 0x01, 0x02, 0xFF, 0x00, 0x0A, 0x41])
        #expect { _ = try openInput(path: path) } throws: { ($0 as? VinyardError)?.code == .malformedInput && "\($0)".contains("g.bin") }
    }
}

/// An input that changed after the run first read it is not read again for raw records: its
/// lines hold other records now (an audit rewrote an input mid-import, and replaced rows got other
/// vehicles' records as their raw records).
@Suite struct ChangedInputTests {
    @Test func changedInputIsNotReadAgain() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("vinyard-changed-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("in.csv").path
        try Data("vin,make\n1FTFW1E57KFA14352,Ford\n1HGCV1F52MA000123,Honda\n".utf8).write(to: URL(fileURLWithPath: path))
        _ = try openInput(path: path)
        #expect(InputSnapshots.unchanged(path))
        let rereader = RawRecordRereader(options: ReadOptions())
        #expect(try rereader.record(input: path, line: 2, key: "1FTFW1E57KFA14352")?.fields.first?.value == .string("1FTFW1E57KFA14352"))
        // The same size, other records: a rewrite in another order.
        try Data("vin,make\n1HGCV1F52MA000123,Honda\n1FTFW1E57KFA14352,Ford\n".utf8).write(to: URL(fileURLWithPath: path))
        #expect(!InputSnapshots.unchanged(path))
        let again = RawRecordRereader(options: ReadOptions())
        #expect(try again.record(input: path, line: 2, key: "1FTFW1E57KFA14352") == nil)
    }
}
