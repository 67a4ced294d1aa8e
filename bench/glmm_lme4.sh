#!/usr/bin/env bash
# Side-by-side benchmark of rdeval's logistic GLMM against lme4::glmer
# (issue #8: "GLMM 10,000 rows × 50 groups at least as fast as lme4").
#
# Usage: bash bench/glmm_lme4.sh [ROUNDS]      (from the repository root)
#
# Needs Rscript with lme4 (Debian r-cran-lme4). Writes a seeded data set
# (10,000 rows; g: 50 groups, h: 10 groups crossed; y ~ Bernoulli) to
# bench/out/glmm_bench.csv, then times, for the Laplace fit (nAGQ = 1),
# adaptive Gauss–Hermite with 10 and 25 points, and the crossed Laplace fit:
#   lme4: glmer() alone inside one R session (data in memory; no R start-up),
#   rdeval: the whole `rdeval regress` command (start-up and CSV read
#   included),
# each ROUNDS times (default 5) after a warm-up, and prints the medians, the
# ratio lme4/rdeval, and the largest relative difference of the fixed
# effects (glmer's default tolPwrss = 1e-7 leaves it about 1e-3 from the
# exact optimum; rdeval solves the PIRLS to convergence). Wall-clock timings
# on a shared machine: read the medians.
set -euo pipefail
cd "$(dirname "$0")/.."
ROUNDS="${1:-5}"
OUT=bench/out
mkdir -p "$OUT"
command -v Rscript >/dev/null || { echo "glmm_lme4.sh: needs Rscript with lme4" >&2; exit 2; }
go build -o "$OUT/rdeval" ./cmd/rdeval
Rscript -e 'set.seed(20261208); n <- 10000; g <- sample(1:50, n, TRUE); h <- sample(1:10, n, TRUE)
  x1 <- round(rnorm(n), 6); x2 <- round(runif(n), 6); a <- rnorm(50, 0, 0.7); c <- rnorm(10, 0, 0.4)
  y <- rbinom(n, 1, plogis(-0.3 + 0.6 * x1 - 0.8 * x2 + a[g] + c[h]))
  write.csv(data.frame(y = y, x1 = x1, x2 = x2, g = paste0("g", g), h = paste0("h", h)),
            "bench/out/glmm_bench.csv", row.names = FALSE, quote = FALSE)'
Rscript bench/glmm_lme4_models.R "$ROUNDS" "$OUT/glmm_lme4_times.csv"

# The clock: bash's $EPOCHREALTIME where there is one (no process started
# per reading; see compare.sh).
export LC_ALL=C
if [ -n "${EPOCHREALTIME:-}" ]; then clock() { REPLY=$EPOCHREALTIME; }; else clock() { REPLY=$(date +%s.%N); }; fi
median() { sort -g | awk '{a[NR]=$1} END {if (NR%2) print a[(NR+1)/2]; else print (a[NR/2]+a[NR/2+1])/2}'; }
printf "%-8s %12s %12s %8s %14s\n" model lme4_s rdeval_s ratio max_rel_diff
while IFS=, read -r model secs b0 b1 b2; do
  model=${model//\"/}
  [ "$model" = model ] && continue
  case $model in
    laplace) args=(--formula "y ~ x1 + x2 + (1|g)") ;;
    agq10) args=(--formula "y ~ x1 + x2 + (1|g)" --nagq 10) ;;
    agq25) args=(--formula "y ~ x1 + x2 + (1|g)" --nagq 25) ;;
    crossed) args=(--formula "y ~ x1 + x2 + (1|g) + (1|h)") ;;
  esac
  run() { "$OUT/rdeval" regress --data "$OUT/glmm_bench.csv" --table "${args[@]}" --format json --quiet 2>/dev/null; }
  run > "$OUT/glmm_$model.json"
  ts=()
  for ((i = 0; i < ROUNDS; i++)); do clock; s=$REPLY; run > /dev/null; clock; ts+=("$(echo "$REPLY - $s" | bc -l)"); done
  rd=$(printf '%s\n' "${ts[@]}" | median)
  diff=$(python3 -c "import json,sys; c=json.load(open('$OUT/glmm_$model.json'))['coefficients']; r=[$b0,$b1,$b2]; print('%.2g' % max(abs(x['estimate']-v)/abs(v) for x,v in zip(c,r)))")
  printf "%-8s %12.3f %12.3f %8.1f %14s\n" "$model" "$secs" "$rd" "$(echo "$secs / $rd" | bc -l)" "$diff"
done < "$OUT/glmm_lme4_times.csv"
