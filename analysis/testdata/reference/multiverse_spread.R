# Reference for analysis.SummarizeSpread (TestSummarizeSpreadReference).
# Run: Rscript analysis/testdata/reference/multiverse_spread.R > analysis/testdata/reference/multiverse_spread.txt
est <- c(0.42, 0.31, 0.57, 0.44, 0.29, 0.61, 0.38)
lo  <- c(0.30, 0.20, 0.41, NA, 0.15, 0.47, 0.25)
hi  <- c(0.55, 0.44, 0.70, NA, 0.40, 0.79, 0.52)
cat(sprintf("# Rscript multiverse_spread.R; %s\n", R.version.string))
q <- quantile(est, c(.1, .5, .9), type = 7, names = FALSE)
cat(sprintf("%.17g\n", c(min(est), max(est), diff(range(est)), q, min(lo, na.rm = TRUE), max(hi, na.rm = TRUE), max(hi, na.rm = TRUE) - min(lo, na.rm = TRUE))))
