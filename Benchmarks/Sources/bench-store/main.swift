// Writes N synthetic 13-field vehicle records through VinyardStore (one import run per scenario)
// and compares the time with the sqlite3 shell's `.import` of the same rows as CSV into a fresh
// table. Scenarios: a fresh database, a re-import of the same rows (all unchanged), and an import
// of N new rows into a database that already holds N other rows. Runs alternate (.import, then
// each scenario) REPEAT times; medians are reported. "write path" is the store time minus the
// time to generate the records (measured alone).
//
//   swift build -c release --package-path Benchmarks --scratch-path .build-bench
//   .build-bench/release/bench-store [ROWS] [WORKDIR] [REPEAT]
// Environment: BENCH_ONLY=store (one fresh store import only, for profiling and peak RSS),
// BENCH_PRAGMA="PRAGMA …" (run on the store connection before the import, to try settings).
import Foundation
import VinyardKit

let rows = CommandLine.arguments.count > 1 ? Int(CommandLine.arguments[1]) ?? 1_000_000 : 1_000_000
let work = URL(fileURLWithPath: CommandLine.arguments.count > 2 ? CommandLine.arguments[2] : "Benchmarks/.work")
try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
/// `BENCH_ONLY=store` runs only the store import (for profiling).
let only = ProcessInfo.processInfo.environment["BENCH_ONLY"]
let repeats = CommandLine.arguments.count > 3 ? max(1, Int(CommandLine.arguments[3]) ?? 3) : 3

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

/// A deterministic generator.
typealias Rng = SplitMix64

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

/// CPU seconds (user + system) of this process, or of its finished children.
func cpuSeconds(children: Bool = false) -> Double {
    var usage = rusage()
    getrusage(children ? RUSAGE_CHILDREN.rawValue : RUSAGE_SELF.rawValue, &usage)
    return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
}

/// Measures wall time and, in `cpu`, the CPU time of this process (or of children).
func seconds(cpu: inout Double, children: Bool = false, _ body: () throws -> Void) rethrows -> Double {
    let c0 = cpuSeconds(children: children)
    let t = try seconds(body)
    cpu = cpuSeconds(children: children) - c0
    return t
}

func seconds(_ body: () throws -> Void) rethrows -> Double {
    let start = DispatchTime.now().uptimeNanoseconds
    try body()
    return Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
}

// 1. The CSV for sqlite3 (same values as text).
let csvURL = work.appendingPathComponent("bench.csv")
if only == nil {
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

func removeDB(_ url: URL) {
    for suffix in ["", "-wal", "-shm", "-journal"] { try? FileManager.default.removeItem(atPath: url.path + suffix) }
}

/// sqlite3 shell .import into a fresh table.
func shellImport(cpu: inout Double) throws -> Double {
    let shellDB = work.appendingPathComponent("shell.db")
    removeDB(shellDB)
    return try seconds(cpu: &cpu, children: true) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/sqlite3")
        process.arguments = [shellDB.path, "-cmd", ".mode csv", ".import \(csvURL.path) vehicles"]
        try process.run()
        process.waitUntilExit()
        if process.terminationStatus != 0 { print("sqlite3 failed: \(process.terminationStatus)") }
    }
}

/// Generation alone (the part of the store time that is not the store).
func generateOnly(offset: Int = 0, cpu: inout Double) -> Double {
    var sink = 0
    let t = seconds(cpu: &cpu) {
        for i in 0..<rows {
            let vals = values(offset + i)
            if case .text(let s)? = vals[0] { sink &+= s.utf8.count }
            let record = CanonicalRecord(
                values: vals, key: "", provenance: Provenance(input: provenanceInput, line: i + 2), findings: [],
                raw: RawRecord(fields: [], provenance: Provenance(input: provenanceInput, line: 0)))
            sink &+= record.values.count
        }
    }
    if sink == 42 { print("") }
    return t
}

let provenanceInput = "bench.csv"

/// One import run of rows `offset ..< offset + rows` into `url`; returns (seconds, finish seconds, counts).
func storeImport(_ url: URL, offset: Int = 0) throws -> (total: Double, finish: Double, counts: ImportCounts, cpu: Double) {
    var finish = 0.0
    var counts = ImportCounts()
    var cpu = 0.0
    let total = try seconds(cpu: &cpu) {
        let store = try VinyardStore(path: url.path)
        if let pragma = ProcessInfo.processInfo.environment["BENCH_PRAGMA"] { try store.connection.execute(pragma) }
        let session = try store.beginImport(options: ["on-duplicate": "last"])
        let raw = RawRecord(fields: [], provenance: Provenance(input: provenanceInput, line: 0))
        for i in 0..<rows {
            let vals = values(offset + i)
            guard case .text(let key)? = vals[0] else { continue }
            let record = CanonicalRecord(
                values: vals, key: key, provenance: Provenance(input: provenanceInput, line: i + 2), findings: [], raw: raw)
            try session.write(record, schema: schema, source: "fleet")
        }
        finish = try seconds { counts = try session.finish().counts }
    }
    return (total, finish, counts, cpu)
}

