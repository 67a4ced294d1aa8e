#!/usr/bin/Rscript
# lme4 peer of `rdeval regress --formula "yb ~ x1 + x2 + (1 | g)" --family binomial`:
# glmer with the Laplace approximation (nAGQ = 1), lme4's default.
# Usage: Rscript bench/glmm_lme4.R DATA.csv   prints term,estimate,std_error
suppressPackageStartupMessages(library(lme4))
d <- read.csv(commandArgs(trailingOnly = TRUE)[1])
fit <- glmer(yb ~ x1 + x2 + (1 | g), data = d, family = binomial, nAGQ = 1)
cf <- summary(fit)$coefficients
options(digits = 15)
write.csv(data.frame(term = rownames(cf), estimate = cf[, 1], std_error = cf[, 2]), stdout(), row.names = FALSE, quote = FALSE)
