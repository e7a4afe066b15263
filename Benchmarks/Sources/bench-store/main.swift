// Writes N synthetic 13-field vehicle records through VinyardStore (one import run) and compares
// the time with the sqlite3 shell's `.import` of the same rows as CSV into a fresh table.
//
//   swift build -c release --package-path Benchmarks --scratch-path .build-bench
//   .build-bench/release/bench-store [ROWS] [WORKDIR]
// Environment: BENCH_ONLY=store (store import only, for profiling), BENCH_PRAGMA="PRAGMA …" (run on the
// store connection before the import, to try settings).
import Foundation
import VinyardKit

let rows = CommandLine.arguments.count > 1 ? Int(CommandLine.arguments[1]) ?? 1_000_000 : 1_000_000
let work = URL(fileURLWithPath: CommandLine.arguments.count > 2 ? CommandLine.arguments[2] : "Benchmarks/.work")
try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
/// `BENCH_ONLY=store` runs only the store import (for profiling).
let only = ProcessInfo.processInfo.environment["BENCH_ONLY"]

let schema = Schema(
    name: "vehicles",
    fields: [
        Field(name: "vin", type: .string), Field(name: "make", type: .string), Field(name: "model", type: .string),
        Field(name: "model_year", type: .integer), Field(name: "color", type: .string),
        Field(name: "fuel_type", type: .string), Field(name: "transmission", type: .string),
        Field(name: "doors", type: .integer), Field(name: "odometer_km", type: .number),
        Field(name: "license_plate", type: .string), Field(name: "status", type: .string),
        Field(name: "latitude", type: .number), Field(name: "longitude", type: .number),
    ],
    primaryKey: ["vin"])

let makes = ["BMW", "Audi", "Ford", "Honda", "Kia", "Toyota", "Volvo", "Tesla"]
let models = ["A4", "Civic", "F-150", "Model 3", "XC60", "Corolla", "Sportage", "X5"]
let colors = ["red", "blue", "white", "black", "silver"]
let fuels = ["gasoline", "diesel", "electric", "hybrid"]
let statuses = ["active", "maintenance", "inactive", "retired"]
let vinAlphabet = Array("0123456789ABCDEFGHJKLMNPRSTUVWXYZ".utf8)

