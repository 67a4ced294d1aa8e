#!/usr/bin/env bash
# Side-by-side benchmark of rdeval against the Python stack (issue #8).
#
# Usage: bash bench/compare.sh [ROUNDS]        (from the repository root)
#
# Builds rdeval, generates the larger inputs from METR's all_runs.jsonl
# (../shared/anchors/eval-analysis-public, read in place), then runs each pair
# alternately A B A B … for ROUNDS rounds (default 5) after one warm-up round,
# checks that both sides' outputs agree, and prints the median wall time of
# each side and the ratio (peer / rdeval). Needs Debian's python3-numpy and
# python3-pandas (/usr/bin/python3). Timings are wall-clock on a shared
# machine: read the medians and ratios, not single runs. PAIRS=duckdb runs
# only the DuckDB pairs, PAIRS=python only the others (default: all).
set -euo pipefail
cd "$(dirname "$0")/.."
ROUNDS="${1:-5}"
REPEAT="${REPEAT:-100}"   # how many copies of METR's file make the large JSONL input
PY=/usr/bin/python3
METR="../shared/anchors/eval-analysis-public/3a947ac7069ecb6e1fd0064cc0205e5eb9dcba0f/data/external/all_runs.jsonl"
OUT=bench/out
mkdir -p "$OUT"
[ -f "$METR" ] || { echo "compare.sh: $METR not found (../shared sits beside the checkout)" >&2; exit 2; }
$PY -c 'import numpy, pandas' || { echo "compare.sh: needs python3-numpy and python3-pandas (apt-get install python3-numpy python3-pandas)" >&2; exit 2; }

go build -o "$OUT/rdeval" ./cmd/rdeval
R="$OUT/rdeval"
BIG="$OUT/inputs/metr_x$REPEAT.jsonl"
[ -f "$BIG" ] || $PY bench/gen_inputs.py "$METR" "$OUT/inputs" "$REPEAT"

# clock sets REPLY to the time in seconds: bash's $EPOCHREALTIME (bash ≥ 5),
# which starts no process, where `$(date +%s.%N)` added 2-3 ms (a fork and
# an exec) to every timing, 2-3 % of score@k's; `date` on older shells.
# LC_ALL=C keeps its decimal point a point.
export LC_ALL=C
if [ -n "${EPOCHREALTIME:-}" ]; then clock() { REPLY=$EPOCHREALTIME; }; else clock() { REPLY=$(date +%s.%N); }; fi
median() { sort -g | awk '{a[NR]=$1} END {if (NR%2) print a[(NR+1)/2]; else print (a[NR/2]+a[NR/2+1])/2}'; }

# pair NAME "A command" "B command" CHECK-FUNCTION
pair() {
  local name=$1 a=$2 b=$3 check=$4
  local ta=() tb=()
  eval "$a" > "$OUT/$name.a.out" 2>/dev/null; eval "$b" > "$OUT/$name.b.out" 2>/dev/null   # warm-up
  $check "$OUT/$name.a.out" "$OUT/$name.b.out" || { echo "$name: outputs differ" >&2; exit 1; }
  for ((i = 0; i < ROUNDS; i++)); do
    local s
    clock; s=$REPLY; eval "$a" > /dev/null 2>&1; clock; ta+=("$(echo "$REPLY - $s" | bc -l)")
    clock; s=$REPLY; eval "$b" > /dev/null 2>&1; clock; tb+=("$(echo "$REPLY - $s" | bc -l)")
  done
  local ma mb
  ma=$(printf '%s\n' "${ta[@]}" | median); mb=$(printf '%s\n' "${tb[@]}" | median)
  printf '| %s | %.3f | %.3f | %.1f× |\n' "$name" "$ma" "$mb" "$(echo "$mb / $ma" | bc -l)"
  LAST_A=$ma LAST_B=$mb
}

