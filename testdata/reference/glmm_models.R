# The logistic GLMMs of glmm.R and glmm_hessian.R (sourced by both):
# weights/offset name a column of the data ("" = none).
models <- list(
  list(id = "agq1", formula = "yb ~ x1 + x2 + (1|g)", nagq = 1, weights = "", offset = ""),
  list(id = "agq5", formula = "yb ~ x1 + x2 + (1|g)", nagq = 5, weights = "", offset = ""),
  list(id = "agq10", formula = "yb ~ x1 + x2 + (1|g)", nagq = 10, weights = "", offset = ""),
  list(id = "agq25", formula = "yb ~ x1 + x2 + (1|g)", nagq = 25, weights = "", offset = ""),
  list(id = "crossed", formula = "yc ~ x1 + x2 + (1|g) + (1|h)", nagq = 1, weights = "", offset = ""),
  list(id = "weights", formula = "prop ~ x1 + (1|g)", nagq = 1, weights = "trials", offset = ""),
  list(id = "weights_agq7", formula = "prop ~ x1 + (1|g)", nagq = 7, weights = "trials", offset = ""),
  list(id = "offset", formula = "yo ~ x1 + (1|g)", nagq = 1, weights = "", offset = "off"),
  list(id = "offset_agq5", formula = "yo ~ x1 + (1|g)", nagq = 5, weights = "", offset = "off"),
  list(id = "offset_crossed", formula = "yc ~ x1 + (1|g) + (1|h)", nagq = 1, weights = "", offset = "off")
)