func size(_ url: URL) -> Double {
    let bytes = (try? FileManager.default.attributesOfItem(atPath: url.path)[.size] as? Int) ?? 0
    return Double(bytes) / 1_048_576
}

func median(_ xs: [Double]) -> Double {
    let s = xs.sorted()
    return s.isEmpty ? 0 : s.count % 2 == 1 ? s[s.count / 2] : (s[s.count / 2 - 1] + s[s.count / 2]) / 2
}

let storeDB = work.appendingPathComponent("store.db")
if only == "store" {
    removeDB(storeDB)
    let run = try storeImport(storeDB)
    print(String(format: "VinyardStore import: %.2f s (cpu %.2f s, finish %.2f s, %.0f MiB)  %@", run.total, run.cpu, run.finish, size(storeDB),
        "\(run.counts)"))
    print(String(format: "peak RSS: %.1f MiB", peakRSSMiB()))
    exit(0)
}

// The base for scenario 3: N rows with other keys.
let baseDB = work.appendingPathComponent("base.db")
removeDB(baseDB)
_ = try storeImport(baseDB, offset: rows)
let otherDB = work.appendingPathComponent("other.db")

var genCPU: [Double] = []
let generation = median((0..<repeats).map { _ in
    var cpu = 0.0
    let t = generateOnly(cpu: &cpu)
    genCPU.append(cpu)
    return t
})
let generationCPU = median(genCPU)
var shell: [Double] = [], fresh: [Double] = [], freshFinish: [Double] = [], again: [Double] = [], other: [Double] = []
var shellCPU: [Double] = [], freshCPU: [Double] = [], againCPU: [Double] = [], otherCPU: [Double] = []
var otherFinish: [Double] = []
var freshCounts = ImportCounts(), otherCounts = ImportCounts()
for _ in 0..<repeats {
    var cpu = 0.0
    shell.append(try shellImport(cpu: &cpu))
    shellCPU.append(cpu)
    removeDB(storeDB)
    let run = try storeImport(storeDB)
    fresh.append(run.total)
    freshCPU.append(run.cpu)
    freshFinish.append(run.finish)
    freshCounts = run.counts
    let re = try storeImport(storeDB)
    precondition(re.counts.unchanged == rows, "re-import was not all unchanged: \(re.counts)")
    again.append(re.total)
    againCPU.append(re.cpu)
    removeDB(otherDB)
    try FileManager.default.copyItem(at: baseDB, to: otherDB)
    let o = try storeImport(otherDB)
    precondition(o.counts.inserted == rows, "import into the other rows did not insert all: \(o.counts)")
    other.append(o.total)
    otherCPU.append(o.cpu)
    otherFinish.append(o.finish)
    otherCounts = o.counts
}

let shellMedian = median(shell), shellCPUMedian = median(shellCPU)
print("rows: \(rows), \(repeats) alternating runs each, medians (wall; cpu = user+sys)")
print(String(format: "sqlite3 .import (fresh table):   %6.2f s  cpu %6.2f s  (%.0f MiB)  runs %@", shellMedian, shellCPUMedian,
    size(work.appendingPathComponent("shell.db")), shell.map { String(format: "%.2f", $0) }.joined(separator: " ")))
print(String(format: "record generation only:          %6.2f s  cpu %6.2f s", generation, generationCPU))
func line(_ name: String, _ xs: [Double], _ cpus: [Double], finish: [Double]? = nil) {
    let m = median(xs), c = median(cpus)
    let f = finish.map { String(format: ", finish %.2f s", median($0)) } ?? ""
    print(String(format: "%@ %6.2f s  cpu %6.2f s | write path %6.2f s = %.2f× .import (cpu %.2f×)%@  runs %@",
        name.padding(toLength: 32, withPad: " ", startingAt: 0), m, c, m - generation, (m - generation) / shellMedian,
        (c - generationCPU) / shellCPUMedian, f, xs.map { String(format: "%.2f", $0) }.joined(separator: " ")))
}
line("VinyardStore fresh import:", fresh, freshCPU, finish: freshFinish)
line("VinyardStore re-import:", again, againCPU)
line("VinyardStore import into N other:", other, otherCPU, finish: otherFinish)
print("counts fresh: \(freshCounts)  into other: \(otherCounts)")
print(String(format: "store db %.0f MiB; peak RSS (whole benchmark): %.1f MiB", size(storeDB), peakRSSMiB()))
