#!/usr/bin/Rscript
# Accurate Hessian-based standard errors for the tight fits of glmm.R, as
# an independent reference for rdeval's GLMM SEs (analysis/glmm*.go).
#
# lme4's default vcov() (use.hessian = TRUE) inverts a Hessian of the
# deviance in (theta, beta) that lme4 gets by central finite differences
# (deriv12, step 1e-4), which carries that step's error and the PIRLS
# noise: about 1e-3 relative in the SEs here. This script takes lme4's own
# deviance function of the same fit (update(fit, devFunOnly = TRUE), with
# tolPwrss = 1e-12) and differentiates it with numDeriv::hessian, Richardson
# extrapolation over 6 steps; the SEs of the fixed effects are the square
# roots of the beta block's diagonal of 2·H⁻¹ (the block of the inverse is
# the same whatever the scale of theta, at the optimum).
#
# Usage (Debian r-base-core, r-cran-lme4, r-cran-numderiv; from the
# repository root, after glmm.R wrote glmm_data.csv):
#   Rscript testdata/reference/glmm_hessian.R
# writes testdata/reference/glmm_hessian_se.csv (model, term, se_numderiv;
# also mixed.R's logistic GLMM on mixed_data.csv as "mixed:glmm_laplace"),
# the first line recording R, lme4 and numDeriv versions and this command.
options(digits = 17)
suppressMessages({ library(lme4); library(numDeriv) })
d <- read.csv("testdata/reference/glmm_data.csv")
n <- nrow(d)
versions <- sprintf("# Rscript testdata/reference/glmm_hessian.R; %s; lme4 %s; numDeriv %s",
                    R.version.string, as.character(packageVersion("lme4")), as.character(packageVersion("numDeriv")))
source("testdata/reference/glmm_models.R")
# mixed.R's logistic GLMM (on mixed_data.csv), as model "mixed:glmm_laplace".
models[[length(models) + 1]] <- list(id = "mixed:glmm_laplace", formula = "yb ~ x1 + x2 + (1|g)", nagq = 1,
                                     weights = "", offset = "", data = "testdata/reference/mixed_data.csv")
rows <- list()
d0 <- d
for (m in models) {
  d <- if (is.null(m$data)) d0 else read.csv(m$data)
  n <- nrow(d)
  d$.w <- if (m$weights == "") rep(1, n) else d[[m$weights]]
  d$.o <- if (m$offset == "") rep(0, n) else d[[m$offset]]
  ctl <- glmerControl(tolPwrss = 1e-12)
  fit <- glmer(as.formula(m$formula), data = d, family = binomial, nAGQ = m$nagq,
               weights = .w, offset = .o, control = ctl)
  dev <- update(fit, devFunOnly = TRUE)
  theta <- getME(fit, "theta"); beta <- fixef(fit)
  H <- hessian(dev, c(theta, beta), method.args = list(r = 6))
  V <- 2 * solve(H)
  k <- length(theta)
  se <- sqrt(diag(V)[k + seq_along(beta)])
  rows[[m$id]] <- data.frame(model = m$id, term = names(beta), se_numderiv = sprintf("%.17g", unname(se)))
}
con <- file("testdata/reference/glmm_hessian_se.csv", "w")
writeLines(versions, con)
write.csv(do.call(rbind, rows), con, row.names = FALSE)
close(con)
