#!/usr/bin/Rscript
# Reference for analysis.WaldPowerExact: the exact power of the two-sided
# unpooled two-proportion z-test (Wald) with n runs per arm,
#   sum over a, b in 0..n of dbinom(a, n, pa) dbinom(b, n, pb) [|pa^ - pb^| / se > z],
#   se = sqrt(pa^(1-pa^)/n + pb^(1-pb^)/n); se = 0 rejects when pa^ != pb^.
# Usage (Debian r-base-core; from the repository root):
#   Rscript testdata/reference/power_wald.R > testdata/reference/power_wald.csv
cat(sprintf("# Rscript testdata/reference/power_wald.R; %s\n", R.version.string))
cat("pa,pb,n,alpha,power_exact,power_normal\n")
z <- qnorm(0.975)
for (cs in list(c(0.3, 0.5, 6), c(0.3, 0.5, 30), c(0.3, 0.5, 120), c(0.2, 0.25, 36), c(0.4, 0.4, 10), c(0.4, 0.4, 240), c(0.05, 0.3, 8), c(0.9, 0.6, 300))) {
  pa <- cs[1]; pb <- cs[2]; n <- cs[3]
  a <- 0:n; ha <- a / n
  rej <- outer(ha, ha, function(x, y) { se <- sqrt(x * (1 - x) / n + y * (1 - y) / n); ifelse(se == 0, x != y, abs(x - y) / se > z) })
  p <- sum(outer(dbinom(a, n, pa), dbinom(a, n, pb)) * rej)
  se <- sqrt(pa * (1 - pa) / n + pb * (1 - pb) / n)
  pn <- if (se == 0) 0 else pnorm(abs(pa - pb) / se - z) + pnorm(-abs(pa - pb) / se - z)
  cat(sprintf("%g,%g,%d,0.05,%.17g,%.17g\n", pa, pb, n, p, pn))
}
