#!/usr/bin/env bash
# Interactive auditing (issue 25 item 7): wall and CPU time of every shipped
# multiverse, influence and power example (examples/multiverse-*.yaml and
# the commands' --help examples), against the 5 s target on 2 cores.
# Help examples that name the user's files run on the nearest data here:
# all_runs.jsonl is METR's public file @3a947ac (../shared/anchors), study/
# (RExBench runs) is the demo study's RExBench runs
# (cmd/rdeval/internal/demo/data/rexbench, scaffold openhands, model-c in
# place of o1, which it does not have).
# Output goes to bench/out/examples/ (figures) and is not checked.
# Usage: bash bench/examples.sh [REPEATS]   (from the repository root; needs /usr/bin/time)
# Prints one row per example: the median over REPEATS (default 3) runs of
# wall, user and system seconds. user + sys is the CPU time, the number that
# does not depend on what else the machine is running.
set -euo pipefail
cd "$(dirname "$0")/.."
OUT=bench/out/examples
mkdir -p "$OUT"
go build -o bench/out/rdeval ./cmd/rdeval
R=bench/out/rdeval
N=${1:-3}
REX=cmd/rdeval/internal/demo/data/rexbench/runs.jsonl
METR="../shared/anchors/eval-analysis-public/3a947ac7069ecb6e1fd0064cc0205e5eb9dcba0f/data/external/all_runs.jsonl"

median() { sort -n | awk '{a[NR] = $1} END {print a[int((NR + 1) / 2)]}'; }
run() { # run NAME CMD...: one table row
  local name=$1
  shift
  : > "$OUT/times.txt"
  for _ in $(seq "$N"); do
    /usr/bin/time -a -o "$OUT/times.txt" -f "%e %U %S" "$@" > /dev/null 2> "$OUT/stderr.txt" || {
      echo "| $name | failed: $(tail -1 "$OUT/stderr.txt") |"
      return
    }
  done
  local w u s
  w=$(awk '{print $1}' "$OUT/times.txt" | median)
  u=$(awk '{print $2}' "$OUT/times.txt" | median)
  s=$(awk '{print $3}' "$OUT/times.txt" | median)
  echo "| $name | $w | $u | $s | $(awk -v u="$u" -v s="$s" 'BEGIN {printf "%.2f", u + s}') |"
}

echo "| example | wall (s) | user (s) | sys (s) | CPU = user + sys (s) |"
echo "|---|---|---|---|---|"
run "multiverse --spec examples/multiverse-demo.yaml" $R multiverse --spec examples/multiverse-demo.yaml -q
run "multiverse --spec examples/multiverse-rebench-ratio.yaml --boot 2000 --figure" $R multiverse --spec examples/multiverse-rebench-ratio.yaml --boot 2000 --figure "$OUT/ratio.svg" -q
run "multiverse --spec examples/multiverse-horizons.yaml --boot 200 --format json" $R multiverse --spec examples/multiverse-horizons.yaml --boot 200 --format json -q
run "multiverse --spec examples/multiverse-horizons.yaml (its default --boot)" $R multiverse --spec examples/multiverse-horizons.yaml -q
run "influence --demo --stat scoreatk --k 4 … --top 5" $R influence --demo --stat scoreatk --k 4 --where "agent=Modular (Model A)" --where time_limit_s=1800 --top 5 -q
run "influence all_runs.jsonl --stat scoreatk --k 4 … o1-preview 1800" $R influence "$METR" --stat scoreatk --k 4 --where benchmark=re-bench --where agent=o1-preview --where time_limit_s=1800 -q
run "influence study/ --stat success … --top 5 --format json (demo RExBench)" $R influence "$REX" --stat success --where scaffold=openhands --where model=model-c --where hint_level=no_hints --top 5 --format json -q
run "influence all_runs.jsonl --stat scoreatk --threshold 0.2 --format csv" $R influence "$METR" --stat scoreatk --where agent=o1-preview --where time_limit_s=1800 --threshold 0.2 --format csv -q
run "influence all_runs.jsonl --stat compare … --budget 8h" $R influence "$METR" --where benchmark=re-bench --stat compare --a "kind=agent;time_limit_s=1800" --b agent=human --budget 8h -q
run "power --pa 0.3 --pb 0.5 --runs 3,5,10 --tasks 6,12,24" $R power --pa 0.3 --pb 0.5 --runs 3,5,10 --tasks 6,12,24 -q
run "power --pa 0.3 --pb 0.5 --runs 2,4,8,16 --tasks 6,12 --figure" $R power --pa 0.3 --pb 0.5 --runs 2,4,8,16 --tasks 6,12 --figure "$OUT/power.svg" -q
run "power --pilot study/ --a hint_level=no_hints --b hint_level=hints (demo RExBench)" $R power --pilot "$REX" --a hint_level=no_hints --b hint_level=hints --where model=model-c -q
run "power --pilot all_runs.jsonl --stat scoreatk --k 2 … --format csv" $R power --pilot "$METR" --stat scoreatk --k 2 --where time_limit_s=1800 --a agent=o1-preview --b "agent=Claude 3.5 Sonnet (New)" --format csv -q
