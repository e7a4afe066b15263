// Maps N synthetic fleet CSV rows (already split into RawRecords, as a reader yields them) and
// prints the time. Run: swift run -c release --package-path Benchmarks --scratch-path .build-bench MapperBench 1000000
import Foundation
import VinyardKit

let n = CommandLine.arguments.dropFirst().first.flatMap { Int($0) } ?? 1_000_000
let header = [
    "VIN", "Make", "Model", "Model Year", "Reg. plate", "Odometer (km)", "Fuel Type", "Colour", "Status",
    "First registration", "Latitude", "Longitude", "Notes",
]
let makes = ["Ford", "Honda", "VW", "Mercedes", "BMW", "Toyota", "Kia", "Skoda"]
let fuels = ["Petrol", "Diesel", "Electric", "Hybrid", "Benzin", "gasoline"]
let vins = ["1FTFW1E57KFA14352", "1HGCV1F52MA000123", "1C4PJMAK2CW184491", "2HKRM3H38EH550410"]
// A pool of distinct rows (fresh strings each, as a reader would produce), cycled.
var pool: [RawRecord] = []
for i in 0..<1000 {
    let row = [
        vins[i % 4], makes[i % makes.count], "Model \(i % 37)", String(2005 + i % 19), "AB-\(100 + i % 900)-C",
        String(1000 + i * 37), fuels[i % fuels.count], "Blue", i % 3 == 0 ? "Active" : "maintenance",
        String(format: "%02d/%04d", 1 + i % 12, 2005 + i % 19), "52,35\(i % 10)4749", "4,83\(i % 10)9215", "",
    ]
    pool.append(
        RawRecord(
            fields: zip(header, row).map { RawField(String($0), .string(String($1))) },
            provenance: Provenance(input: "bench.csv", line: i + 2)))
}
let catalog = try SchemaCatalog.bundled()
let mapper = try Mapper(mapping: catalog.mapping(named: "fleet"), catalog: catalog)
var findings = 0
var keyed = 0
let start = Date()
for i in 0..<n {
    var raw = pool[i % pool.count]
    raw.provenance.line = i + 2
    let r = mapper.map(raw)
    findings &+= r.findings.count
    if r.key != nil { keyed &+= 1 }
}
let elapsed = Date().timeIntervalSince(start)
print("mapped \(n) rows (13 fields) in \(String(format: "%.3f", elapsed)) s: \(Int(Double(n) / elapsed)) rows/s; \(keyed) keyed, \(findings) findings")
