#!/usr/bin/Rscript
# Independent reference for rdeval's logistic GLMMs beyond mixed.R: adaptive
# Gauss–Hermite quadrature (glmer nAGQ > 1), crossed random intercepts,
# binomial prior weights (y = proportion, weights = trials) and offsets
# (analysis/glmm_*.go).
#
# Usage (Debian r-base-core and r-cran-lme4; run from the repository root):
#   Rscript testdata/reference/glmm.R
# writes testdata/reference/glmm_data.csv (the seeded synthetic data set),
# glmm_coef.csv (fixed effects: estimate, SE from vcov(fit), SE from
# vcov(fit, use.hessian = FALSE)), glmm_varcomp.csv (as.data.frame(VarCorr))
# and glmm_stats.csv (nAGQ, logLik, AIC, BIC, −2·logLik, theta, isSingular).
# Each output's first line records the R and lme4 versions and this command.
#
# Every model is fitted twice: with glmerControl(tolPwrss = 1e-12) (model id
# as listed) and with lme4's default tolPwrss = 1e-7 (id "<id>@default").
# The default stops each penalized IRLS when the penalized weighted residual
# sum of squares changes by under 1e-7 relative, so its deviance function is
# accurate only to about that much: with about 10 rows a group its Laplace
# optimum here moves by up to 2e-3 relative (and its Hessian-based SEs by
# 1e-2) from the optimum of the exact Laplace objective, which the tight fit
# finds and rdeval computes. rdeval's tests match the tight fits at the
# issue's tolerances and check the default fits more loosely.
#
# Data generator (set.seed(20261203), 600 rows):
#   g ∈ {g1..g60} uniformly (about 10 rows a group, unbalanced);
#   h ∈ {h1..h12} uniformly, crossed with g;
#   x1 ~ N(0, 1); x2 ~ U(0, 1); off ~ U(−0.5, 0.5) (an offset);
#   a_g ~ N(0, 1.5²), c_h ~ N(0, 0.7²);
#   yb  ~ Bernoulli(logit⁻¹(−0.3 + 0.8·x1 − 0.6·x2 + a_g))           ((1|g), AGQ);
#   yc  ~ Bernoulli(logit⁻¹(−0.3 + 0.8·x1 − 0.6·x2 + a_g + c_h))     ((1|g) + (1|h));
#   yo  ~ Bernoulli(logit⁻¹(off + 0.2 + 0.7·x1 + a_g))               (offset = off);
#   trials ~ 1 + Poisson(4); prop = Binomial(trials, logit⁻¹(−0.2 + 0.6·x1 + a_g)) / trials.
options(digits = 17)
set.seed(20261203)
n <- 600
gi <- sample(1:60, n, replace = TRUE)
hi <- sample(1:12, n, replace = TRUE)
x1 <- round(rnorm(n), 6)
x2 <- round(runif(n), 6)
off <- round(runif(n, -0.5, 0.5), 6)
a <- rnorm(60, 0, 1.5)
ch <- rnorm(12, 0, 0.7)
yb <- rbinom(n, 1, plogis(-0.3 + 0.8 * x1 - 0.6 * x2 + a[gi]))
yc <- rbinom(n, 1, plogis(-0.3 + 0.8 * x1 - 0.6 * x2 + a[gi] + ch[hi]))
yo <- rbinom(n, 1, plogis(off + 0.2 + 0.7 * x1 + a[gi]))
trials <- 1 + rpois(n, 4)
prop <- rbinom(n, trials, plogis(-0.2 + 0.6 * x1 + a[gi])) / trials
d <- data.frame(yb = yb, yc = yc, yo = yo, prop = prop, trials = trials, x1 = x1, x2 = x2,
                off = off, g = paste0("g", gi), h = paste0("h", hi))
write.csv(d, "testdata/reference/glmm_data.csv", row.names = FALSE, quote = FALSE)
d <- read.csv("testdata/reference/glmm_data.csv")

library(lme4)
versions <- sprintf("# Rscript testdata/reference/glmm.R; %s; lme4 %s",
                    R.version.string, as.character(packageVersion("lme4")))

source("testdata/reference/glmm_models.R")

coef_rows <- list(); vc_rows <- list(); stat_rows <- list()
tight <- lapply(models, function(m) { m$tol <- 1e-12; m })
loose <- lapply(models, function(m) { m$tol <- 1e-7; m$id <- paste0(m$id, "@default"); m })
for (m in c(tight, loose)) {
  d$.w <- if (m$weights == "") rep(1, n) else d[[m$weights]]
  d$.o <- if (m$offset == "") rep(0, n) else d[[m$offset]]
  fit <- glmer(as.formula(m$formula), data = d, family = binomial, nAGQ = m$nagq,
               weights = .w, offset = .o, control = glmerControl(tolPwrss = m$tol))
  est <- fixef(fit)
  se <- sqrt(diag(as.matrix(vcov(fit))))
  se_rx <- sqrt(diag(as.matrix(vcov(fit, use.hessian = FALSE))))
  coef_rows[[m$id]] <- data.frame(model = m$id, term = names(est), estimate = unname(est),
                                  se = unname(se), se_rx = unname(se_rx))
  vc <- as.data.frame(VarCorr(fit))
  vc_rows[[m$id]] <- data.frame(model = m$id, group = vc$grp, variance = vc$vcov, sd = vc$sdcor)
  stat_rows[[m$id]] <- data.frame(model = m$id, formula = m$formula, nagq = m$nagq, tol_pwrss = m$tol,
                                  weights = m$weights, offset = m$offset, n = nobs(fit),
                                  loglik = as.numeric(logLik(fit)), aic = AIC(fit), bic = BIC(fit),
                                  criterion = -2 * as.numeric(logLik(fit)),
                                  theta = paste(sprintf("%.17g", getME(fit, "theta")), collapse = " "),
                                  singular = if (isSingular(fit)) "true" else "false",
                                  warnings = paste(fit@optinfo$conv$lme4$messages, collapse = "; "))
}

fmt <- function(df) { for (j in seq_along(df)) if (is.numeric(df[[j]])) df[[j]] <- sprintf("%.17g", df[[j]]); df }
out <- function(rows, file) {
  con <- file(file, "w")
  writeLines(versions, con)
  write.csv(fmt(do.call(rbind, rows)), con, row.names = FALSE)
  close(con)
}
out(coef_rows, "testdata/reference/glmm_coef.csv")
out(vc_rows, "testdata/reference/glmm_varcomp.csv")
out(stat_rows, "testdata/reference/glmm_stats.csv")
