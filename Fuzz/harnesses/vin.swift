// VIN engine: the input (lossy UTF-8) through VINEngine.analyze and VINChecker.check, which must agree;
// normalize is idempotent; isValid agrees with analyze on clean VINs.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    check(text)
    // Also as a 17-character upper-case candidate, which reaches the decoder far more often.
    let upper = VINEngine.normalize(text)
    if upper.utf8.count > 17 { check(String(upper.utf8.prefix(17)) ?? upper) }
    return 0
}

private let checker = VINChecker()

private func check(_ text: String) {
    let year = 2025
    let a = VINEngine.analyze(text, currentYear: year)
    let c = checker.check(text, currentYear: year)
    let cached = checker.analyze(text, currentYear: year)
    if a != cached { fatalError("VINChecker.analyze differs from VINEngine.analyze for \(text.debugDescription)") }
    if a.valid != c.valid { fatalError("valid differs for \(text.debugDescription): \(a.valid) vs \(c.valid)") }
    if a.findings.map(\.code) != c.findings.map(\.code) {
        fatalError("findings differ for \(text.debugDescription): \(a.findings.map(\.code)) vs \(c.findings.map(\.code))")
    }
    if a.make != c.make || a.manufacturer != c.manufacturer || a.country != c.country || a.modelYear != c.modelYear
        || a.modelYears != c.modelYears
    {
        fatalError("decoding differs for \(text.debugDescription)")
    }
    if a.valid != a.findings.allSatisfy({ $0.severity != .error }) { fatalError("valid does not follow the findings") }
    let n = VINEngine.normalize(text)
    if VINEngine.normalize(n) != n { fatalError("normalize is not idempotent for \(text.debugDescription)") }
    if n != a.normalized { fatalError("analysis.normalized differs from normalize") }
    if VINEngine.isValid(text), a.findings.contains(where: { $0.code == .vinCheckDigit || $0.code == .vinLength || $0.code == .vinCharacters }) {
        fatalError("isValid but analyze reports a check digit, length or character finding for \(text.debugDescription)")
    }
    if let s = a.suggestion, !VINEngine.analyze(s, currentYear: year).findings.allSatisfy({ $0.code != .vinCharacters }) {
        fatalError("suggestion \(s) has illegal characters")
    }
    _ = VINEngine.checkDigit(for: text)
    _ = VINEngine.withCheckDigit(text)
}
