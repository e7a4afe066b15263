import Foundation
import Testing
@testable import VinyardKit

/// The CSV reader's word-at-a-time scan and ASCII fast path give what a byte-by-byte reading does.
@Suite struct CSVFastPathTests {
    @Test func byteScanAgreesWithNaiveSearch() {
        var rng = SystemRandomNumberGenerator()
        let alphabet: [UInt8] = [0x2C, 0x0A, 0x0D, 0x22, 0x41, 0x61, 0x80, 0xFF, 0x00, 0x2B, 0x2D]
        for _ in 0..<2_000 {
            let n = Int.random(in: 0...40, using: &rng)
            let bytes = (0..<n).map { _ in
                Int.random(in: 0..<4, using: &rng) == 0 ? alphabet.randomElement(using: &rng) ?? 0 : UInt8(ascii: "x")
            }
            let start = Int.random(in: 0...n, using: &rng)
            let end = Int.random(in: start...n, using: &rng)
            bytes.withUnsafeBufferPointer { p in
                let got = ByteScan.first(in: p, from: start, to: end, 0x2C, 0x0A, 0x0D)
                let want = (start..<end).first { [0x2C, 0x0A, 0x0D].contains(p[$0]) } ?? end
                #expect(got == want, "\(bytes) \(start)..<\(end)")
                let slice = UnsafeBufferPointer(rebasing: p[start..<end])
                #expect(ByteScan.isASCII(slice) == slice.allSatisfy { $0 < 0x80 })
            }
        }
    }

    static func records(_ text: String, chunk: Int = 1 << 20) throws -> [[String]] {
        let reader = try CSVReader(source: MemorySource(text, chunk: chunk))
        return try readAll(reader).map { item in
            switch item {
            case .record(let r): r.fields.map { "\($0.name)=\($0.value.scalarText ?? "nil")" }
            case .reject(let r): ["reject"] + r.fields.map { "\($0.name)=\($0.value.scalarText ?? "nil")" }
            }
        }
    }

    /// The same rows with an ASCII value swapped for a non-ASCII one give the same fields apart from
    /// that value, whatever the read size (records split across reads).
    @Test(arguments: [1, 3, 7, 64, 1 << 20])
    func asciiAndNonASCIIRowsMatch(chunk: Int) throws {
        let header = "vin,make,notes,odometer\n"
        let rows = [
            "WVWZZZ1JZXW000001,Skoda,\"serviced, tyres \"\"new\"\"\",12345\n",
            "WVWZZZ1JZXW000002,Volkswagen Nutzfahrzeuge GmbH,\"multi\nline\",7\r\n",
            ",,,\n", "\"\",\"quoted\",x\"y,1\r", "WVWZZZ1JZXW000003,BMW,a long note of more than fifteen bytes,9\n",
        ]
        let ascii = try Self.records(header + rows.joined(), chunk: chunk)
        let accented = try Self.records(
            header + rows.joined().replacingOccurrences(of: "Skoda", with: "Škoda").replacingOccurrences(of: "BMW", with: "BMẄ"),
            chunk: chunk)
        #expect(ascii.count == rows.count)
        #expect(ascii.count == accented.count)
        for (a, b) in zip(ascii, accented) {
            #expect(a.map { $0.replacingOccurrences(of: "Skoda", with: "Škoda").replacingOccurrences(of: "BMW", with: "BMẄ") } == b)
        }
        #expect(ascii[0] == ["vin=WVWZZZ1JZXW000001", "make=Skoda", "notes=serviced, tyres \"new\"", "odometer=12345"])
        #expect(ascii[1] == ["vin=WVWZZZ1JZXW000002", "make=Volkswagen Nutzfahrzeuge GmbH", "notes=multi\nline", "odometer=7"])
        #expect(ascii[2] == ["vin=", "make=", "notes=", "odometer="])
        #expect(ascii[3] == ["vin=", "make=quoted", "notes=x\"y", "odometer=1"])
    }

    @Test func windows1252RowsStillFlagged() throws {
        let bytes = Array("a,b\n".utf8) + [0x8A, 0x6B, 0x6F, 0x64, 0x61, 0x2C, 0x31, 0x0A] + Array("x,y\n".utf8)
        let items = try readAll(try CSVReader(source: MemorySource(bytes, chunk: 5)))
        guard items.count == 2, case .record(let r) = items[0], case .record(let s) = items[1] else {
            Issue.record("expected two records, got \(items)")
            return
        }
        #expect(r.decodedAsWindows1252)
        #expect(r.fields.map { $0.value.scalarText } == ["Škoda", "1"])
        #expect(!s.decodedAsWindows1252)
        #expect(s.fields.map { $0.value.scalarText } == ["x", "y"])
    }
}
