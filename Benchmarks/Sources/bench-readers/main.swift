import Foundation
import VinyardKit

// Benchmarks the readers: our CSV reader vs CSV.swift and SwiftCSV, our JSON Lines reader vs
// JSONSerialization per line and JSONDecoder, and the cost of gzip. Usage: bench-readers [MB]

if CommandLine.arguments.count > 2, CommandLine.arguments[1] == "read" {
    // Profile mode: read one file and print the record count.
    let reader = try openInput(path: CommandLine.arguments[2])
    var n = 0
    while let item = try reader.next() { if case .record = item { n += 1 } }
    print(n)
    exit(0)
}

let targetMB = CommandLine.arguments.count > 1 ? Int(CommandLine.arguments[1]) ?? 100 : 100
let dir = FileManager.default.temporaryDirectory.appendingPathComponent("vinyard-bench-\(getpid())")
try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
defer { try? FileManager.default.removeItem(at: dir) }

func time<T>(_ body: () throws -> T) rethrows -> (T, Double) {
    let start = DispatchTime.now().uptimeNanoseconds
    let result = try body()
    return (result, Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9)
}

func mbps(_ bytes: Int, _ seconds: Double) -> String { String(format: "%.0f MB/s", Double(bytes) / 1e6 / seconds) }

// A fleet-like CSV: quoted notes with commas and quotes, a few non-ASCII values.
let makes = ["Toyota", "BMW", "Ford", "Škoda", "Volkswagen", "Mercedes-Benz", "Renault", "Kia"]
let fuels = ["gasoline", "diesel", "electric", "hybrid", "Petrol"]
let statuses = ["active", "maintenance", "inactive", "retired"]
let vinChars = Array("0123456789ABCDEFGHJKLMNPRSTUVWXYZ")
func vin() -> String {
    var rng = SystemRandomNumberGenerator()
    return String((0..<17).map { _ in vinChars.randomElement(using: &rng) ?? "0" })
}

let csvPath = dir.appendingPathComponent("fleet.csv").path
var csvBytes = 0
var rows = 0
do {
    let sink = try FileByteSink(path: csvPath)
    var chunk = "vin,make,model,model_year,color,fuel_type,odometer_km,license_plate,status,latitude,longitude,notes\n"
    while csvBytes < targetMB * 1_000_000 {
        let make = makes[rows % makes.count]
        let notes = rows % 5 == 0 ? "\"serviced, tyres \"\"new\"\"\"" : (rows % 7 == 0 ? "" : "ok")
        chunk += "\(vin()),\(make),Model \(rows % 50),\(2000 + rows % 25),blue,\(fuels[rows % fuels.count]),\(rows * 37 % 300_000),AB-\(rows % 1000)-CD,\(statuses[rows % 4]),\(52.0 + Double(rows % 1000) / 1000),\(4.0 + Double(rows % 777) / 1000),\(notes)\n"
        rows += 1
        if chunk.utf8.count > 1 << 20 {
            csvBytes += chunk.utf8.count
            var c = chunk
            try c.withUTF8 { try sink.write(UnsafeRawBufferPointer($0)) }
            chunk = ""
        }
    }
    csvBytes += chunk.utf8.count
    var c = chunk
    try c.withUTF8 { try sink.write(UnsafeRawBufferPointer($0)) }
    try sink.close()
}
print("CSV: \(rows) rows, \(csvBytes / 1_000_000) MB")

func countRecords(_ path: String) throws -> Int {
    let reader = try openInput(path: path)
    var n = 0
    while let item = try reader.next() { if case .record = item { n += 1 } }
    return n
}

// Ours, on the whole file.
_ = try countRecords(csvPath)  // warm the page cache
let (ourRows, ourTime) = try time { try countRecords(csvPath) }
print("vinyard CSVReader:   \(ourRows) rows in \(String(format: "%.3f", ourTime)) s, \(mbps(csvBytes, ourTime))")

