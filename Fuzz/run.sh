#!/usr/bin/env bash
# Fuzz/run.sh [SECONDS] [HARNESS...]
#
# Builds each libFuzzer harness in Fuzz/harnesses/*.swift together with Fuzz/support/*.swift and the
# VinyardKit sources (swiftc -sanitize=fuzzer,address) and runs it for SECONDS (default 60) on a
# corpus seeded from Fuzz/seeds/HARNESS/ (each seed's first byte is the harness's control byte). Crashes are written to Fuzz/out/crashes/HARNESS/; turn each into a
# regression test. Exit status: non-zero when any harness found a crash.
#
#   bash Fuzz/run.sh 120            # every harness, two minutes each
#   bash Fuzz/run.sh 30 csv json    # two harnesses
#   RUNS=1000000 bash Fuzz/run.sh 0      # a fixed number of executions instead of a time limit
#   RUNS=1000000 bash Fuzz/run.sh 600 vin  # one million executions or ten minutes, whichever first
#   TIMEOUT=120 RUNS=1000000 bash Fuzz/run.sh 0 csv  # a longer per-unit hang limit (default 10 s),
#                                                    # for a machine busy with other work
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
seconds=${1:-60}
[ $# -gt 0 ] && shift
out=Fuzz/out
mkdir -p "$out"
mapfile -t sources < <(find Sources/VinyardKit Fuzz/support -name '*.swift' | sort)
if [ $# -gt 0 ]; then harnesses=("$@"); else
    mapfile -t harnesses < <(ls Fuzz/harnesses/*.swift | xargs -n1 basename | sed 's/\.swift$//')
fi
status=0
for h in "${harnesses[@]}"; do
    bin="$out/$h"
    [ -f "Fuzz/harnesses/$h.swift" ] || { echo "no harness Fuzz/harnesses/$h.swift"; status=1; continue; }
    # Rebuild only when a source, support file or the harness is newer than the binary.
    if [ -x "$bin" ] && [ -z "$(find Sources/VinyardKit Fuzz/support "Fuzz/harnesses/$h.swift" -name '*.swift' -newer "$bin" | head -1)" ]; then
        echo "== $h: binary up to date"
    elif echo "== $h: building" && ! swiftc -O -sanitize=fuzzer,address -parse-as-library -module-name "Fuzz_$h" \
        -I Sources/CSQLite -I Sources/CZlib "${sources[@]}" "Fuzz/harnesses/$h.swift" \
        -lsqlite3 -lz -o "$bin" 2> "$out/$h.build.log"; then
        echo "build failed: see $out/$h.build.log"; status=1; continue
    fi
    corpus="$out/corpus/$h"; crashes="$out/crashes/$h"
    mkdir -p "$corpus" "$crashes"
    seeds=()
    [ -d "Fuzz/seeds/$h" ] && seeds+=("Fuzz/seeds/$h")
    limit=(-max_total_time="$seconds")
    # RUNS alone: a fixed number of executions; RUNS with SECONDS > 0: whichever comes first.
    if [ -n "${RUNS:-}" ]; then
        limit=(-runs="$RUNS")
        [ "$seconds" -gt 0 ] && limit+=(-max_total_time="$seconds")
    fi
    echo "== $h: fuzzing (${RUNS:-$seconds s})"
    "$bin" "${limit[@]}" -timeout="${TIMEOUT:-10}" -rss_limit_mb=2048 -max_len=65536 -print_final_stats=1 \
        -artifact_prefix="$crashes/" "$corpus" "${seeds[@]}" > "$out/$h.log" 2>&1
    rc=$?
    grep -E "stat::number_of_executed_units|Done [0-9]+ runs" "$out/$h.log" | tail -2
    if [ $rc -ne 0 ]; then
        echo "!! $h: crash or failure (exit $rc), see $out/$h.log and $crashes"; status=1
    fi
done
exit $status