# score@k: the same point estimates (to 1e-4, the CSV's precision), and each
# interval end of numpy's within 0.02 of rdeval's or, failing that, within
# rdeval's Monte Carlo band for it: the ends rdeval's own replicates give at
# levels 0.95 ∓ 0.0124, that is quantiles 0.025 / 0.975 moved by 0.0062,
# four standard errors of an empirical CDF at 0.975 with B = 10,000 (the
# same seed, so the same replicates). Where a task's bootstrap distribution
# is discrete (few runs, ties), a quantile near a jump can land on either
# side of it, a step bigger than 0.02, whichever generator draws.
check_scoreatk() {
  "$R" scoreatk "$METR" --where benchmark=re-bench --k $KS --boot 10000 --interval percentile --ci 0.9376 --format csv > "$OUT/scoreatk.narrow.out" 2>/dev/null
  "$R" scoreatk "$METR" --where benchmark=re-bench --k $KS --boot 10000 --interval percentile --ci 0.9624 --format csv > "$OUT/scoreatk.wide.out" 2>/dev/null
  $PY - "$1" "$2" "$OUT/scoreatk.narrow.out" "$OUT/scoreatk.wide.out" <<'PYEOF'
import csv, sys
def rows(path, agent, tl):
    return {(r[agent], r[tl], r["k"]): r for r in csv.DictReader(open(path))}
a = rows(sys.argv[1], "agent", "time_limit_s")
b = rows(sys.argv[2], "alias", "time_limit")
narrow, wide = rows(sys.argv[3], "agent", "time_limit_s"), rows(sys.argv[4], "agent", "time_limit_s")
bad = 0
for key, rb in b.items():
    ra = a.get(key)
    if ra is None or ra["estimate"] == "":
        bad += 1; continue
    if abs(float(ra["estimate"]) - float(rb["estimate"])) > 1e-4:
        bad += 1; continue
    for end in ("ci_low", "ci_high"):
        x, y = float(ra[end]), float(rb[end])
        lo, hi = sorted((float(narrow[key][end]), float(wide[key][end])))
        if abs(x - y) > 0.02 and not lo - 0.02 <= y <= hi + 0.02:
            print(f"score@k {key} {end}: rdeval {x}, numpy {y}, rdeval's band [{lo}, {hi}]", file=sys.stderr)
            bad += 1
sys.exit(1 if bad or len(b) < 20 else 0)
PYEOF
}
# ingest: same row count and mean score.
check_scorelog() {
  local na nb
  na=$("$R" inspect "$OUT/ing" --format json | $PY -c 'import json,sys; print(json.load(sys.stdin)["score_log_rows"])')
  nb=$(cut -d' ' -f1 "$2")
  [ "$na" = "$nb" ]
}
check_jsonl() {
  local na nb
  na=$("$R" inspect "$OUT/ing" --format json | $PY -c 'import json,sys; print(json.load(sys.stdin)["rows"])')
  nb=$(cut -d' ' -f1 "$2")
  [ "$na" = "$nb" ]
}

echo "rdeval $("$R" version | head -1 | cut -d' ' -f2), $(nproc) cores, $(uname -m); $($PY -c 'import numpy, pandas, sys; print("python", sys.version.split()[0], "numpy", numpy.__version__, "pandas", pandas.__version__)'); $ROUNDS rounds after a warm-up"
echo
echo "| pair | rdeval median (s) | peer median (s) | ratio (peer / rdeval) |"
echo "|---|---|---|---|"
PAIRS="${PAIRS:-all}"
if [ "$PAIRS" != duckdb ]; then
KS=1,2,4,8,16,32,64,128
pair "score@k bootstrap, all RE-Bench groups, B=10,000, k=1…128" \
  "\"$R\" scoreatk \"$METR\" --where benchmark=re-bench --k $KS --boot 10000 --interval percentile --format csv" \
  "$PY bench/scoreatk_numpy.py \"$METR\" 10000" check_scoreatk
pair "JSONL ingest, METR ×$REPEAT ($(du -m "$BIG" | cut -f1) MB) → Parquet vs pandas.read_json" \
  "rm -rf \"$OUT/ing\" && \"$R\" ingest \"$BIG\" -o \"$OUT/ing\"" \
  "$PY bench/read_pandas.py jsonl \"$BIG\"" check_jsonl
pair "CSV score log, 10^6 rows ($(du -m "$OUT/inputs/run-1/score.log" | cut -f1) MB) → Parquet vs pandas.read_csv" \
  "rm -rf \"$OUT/ing\" && \"$R\" ingest \"$OUT/inputs/run-1/score.log\" -o \"$OUT/ing\"" \
  "$PY bench/read_pandas.py csv \"$OUT/inputs/run-1/score.log\"" check_scorelog

