import Testing
@testable import VinyardKit

/// Stored `_hash` values tell unchanged rows from changed ones across versions: the row hash must
/// give the same value for the same bytes whatever its implementation does.
@Suite struct RowHasherTests {
    /// The mix of a byte string as first written: 8-byte words, then the tail byte by byte.
    static func reference(_ bytes: [UInt8]) -> UInt64 {
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        func mix(_ word: UInt64) {
            state = (state ^ word) &* 0xFF51_AFD7_ED55_8CCD
            state ^= state >> 29
        }
        var offset = 0
        while offset + 8 <= bytes.count {
            var word: UInt64 = 0
            for k in 0..<8 { word |= UInt64(bytes[offset + k]) << UInt64(8 * k) }
            mix(word)
            offset += 8
        }
        var tail: UInt64 = 0
        var shift: UInt64 = 0
        while offset < bytes.count {
            tail |= UInt64(bytes[offset]) << shift
            shift += 8
            offset += 1
        }
        mix(tail ^ (UInt64(bytes.count) << 56))
        var x = state
        x ^= x >> 33
        x = x &* 0xC4CE_B9FE_1A85_EC53
        x ^= x >> 33
        return x
    }

    @Test func textHashIsTheByteByByteMix() {
        var rng = SplitMix64(seed: 11)
        for length in 0...40 {
            for _ in 0..<20 {
                let bytes = (0..<length).map { _ in UInt8(0x20 + rng.next(below: 0x5F)) }
                let text = String(decoding: bytes, as: UTF8.self)
                var hasher = RowHasher()
                hasher.mix(text: text)
                #expect(hasher.finalize() == Self.reference(bytes), "\(text)")
            }
        }
        // The value earlier versions computed for this key (pinned: the reference could drift too).
        #expect(RowHasher.key("1FTFW1E57KFA14352") == 4_039_915_946_641_816_982)
    }
}

@Suite struct DatabaseDirectoryTests {
    /// The directory a new database goes into, without Foundation's path functions (they trapped
    /// on a one-character name).
    @Test func directoryOfAPath() {
        #expect(VinyardStore.directory(of: "a") == ".")
        #expect(VinyardStore.directory(of: "/a") == "/")
        #expect(VinyardStore.directory(of: "x/y/") == "x")
        #expect(VinyardStore.directory(of: "x/y.db") == "x")
        #expect(VinyardStore.directory(of: "/") == "/")
    }
}
