// bench-export: `vinyard export` (Exporter, CSV) against `sqlite3 -csv -header` on the same
// 1M-row vehicles table, both writing to a file; alternating runs, medians and the ratio.
//
// Environment: BENCH_ROWS (default 1000000), BENCH_RUNS (default 3), BENCH_DB (database path,
// reused when it exists; default /tmp/vinyard-bench-export-ROWS[-indexed].db), BENCH_SORT (default
// vin), BENCH_VIN_INDEX=1 (add an index on vin: both sides then scan it instead of sorting),
// BENCH_ONLY=vinyard|sqlite3 (time one side).
import Foundation
import VinyardKit

let env = ProcessInfo.processInfo.environment
let rows = Int(env["BENCH_ROWS"] ?? "") ?? 1_000_000
let runs = max(1, Int(env["BENCH_RUNS"] ?? "") ?? 3)
let sortField = env["BENCH_SORT"] ?? "vin"
let vinIndex = env["BENCH_VIN_INDEX"] == "1"
let dbPath = env["BENCH_DB"] ?? "/tmp/vinyard-bench-export-\(rows)\(vinIndex ? "-indexed" : "").db"
let outDir = FileManager.default.temporaryDirectory.appendingPathComponent("bench-export-\(getpid())")
try FileManager.default.createDirectory(at: outDir, withIntermediateDirectories: true)
defer { try? FileManager.default.removeItem(at: outDir) }

let schema = Schema(
    name: "vehicles",
    fields: [
        Field(name: "vin", type: .string), Field(name: "make", type: .string), Field(name: "model", type: .string),
        Field(name: "model_year", type: .integer, aliases: ["year"]), Field(name: "body_class", type: .string),
        Field(name: "vehicle_type", type: .string), Field(name: "color", type: .string),
        Field(name: "fuel_type", type: .string), Field(name: "odometer_km", type: .number),
        Field(name: "license_plate", type: .string), Field(name: "status", type: .string),
        Field(name: "price", type: .number), Field(name: "accident_free", type: .boolean),
        Field(name: "latitude", type: .number), Field(name: "longitude", type: .number),
        Field(name: "notes", type: .string),
    ],
    primaryKey: ["vin"])

func buildDatabase() throws {
    let start = Date()
    let store = try VinyardStore(path: dbPath)
    // One record through ImportSession creates the table, the schema record and a run.
    let session = try store.beginImport()
    let provenance = Provenance(input: "bench", line: 1)
    let first = CanonicalRecord(
        values: [.text("00000000000000000")] + Array(repeating: nil, count: schema.fields.count - 1),
        key: "00000000000000000", provenance: provenance, findings: [], raw: RawRecord(fields: [], provenance: provenance))
    try session.write(first, schema: schema, source: "bench")
    _ = try session.finish()
    // The rest with SQL: random 17-character VINs and a mix of values, some with commas, quotes
    // and formula-looking text.
    try store.connection.execute(
        """
        BEGIN;
        WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < \(rows - 1))
        INSERT OR IGNORE INTO vehicles(vin, make, model, model_year, body_class, vehicle_type, color, fuel_type,
          odometer_km, license_plate, status, price, accident_free, latitude, longitude, notes,
          _key, _source, _input, _line, _run_id, _first_run_id, _hash, _updated_at)
        SELECT v, m, md, yr, bc, 'car', col, fuel, odo, plate, st, price, af, lat, lon, notes,
          v, 'bench', 'bench.csv', i + 1, 1, 1, i, '2024-01-01T00:00:00.000Z'
        FROM (SELECT i, substr(upper(hex(randomblob(9))), 1, 17) AS v,
          CASE i % 7 WHEN 0 THEN 'BMW' WHEN 1 THEN 'Toyota' WHEN 2 THEN 'Ford' WHEN 3 THEN 'Volkswagen'
            WHEN 4 THEN 'Honda' WHEN 5 THEN 'Mercedes-Benz' ELSE 'Kia' END AS m,
          CASE i % 5 WHEN 0 THEN 'Series 3' WHEN 1 THEN 'Corolla' WHEN 2 THEN 'F-150' WHEN 3 THEN 'Golf' ELSE 'Civic' END AS md,
          1995 + i % 30 AS yr,
          CASE i % 4 WHEN 0 THEN 'sedan' WHEN 1 THEN 'suv' WHEN 2 THEN 'hatchback' ELSE 'pickup' END AS bc,
          CASE i % 6 WHEN 0 THEN 'black' WHEN 1 THEN 'white' WHEN 2 THEN 'silver' WHEN 3 THEN 'blue' WHEN 4 THEN 'red' ELSE NULL END AS col,
          CASE i % 3 WHEN 0 THEN 'gasoline' WHEN 1 THEN 'diesel' ELSE 'electric' END AS fuel,
          CASE WHEN i % 50 = 0 THEN NULL ELSE abs(random() % 300000) + (i % 10) / 10.0 END AS odo,
          printf('%s-%03d-%s', char(65 + i % 26, 65 + (i / 26) % 26), i % 1000, char(65 + (i / 7) % 26)) AS plate,
          CASE i % 4 WHEN 0 THEN 'active' WHEN 1 THEN 'maintenance' WHEN 2 THEN 'inactive' ELSE 'retired' END AS st,
          (abs(random() % 6000000)) / 100.0 AS price, i % 2 AS af,
          CASE WHEN i % 10 = 0 THEN NULL ELSE (abs(random() % 180000000) - 90000000) / 1000000.0 END AS lat,
          CASE WHEN i % 10 = 0 THEN NULL ELSE (abs(random() % 360000000) - 180000000) / 1000000.0 END AS lon,
          CASE i % 20 WHEN 0 THEN 'scratch on door, rear "left"' WHEN 1 THEN '=needs service' WHEN 2 THEN 'ok' ELSE NULL END AS notes
          FROM n);
        COMMIT;
        """)
    if vinIndex { try store.connection.execute("CREATE INDEX vehicles_vin ON vehicles(vin)") }
    let count = try store.connection.scalarInt("SELECT count(*) FROM vehicles") ?? 0
    print("built \(dbPath): \(count) rows in \(String(format: "%.1f", Date().timeIntervalSince(start))) s")
}