/// A deterministic generator (SplitMix64).
struct Rng {
    var state: UInt64
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// Row `i`'s values: unique VINs in random order (the key index is written at random places,
/// as with real data).
func values(_ i: Int) -> [FieldValue?] {
    var rng = Rng(state: UInt64(i) &* 0x2545_F491_4F6C_DD1D)
    var vin = [UInt8](repeating: 0, count: 17)
    var x = rng.next()
    for k in 0..<11 {
        vin[k] = vinAlphabet[Int(x % 33)]
        x /= 33
    }
    var n = i
    for k in (11..<17).reversed() {
        vin[k] = UInt8(48 + n % 10)
        n /= 10
    }
    let r = rng.next()
    return [
        .text(String(decoding: vin, as: UTF8.self)), .text(makes[Int(r % 8)]), .text(models[Int((r >> 8) % 8)]),
        .integer(Int64(2000 + (r >> 16) % 25)), .text(colors[Int((r >> 24) % 5)]), .text(fuels[Int((r >> 28) % 4)]),
        .text((r >> 32) & 1 == 0 ? "automatic" : "manual"), .integer(Int64(2 + ((r >> 33) % 2) * 2)),
        .real(Double((r >> 35) % 300_000)), .text("AB-\((r >> 40) % 1000)-XY"), .text(statuses[Int((r >> 50) % 4)]),
        .real(Double(Int64((r >> 20) % 180_000_000) - 90_000_000) / 1e6),
        .real(Double(Int64((r >> 6) % 360_000_000) - 180_000_000) / 1e6),
    ]
}

func peakRSSMiB() -> Double {
    var usage = rusage()
    getrusage(RUSAGE_SELF.rawValue, &usage)
    return Double(usage.ru_maxrss) / 1024
}

func seconds(_ body: () throws -> Void) rethrows -> Double {
    let start = DispatchTime.now().uptimeNanoseconds
    try body()
    return Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
}

// 1. The CSV for sqlite3 (same values as text).
let csvURL = work.appendingPathComponent("bench.csv")
let generateCSV = only != nil ? 0 : try seconds {
    _ = FileManager.default.createFile(atPath: csvURL.path, contents: nil)
    let handle = try FileHandle(forWritingTo: csvURL)
    var buffer = Array((schema.fields.map(\.name).joined(separator: ",") + "\n").utf8)
    for i in 0..<rows {
        for (k, value) in values(i).enumerated() {
            if k > 0 { buffer.append(UInt8(ascii: ",")) }
            buffer.append(contentsOf: (value?.text ?? "").utf8)
        }
        buffer.append(UInt8(ascii: "\n"))
        if buffer.count > 1 << 20 {
            try handle.write(contentsOf: buffer)
            buffer.removeAll(keepingCapacity: true)
        }
    }
    try handle.write(contentsOf: buffer)
    try handle.close()
}

// 2. sqlite3 shell .import into a fresh table.
let shellDB = work.appendingPathComponent("shell.db")
for suffix in ["", "-wal", "-shm", "-journal"] { try? FileManager.default.removeItem(atPath: shellDB.path + suffix) }
let shellSeconds = only != nil ? 1 : try seconds {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/sqlite3")
    process.arguments = [shellDB.path, "-cmd", ".mode csv", ".import \(csvURL.path) vehicles"]
    try process.run()
    process.waitUntilExit()
    if process.terminationStatus != 0 { print("sqlite3 failed: \(process.terminationStatus)") }
}

// 3. Generation alone (the part of our time that is not the store).
var sink = 0
let generateOnly = seconds {
    for i in 0..<rows {
        if case .text(let s)? = values(i)[0] { sink &+= s.utf8.count }
    }
}

// 4. VinyardStore: one import run.
let storeDB = work.appendingPathComponent("store.db")
for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: storeDB.path + suffix) }
let provenanceInput = "bench.csv"
var report: ImportRunReport?
let storeSeconds = try seconds {
    let store = try VinyardStore(path: storeDB.path)
    if let pragma = ProcessInfo.processInfo.environment["BENCH_PRAGMA"] { try store.connection.execute(pragma) }
    let session = try store.beginImport(options: ["on-duplicate": "last"])
    let raw = RawRecord(fields: [], provenance: Provenance(input: provenanceInput, line: 0))
    for i in 0..<rows {
        let provenance = Provenance(input: provenanceInput, line: i + 2)
        let vals = values(i)
        guard case .text(let key)? = vals[0] else { continue }
        let record = CanonicalRecord(values: vals, key: key, provenance: provenance, findings: [], raw: raw)
        try session.write(record, schema: schema, source: "fleet")
    }
    report = try session.finish()
}

// 5. Re-import: every row unchanged.
let reimportSeconds = only == "store" ? 0 : try seconds {
    let store = try VinyardStore(path: storeDB.path)
    let session = try store.beginImport()
    let raw = RawRecord(fields: [], provenance: Provenance(input: provenanceInput, line: 0))
    for i in 0..<rows {
        let vals = values(i)
        guard case .text(let key)? = vals[0] else { continue }
        let record = CanonicalRecord(
            values: vals, key: key, provenance: Provenance(input: provenanceInput, line: i + 2), findings: [], raw: raw)
        try session.write(record, schema: schema, source: "fleet")
    }
    let again = try session.finish()
    precondition(again.counts.unchanged == rows, "re-import was not all unchanged: \(again.counts)")
}

func size(_ url: URL) -> Double {
    let bytes = (try? FileManager.default.attributesOfItem(atPath: url.path)[.size] as? Int) ?? 0
    return Double(bytes) / 1_048_576
}

print("rows: \(rows) (sink \(sink % 10))")
print(String(format: "csv generation:             %7.2f s", generateCSV))
print(String(format: "sqlite3 .import (CSV):      %7.2f s  (%.0f MiB)", shellSeconds, size(shellDB)))
print(String(format: "record generation only:     %7.2f s", generateOnly))
print(String(format: "VinyardStore import:        %7.2f s  (%.0f MiB)  counts %@", storeSeconds, size(storeDB),
    "\(report?.counts ?? ImportCounts())"))
print(String(format: "VinyardStore re-import:     %7.2f s  (all unchanged)", reimportSeconds))
print(String(format: "ratio store/sqlite3:        %7.2f  (store minus generation: %.2f)", storeSeconds / shellSeconds,
    (storeSeconds - generateOnly) / shellSeconds))
print(String(format: "peak RSS:                   %7.1f MiB", peakRSSMiB()))
