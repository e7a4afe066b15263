import Testing
@testable import VinyardKit

/// Inputs found by `Fuzz/harnesses/vin.swift` (see Fuzz/README.md).
@Suite struct VINFuzzRegressionTests {
    /// `normalize` dropped en dashes only when the text was otherwise ASCII, and a space carrying a
    /// combining mark (one whitespace Character) sent the first pass down the non-ASCII path and then
    /// vanished: the second pass removed the dash the first had kept.
    @Test func normalizeIsIdempotentWithDashAndCombiningMark() {
        let found: [UInt8] = [
            0x20, 0xCC, 0x97, 0x59, 0x3F, 0x56, 0x31, 0xE2, 0x80, 0x93, 0x32, 0x57, 0x58, 0x44, 0x45, 0x4D,
            0x38, 0x38, 0x30, 0x32, 0x32, 0x37, 0x4E, 0x00, 0x00, 0x3A, 0x44, 0x45, 0x20, 0xCC, 0x97, 0x67,
            0x2D, 0x63, 0x65, 0x38, 0x55, 0x4E, 0x4B, 0x57, 0x58, 0x44, 0x45, 0x4D, 0x38, 0x38, 0x30, 0x32,
            0x32, 0x37, 0x4E, 0x00, 0x00, 0x3A, 0x44, 0x45, 0x4D, 0x38, 0x38, 0x30, 0x4D, 0x38, 0x38, 0x30,
            0x32, 0x32, 0x37, 0x4E, 0x00, 0x00, 0x3A, 0x57, 0x4E,
        ]
        for text in [String(decoding: found, as: UTF8.self), "1H\u{2013}G \u{317}", "1h\u{2010}g\u{A0}\u{301}x"] {
            let once = VINEngine.normalize(text)
            #expect(VINEngine.normalize(once) == once, "\(text.debugDescription)")
            #expect(!once.contains("\u{2013}") && !once.contains("\u{2010}"))
        }
        #expect(VINEngine.normalize("1H\u{2013}G \u{317}") == "1HG")
        #expect(VINEngine.analyze("1H\u{2013}G \u{317}").normalized == "1HG")
    }
}
