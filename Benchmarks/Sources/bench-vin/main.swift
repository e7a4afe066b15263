import Foundation
import VinyardKit

// VIN validation and decode throughput on one core.
// Run: swift build -c release --package-path Benchmarks --scratch-path .build-bench && .build-bench/release/bench-vin

struct SplitMix64 {
    var state: UInt64
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

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
measure("full decode (analyze)", decodeCount) {
    var years = 0
    for s in strings { years &+= VINEngine.analyze(s, currentYear: 2026).modelYear ?? 0 }
    return years
}
