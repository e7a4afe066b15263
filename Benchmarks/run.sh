#!/usr/bin/env bash
# Benchmarks/run.sh — the whole-tool benchmark: builds release, generates inputs, and prints a table
# of medians and ratios measured side by side in the same run (runs alternate; RUNS each).
#
#   bash Benchmarks/run.sh                 # 1M rows, 3 runs each
#   ROWS=200000 RUNS=5 bash Benchmarks/run.sh
#   BIG=1 bash Benchmarks/run.sh           # also peak RSS of a 5M-row import and validate
#   NO_PYTHON=1 bash Benchmarks/run.sh     # skip Python, sqlite-utils and DuckDB
#   TABLE_ONLY=1 bash Benchmarks/run.sh    # print the table again from the last run's results
#
# References: the sqlite3 shell's `.import` of the same CSV into a fresh table (ratio 1.00), the
# sqlite3 shell's `-csv` sorted export, and, in a temporary virtual environment, Python's csv +
# sqlite3 executemany, `sqlite-utils insert --csv` and DuckDB's read_csv into a DuckDB table.
# Times are wall-clock medians; the machine is shared, so read the ratios, not the seconds.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
rows=${ROWS:-1000000}
runs=${RUNS:-3}
work=Benchmarks/.work
mkdir -p "$work"
command -v sqlite3 >/dev/null || { echo "needs the sqlite3 shell (apt-get install sqlite3)"; exit 1; }

results="$work/results.tsv"
if [ -z "${TABLE_ONLY:-}" ]; then
echo "building release…" >&2
swift build -c release --product vinyard >&2
bin=$root/.build/release/vinyard

echo "generating $rows rows…" >&2
"$bin" generate --rows "$rows" --seed 1 -o "$work/fleet.csv"
gzip -c -1 "$work/fleet.csv" > "$work/fleet.csv.gz"
"$bin" generate --rows "$rows" --seed 1 -o "$work/fleet.jsonl"
"$bin" generate --rows "$rows" --seed 1 -o "$work/fleet.json"
size=$(stat -c %s "$work/fleet.csv")

python_ok=0
if [ -z "${NO_PYTHON:-}" ] && command -v python3 >/dev/null; then
    if [ ! -x "$work/venv/bin/python" ]; then
        python3 -m venv "$work/venv" >&2 && "$work/venv/bin/pip" install -q sqlite-utils duckdb >&2 || true
    fi
    "$work/venv/bin/python" -c "import duckdb, sqlite_utils" 2>/dev/null && python_ok=1
fi

: > "$results"
# measure NAME COMMAND...: runs it under /usr/bin/time, appends "NAME seconds maxrss_kb".
measure() {
    local name=$1; shift
    if ! /usr/bin/time -f "%e %M" -o "$work/time.out" "$@" > /dev/null 2> "$work/last.err"; then
        local rc; rc=$(grep -o "exited with non-zero status [0-9]*" "$work/time.out" | grep -o "[0-9]*$" || echo "?")
        # vinyard validate exits 1 when it rejects rows: that is a result, not a failure.
        if ! { [ "$rc" = 1 ] && [[ "$name" == "vinyard validate"* ]]; }; then
            echo "!! $name failed (exit $rc):" >&2; head -5 "$work/last.err" >&2; return 0
        fi
    fi
    echo "$name $(tail -1 "$work/time.out")" >> "$results"
}
fresh() { rm -f "$1" "$1-wal" "$1-shm"; }

cat > "$work/py_import.py" <<'PY'
import csv, sqlite3, sys
path, db = sys.argv[1], sys.argv[2]
con = sqlite3.connect(db)
with open(path, newline="", encoding="utf-8") as f:
    r = csv.reader(f)
    header = next(r)
    con.execute("CREATE TABLE t (%s)" % ", ".join('"%s"' % h for h in header))
    con.executemany("INSERT INTO t VALUES (%s)" % ",".join("?" * len(header)), r)
con.commit()
PY
cat > "$work/duck.py" <<'PY'
import duckdb, sys
con = duckdb.connect(sys.argv[2])
con.execute("CREATE TABLE t AS SELECT * FROM read_csv(?, all_varchar=true)", [sys.argv[1]])
con.close()
PY

