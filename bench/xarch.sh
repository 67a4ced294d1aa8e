#!/usr/bin/env bash
# Same seed, same bytes on every machine: builds rdeval three ways on this
# amd64 machine and compares the output bytes of seeded commands.
#
# Usage: bash bench/xarch.sh        (from the repository root; about 6 minutes)
#
#   GOAMD64=v1   the default build
#   GOAMD64=v3   the compiler fuses x*y+z into multiply-adds here, as it
#                always does on arm64 (and the CPU needs AVX2 and FMA)
#   GOARCH=386   gonum without assembly, math.Exp/math.Log in Go
#
# A difference means a statistic depends on the platform: a product that
# should be rounded before it is added (float64(x*y)), or math's assembly
# (use detExp/detLog, analysis/detmath.go). `bash bench/xarch.sh sites`
# lists where the arm64 compiler fuses multiply-adds in rdeval's packages
# (Go's -d=fmahash=vy debug flag; the last position of an inlined call is
# the site). Exits 1 when any output differs.
set -euo pipefail
cd "$(dirname "$0")/.."
OUT=bench/out/xarch
mkdir -p "$OUT"
if [ "${1:-}" = sites ]; then
  GOARCH=arm64 go build -a -gcflags='github.com/rdeval/rdeval/...=-d=fmahash=vy' -o /dev/null ./cmd/rdeval 2>&1 |
    sed -n 's/^fmahash triggered \(.*\) [01]*$/\1/p' | sed 's/.*; //' | sort -u
  exit 0
fi
METR="../shared/anchors/eval-analysis-public/3a947ac7069ecb6e1fd0064cc0205e5eb9dcba0f/data/external/all_runs.jsonl"
go build -o "$OUT/rdeval-v1" ./cmd/rdeval
GOAMD64=v3 go build -o "$OUT/rdeval-v3" ./cmd/rdeval
GOARCH=386 go build -o "$OUT/rdeval-386" ./cmd/rdeval
cmds=(
  "horizon --demo --boot 200 --seed 1 --format json"
  "power --pa 0.3 --pb 0.5 --runs 3,5,10 --tasks 6,12,24 --format json"
  "compare --demo --a agent=human --b 'agent=Modular (Model A);time_limit_s=1800' --budget 8h --format json"
  "multiverse --spec examples/multiverse-horizons.yaml --boot 100 --format json"
  "multiverse --spec examples/multiverse-rebench-ratio.yaml --boot 500 --format json"
  "curves --demo --grid 30m,2h,8h --format json"
  "audit examples/demo-claims.yaml --demo --format json"
  "success --demo --where benchmark=rexbench --ablation --format json"
  "allocation --demo --where benchmark=re-bench --boot 2000 --seed 1 --format json"
  "cost --demo --where benchmark=re-bench --boot 2000 --seed 1 --format json"
  "cost --demo --where benchmark=re-bench --boot 2000 --seed 1 --boot-unit tasks --format csv"
  "scoreatk --demo --where benchmark=re-bench --k 1,4,16 --seed 1 --format json --interval bca"
  "scoreatk --demo --where benchmark=re-bench --k 1,2,4 --seed 1 --format json"
  "scoreatk --demo --where benchmark=re-bench --k 1,2,4 --seed 1 --format json --boot-unit tasks"
)
if [ -f "$METR" ]; then
  cmds+=(
    "horizon '$METR' --boot 100 --seed 1 --format json"
    "scoreatk '$METR' --where benchmark=re-bench --boot 2000 --format json"
    "scoreatk '$METR' --where benchmark=re-bench --boot 2000 --interval bca --format json"
    "power --pilot '$METR' --stat scoreatk --k 2 --where time_limit_s=1800 --a agent=o1-preview --b 'agent=Claude 3.5 Sonnet (New)' --format json"
    "compare '$METR' --a 'agent=o1-preview;time_limit_s=1800' --b agent=human --budget 8h --format json"
    "allocation '$METR' --where benchmark=re-bench --format json"
    "influence '$METR' --stat scoreatk --k 4 --where benchmark=re-bench --where agent=o1-preview --where time_limit_s=1800 --format json"
    "audit examples/rebench-claims.yaml --format json"
  )
else
  echo "xarch.sh: $METR not found; only the demo study's commands run" >&2
fi
bad=0
for c in "${cmds[@]}"; do
  sums=() rcs=()
  for b in v1 v3 386; do
    rc=0
    eval "\"$OUT/rdeval-$b\" $c" > "$OUT/out.$b" 2>&1 || rc=$?
    rcs+=("$rc")
    sums+=("$(sha256sum < "$OUT/out.$b" | cut -c1-12)")
  done
  if [ "${rcs[0]}" -ge 2 ] || [ "${rcs[0]}" != "${rcs[1]}" ] || [ "${rcs[0]}" != "${rcs[2]}" ]; then
    s="EXIT(${rcs[*]})"; bad=1 # 1 is an audit's verdict, 2 bad input
  elif [ "${sums[0]}" = "${sums[1]}" ] && [ "${sums[0]}" = "${sums[2]}" ]; then s=same
  else s=DIFFERS; bad=1; fi
  printf '%-8s %s  %s\n' "$s" "${sums[*]}" "${c//$METR/METR}"
done
exit $bad
