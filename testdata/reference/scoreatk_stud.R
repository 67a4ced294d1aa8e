#!/usr/bin/Rscript
# Independent reference for rdeval's studentized (bootstrap-t) interval of
# score@k (analysis/scoreatk_studentized.go).
#
# Usage (Debian r-base-core with the recommended package boot, and
# r-cran-jsonlite; from the repository root):
#   Rscript testdata/reference/scoreatk_stud.R ../shared/anchors/eval-analysis-public/3a947ac7069ecb6e1fd0064cc0205e5eb9dcba0f/data/external/all_runs.jsonl > testdata/reference/scoreatk_stud_3a947ac.csv
#
# For each case (METR RE-Bench group, k; tasks with fewer than k runs left
# out, every task's selection treated as best-of-k as in scoreatk_bca.py):
#   estimate U   = mean over tasks of sum_i choose(n-i, k-1)/choose(n, k) s_(i)
#   plugin V     = mean over tasks of sum_a x_(a) ((a/n)^k - ((a-1)/n)^k)
#   se_jack      = sqrt(sum_t var_jack,t) / T, var_jack,t = (n-1)/n sum_j (U_t(-j) - mean)^2,
#                  U_t(-j) score@min(k, n-1) of the n-1 other runs, each computed directly
#   stud_low/high: boot::boot(strata = task, R = 10000) of c(U, var_jack) and
#                  boot::boot.ci(type = "stud") with t0 = U, t = U* - V + U
#                  (so that its pivot (t - t0)/sqrt(var.t) is (U* - V)/se*)
#   boot_sd      = sd of the U* replicates (to size the test's tolerance)
suppressPackageStartupMessages({ library(boot); library(jsonlite) })
args <- commandArgs(trailingOnly = TRUE)
cases <- list(list("o1-preview", 1800, 1), list("o1-preview", 1800, 4), list("o1-preview", 1800, 8),
              list("Claude 3 Opus", 1800, 1), list("Claude 3 Opus", 1800, 8), list("human", 0, 2))
lines <- readLines(args[1])
rows <- lapply(lines, function(l) fromJSON(l))
keep <- Filter(function(r) startsWith(r$task_id, "ai_rd_") && !is.null(r$score) && !is.na(r$score), rows)
df <- data.frame(alias = sapply(keep, `[[`, "alias"), time_limit = sapply(keep, `[[`, "time_limit"),
                 task = sapply(keep, `[[`, "task_id"), score = sapply(keep, function(r) as.numeric(r$score)))
memo <- new.env()
wts <- function(n, k) {
  key <- paste(n, k)
  if (is.null(memo[[key]])) memo[[key]] <- sapply(1:n, function(i) if (n - i >= k - 1) choose(n - i, k - 1) / choose(n, k) else 0)
  memo[[key]]
}
ustat <- function(s, k) sum(sort(s, decreasing = TRUE) * wts(length(s), k))
vstat <- function(s, k) { n <- length(s); a <- 1:n; sum(sort(s) * ((a / n)^k - ((a - 1) / n)^k)) }
loomat <- new.env()
jvar <- function(s, k) {
  # leave-one-out estimates, each the score@min(k, n-1) of the other n-1 sorted runs
  n <- length(s); kk <- min(k, n - 1); s <- sort(s, decreasing = TRUE)
  key <- as.character(n)
  if (is.null(loomat[[key]])) loomat[[key]] <- t(sapply(1:n, function(j) (1:n)[-j]))
  loo <- matrix(s[loomat[[key]]], nrow = n) %*% wts(n - 1, kk)
  (n - 1) / n * sum((loo - mean(loo))^2)
}
cat(sprintf("# Rscript testdata/reference/scoreatk_stud.R <3a947ac all_runs.jsonl>; %s, boot %s, jsonlite %s; set.seed(11), R = 10000\n",
            R.version.string, packageVersion("boot"), packageVersion("jsonlite")))
cat("alias,time_limit,k,n_tasks,estimate,plugin,se_jack,stud_low,stud_high,boot_sd\n")
set.seed(11)
for (cs in cases) {
  alias <- cs[[1]]; tl <- cs[[2]]; k <- cs[[3]]
  g <- df[df$alias == alias & df$time_limit == tl, ]
  n <- table(g$task)
  g <- g[g$task %in% names(n)[n >= k], ]
  g <- g[order(g$task), ]
  tasks <- split(g$score, g$task)
  nt <- length(tasks)
  U <- mean(sapply(tasks, ustat, k = k))
  V <- mean(sapply(tasks, vstat, k = k))
  se <- sqrt(sum(sapply(tasks, jvar, k = k))) / nt
  stat <- function(d, i) {
    tt <- split(d$score[i], d$task[i])
    c(mean(sapply(tt, ustat, k = k)), sum(sapply(tt, jvar, k = k)) / nt^2)
  }
  b <- boot(g, stat, R = 10000, strata = factor(g$task))
  ci <- boot.ci(b, conf = 0.95, type = "stud", t0 = U, t = b$t[, 1] - V + U, var.t0 = se^2, var.t = b$t[, 2])
  cat(sprintf("%s,%d,%d,%d,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g\n", alias, tl, k, nt, U, V, se,
              ci$student[4], ci$student[5], sd(b$t[, 1])))
}