if !FileManager.default.fileExists(atPath: dbPath) { try buildDatabase() }

/// User + system CPU seconds of this process (`RUSAGE_SELF`) or its finished children.
func cpuSeconds(_ who: Int32) -> Double {
    var usage = rusage()
    _ = getrusage(__rusage_who_t(who), &usage)
    func s(_ t: timeval) -> Double { Double(t.tv_sec) + Double(t.tv_usec) / 1e6 }
    return s(usage.ru_utime) + s(usage.ru_stime)
}

func ours() throws -> (seconds: Double, bytes: Int, cpu: Double) {
    let cpuStart = cpuSeconds(RUSAGE_SELF.rawValue)
    let out = outDir.appendingPathComponent("ours.csv").path
    let start = DispatchTime.now()
    let store = try VinyardStore(path: dbPath, readOnly: true)
    let query = ExportQuery(sort: [SortKey(field: sortField)])
    try Exporter(store: store).export(query, format: .csv, to: try openOutput(path: out))
    let seconds = Double(DispatchTime.now().uptimeNanoseconds - start.uptimeNanoseconds) / 1e9
    let size = (try FileManager.default.attributesOfItem(atPath: out)[.size] as? Int) ?? 0
    return (seconds, size, cpuSeconds(RUSAGE_SELF.rawValue) - cpuStart)
}

func sqlite3() throws -> (seconds: Double, bytes: Int, cpu: Double) {
    let cpuStart = cpuSeconds(RUSAGE_CHILDREN.rawValue)
    let out = outDir.appendingPathComponent("sqlite3.csv")
    _ = FileManager.default.createFile(atPath: out.path, contents: nil)
    let handle = try FileHandle(forWritingTo: out)
    let columns = schema.fields.map { "\"\($0.name)\"" }.joined(separator: ", ")
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = ["sqlite3", "-csv", "-header", dbPath, "select \(columns) from vehicles order by \(sortField)"]
    process.standardOutput = handle
    let start = DispatchTime.now()
    try process.run()
    process.waitUntilExit()
    let seconds = Double(DispatchTime.now().uptimeNanoseconds - start.uptimeNanoseconds) / 1e9
    try handle.close()
    guard process.terminationStatus == 0 else { fatalError("sqlite3 failed with status \(process.terminationStatus)") }
    let size = (try FileManager.default.attributesOfItem(atPath: out.path)[.size] as? Int) ?? 0
    return (seconds, size, cpuSeconds(RUSAGE_CHILDREN.rawValue) - cpuStart)
}

func median(_ xs: [Double]) -> Double {
    let s = xs.sorted()
    return s.count % 2 == 1 ? s[s.count / 2] : (s[s.count / 2 - 1] + s[s.count / 2]) / 2
}

let only = env["BENCH_ONLY"]  // "vinyard" or "sqlite3" to time one side
var oursTimes: [Double] = [], oursCPU: [Double] = []
var sqliteTimes: [Double] = [], sqliteCPU: [Double] = []
for run in 1...runs {
    if only != "sqlite3" {
        let a = try ours()
        oursTimes.append(a.seconds)
        oursCPU.append(a.cpu)
        print(String(format: "run %d: vinyard %.3f s wall, %.3f s CPU (%d bytes)", run, a.seconds, a.cpu, a.bytes))
    }
    if only != "vinyard" {
        let b = try sqlite3()
        sqliteTimes.append(b.seconds)
        sqliteCPU.append(b.cpu)
        print(String(format: "run %d: sqlite3 -csv -header %.3f s wall, %.3f s CPU (%d bytes)", run, b.seconds, b.cpu, b.bytes))
    }
}
if only == nil {
    let mo = median(oursTimes), ms = median(sqliteTimes), co = median(oursCPU), cs = median(sqliteCPU)
    print(String(format: "median over %d runs, %d rows, order by %@: vinyard %.3f s (CPU %.3f), sqlite3 %.3f s (CPU %.3f); ratio wall %.2fx, CPU %.2fx",
        runs, rows, sortField, mo, co, ms, cs, mo / ms, co / cs))
}
