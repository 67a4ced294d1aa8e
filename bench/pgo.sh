#!/usr/bin/env bash
# Regenerates cmd/rdeval/default.pgo, the CPU profile that `go build
# ./cmd/rdeval` uses for profile-guided optimisation (Go ≥ 1.21 picks a
# main package's default.pgo up by itself). The profile merges CPU profiles
# (RDEVAL_CPUPROFILE) of the workloads bench/compare.sh times: JSON Lines
# and score-log ingest, score@k with B = 10,000, the GLMM and the time
# horizon. Run from the repository root after bench/compare.sh has made
# the inputs; rebuild and rerun compare.sh afterwards. Outputs do not
# depend on the profile (it changes inlining and code layout only).
set -euo pipefail
cd "$(dirname "$0")/.."
METR="../shared/anchors/eval-analysis-public/3a947ac7069ecb6e1fd0064cc0205e5eb9dcba0f/data/external/all_runs.jsonl"
IN=bench/out/inputs
for f in "$METR" "$IN/metr_x100.jsonl" "$IN/run-1/score.log" "$IN/glmm_10000x50.csv"; do
  [ -f "$f" ] || { echo "pgo.sh: $f not found: run REPEAT=100 bash bench/compare.sh first" >&2; exit 2; }
done
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
go build -pgo=off -o "$TMP/rdeval" ./cmd/rdeval
R="$TMP/rdeval"
prof() { RDEVAL_CPUPROFILE="$TMP/$1.prof" "${@:2}" > /dev/null 2>&1; }
for i in 1 2; do prof "jsonl$i" "$R" ingest "$IN/metr_x100.jsonl" -o "$TMP/out$i"; done
for i in 1 2 3 4 5 6; do prof "csv$i" "$R" ingest "$IN/run-1/score.log" -o "$TMP/csv$i"; done
for i in $(seq 20); do prof "scoreatk$i" "$R" scoreatk "$METR" --where benchmark=re-bench --k 1,2,4,8,16,32,64,128 --boot 10000 --interval percentile --format csv; done
for i in $(seq 8); do prof "glmm$i" "$R" regress --data "$IN/glmm_10000x50.csv" --table --formula 'yb ~ x1 + x2 + (1 | g)' --family binomial --format json; done
prof horizon "$R" horizon "$METR" --boot 1000 --seed 1 --format csv
go tool pprof -proto "$R" "$TMP"/*.prof > cmd/rdeval/default.pgo
echo "wrote cmd/rdeval/default.pgo ($(wc -c < cmd/rdeval/default.pgo) bytes) from $(ls "$TMP"/*.prof | wc -l) profiles"
