import Foundation
import VinyardKit

// VIN validation and decode throughput on one core.
// Run: swift build -c release --package-path Benchmarks --scratch-path .build-bench && .build-bench/release/bench-vin


let count = Int(CommandLine.arguments.dropFirst().first ?? "") ?? 1_000_000
let alphabet = Array("0123456789ABCDEFGHJKLMNPRSTUVWXYZ".utf8)
let wmis = ["1HG", "1FT", "1C4", "WVW", "KNA", "JM1", "4JG", "2HK", "WBA", "5YJ", "VF1", "ZFA"].map { Array($0.utf8) }
var rng = SplitMix64(state: 1)
// One contiguous buffer of 17-byte VINs; every tenth has a wrong check digit.
var buffer = [UInt8](repeating: 0, count: count * 17)
var strings: [String] = []
let decodeCount = min(count, 200_000)
for i in 0..<count {
    var vin = wmis[Int(rng.next() % UInt64(wmis.count))]
    for _ in 3..<17 { vin.append(alphabet[Int(rng.next() % UInt64(alphabet.count))]) }
    let fixed = VINEngine.withCheckDigit(String(decoding: vin, as: UTF8.self))
    var bytes = Array(fixed.utf8)
    if i % 10 == 0 { bytes[8] = bytes[8] == UInt8(ascii: "1") ? UInt8(ascii: "2") : UInt8(ascii: "1") }
    buffer.replaceSubrange((i * 17)..<(i * 17 + 17), with: bytes)
    if i < decodeCount { strings.append(String(decoding: bytes, as: UTF8.self)) }
}

func measure(_ label: String, _ n: Int, _ body: () -> Int) {
    let start = DispatchTime.now().uptimeNanoseconds
    let result = body()
    let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
    print("\(label): \(n) VINs in \(String(format: "%.3f", seconds)) s = \(String(format: "%.2f", Double(n) / seconds / 1e6)) million VINs/s (checksum \(result))")
}

_ = VINEngine.analyze("1HGCM82633A004352")  // parse the WMI table before timing
for _ in 0..<3 {
    measure("validate (bytes)", count) {
        buffer.withUnsafeBufferPointer { all in
            var valid = 0
            for i in 0..<count {
                let vin = UnsafeBufferPointer(rebasing: all[(i * 17)..<(i * 17 + 17)])
                if VINEngine.isValid(vin) { valid += 1 }
            }
            return valid
        }
    }
}
// A realistic fleet: 300 distinct WMI + positions 4-8 + 10-11 prefixes (a fleet has few models per
// year and plant), random serials, check digit fixed. Dirty mix: every fifth VIN has a wrong check digit,
// a lower-case letter with a dash, or a dropped character.
let fleetWMIs = ["1HG", "1FT", "1FM", "1C4", "1C6", "3C6", "2HK", "1G1", "1GC", "5YJ", "4T1", "JTD", "JM1", "KNA",
                 "KNDC", "WVW", "WBA", "WDD", "VF1", "ZFA", "3VW", "5N1", "1N4", "JN1"].map { Array($0.prefix(3).utf8) }
let yearCodes = Array("ABCDEFGHJKLMNPRS".utf8)
var prefixes: [[UInt8]] = []
for _ in 0..<300 {
    var p = fleetWMIs[Int(rng.next() % UInt64(fleetWMIs.count))]
    for _ in 3..<8 { p.append(alphabet[Int(rng.next() % UInt64(alphabet.count))]) }
    p.append(UInt8(ascii: "0"))
    p.append(yearCodes[Int(rng.next() % UInt64(yearCodes.count))])
    p.append(alphabet[Int(rng.next() % 20)])
    prefixes.append(p)
}
var fleet: [String] = []
var dirty: [String] = []
for i in 0..<decodeCount {
    var v = prefixes[Int(rng.next() % UInt64(prefixes.count))]
    for _ in 0..<6 { v.append(UInt8(ascii: "0") + UInt8(rng.next() % 10)) }
    let good = VINEngine.withCheckDigit(String(decoding: v, as: UTF8.self))
    fleet.append(good)
    switch i % 5 {
    case 0: var b = Array(good.utf8); b[8] = b[8] == UInt8(ascii: "1") ? UInt8(ascii: "2") : UInt8(ascii: "1"); dirty.append(String(decoding: b, as: UTF8.self))
    case 1: dirty.append(good.lowercased().prefix(8) + "-" + good.dropFirst(8))
    case 2: dirty.append(String(good.dropLast()))
    default: dirty.append(good)
    }
}
measure("analyze, random VINs (static)", decodeCount) {
    var years = 0
    for s in strings { years &+= VINEngine.analyze(s, currentYear: 2026).modelYear ?? 0 }
    return years
}
for (label, input) in [("fleet, valid", fleet), ("fleet, dirty 60%", dirty)] {
    measure("analyze, \(label) (static)", input.count) {
        var years = 0
        for s in input { years &+= VINEngine.analyze(s, currentYear: 2026).modelYear ?? 0 }
        return years
    }
    let checker = VINChecker()
    measure("VINChecker.analyze, \(label)", input.count) {
        var years = 0
        for s in input { years &+= checker.analyze(s, currentYear: 2026).modelYear ?? 0 }
        return years
    }
    measure("VINChecker.check, \(label)", input.count) {
        var years = 0
        for s in input { years &+= checker.check(s, currentYear: 2026).modelYear ?? 0 }
        return years
    }
}
