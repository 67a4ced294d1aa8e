#!/usr/bin/Rscript
# Times lme4::glmer on bench/out/glmm_bench.csv for bench/glmm_lme4.sh.
# Usage: Rscript bench/glmm_lme4_models.R ROUNDS OUT.csv
# For each model, fits ROUNDS times (after one warm-up fit) and writes the
# median elapsed seconds of glmer() alone (data already in memory, lme4
# loaded) and the fixed effects of the last fit.
args <- commandArgs(trailingOnly = TRUE)
rounds <- as.integer(args[1])
suppressMessages(library(lme4))
d <- read.csv("bench/out/glmm_bench.csv")
models <- list(laplace = list(f = y ~ x1 + x2 + (1|g), q = 1), agq10 = list(f = y ~ x1 + x2 + (1|g), q = 10),
               agq25 = list(f = y ~ x1 + x2 + (1|g), q = 25), crossed = list(f = y ~ x1 + x2 + (1|g) + (1|h), q = 1))
rows <- list()
for (id in names(models)) {
  m <- models[[id]]
  fit1 <- function() suppressMessages(glmer(m$f, data = d, family = binomial, nAGQ = m$q))
  fit <- fit1()
  ts <- replicate(rounds, system.time(fit <- fit1())[["elapsed"]])
  b <- fixef(fit)
  rows[[id]] <- data.frame(model = id, seconds = median(ts), b0 = b[[1]], b1 = b[[2]], b2 = b[[3]])
}
write.csv(do.call(rbind, rows), args[2], row.names = FALSE)
