// Package demo embeds a small, SYNTHETIC demo study so that `rdeval report`
// has something to analyse on a fresh machine.
//
// None of the numbers are real benchmark results. They are drawn from a
// documented toy model (see README.md in this directory and generate.go) with
// a seeded PCG generator from math/rand/v2. The default seed is [Seed]; the
// files are produced by
//
//	go generate ./cmd/rdeval/internal/demo
//
// which runs `go run ./gen` from this directory and writes into ./data.
// Equivalently, from the repository root:
//
//	go run ./cmd/rdeval/internal/demo/gen -out cmd/rdeval/internal/demo/data
//
// The output is a pure function of the seed (no clock, no map order, fixed
// float formatting), and the package tests regenerate it and compare it byte
// for byte with the embedded copy.
//
// Files, relative to the root of [FS]:
//
//   - horizon/runs.jsonl: 960 METR all_runs.jsonl-shaped runs for time
//     horizons (5 fictional agents × 32 tasks of 1 min to 16 h × 6 runs,
//     benchmark hcast); horizon/release_dates.yaml: their release dates.
//   - re-bench/runs.jsonl: 630 RE-Bench-shaped runs with the keys of METR's
//     all_runs.jsonl (3 fictional agents × 7 tasks × 3 time limits, plus
//     human baselines).
//   - re-bench/score_log.jsonl: every intermediate score submission of
//     those runs (elapsed seconds exclude pauses; null score = invalid).
//   - re-bench/runs/demo-human-001/score.log: one run's score log in METR's
//     task-protected-scoring CSV format (timestamp,score,message,details).
//   - rexbench/tasks.yaml: synthetic gold data for the 12 RExBench tasks.
//   - rexbench/runs.jsonl: 1080 RExBench-shaped runs (2 frameworks × 3
//     fictional models × 3 hint levels × 12 tasks × 5 trials).
package demo

//go:generate go run ./gen

import (
	"embed"
	"io/fs"
)

// Seed is the seed the embedded data were generated with.
const Seed = 20261130

// Paths of the embedded files, relative to the root of FS().
const (
	HorizonRunsPath         = "horizon/runs.jsonl"
	HorizonReleaseDatesPath = "horizon/release_dates.yaml"
	REBenchRunsPath         = "re-bench/runs.jsonl"
	REBenchScoreLogPath     = "re-bench/score_log.jsonl"
	REBenchExampleRunID     = "demo-human-001"
	REBenchExampleScoreLog  = "re-bench/runs/" + REBenchExampleRunID + "/score.log"
	RExBenchTasksPath       = "rexbench/tasks.yaml"
	RExBenchRunsPath        = "rexbench/runs.jsonl"
	dataDir                 = "data"
)

//go:embed data
var data embed.FS

// FS returns the embedded demo files, rooted so that paths look like
// "re-bench/runs.jsonl".
func FS() fs.FS {
	sub, err := fs.Sub(data, dataDir)
	if err != nil {
		// fs.Sub only fails for an invalid directory name, which is a constant here.
		panic(err)
	}
	return sub
}

// Files lists the paths of all embedded files, sorted.
func Files() []string {
	return []string{
		HorizonReleaseDatesPath,
		HorizonRunsPath,
		REBenchRunsPath,
		REBenchExampleScoreLog,
		REBenchScoreLogPath,
		RExBenchRunsPath,
		RExBenchTasksPath,
	}
}
