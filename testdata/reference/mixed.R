#!/usr/bin/Rscript
# Independent reference for rdeval's mixed models (analysis/mixed.go).
#
# Usage (Debian r-base-core and r-cran-lme4; run from the repository root):
#   Rscript testdata/reference/mixed.R
# writes testdata/reference/mixed_data.csv (the seeded synthetic data set),
# mixed_coef.csv (fixed effects: estimate, SE from vcov(fit), and for glmer
# also the SE from vcov(fit, use.hessian = FALSE), i.e. from the final
# PIRLS's RX), mixed_varcomp.csv (variance components, as.data.frame(VarCorr))
# and mixed_stats.csv (logLik, AIC, BIC, the criterion minimized: REMLcrit
# for REML, deviance for ML lmer, −2·logLik (Laplace) for glmer; sigma,
# theta, isSingular, the offset column or ""). Each output's first line records the R and lme4 versions and this
# command.
#
# Data generator (set.seed(20261202), 2000 rows):
#   g ∈ {g1..g30} drawn uniformly (unbalanced group sizes);
#   h ∈ {h1..h8} drawn uniformly, crossed with g;
#   x1 ~ N(0, 1); x2 ~ U(0, 1);
#   b_g ~ N(0, 0.8²), c_h ~ N(0, 0.5²), a_g ~ N(0, 0.7²);
#   y  = 1 + 0.5·x1 − 0.7·x2 + b_g + N(0, 1.5²)              (lmer, (1|g));
#   y2 = 1 + 0.5·x1 − 0.7·x2 + b_g + c_h + N(0, 1.5²)        (lmer, (1|g) + (1|h));
#   yb ~ Bernoulli(logit⁻¹(−0.5 + 0.8·x1 − 0.6·x2 + a_g))   (glmer, (1|g)).
options(digits = 17)
set.seed(20261202)
n <- 2000
gi <- sample(1:30, n, replace = TRUE)
hi <- sample(1:8, n, replace = TRUE)
x1 <- round(rnorm(n), 6)
x2 <- round(runif(n), 6)
b <- rnorm(30, 0, 0.8)
ch <- rnorm(8, 0, 0.5)
a <- rnorm(30, 0, 0.7)
y <- round(1 + 0.5 * x1 - 0.7 * x2 + b[gi] + rnorm(n, 0, 1.5), 6)
y2 <- round(1 + 0.5 * x1 - 0.7 * x2 + b[gi] + ch[hi] + rnorm(n, 0, 1.5), 6)
yb <- rbinom(n, 1, plogis(-0.5 + 0.8 * x1 - 0.6 * x2 + a[gi]))
d <- data.frame(y = y, y2 = y2, yb = yb, x1 = x1, x2 = x2, g = paste0("g", gi), h = paste0("h", hi))
write.csv(d, "testdata/reference/mixed_data.csv", row.names = FALSE, quote = FALSE)
d <- read.csv("testdata/reference/mixed_data.csv")

library(lme4)
versions <- sprintf("# Rscript testdata/reference/mixed.R; %s; lme4 %s",
                    R.version.string, as.character(packageVersion("lme4")))

models <- list(
  list(id = "lmm_reml", formula = "y ~ x1 + x2 + (1|g)", family = "gaussian", reml = TRUE),
  list(id = "lmm_ml", formula = "y ~ x1 + x2 + (1|g)", family = "gaussian", reml = FALSE),
  list(id = "lmm_crossed_reml", formula = "y2 ~ x1 + x2 + (1|g) + (1|h)", family = "gaussian", reml = TRUE),
  list(id = "lmm_crossed_ml", formula = "y2 ~ x1 + x2 + (1|g) + (1|h)", family = "gaussian", reml = FALSE),
  list(id = "glmm_laplace", formula = "yb ~ x1 + x2 + (1|g)", family = "binomial", reml = FALSE),
  list(id = "lmm_offset_reml", formula = "y ~ x1 + (1|g)", family = "gaussian", reml = TRUE, offset = "x2"),
  list(id = "lmm_offset_ml", formula = "y2 ~ x1 + (1|g) + (1|h)", family = "gaussian", reml = FALSE, offset = "x2")
)

coef_rows <- list(); vc_rows <- list(); stat_rows <- list()
for (m in models) {
  if (is.null(m$offset)) m$offset <- ""
  d$.o <- if (m$offset == "") rep(0, nrow(d)) else d[[m$offset]]
  if (m$family == "gaussian") {
    fit <- lmer(as.formula(m$formula), data = d, REML = m$reml, offset = .o)
    se_rx <- sqrt(diag(as.matrix(vcov(fit))))
    crit <- if (m$reml) REMLcrit(fit) else deviance(fit)
  } else {
    fit <- glmer(as.formula(m$formula), data = d, family = binomial, nAGQ = 1)
    se_rx <- sqrt(diag(as.matrix(vcov(fit, use.hessian = FALSE))))
    crit <- -2 * as.numeric(logLik(fit))  # the Laplace objective (deviance(fit) is the conditional one)
  }
  est <- fixef(fit)
  se <- sqrt(diag(as.matrix(vcov(fit))))
  coef_rows[[m$id]] <- data.frame(model = m$id, term = names(est), estimate = unname(est),
                                  se = unname(se), se_rx = unname(se_rx))
  vc <- as.data.frame(VarCorr(fit))
  vc_rows[[m$id]] <- data.frame(model = m$id, group = vc$grp, variance = vc$vcov, sd = vc$sdcor)
  stat_rows[[m$id]] <- data.frame(model = m$id, formula = m$formula, family = m$family,
                                  reml = if (m$reml) "true" else "false", n = nobs(fit),
                                  loglik = as.numeric(logLik(fit)), aic = AIC(fit), bic = BIC(fit),
                                  criterion = crit, sigma = sigma(fit),
                                  theta = paste(sprintf("%.17g", getME(fit, "theta")), collapse = " "),
                                  singular = if (isSingular(fit)) "true" else "false",
                                  offset = m$offset)
}

fmt <- function(df) { for (j in seq_along(df)) if (is.numeric(df[[j]])) df[[j]] <- sprintf("%.17g", df[[j]]); df }
out <- function(rows, file) {
  con <- file(file, "w")
  writeLines(versions, con)
  write.csv(fmt(do.call(rbind, rows)), con, row.names = FALSE)
  close(con)
}
out(coef_rows, "testdata/reference/mixed_coef.csv")
out(vc_rows, "testdata/reference/mixed_varcomp.csv")
out(stat_rows, "testdata/reference/mixed_stats.csv")