columns="vin,make,model,model_year,color,fuel_type,transmission,odometer_km,license_plate,status,latitude,longitude,first_registration"
for i in $(seq "$runs"); do
    echo "round $i/$runs…" >&2
    fresh "$work/ref.db"; measure "sqlite3 .import (reference)" sqlite3 "$work/ref.db" ".import --csv $work/fleet.csv t"
    fresh "$work/v.db"; measure "vinyard import csv" "$bin" import "$work/fleet.csv" --db "$work/v.db" --quiet
    measure "vinyard re-import csv (all unchanged)" "$bin" import "$work/fleet.csv" --db "$work/v.db" --quiet
    fresh "$work/g.db"; measure "vinyard import csv.gz" "$bin" import "$work/fleet.csv.gz" --db "$work/g.db" --quiet
    fresh "$work/l.db"; measure "vinyard import jsonl" "$bin" import "$work/fleet.jsonl" --db "$work/l.db" --quiet
    fresh "$work/j.db"; measure "vinyard import json array" "$bin" import "$work/fleet.json" --db "$work/j.db" --quiet
    measure "vinyard validate csv" "$bin" validate "$work/fleet.csv" --quiet
    measure "sqlite3 -csv sorted export (reference)" sqlite3 -csv -header -cmd ".output $work/export-sqlite.csv" "$work/v.db" "SELECT $columns FROM vehicles ORDER BY vin"
    measure "vinyard export csv --sort vin" "$bin" export --db "$work/v.db" --sort vin --columns "$columns" -o "$work/export.csv"
    if [ "$python_ok" = 1 ]; then
        fresh "$work/py.db"; measure "python csv + sqlite3 executemany" "$work/venv/bin/python" "$work/py_import.py" "$work/fleet.csv" "$work/py.db"
        fresh "$work/duck.db"; measure "duckdb read_csv" "$work/venv/bin/python" "$work/duck.py" "$work/fleet.csv" "$work/duck.db"
        if [ "$i" = 1 ]; then  # sqlite-utils is ~36× slower: one run is enough
            fresh "$work/su.db"; measure "sqlite-utils insert --csv" "$work/venv/bin/sqlite-utils" insert "$work/su.db" t "$work/fleet.csv" --csv
        fi
    fi
done
if [ -n "${BIG:-}" ]; then
    echo "5M rows for peak RSS…" >&2
    "$bin" generate --rows 5000000 --seed 2 -o "$work/fleet5m.csv"
    fresh "$work/big.db"; measure "vinyard import csv, 5M rows" "$bin" import "$work/fleet5m.csv" --db "$work/big.db" --quiet
    measure "vinyard validate csv, 5M rows" "$bin" validate "$work/fleet5m.csv" --quiet
    rm -f "$work/fleet5m.csv"
fi
fi  # TABLE_ONLY
size=$(stat -c %s "$work/fleet.csv")

python3 - "$results" "$rows" "$size" <<'PY'
import sys, statistics, collections, datetime, os
path, rows, size = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
t = collections.OrderedDict()
for line in open(path):
    name, rest = line.rstrip("\n").rsplit(" ", 2)[0], line.split()[-2:]
    t.setdefault(name, []).append((float(rest[0]), int(rest[1])))
def med(n): return statistics.median(x[0] for x in t[n])
def best(n): return min(x[0] for x in t[n])
ref, ref_best = med("sqlite3 .import (reference)"), best("sqlite3 .import (reference)")
e = "sqlite3 -csv sorted export (reference)"
exp, exp_best = (med(e), best(e)) if e in t else (None, None)
plain, plain_best = (med("vinyard import csv"), best("vinyard import csv")) if "vinyard import csv" in t else (None, None)
# The machine is shared: other work only adds time, so the best run of each is the steadier figure.
print(f"\n{rows:,} rows, {size/1e6:.0f} MB CSV; {datetime.date.today()}; {os.cpu_count()} cores; n runs each, alternating\n")
print("| run | n | median s | ratio of medians | best s | ratio of bests | rows/s (median) | peak RSS MB |")
print("|---|---|---|---|---|---|---|---|")
for name, xs in t.items():
    m, b = med(name), best(name)
    if "export" in name: base, base_best, label = exp, exp_best, "vs sqlite3 -csv"
    elif name.startswith("vinyard import") and plain and name != "vinyard import csv" and "5M" not in name:
        base, base_best, label = plain, plain_best, "vs vinyard csv"
    else: base, base_best, label = ref, ref_best, "vs .import"
    r = f"{m/base:.2f}× {label}" if base else ""
    rb = f"{b/base_best:.2f}×" if base_best else ""
    rss = max(x[1] for x in xs) / 1024
    n = 5 * rows if "5M" in name else rows
    print(f"| {name} | {len(xs)} | {m:.2f} | {r} | {b:.2f} | {rb} | {n/m:,.0f} | {rss:.0f} |")
PY