# Time horizons (METR method), 1,000 hierarchical bootstrap replicates, all
# agents of METR's file: rdeval horizon vs the scikit-learn loop
# (bench/horizon_sklearn.py: one LogisticRegression fit per agent per
# replicate, as eval-analysis-public does). The peer takes about two minutes
# a run here, so this pair runs HORIZON_ROUNDS rounds (default 3, after the
# warm-up); HORIZON_ROUNDS=0 skips it. Outputs agree when every agent's p50
# and p80 match to 1e-2 relative (sklearn stops at lbfgs's default tol 1e-4:
# GPT-4 0314 is 3.4e-3 off in p50 and more in p80) and the ends of the p50 interval lie within
# 35 % of the interval's width on the log scale (two generators, and in the
# tails replicates close to separation, where default-tol lbfgs stops far
# from the optimum: lower ends differ by up to a factor 2 at B = 1,000);
# agents whose horizons are extrapolations below 1e-3 min are left out, as
# METR leaves them out of its plots.
check_horizon() {
  $PY - "$1" "$2" <<'PYEOF'
import csv, math, sys
a = {r["agent"]: r for r in csv.DictReader(open(sys.argv[1]))}
b = list(csv.DictReader(open(sys.argv[2])))
bad, n = [], 0
for rb in b:
    ra = a.get(rb["agent"])
    if ra is None:
        bad.append(rb["agent"]); continue
    if float(rb["p50"]) < 1e-3:
        continue
    n += 1
    for k, kb in (("p50_minutes", "p50"), ("p80_minutes", "p80")):
        if abs(float(ra[k]) / float(rb[kb]) - 1) > 1e-2:
            bad.append(rb["agent"] + " " + kb)
    width = math.log(float(rb["p50_ci_high"]) / float(rb["p50_ci_low"]))
    for k in ("p50_ci_low", "p50_ci_high"):
        x, y = float(ra[k]), float(rb[k])
        if not (x > 0 and y > 0 and abs(math.log(x / y)) < 0.35 * width):
            bad.append(rb["agent"] + " " + k)
if bad or n < 5:
    print("horizon outputs differ:", bad, file=sys.stderr)
sys.exit(1 if bad or n < 5 else 0)
PYEOF
}
if [ "${HORIZON_ROUNDS:-3}" != 0 ] && $PY -c 'import sklearn' 2>/dev/null; then
  SAVED_ROUNDS=$ROUNDS; ROUNDS=${HORIZON_ROUNDS:-3}
  pair "Time horizons, METR file, 1,000 hierarchical bootstrap replicates vs the scikit-learn loop ($ROUNDS rounds)" \
    "\"$R\" horizon \"$METR\" --boot 1000 --seed 1 --format csv" \
    "$PY bench/horizon_sklearn.py \"$METR\" 1000 1" check_horizon
  ROUNDS=$SAVED_ROUNDS
else
  echo "(horizon pair skipped: HORIZON_ROUNDS=0 or no python3-sklearn)"
fi

# GLMM (random intercept, logit link, Laplace): 10,000 rows, 50 groups,
# rdeval regress vs lme4::glmer, when Rscript with lme4 is installed.
# Outputs agree when every fixed effect matches to 1e-4 (absolute) and its
# standard error to 1e-3 (relative): both stop at their optimizer's tolerance.
check_glmm() {
  $PY - "$1" "$2" <<'PYEOF'
import csv, json, sys
a = {c["term"]: c for c in json.load(open(sys.argv[1]))["coefficients"]}
b = list(csv.DictReader(open(sys.argv[2])))
bad = [r["term"] for r in b if r["term"] not in a
       or abs(a[r["term"]]["estimate"] - float(r["estimate"])) > 1e-4
       or abs(a[r["term"]]["se"] / float(r["std_error"]) - 1) > 1e-3]
sys.exit(1 if bad or len(b) != 3 else 0)
PYEOF
}
if command -v Rscript >/dev/null 2>&1 && Rscript -e 'library(lme4)' >/dev/null 2>&1; then
  GLMM="$OUT/inputs/glmm_10000x50.csv"
  [ -f "$GLMM" ] || $PY bench/gen_glmm.py "$GLMM"
  pair "GLMM yb ~ x1 + x2 + (1 \\| g), binomial, 10,000 rows, 50 groups vs lme4::glmer" \
    "\"$R\" regress --data \"$GLMM\" --table --formula 'yb ~ x1 + x2 + (1 | g)' --family binomial --format json" \
    "Rscript bench/glmm_lme4.R \"$GLMM\"" check_glmm
else
  echo "(GLMM pair skipped: needs Rscript with lme4)"
fi

fi # PAIRS != duckdb

# DuckDB as the speed peer (issue #9): JSONL and CSV to Parquet, when the
# interop npm packages are installed (cd interop && npm ci).
if [ "$PAIRS" = python ]; then
  :
