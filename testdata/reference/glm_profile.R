#!/usr/bin/Rscript
# Independent reference for rdeval's profile-likelihood intervals of GLM
# coefficients (analysis/glm_profile.go) and for GLM offsets.
#
# Usage (Debian r-base-core, r-cran-mass; run from the repository root):
#   Rscript testdata/reference/glm_profile.R
# reads testdata/reference/glm_data.csv (written by glm.R) and writes
# testdata/reference/glm_profile.csv: for each model, each coefficient's
# estimate and SE (summary.glm), and confint(fit) — in R 4.2 the profile
# likelihood interval of MASS's confint.glm (profile.glm, then an fmm
# spline of the signed root deviance interpolated at ±qnorm(0.975)) — with
# the deviance. The first line records the R and MASS versions and this
# command. An offset is given either as offset= (column "offset") or inside
# the formula.
options(digits = 17)
d <- read.csv("testdata/reference/glm_data.csv")
library(MASS)
versions <- sprintf("# Rscript testdata/reference/glm_profile.R; %s; MASS %s",
                    R.version.string, as.character(packageVersion("MASS")))
models <- list(
  list(id = "bin_main", formula = "y ~ x1 + x2 + f", family = "binomial", weights = "", offset = ""),
  list(id = "bin_weights", formula = "y ~ x1 + x2 + f", family = "binomial", weights = "w", offset = ""),
  list(id = "bin_prop", formula = "p ~ x1 + x2", family = "binomial", weights = "w", offset = ""),
  list(id = "bin_offset", formula = "y ~ x1 + x2", family = "binomial", weights = "", offset = "x2"),
  list(id = "bin_offset_formula", formula = "y ~ x1 + f + offset(log(x3))", family = "binomial", weights = "", offset = ""),
  list(id = "gauss_star", formula = "y2 ~ x1 * f", family = "gaussian", weights = "", offset = ""),
  list(id = "gauss_weights", formula = "y2 ~ log(x3) + x2", family = "gaussian", weights = "w", offset = ""),
  list(id = "gauss_offset", formula = "y2 ~ x1 + f", family = "gaussian", weights = "", offset = "x3")
)
rows <- list()
for (m in models) {
  fam <- if (m$family == "binomial") binomial else gaussian
  d$.w <- if (m$weights == "") rep(1, nrow(d)) else d[[m$weights]]
  d$.o <- if (m$offset == "") rep(0, nrow(d)) else d[[m$offset]]
  fit <- suppressWarnings(glm(as.formula(m$formula), family = fam, data = d, weights = .w, offset = .o))
  s <- summary(fit)$coefficients
  ci <- suppressMessages(suppressWarnings(confint(fit)))
  rows[[m$id]] <- data.frame(model = m$id, formula = m$formula, family = m$family, weights = m$weights,
                             offset = m$offset, term = rownames(s), estimate = s[, 1], se = s[, 2],
                             ci_low = ci[, 1], ci_high = ci[, 2], deviance = deviance(fit))
}
fmt <- function(df) { for (j in seq_along(df)) if (is.numeric(df[[j]])) df[[j]] <- sprintf("%.17g", df[[j]]); df }
con <- file("testdata/reference/glm_profile.csv", "w")
writeLines(versions, con)
write.csv(fmt(do.call(rbind, rows)), con, row.names = FALSE)
close(con)
