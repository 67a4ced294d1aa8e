#!/usr/bin/Rscript
# Independent reference for rdeval's profile-likelihood intervals under
# separation (analysis.GLMProfileCI; issue 25 item 3).
#
# Usage (Debian r-base-core, r-cran-mass; run from the repository root):
#   Rscript testdata/reference/glm_separation.R
# writes testdata/reference/glm_separation_data.csv (the seeded data) and
# testdata/reference/glm_separation.csv: per coefficient of y ~ x + f, R's
# confint(fit) (MASS's profile.glm in R 4.2; NA where the profile does not
# reach the limit) with the warnings glm and confint give, and the true 95 %
# profile interval computed here by brute force: the profile deviance
#   pd(b) = deviance(glm.fit(<other columns>, y, offset = x_j·b, etastart =
#           the fit's linear predictor, as MASS's profile.glm starts))
# is convex in b; D* = its infimum over all b (the deviance at the
# separated limit, approached as b → ±∞ on the diverging side); a limit
# is the root of pd(b) − D* = qchisq(0.95, 1) (uniroot, tol 1e-10), and
# "Inf"/"-Inf" where pd stays below D* + qchisq(0.95, 1) as b → ±∞ (checked
# at b = β̂ ± 10^k, k = 1..4: the columns pd_at_1e4 record it).
#
# Data generator (set.seed(20261204), 40 rows): x ~ N(0, 1) rounded to 1e-6;
# f ∈ {a, b} alternately; y ~ Bernoulli(logit⁻¹(−0.5 + x)) when f = a and
# y = 1 when f = b: quasi-complete separation by fb (every f = b row
# succeeds), whose MLE is +∞ and whose interval is (L, +∞).
options(digits = 17)
library(MASS)
versions <- sprintf("# Rscript testdata/reference/glm_separation.R; %s; MASS %s",
                    R.version.string, as.character(packageVersion("MASS")))
set.seed(20261204)
n <- 40
x <- round(rnorm(n), 6)
f <- rep(c("a", "b"), length.out = n)
y <- ifelse(f == "b", 1, rbinom(n, 1, plogis(-0.5 + x)))
d <- data.frame(y = y, x = x, f = f)
write.csv(d, "testdata/reference/glm_separation_data.csv", row.names = FALSE, quote = FALSE)
d <- read.csv("testdata/reference/glm_separation_data.csv")
warns <- character()
keep <- function(w) { warns <<- c(warns, conditionMessage(w)); invokeRestart("muffleWarning") }
fit <- withCallingHandlers(glm(y ~ x + f, family = binomial, data = d), warning = keep)
fit_warn <- paste(unique(warns), collapse = "; ")
warns <- character()
ci <- withCallingHandlers(suppressMessages(confint(fit)), warning = keep)
ci_warn <- paste(unique(warns), collapse = "; ")
X <- model.matrix(fit)
cut <- qchisq(0.95, 1)
pd <- function(j, b) {
  suppressWarnings(deviance(glm.fit(X[, -j, drop = FALSE], d$y, family = binomial(), offset = X[, j] * b,
                                    etastart = fit$linear.predictors,
                                    control = glm.control(epsilon = 1e-12, maxit = 200))))
}
rows <- list()
for (j in seq_len(ncol(X))) {
  b0 <- coef(fit)[j]
  far <- sapply(10^(1:4), function(s) c(pd(j, b0 - s), pd(j, b0 + s)))
  dstar <- min(deviance(fit), far)
  lim <- function(side) {
    fars <- far[if (side < 0) 1 else 2, ]
    if (all(fars - dstar < cut)) return(side * Inf)
    # bracket: from b0 outwards in doublings until pd − D* ≥ cut
    s <- 1
    while (pd(j, b0 + side * s) - dstar < cut) s <- 2 * s
    uniroot(function(b) pd(j, b) - dstar - cut, sort(c(b0, b0 + side * s)), tol = 1e-10)$root
  }
  rows[[j]] <- data.frame(term = colnames(X)[j], estimate = b0, se = summary(fit)$coefficients[j, 2],
                          r_ci_low = ci[j, 1], r_ci_high = ci[j, 2], true_low = lim(-1), true_high = lim(1),
                          dstar = dstar, pd_low_1e4 = far[1, 4], pd_high_1e4 = far[2, 4],
                          fit_warning = fit_warn, confint_warning = ci_warn)
}
fmt <- function(df) { for (j in seq_along(df)) if (is.numeric(df[[j]])) df[[j]] <- sprintf("%.17g", df[[j]]); df }
con <- file("testdata/reference/glm_separation.csv", "w")
writeLines(versions, con)
write.csv(fmt(do.call(rbind, rows)), con, row.names = FALSE)
close(con)
