# Reference for execute.MeanSD (the gold calibration of `rdeval execute gold`):
# sample mean and sd (n - 1 denominator) of fixed vectors.
# Run from the repository root: Rscript execute/testdata/reference/gold_meansd.R > execute/testdata/reference/gold_meansd.csv
xs <- list(
  acc5 = c(0.8125, 0.8131, 0.8119, 0.8127, 0.8122),
  loss3 = c(1.5e-3, 2.25e-3, 9.75e-4),
  const2 = c(0.5, 0.5),
  wide4 = c(-12.5, 3, 1e3, 7.25)
)
cat(sprintf("# Rscript execute/testdata/reference/gold_meansd.R; %s\n", R.version.string))
cat("name,n,mean,sd\n")
for (k in names(xs)) cat(sprintf("%s,%d,%.17g,%.17g\n", k, length(xs[[k]]), mean(xs[[k]]), sd(xs[[k]])))