// The slow ones, on a 10 MB slice.
let sliceData = try Data(contentsOf: URL(fileURLWithPath: csvPath)).prefix(10_000_000)
let sliceEnd = sliceData.lastIndex(of: 0x0A).map { $0 + 1 } ?? sliceData.count
let slice = String(decoding: sliceData.prefix(sliceEnd), as: UTF8.self)
let sliceBytes = slice.utf8.count
let slicePath = dir.appendingPathComponent("slice.csv").path
try Data(slice.utf8).write(to: URL(fileURLWithPath: slicePath))
let (_, ourSlice) = try time { try countRecords(slicePath) }
let (csvSwift, csvSwiftTime) = try time { try csvSwiftCount(slice) }
let (swiftCSV, swiftCSVTime) = try time { try swiftCSVCount(slice) }
print("10 MB slice: vinyard \(mbps(sliceBytes, ourSlice)); CSV.swift \(csvSwift.rows) rows \(mbps(sliceBytes, csvSwiftTime)) (\(String(format: "%.1f", csvSwiftTime / ourSlice))× slower); SwiftCSV \(swiftCSV.rows) rows \(mbps(sliceBytes, swiftCSVTime)) (\(String(format: "%.1f", swiftCSVTime / ourSlice))× slower)")

// gzip overhead.
let gzPath = dir.appendingPathComponent("fleet.csv.gz").path
do {
    let sink = try openOutput(path: gzPath)
    let data = try Data(contentsOf: URL(fileURLWithPath: csvPath))
    try data.withUnsafeBytes { try sink.write($0) }
    try sink.close()
}
let (_, gzTime) = try time { try countRecords(gzPath) }
print("vinyard CSVReader on .csv.gz: \(String(format: "%.3f", gzTime)) s, \(mbps(csvBytes, gzTime)) of CSV (\(String(format: "%.2f", gzTime / ourTime))× the plain time)")

// JSON Lines.
let jsonlPath = dir.appendingPathComponent("fleet.jsonl").path
var jsonlBytes = 0
let jsonRows = min(rows, 300_000)
do {
    let sink = try FileByteSink(path: jsonlPath)
    let writer = JSONLinesWriter(sink: sink)
    for i in 0..<jsonRows {
        try writer.write(fields: [
            RawField("vin", .string(vin())), RawField("make", .string(makes[i % makes.count])),
            RawField("model_year", .number(String(2000 + i % 25))), RawField("odometer_km", .number(String(i * 37 % 300_000))),
            RawField("status", .string(statuses[i % 4])), RawField("accident_free", .bool(i % 3 != 0)),
            RawField("latitude", .number("52.\(i % 10000)")), RawField("options", .array([.string("abs"), .string("gps")])),
            RawField("notes", i % 4 == 0 ? .null : .string("line \"\(i)\"\n")),
        ])
    }
    try writer.finish()
    jsonlBytes = (try FileManager.default.attributesOfItem(atPath: jsonlPath)[.size] as? Int) ?? 0
}
let (ourJSON, ourJSONTime) = try time { try countRecords(jsonlPath) }
let jsonlData = try Data(contentsOf: URL(fileURLWithPath: jsonlPath))
let (serial, serialTime) = try time { () throws -> Int in
    var n = 0
    for line in jsonlData.split(separator: 0x0A) where !line.isEmpty {
        if try JSONSerialization.jsonObject(with: line) is [String: Any] { n += 1 }
    }
    return n
}
struct Vehicle: Decodable {
    var vin: String, make: String, model_year: Int, odometer_km: Int, status: String, accident_free: Bool
    var latitude: Double, options: [String], notes: String?
}
let decoder = JSONDecoder()
let (decoded, decoderTime) = try time { () throws -> Int in
    var n = 0
    for line in jsonlData.split(separator: 0x0A) where !line.isEmpty {
        _ = try decoder.decode(Vehicle.self, from: line)
        n += 1
    }
    return n
}
print("JSON Lines: \(jsonRows) objects, \(jsonlBytes / 1_000_000) MB")
print("vinyard JSONLinesReader: \(ourJSON) in \(String(format: "%.3f", ourJSONTime)) s, \(Int(Double(ourJSON) / ourJSONTime)) objects/s, \(mbps(jsonlBytes, ourJSONTime))")
print("JSONSerialization per line: \(serial) in \(String(format: "%.3f", serialTime)) s, \(Int(Double(serial) / serialTime)) objects/s (\(String(format: "%.1f", serialTime / ourJSONTime))× slower)")
print("JSONDecoder per line: \(decoded) in \(String(format: "%.3f", decoderTime)) s, \(Int(Double(decoded) / decoderTime)) objects/s (\(String(format: "%.1f", decoderTime / ourJSONTime))× slower)")