elif command -v node >/dev/null 2>&1 && [ -d interop/node_modules/@duckdb/node-api ]; then
  check_duck_jsonl() {
    local na nb
    na=$("$R" inspect "$OUT/ing" --format json | $PY -c 'import json,sys; print(json.load(sys.stdin)["rows"])')
    nb=$(cat "$2")
    [ "$na" = "$nb" ]
  }
  check_duck_csv() {
    local na nb
    na=$("$R" inspect "$OUT/ing" --format json | $PY -c 'import json,sys; print(json.load(sys.stdin)["score_log_rows"])')
    nb=$(cat "$2")
    [ "$na" = "$nb" ]
  }
  # The DuckDB side is a Node.js process that loads DuckDB's native library
  # before converting. Each round also times that start-up alone (a
  # one-line input), right after the pair, so that the start-up subtracted
  # comes from the same minutes as the conversions (this machine's speed
  # drifts); the ratio against DuckDB's median less that median ("conversion
  # only") is DuckDB's own conversion speed.
  printf '{"a":1}\n' > "$OUT/inputs/one.jsonl"
  duckstart() { node interop/duckdb_convert.mjs json "$OUT/inputs/one.jsonl" "$OUT/duck1.parquet" > /dev/null 2>&1; }
  # duckpair NAME "rdeval command" "DuckDB command" CHECK-FUNCTION
  # A third measure needs no subtraction: duckdb_convert.mjs times the COPY
  # statement inside its own process (stderr "copy_s S"), which leaves out
  # Node.js's and DuckDB's start-up and the row count it reads back, while
  # rdeval's time stays its whole process (start-up, hashing, fsync).
  duckpair() {
    local name=$1 a=$2 b=$3 check=$4
    local ta=() tb=() tc=() td=()
    eval "$a" > "$OUT/$name.a.out" 2>/dev/null; eval "$b" > "$OUT/$name.b.out" 2>/dev/null; duckstart   # warm-up
    $check "$OUT/$name.a.out" "$OUT/$name.b.out" || { echo "$name: outputs differ" >&2; exit 1; }
    for ((i = 0; i < ROUNDS; i++)); do
      local s
      clock; s=$REPLY; eval "$a" > /dev/null 2>&1; clock; ta+=("$(echo "$REPLY - $s" | bc -l)")
      clock; s=$REPLY; eval "$b" > /dev/null 2> "$OUT/duck.err"; clock; tb+=("$(echo "$REPLY - $s" | bc -l)")
      td+=("$(sed -n 's/^copy_s //p' "$OUT/duck.err")")
      clock; s=$REPLY; duckstart; clock; tc+=("$(echo "$REPLY - $s" | bc -l)")
    done
    local ma mb mc md
    ma=$(printf '%s\n' "${ta[@]}" | median); mb=$(printf '%s\n' "${tb[@]}" | median); mc=$(printf '%s\n' "${tc[@]}" | median); md=$(printf '%s\n' "${td[@]}" | median)
    printf '| %s, whole processes | %.3f | %.3f | %.1f× |\n' "$name" "$ma" "$mb" "$(echo "$mb / $ma" | bc -l)"
    printf '| … DuckDB start-up alone (Node.js + DuckDB, a one-line input), same rounds | — | %.3f | — |\n' "$mc"
    printf '| … conversion only (DuckDB median less its start-up median) | %.3f | %.3f | %.1f× |\n' "$ma" "$(echo "$mb - $mc" | bc -l)" "$(echo "($mb - $mc) / $ma" | bc -l)"
    printf '| … DuckDB COPY statement alone, timed inside its process (rdeval: whole process) | %.3f | %.3f | %.2f× |\n' "$ma" "$md" "$(echo "$md / $ma" | bc -l)"
  }
  duckpair "JSONL → Parquet, METR ×$REPEAT: rdeval ingest vs DuckDB COPY read_json_auto" \
    "rm -rf \"$OUT/ing\" && \"$R\" ingest \"$BIG\" -o \"$OUT/ing\"" \
    "node interop/duckdb_convert.mjs json \"$BIG\" \"$OUT/duck.parquet\"" check_duck_jsonl
  duckpair "CSV score log 10^6 rows → Parquet: rdeval ingest vs DuckDB COPY read_csv" \
    "rm -rf \"$OUT/ing\" && \"$R\" ingest \"$OUT/inputs/run-1/score.log\" -o \"$OUT/ing\"" \
    "node interop/duckdb_convert.mjs csv \"$OUT/inputs/run-1/score.log\" \"$OUT/duck.parquet\"" check_duck_csv
else
  echo "(DuckDB pairs skipped: run (cd interop && npm ci))"
fi
