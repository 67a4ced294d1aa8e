#!/usr/bin/env bash
# Scaling of rdeval with input size and bootstrap size (issue #8): wall time
# and peak resident memory (GNU time's "Maximum resident set size") of
#   rdeval ingest on generated score logs of 10^4 … 10^7 rows (CSV), and
#   rdeval scoreatk on METR's RE-Bench rows with B = 10^3 … 10^5.
# Usage: bash bench/scaling.sh   (from the repository root; needs /usr/bin/time)
set -euo pipefail
cd "$(dirname "$0")/.."
OUT=bench/out/scaling
mkdir -p "$OUT"
go build -o bench/out/rdeval ./cmd/rdeval
R=bench/out/rdeval
METR="../shared/anchors/eval-analysis-public/3a947ac7069ecb6e1fd0064cc0205e5eb9dcba0f/data/external/all_runs.jsonl"

gen() { # gen N FILE: a METR score.log with N rows (seeded awk)
  awk -v n="$1" 'BEGIN { srand(1); print "timestamp,score,message,details";
    for (i = 0; i < n; i++) { s = 1732269600 + i * 1.5;
      printf "%s,%s,\"{\"\"status\"\": \"\"ok\"\"}\",\"{}\"\n", strftime("%Y-%m-%dT%H:%M:%S+00:00", s, 1), (rand() < 0.05 ? "nan" : sprintf("%.17g", rand() * 2 - 0.5)) } }' > "$2"
}
measure() { # measure CMD...: prints "seconds max_rss_MiB"
  /usr/bin/time -f "%e %M" "$@" 2> "$OUT/time.txt" > /dev/null
  tail -1 "$OUT/time.txt" | awk '{printf "%.2f %.0f\n", $1, $2 / 1024}'
}
echo "| input | rows / B | wall (s) | peak RSS (MiB) |"
echo "|---|---|---|---|"
for n in 10000 100000 1000000 10000000; do
  f="$OUT/run-$n/score.log"
  mkdir -p "$(dirname "$f")"
  [ -f "$f" ] || gen "$n" "$f"
  read -r s m < <(measure "$R" ingest "$f" -o "$OUT/ing-$n" -q)
  echo "| score log CSV → Parquet ($(du -m "$f" | cut -f1) MB) | $n | $s | $m |"
  rm -rf "$OUT/ing-$n"
done
if [ -f "$METR" ]; then
  for b in 1000 10000 100000; do
    read -r s m < <(measure "$R" scoreatk "$METR" --where benchmark=re-bench --k 1,2,4,8,16,32,64,128 --boot "$b" --interval percentile --format csv -q)
    echo "| score@k, all METR RE-Bench groups, k ≤ 128 | B = $b | $s | $m |"
  done
fi
