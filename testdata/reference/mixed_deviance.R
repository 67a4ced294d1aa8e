#!/usr/bin/Rscript
# Independent reference for the deviance and residual degrees of freedom
# of rdeval's mixed models (analysis.MixedFit.Deviance, DFResidual; issue 25
# item 5: the JSON had deviance null and df_residual 0).
#
# Usage (Debian r-base-core and r-cran-lme4; run from the repository root):
#   Rscript testdata/reference/mixed_deviance.R
# reads testdata/reference/mixed_data.csv (mixed.R) and glmm_data.csv
# (glmm.R) and writes testdata/reference/mixed_deviance.csv: for each model,
# n, deviance(fit), df.residual(fit), −2·logLik(fit) and the warning
# deviance() gives (if any). Its first line records the R and lme4 versions
# and this command. lme4 1.1's definitions (lme4:::deviance.merMod,
# df.residual.merMod, npar.merMod):
#   glmer:      deviance = sum(residuals(fit, "deviance")^2), the conditional
#               deviance Σ w·devres(y, μ(β̂, û)) at the conditional modes;
#   lmer ML:    deviance = the ML criterion (−2·logLik);
#   lmer REML:  deviance() warns that it is deprecated and returns REMLcrit;
#   df.residual = nobs − (length(β) + length(θ) + useSc), useSc = 1 for lmer.
# The glmer fits use glmerControl(tolPwrss = 1e-12), as rdeval's.
options(digits = 17)
library(lme4)
versions <- sprintf("# Rscript testdata/reference/mixed_deviance.R; %s; lme4 %s",
                    R.version.string, as.character(packageVersion("lme4")))
rows <- list()
one <- function(id, data, formula, family, reml = FALSE, nagq = 1, weights = "", offset = "") {
  data$.w <- if (weights == "") rep(1, nrow(data)) else data[[weights]]
  data$.o <- if (offset == "") rep(0, nrow(data)) else data[[offset]]
  fit <- if (family == "gaussian") {
    lmer(as.formula(formula), data = data, REML = reml, offset = .o)
  } else {
    glmer(as.formula(formula), data = data, family = binomial, nAGQ = nagq, weights = .w, offset = .o,
          control = glmerControl(tolPwrss = 1e-12))
  }
  warn <- ""
  dev <- withCallingHandlers(deviance(fit), warning = function(w) { warn <<- conditionMessage(w); invokeRestart("muffleWarning") })
  rows[[id]] <<- data.frame(model = id, formula = formula, family = family, reml = if (reml) "true" else "false",
                            nagq = nagq, weights = weights, offset = offset, n = nobs(fit), deviance = dev,
                            df_residual = df.residual(fit), m2loglik = -2 * as.numeric(logLik(fit)), warning = warn)
}
d <- read.csv("testdata/reference/mixed_data.csv")
one("lmm_reml", d, "y ~ x1 + x2 + (1|g)", "gaussian", reml = TRUE)
one("lmm_ml", d, "y ~ x1 + x2 + (1|g)", "gaussian")
one("lmm_crossed_reml", d, "y2 ~ x1 + x2 + (1|g) + (1|h)", "gaussian", reml = TRUE)
one("lmm_crossed_ml", d, "y2 ~ x1 + x2 + (1|g) + (1|h)", "gaussian")
one("glmm_laplace", d, "yb ~ x1 + x2 + (1|g)", "binomial")
one("lmm_offset_reml", d, "y ~ x1 + (1|g)", "gaussian", reml = TRUE, offset = "x2")
e <- read.csv("testdata/reference/glmm_data.csv")
source("testdata/reference/glmm_models.R")
for (m in models) one(m$id, e, m$formula, "binomial", nagq = m$nagq, weights = m$weights, offset = m$offset)
fmt <- function(df) { for (j in seq_along(df)) if (is.numeric(df[[j]])) df[[j]] <- sprintf("%.17g", df[[j]]); df }
con <- file("testdata/reference/mixed_deviance.csv", "w")
writeLines(versions, con)
write.csv(fmt(do.call(rbind, rows)), con, row.names = FALSE)
close(con)
