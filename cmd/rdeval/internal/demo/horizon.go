package demo

import (
	"bytes"
	"fmt"
	"math"
	"slices"
	"strings"
)

// ---------------------------------------------------------------------------
// Time-horizon part (METR all_runs.jsonl-shaped, benchmark "hcast")

// hzAgent is one fictional agent of the horizon part: its release date and
// its true 50 % horizon in minutes (the task length at which its success
// probability is one half before the family and task effects).
type hzAgent struct {
	Alias, Model, Released string
	P50Minutes             float64
	DollarsPerHour         float64
	DollarsPerMillionTk    float64
}

// hzAgents is sorted by alias (byte order). Their aliases sort after
// every agent of the other parts, so that those keep their colours in the
// figures (figures.NewStyleMap gives sorted agents the palette in turn). Their true p50 doubles about
// every 5.4 months (a factor 65/3 in 24 months): 3, 6, 14, 30 and
// 65 minutes.
var hzAgents = []hzAgent{
	{"react model-p", "model-p", "2023-11-01", 3, 4, 1},
	{"react model-q", "model-q", "2024-05-01", 6, 6, 2},
	{"react model-r", "model-r", "2024-11-01", 14, 8, 3},
	{"react model-s", "model-s", "2025-05-01", 30, 10, 4},
	{"react model-t", "model-t", "2025-11-01", 65, 12, 5},
}

// hzFamilies are the horizon part's task families (fictional; each holds
// hzTasksPerFamily tasks of spread-out lengths).
var hzFamilies = []string{
	"api_migration", "cipher_puzzle", "data_cleaning", "file_recovery",
	"log_forensics", "model_debugging", "proof_search", "web_scraper",
}

const (
	hzTasksPerFamily = 4
	hzRunsPerTask    = 6
	hzTimeLimit      = 57600 // s: 16 h, the longest task's human time
	hzSlope          = -0.65 // logit of success per doubling of task length
	hzLog2MinMinutes = 0     // task lengths run from 2^0 = 1 min …
	hzLog2MaxMinutes = 10    // … to 2^10 ≈ 17 h
	hzFamilySD       = 0.5   // family effect on the logit
	hzTaskSD         = 0.6   // task effect on the logit (shared by all agents)
	hzAgentTaskSD    = 0.3   // agent × task effect on the logit
	hzEstimateMins   = 480   // tasks longer than this have human_source "estimate"
)

// hzTask is a task of the horizon part with its logit effects.
type hzTask struct {
	reTask
	Effect float64 // family + task effect on the logit
}

// buildHorizonTasks draws the tasks: the 32 lengths are stratified on
// log2 minutes (task j lies in the j-th of 32 equal slices of [0, 10]),
// and task j goes to family j mod 8, so every family spans short and long
// tasks. Sorted by ID.
func buildHorizonTasks(seed uint64) []*hzTask {
	n := len(hzFamilies) * hzTasksPerFamily
	famEffect := make([]float64, len(hzFamilies))
	for i, f := range hzFamilies {
		famEffect[i] = hzFamilySD * stream(seed, "horizon", "family", f).NormFloat64()
	}
	var tasks []*hzTask
	for j := range n {
		fam := hzFamilies[j%len(hzFamilies)]
		id := fmt.Sprintf("%s/task_%d", fam, j/len(hzFamilies)+1)
		r := stream(seed, "horizon", "task", id)
		l2 := hzLog2MinMinutes + (hzLog2MaxMinutes-hzLog2MinMinutes)*(float64(j)+r.Float64())/float64(n)
		mins := roundTo(math.Exp2(l2), 1)
		tasks = append(tasks, &hzTask{
			reTask: reTask{ID: id, Family: fam, HumanMinutes: mins},
			Effect: famEffect[j%len(hzFamilies)] + hzTaskSD*r.NormFloat64(),
		})
	}
	slices.SortFunc(tasks, func(a, b *hzTask) int { return strings.Compare(a.ID, b.ID) })
	return tasks
}

// buildHorizon draws the horizon part's runs: every agent runs every task
// hzRunsPerTask times; a run succeeds (score 1, else 0) with probability
// σ(hzSlope·(log2 minutes − log2 p50) + task effect + agent × task effect).
func buildHorizon(seed uint64) []*reRun {
	var runs []*reRun
	n := 0
	for _, t := range buildHorizonTasks(seed) {
		for ai := range hzAgents {
			a := &hzAgents[ai]
			at := hzAgentTaskSD * stream(seed, "horizon", "affinity", a.Model, t.ID).NormFloat64()
			logit := hzSlope*(math.Log2(t.HumanMinutes)-math.Log2(a.P50Minutes)) + t.Effect + at
			for range hzRunsPerTask {
				n++
				run := &reRun{ID: fmt.Sprintf("demo-hz-%06d", n), Task: &t.reTask, Alias: a.Alias, Model: a.Model, Limit: hzTimeLimit}
				r := stream(seed, "horizon", run.ID)
				run.StartMs = agentStartMs(r, hzTimeLimit)
				score := 0.0
				if r.Float64() < sigmoid(logit) {
					score = 1
				}
				run.Score = &score
				// Agents take a fraction of the human time, more when they fail.
				frac := 0.15 * lognormal(r, 0.6)
				if score == 0 {
					frac *= 2
				}
				dur := int64(math.Round(clamp(60*t.HumanMinutes*frac, 30, hzTimeLimit)))
				run.DurationMs = dur * 1000
				run.EndedBefore = dur < hzTimeLimit
				run.Dollars = roundTo(max(0.01, float64(dur)/3600*a.DollarsPerHour*uniform(r, 0.7, 1.4)), 2)
				run.Tokens = int64(math.Round(run.Dollars / a.DollarsPerMillionTk * 1e6))
				if t.HumanMinutes > hzEstimateMins {
					run.HumanSource = "estimate"
				}
				runs = append(runs, run)
			}
		}
	}
	assignWeights(runs)
	return runs
}

// renderReleaseDates writes the agents' release dates in the layout of
// METR's release_dates.yaml (a top-level date: map).
func renderReleaseDates() []byte {
	var b bytes.Buffer
	b.WriteString("# Release dates of the demo's fictional horizon agents (SYNTHETIC).\ndate:\n")
	for _, a := range hzAgents {
		fmt.Fprintf(&b, "  %s: %s\n", a.Alias, a.Released)
	}
	return b.Bytes()
}
