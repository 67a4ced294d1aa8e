package demo

// This file holds the generator of the synthetic demo study. Everything here
// is a pure function of the seed: every random quantity comes from a PCG
// stream (math/rand/v2) whose second seed word is a hash of a fixed label
// (for example the run id), nothing iterates over a map, nothing reads the
// clock, and every number is rounded to a fixed number of decimals (or is an
// exact IEEE quotient of such numbers) before it is formatted with
// strconv.FormatFloat(x, 'g', -1, 64).

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"math"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/rdeval/rdeval/ingest"
)

// Generate writes the synthetic demo study for seed into dir (creating
// sub-directories as needed). Each file is written to a temporary file in
// its destination directory and renamed into place. Files in dir that the
// generator does not produce are left alone.
func Generate(seed uint64, dir string) error {
	files, err := render(seed)
	if err != nil {
		return err
	}
	for _, f := range files {
		if err := ingest.WriteFileAtomic(filepath.Join(dir, filepath.FromSlash(f.path)), f.data, ingest.AtomicOptions{MkdirAll: true}); err != nil {
			return err
		}
	}
	return nil
}

type genFile struct {
	path string // slash-separated, relative to the data root
	data []byte
}

// render produces all files, sorted by path.
func render(seed uint64) ([]genFile, error) {
	rb := buildREBench(seed)
	rx := buildRExBench(seed)

	example := rb.byID(REBenchExampleRunID)
	if example == nil {
		return nil, fmt.Errorf("demo: example run %s not generated", REBenchExampleRunID)
	}
	exampleCSV, err := renderScoreLogCSV(example)
	if err != nil {
		return nil, err
	}
	files := []genFile{
		{HorizonRunsPath, renderMETRRuns(buildHorizon(seed))},
		{HorizonReleaseDatesPath, renderReleaseDates()},
		{REBenchRunsPath, renderRERuns(rb)},
		{REBenchExampleScoreLog, exampleCSV},
		{REBenchScoreLogPath, renderREScoreLog(rb)},
		{RExBenchRunsPath, renderRXRuns(rx)},
		{RExBenchTasksPath, renderRXTasks()},
	}
	slices.SortFunc(files, func(a, b genFile) int { return strings.Compare(a.path, b.path) })
	return files, nil
}

// ---------------------------------------------------------------------------
// Randomness helpers

// stream returns an independent PCG stream for seed and a label, so that
// changing how one part of the study is drawn does not shift the others.
func stream(seed uint64, label ...string) *rand.Rand {
	h := fnv.New64a()
	for _, l := range label {
		h.Write([]byte(l))
		h.Write([]byte{0})
	}
	return rand.New(rand.NewPCG(seed, h.Sum64()))
}

func uniform(r *rand.Rand, lo, hi float64) float64 {
	return lo + float64((hi-lo)*r.Float64())
}

// lognormal returns exp(N(0, sd²)) scaled to have mean 1.
func lognormal(r *rand.Rand, sd float64) float64 {
	return math.Exp(float64(sd*r.NormFloat64()) - float64(sd*sd/2))
}

func poisson(r *rand.Rand, mean float64) int {
	l, k, p := math.Exp(-mean), 0, 1.0
	for {
		p *= r.Float64()
		if p <= l {
			return k
		}
		k++
	}
}

func sigmoid(x float64) float64 { return 1 / (1 + math.Exp(-x)) }

func clamp(x, lo, hi float64) float64 { return math.Max(lo, math.Min(hi, x)) }

// roundTo rounds x to d decimals.
func roundTo(x float64, d int) float64 {
	p := math.Pow10(d)
	return math.Round(float64(x*p)) / p
}

// weighted picks an index with probability proportional to w.
func weighted(r *rand.Rand, w []float64) int {
	total := 0.0
	for _, x := range w {
		total += x
	}
	u := r.Float64() * total
	for i, x := range w {
		if u < x {
			return i
		}
		u -= x
	}
	return len(w) - 1
}

// ---------------------------------------------------------------------------
// Formatting helpers: a tiny ordered JSON object writer.

type jsonObj struct {
	b bytes.Buffer
	n int
}

func (o *jsonObj) key(k string) {
	if o.n == 0 {
		o.b.WriteByte('{')
	} else {
		o.b.WriteByte(',')
	}
	o.n++
	o.b.Write(jsonString(k))
	o.b.WriteByte(':')
}

func jsonString(s string) []byte {
	b, err := json.Marshal(s)
	if err != nil {
		panic(err) // cannot happen for a string
	}
	return b
}

func fmtFloat(x float64) string {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		panic("demo: non-finite number in output")
	}
	if x == 0 {
		return "0" // avoid "-0"
	}
	return strconv.FormatFloat(x, 'g', -1, 64)
}

func (o *jsonObj) str(k, v string)         { o.key(k); o.b.Write(jsonString(v)) }
func (o *jsonObj) num(k string, v float64) { o.key(k); o.b.WriteString(fmtFloat(v)) }
func (o *jsonObj) int(k string, v int64)   { o.key(k); o.b.WriteString(strconv.FormatInt(v, 10)) }
func (o *jsonObj) null(k string)           { o.key(k); o.b.WriteString("null") }
func (o *jsonObj) bool(k string, v bool)   { o.key(k); o.b.WriteString(strconv.FormatBool(v)) }

func (o *jsonObj) numOrNull(k string, v *float64) {
	if v == nil {
		o.null(k)
		return
	}
	o.num(k, *v)
}

func (o *jsonObj) strOrNull(k string, v string) {
	if v == "" {
		o.null(k)
		return
	}
	o.str(k, v)
}

func (o *jsonObj) strs(k string, v []string) {
	o.key(k)
	o.b.WriteByte('[')
	for i, s := range v {
		if i > 0 {
			o.b.WriteByte(',')
		}
		o.b.Write(jsonString(s))
	}
	o.b.WriteByte(']')
}

// line finishes the object and appends it plus a newline to w.
func (o *jsonObj) line(w *bytes.Buffer) {
	o.b.WriteString("}\n")
	w.Write(o.b.Bytes())
}

// ---------------------------------------------------------------------------
// RE-Bench-shaped part

// reTask is one RE-Bench task. Scores are raw task scores; Ys and Yr are the
// starting and reference solution scores. RawMin/RawMax are the physically
// plausible range of the raw score (e.g. a loss cannot go below ~0.1), which
// caps how far above 1 a normalized score can go. AgentMult and HumanMult
// scale the latent skill of agents and humans on the task.
type reTask struct {
	ID, Family, Better, Rule string
	Ys, Yr, HumanMinutes     float64
	RawMin, RawMax           float64
	AgentMult, HumanMult     float64
}

// reTasks is sorted by ID.
var reTasks = []reTask{
	{"ai_rd_fix_embedding/main", "ai_rd_fix_embedding", "lower", "min", 2.2, 0.26, 556.6, 0.1, 10, 1.0, 1.05},
	{"ai_rd_nanogpt_chat_rl/main", "ai_rd_nanogpt_chat_rl", "higher", "max", 0.54, 0.85, 477.564, 0, 0.98, 0.9, 0.9},
	{"ai_rd_optimize_llm_foundry/main", "ai_rd_optimize_llm_foundry", "lower", "min", 5.6, 4.54, 484.29, 3.9, 7, 0.7, 1.25},
	{"ai_rd_restricted_mlm/main", "ai_rd_restricted_mlm", "lower", "min", 1.81, 1.13, 652.672, 0.95, 4, 0.6, 0.9},
	{"ai_rd_rust_codecontests_inference/main", "ai_rd_rust_codecontests_inference", "higher", "max", 0, 0.13, 552.029, 0, 0.2, 1.25, 0.75},
	{"ai_rd_small_scaling_law/main", "ai_rd_small_scaling_law", "higher", "last", 0.24, 0.84, 416.981, 0.05, 1, 0.6, 0.95},
	{"ai_rd_triton_cumsum/main", "ai_rd_triton_cumsum", "lower", "min", 1.56, 0.47, 483.61, 0.2, 5, 1.4, 1.0},
}

// normalize maps a raw score to the normalized scale (0 = starting
// solution, 1 = reference solution), floored at 0 and not capped.
func (t *reTask) normalize(y float64) float64 {
	return max(0, (y-t.Ys)/(t.Yr-t.Ys))
}

// raw maps a (possibly negative) normalized quality back to a raw score,
// clamped to the task's plausible range and rounded to 4 decimals.
func (t *reTask) raw(n float64) float64 {
	y := t.Ys + float64(n*(t.Yr-t.Ys))
	return roundTo(clamp(y, t.RawMin, t.RawMax), 4)
}

// reAgent describes one fictional agent. Base is the mean latent skill
// (normalized score reached at the plateau), Tau the time constant of the
// early improvement in hours, Stuck the probability that a run never gets
// past the starting solution, Rate the score submissions per hour.
type reAgent struct {
	Alias, Model                        string
	Base, Tau, Stuck, Rate              float64
	DollarsPerHour, DollarsPerMillionTk float64
}

// reAgents is sorted by alias (byte order).
var reAgents = []reAgent{
	{"AIDE (Model B)", "model-b", 0.44, 0.35, 0.22, 30, 13, 2.5},
	{"Modular (Model A)", "model-a", 0.50, 0.45, 0.18, 27, 9, 4},
	{"Modular (Model C)", "model-c", 0.33, 0.60, 0.28, 25, 3, 0.8},
}

const (
	humanAlias        = "human"
	humanBase         = 0.92
	humanStuck        = 0.08
	humanShape        = 1.6 // quality grows like (t/8h)^humanShape
	humanRunsPerTask  = 6
	humanTimeLimit    = 28800
	humanDollarsPerHr = 230
	invalidProb       = 0.05  // share of submissions that are invalid
	noValidProb       = 0.025 // share of runs without any valid submission
)

var reTimeLimits = []int{1800, 7200, 28800}

func runsPerLimit(limit int) int {
	switch limit {
	case 1800:
		return 16
	case 7200:
		return 8
	default:
		return 4
	}
}

var invalidMessages = []string{
	"invalid submission: timeout",
	"invalid submission: runtime error",
	"invalid submission: output file not found",
	"invalid submission: out of memory",
	"invalid submission: wrong output format",
}

type reEntry struct {
	ElapsedUs int64 // microseconds since run start, excluding pauses
	Valid     bool
	Raw       float64
	Message   string
	// LogDelayUs (< 1 ms) is added to the wall-clock timestamp in the
	// example CSV score log; it is zero elsewhere.
	LogDelayUs int64
}

type reRun struct {
	ID           string
	Task         *reTask
	Alias, Model string
	Human        bool
	Limit        int   // seconds
	StartMs      int64 // ms since epoch
	PauseStartUs int64 // elapsed µs at which the pause began (if PauseMs > 0)
	PauseMs      int64
	Dollars      float64
	Tokens       int64
	Entries      []reEntry
	Score        *float64 // normalized final score
	EqualW       float64
	InvSqrtW     float64
	// The horizon part's runs end before their limit: DurationMs (> 0)
	// is then the run's length, EndedBefore says it ended before the
	// limit (no fatal_error_from), HumanSource overrides "baseline".
	DurationMs  int64
	EndedBefore bool
	HumanSource string
}

type reStudy struct{ Runs []*reRun }

func (s *reStudy) byID(id string) *reRun {
	for _, r := range s.Runs {
		if r.ID == id {
			return r
		}
	}
	return nil
}

var march2026 = time.Date(2026, time.March, 1, 0, 0, 0, 0, time.UTC).UnixMilli()

const (
	msPerHour = int64(3_600_000)
	msPerDay  = 24 * msPerHour
)

func buildREBench(seed uint64) *reStudy {
	st := &reStudy{}
	agentN, humanN := 0, 0
	for ti := range reTasks {
		t := &reTasks[ti]
		for ai := range reAgents {
			a := &reAgents[ai]
			for _, lim := range reTimeLimits {
				for range runsPerLimit(lim) {
					agentN++
					run := &reRun{
						ID: fmt.Sprintf("demo-rb-%06d", agentN), Task: t,
						Alias: a.Alias, Model: a.Model, Limit: lim,
					}
					genAgentRun(seed, run, a)
					st.Runs = append(st.Runs, run)
				}
			}
		}
		for range humanRunsPerTask {
			humanN++
			run := &reRun{
				ID: fmt.Sprintf("demo-human-%03d", humanN), Task: t,
				Alias: humanAlias, Model: humanAlias, Human: true, Limit: humanTimeLimit,
			}
			genHumanRun(seed, run)
			st.Runs = append(st.Runs, run)
		}
	}
	for _, run := range st.Runs {
		run.Score = finalScore(run.Task, run.Entries)
	}
	assignWeights(st.Runs)
	slices.SortStableFunc(st.Runs, func(a, b *reRun) int {
		if c := strings.Compare(a.Task.ID, b.Task.ID); c != 0 {
			return c
		}
		if c := strings.Compare(a.Alias, b.Alias); c != 0 {
			return c
		}
		if a.Limit != b.Limit {
			return a.Limit - b.Limit
		}
		return strings.Compare(a.ID, b.ID)
	})
	return st
}

// finalScore applies the task's rule to the valid entries (in time order)
// and normalizes the result; nil when there is no valid entry.
func finalScore(t *reTask, entries []reEntry) *float64 {
	var y float64
	found := false
	for _, e := range entries {
		if !e.Valid {
			continue
		}
		switch {
		case !found, t.Rule == "last":
			y = e.Raw
		case t.Rule == "max":
			y = max(y, e.Raw)
		case t.Rule == "min":
			y = min(y, e.Raw)
		}
		found = true
	}
	if !found {
		return nil
	}
	n := t.normalize(y)
	return &n
}

func assignWeights(runs []*reRun) {
	type key struct{ alias, task string }
	perTask := map[key]int{}
	for _, r := range runs {
		perTask[key{r.Alias, r.Task.ID}]++
	}
	// Each family holds one task, so sqrt(tasks in family) is 1 here; it is
	// kept in the formula to document what invsqrt_task_weight means.
	familyTasks := map[string]map[string]bool{}
	for _, r := range runs {
		if familyTasks[r.Task.Family] == nil {
			familyTasks[r.Task.Family] = map[string]bool{}
		}
		familyTasks[r.Task.Family][r.Task.ID] = true
	}
	sumEq, sumInv := map[string]float64{}, map[string]float64{}
	for _, r := range runs { // runs are in generation order: deterministic sums
		n := float64(perTask[key{r.Alias, r.Task.ID}])
		r.EqualW = 1 / n
		r.InvSqrtW = 1 / (n * math.Sqrt(float64(len(familyTasks[r.Task.Family]))))
		sumEq[r.Alias] += r.EqualW
		sumInv[r.Alias] += r.InvSqrtW
	}
	for _, r := range runs {
		r.EqualW /= sumEq[r.Alias]
		r.InvSqrtW /= sumInv[r.Alias]
	}
}

// agentStartMs draws a start time in March 2026 so that the run also ends in March.
func agentStartMs(r *rand.Rand, limit int) int64 {
	span := 30*msPerDay - int64(limit)*1000 - msPerHour
	return march2026 + r.Int64N(span)
}

// submissionTimes draws Poisson submission times in (first, limit], in µs
// but rounded to whole milliseconds.
func submissionTimes(r *rand.Rand, firstS, ratePerHour float64, limitS int) []int64 {
	limitUs := int64(limitS) * 1_000_000
	var ts []int64
	t := firstS
	for t <= float64(limitS) {
		us := msToUs(t)
		us = clampUs(us, limitUs)
		if len(ts) > 0 && us <= ts[len(ts)-1] {
			us = ts[len(ts)-1] + 1000
		}
		if us > limitUs {
			break
		}
		ts = append(ts, us)
		t += r.ExpFloat64() * 3600 / ratePerHour
	}
	return ts
}

func clampUs(us, limitUs int64) int64 { return max(1000, min(us, limitUs)) }

// msToUs converts seconds to µs, rounded to whole milliseconds.
func msToUs(s float64) int64 { return int64(math.Round(s*1e3)) * 1000 }

// noValidEntries draws the log of a run that never produced a valid
// submission: a handful of invalid attempts at random times.
func noValidEntries(r *rand.Rand, limitS int) []reEntry {
	n := 1 + poisson(r, 3)
	limitUs := int64(limitS) * 1_000_000
	ts := make([]int64, 0, n)
	for range n {
		ts = append(ts, (1+r.Int64N(limitUs/1000))*1000)
	}
	slices.Sort(ts)
	ts = slices.Compact(ts)
	es := make([]reEntry, len(ts))
	for i, t := range ts {
		es[i] = reEntry{ElapsedUs: t, Message: invalidMessages[r.IntN(len(invalidMessages))]}
	}
	return es
}

// submission turns a latent quality q (normalized scale) into one logged
// entry: usually a bit below q, sometimes a regression, rarely invalid.
func submission(r *rand.Rand, t *reTask, q, spread, regressProb float64, us int64, baseline bool) reEntry {
	var s float64
	switch {
	case baseline: // first check of the (unchanged) starting solution
		s = 0.02 * r.NormFloat64()
	case r.Float64() < regressProb:
		s = q * uniform(r, -0.6, 0.5)
	default:
		s = q * math.Exp(-math.Abs(spread*r.NormFloat64()))
	}
	s += float64(0.015 * r.NormFloat64())
	e := reEntry{ElapsedUs: us, Valid: true, Raw: t.raw(s), Message: "ok"}
	if r.Float64() < invalidProb {
		e = reEntry{ElapsedUs: us, Message: invalidMessages[r.IntN(len(invalidMessages))]}
	}
	return e
}

func genAgentRun(seed uint64, run *reRun, a *reAgent) {
	r := stream(seed, "re-bench", run.ID)
	t := run.Task
	hours := float64(run.Limit) / 3600

	run.StartMs = agentStartMs(r, run.Limit)
	run.Dollars = roundTo(hours*a.DollarsPerHour*uniform(r, 0.7, 1.4), 2)
	run.Tokens = int64(math.Round(run.Dollars / a.DollarsPerMillionTk * 1e6))

	if r.Float64() < noValidProb {
		run.Entries = noValidEntries(r, run.Limit)
		return
	}

	// Latent plateau skill of this run.
	p := a.Base * t.AgentMult * lognormal(r, 0.45)
	if r.Float64() < a.Stuck {
		p = uniform(r, 0, 0.06)
	}
	quality := func(us int64) float64 {
		h := float64(us) / 3.6e9
		return p * (1 - math.Exp(-h/a.Tau)) * (1 + float64(0.015*h))
	}

	rate := a.Rate * uniform(r, 0.85, 1.15)
	if t.Rule == "last" {
		// The scaling-law answer is only checked, not optimised against, so
		// agents submit it rarely; the final answer is what counts.
		rate = uniform(r, 4, 8)
	}
	times := submissionTimes(r, uniform(r, 45, 300), rate, run.Limit)
	if t.Rule == "last" && r.Float64() < 0.8 {
		final := msToUs(float64(run.Limit) * (1 - uniform(r, 0.005, 0.05)))
		if final > times[len(times)-1] {
			times = append(times, final)
		}
	}
	for i, us := range times {
		run.Entries = append(run.Entries, submission(r, t, quality(us), 0.35, 0.12, us, i == 0))
	}
}

func genHumanRun(seed uint64, run *reRun) {
	r := stream(seed, "re-bench", run.ID)
	t := run.Task
	hours := float64(run.Limit) / 3600

	// Humans start on a weekday-ish morning (UTC) between 2 and 27 March.
	day := int64(1 + r.IntN(26))
	run.StartMs = march2026 + day*msPerDay + 8*msPerHour + msPerHour/2 + r.Int64N(2*msPerHour)
	run.Dollars = roundTo(hours*humanDollarsPerHr, 2)
	example := run.ID == REBenchExampleRunID

	if !example && r.Float64() < noValidProb {
		run.Entries = noValidEntries(r, run.Limit)
		return
	}

	p := humanBase * t.HumanMult * lognormal(r, 0.35)
	if r.Float64() < humanStuck {
		p = uniform(r, 0, 0.06)
	}
	quality := func(us int64) float64 {
		h := float64(us) / 3.6e9
		return p * math.Pow(h/hours, humanShape)
	}
	times := submissionTimes(r, uniform(r, 10, 45)*60, uniform(r, 3, 4), run.Limit)
	if r.Float64() < 0.7 { // a last submission shortly before the end
		final := msToUs(float64(run.Limit) * (1 - uniform(r, 0.002, 0.03)))
		if final > times[len(times)-1] {
			times = append(times, final)
		}
	}
	for i, us := range times {
		run.Entries = append(run.Entries, submission(r, t, quality(us), 0.25, 0.08, us, i == 0))
	}

	if example {
		// The example run always shows an invalid attempt and a lunch break.
		hasInvalid := false
		for _, e := range run.Entries[1:] {
			hasInvalid = hasInvalid || !e.Valid
		}
		if !hasInvalid && len(run.Entries) > 3 {
			e := &run.Entries[2]
			*e = reEntry{ElapsedUs: e.ElapsedUs, Message: "invalid submission: runtime error"}
		}
		run.PauseStartUs = msToUs(uniform(r, 3.6, 4.4) * 3600)
		run.PauseMs = int64(math.Round(uniform(r, 35, 55) * 60_000))
		// The scoring script's clock has microseconds and writes the log
		// line a moment after the (ms-resolution) elapsed time was taken.
		for i := range run.Entries {
			run.Entries[i].LogDelayUs = r.Int64N(1000)
		}
	}
}

func renderRERuns(st *reStudy) []byte { return renderMETRRuns(st.Runs) }

// renderMETRRuns writes runs as METR's all_runs.jsonl lines.
func renderMETRRuns(runs []*reRun) []byte {
	var w bytes.Buffer
	for _, r := range runs {
		var o jsonObj
		o.str("run_id", r.ID)
		o.str("task_id", r.Task.ID)
		o.str("task_family", r.Task.Family)
		o.str("alias", r.Alias)
		o.str("model", r.Model)
		o.numOrNull("score", r.Score)
		if r.Score == nil {
			o.null("score_binarized")
		} else if *r.Score > 0.9 {
			o.int("score_binarized", 1)
		} else {
			o.int("score_binarized", 0)
		}
		o.int("time_limit", int64(r.Limit))
		o.int("started_at", r.StartMs)
		if r.DurationMs > 0 {
			o.int("completed_at", r.StartMs+r.DurationMs)
		} else {
			o.int("completed_at", r.StartMs+int64(r.Limit)*1000+r.PauseMs)
		}
		if r.Human || r.EndedBefore {
			o.null("fatal_error_from")
		} else {
			o.str("fatal_error_from", "usageLimits")
		}
		o.num("human_minutes", r.Task.HumanMinutes)
		o.null("human_score")
		if r.HumanSource != "" {
			o.str("human_source", r.HumanSource)
		} else {
			o.str("human_source", "baseline")
		}
		o.num("dollar_equivalent", r.Dollars)
		if r.Human {
			o.null("total_tokens")
		} else {
			o.int("total_tokens", r.Tokens)
		}
		o.num("equal_task_weight", r.EqualW)
		o.num("invsqrt_task_weight", r.InvSqrtW)
		o.line(&w)
	}
	return w.Bytes()
}

func renderREScoreLog(st *reStudy) []byte {
	runs := slices.Clone(st.Runs)
	slices.SortFunc(runs, func(a, b *reRun) int { return strings.Compare(a.ID, b.ID) })
	var w bytes.Buffer
	for _, r := range runs {
		for _, e := range r.Entries { // already in elapsed order
			var o jsonObj
			o.str("run_id", r.ID)
			o.num("elapsed_s", float64(e.ElapsedUs)/1e6)
			if e.Valid {
				o.num("score", e.Raw)
			} else {
				o.null("score")
			}
			o.str("message", e.Message)
			o.line(&w)
		}
	}
	return w.Bytes()
}

// pyFloat formats like Python's repr(float) for the values used here.
func pyFloat(x float64) string {
	s := fmtFloat(x)
	if !strings.ContainsAny(s, ".en") {
		s += ".0"
	}
	return s
}

// pyJSON renders a flat object the way Python's json.dumps does by default
// (", " and ": " separators). Values are pre-rendered JSON.
func pyJSON(kv ...string) string {
	var b strings.Builder
	b.WriteByte('{')
	for i := 0; i+1 < len(kv); i += 2 {
		if i > 0 {
			b.WriteString(", ")
		}
		b.Write(jsonString(kv[i]))
		b.WriteString(": ")
		b.WriteString(kv[i+1])
	}
	b.WriteByte('}')
	return b.String()
}

// renderScoreLogCSV renders one run's log the way METR's
// task-protected-scoring package wrote /protected/score.log: wall-clock
// timestamps (so they include pauses), "nan" for invalid attempts, and JSON
// message/details columns.
func renderScoreLogCSV(run *reRun) ([]byte, error) {
	var w bytes.Buffer
	cw := csv.NewWriter(&w)
	if err := cw.Write([]string{"timestamp", "score", "message", "details"}); err != nil {
		return nil, err
	}
	startUs := run.StartMs * 1000
	for i, e := range run.Entries {
		wall := startUs + e.ElapsedUs + e.LogDelayUs
		if run.PauseMs > 0 && e.ElapsedUs > run.PauseStartUs {
			wall += run.PauseMs * 1000
		}
		ts := time.UnixMicro(wall).UTC().Format("2006-01-02T15:04:05.000000+00:00")
		score, msg := "nan", ""
		var details string
		if e.Valid {
			score = pyFloat(e.Raw)
			msg = pyJSON("status", `"ok"`)
			details = pyJSON("attempt", strconv.Itoa(i+1), "raw_score", pyFloat(e.Raw))
		} else {
			reason := strings.TrimPrefix(e.Message, "invalid submission: ")
			msg = pyJSON("status", `"invalid submission"`, "error", string(jsonString(reason)))
			details = pyJSON("attempt", strconv.Itoa(i+1))
		}
		if err := cw.Write([]string{ts, score, msg, details}); err != nil {
			return nil, err
		}
	}
	cw.Flush()
	return w.Bytes(), cw.Error()
}

// ---------------------------------------------------------------------------
// RExBench-shaped part

// rxTask is one task's synthetic gold data. Lo/Hi bound plausible results,
// Decimals is how results are rounded.
type rxTask struct {
	ID, Direction     string
	Gold, GoldSD, Tol float64
	GoldFiles         []string
	GoldLines         int
	Lo, Hi            float64
	Decimals          int
}

// rxTasks is sorted by ID; gold files are sorted.
var rxTasks = []rxTask{
	{"checkeval", "higher", 0.73, 0.004, 0, []string{"run_final.sh", "src/eval.py"}, 42, 0, 1, 4},
	{"cogs", "higher", 0.812, 0.011, 0, []string{"configs/relative_pe.json", "run_final.sh", "src/models/transformer.py", "src/train.py"}, 186, 0, 1, 4},
	{"entity-tracking-multimodal", "higher", 0.564, 0.009, 0, []string{"run_final.sh", "src/data/render_boxes.py", "src/eval_entity_tracking.py"}, 231, 0, 1, 4},
	{"explain-then-translate", "higher", 0.478, 0.006, 0, []string{"prompts/explain_then_translate.txt", "run_final.sh", "src/translate.py"}, 74, 0, 1, 4},
	{"implicit-ins", "higher", 0.352, 0.007, 0, []string{"run_final.sh", "src/data_utils.py", "src/finetune.py"}, 118, 0, 1, 4},
	{"mission-impossible", "lower", 112.4, 1.6, 0, []string{"run_final.sh", "src/perturb.py", "src/tokenize_corpus.py", "src/train_gpt2.py"}, 267, 20, 600, 2},
	{"othello", "higher", 0.912, 0.005, 0, []string{"run_final.sh", "src/intervene.py", "src/mingpt/model.py", "src/probe.py", "src/train_probe.py"}, 342, 0, 1, 4},
	{"re-reading", "higher", 0.784, 0.003, 0, []string{"run_final.sh", "src/prompting.py"}, 18, 0, 1, 4},
	{"reasoning-or-reciting", "higher", 0.412, 0.008, 0, []string{"run_final.sh", "src/counterfactual.py", "src/evaluate.py"}, 158, 0, 1, 4},
	{"tree-of-thoughts", "higher", 0.36, 0.012, 0, []string{"run_final.sh", "src/tot/methods/bfs.py", "src/tot/prompts/crosswords.py", "src/tot/tasks/crosswords.py"}, 212, 0, 1, 4},
	{"varierr-nli", "lower", 0.214, 0.005, 0, []string{"run_final.sh", "src/train_nli.py"}, 96, 0, 2, 4},
	{"winodict", "higher", 0.637, 0.006, 0, []string{"run_final.sh", "src/prompts.py", "src/winodict_eval.py"}, 57, 0, 1, 4},
}

// Non-gold files agents sometimes touch.
var rxExtraFiles = []string{
	"README.md",
	"notes/plan.md",
	"requirements.txt",
	"scripts/debug_run.py",
	"src/config.py",
	"src/utils.py",
	"tests/test_smoke.py",
}

type rxFramework struct {
	Name                string
	NoPatch, Exec, Succ float64
}

// Sorted by name.
var rxFrameworks = []rxFramework{
	{"aider", 0.12, -0.15, -0.10},
	{"openhands", 0.035, 0.15, 0.3},
}

type rxModel struct {
	Name            string
	Effect, NoPatch float64
}

// Sorted by name.
var rxModels = []rxModel{
	{"model-a", 0.7, 0},
	{"model-b", 0.1, 0.01},
	{"model-c", -0.6, 0.04},
}

// Hint levels, sorted by name (the output sort order).
var rxHintLevels = []string{"detailed_hints", "hints", "no_hints"}

const rxTrials = 5

var rxErrorTypes = []string{
	"ValueError", "FileNotFoundError", "TypeError", "AttributeError",
	"SyntaxError", "IndentationError", "KeyError", "ImportError",
	"RuntimeError", "empty or missing", "Permission denied",
}

var rxErrorWeights = []float64{14, 16, 12, 10, 6, 4, 9, 8, 12, 5, 4}

type rxRun struct {
	ID, Framework, Model, Hint, Task string
	Trial                            int
	Outcome, ErrorType               string
	Files                            []string
	Added, Deleted                   int
	Result                           *float64
}

// rxTaskEffects draws per-task difficulty and hint effects.
func rxTaskEffects(seed uint64, t *rxTask) (task float64, hint map[string]float64) {
	r := stream(seed, "rexbench-task", t.ID)
	task = 0.35 * r.NormFloat64()
	hint = map[string]float64{
		"no_hints":       0,
		"hints":          0.3 + float64(0.45*r.NormFloat64()),
		"detailed_hints": 0.55 + float64(0.55*r.NormFloat64()),
	}
	return task, hint
}

func buildRExBench(seed uint64) []*rxRun {
	var runs []*rxRun
	taskEff := make([]float64, len(rxTasks))
	hintEff := make([]map[string]float64, len(rxTasks))
	for i := range rxTasks {
		taskEff[i], hintEff[i] = rxTaskEffects(seed, &rxTasks[i])
	}
	for _, fw := range rxFrameworks {
		for _, m := range rxModels {
			// Agent × task affinity, shared by hint levels and trials.
			cell := make([]float64, len(rxTasks))
			for i := range rxTasks {
				cell[i] = 0.5 * stream(seed, "rexbench-cell", fw.Name, m.Name, rxTasks[i].ID).NormFloat64()
			}
			for _, h := range rxHintLevels {
				for ti := range rxTasks {
					t := &rxTasks[ti]
					for trial := 1; trial <= rxTrials; trial++ {
						run := &rxRun{
							ID: fmt.Sprintf("demo-rx-%04d", len(runs)+1), Framework: fw.Name,
							Model: m.Name, Hint: h, Task: t.ID, Trial: trial,
						}
						r := stream(seed, "rexbench-run", fw.Name, m.Name, h, t.ID, strconv.Itoa(trial))
						genRXRun(r, run, t, fw, m, taskEff[ti]+cell[ti], hintEff[ti][h])
						runs = append(runs, run)
					}
				}
			}
		}
	}
	return runs
}

func genRXRun(r *rand.Rand, run *rxRun, t *rxTask, fw rxFramework, m rxModel, affinity, hint float64) {
	difficulty := math.Log(float64(t.GoldLines) / 60)
	pTimeout := 0.015
	if t.GoldLines > 200 {
		pTimeout = 0.03
	}
	pExec := sigmoid(1.0 + float64(0.5*m.Effect) + fw.Exec + float64(0.4*hint) + float64(0.5*affinity) - float64(0.45*difficulty))
	pSucc := sigmoid(-0.45 + m.Effect + fw.Succ + hint + affinity - float64(0.85*difficulty))

	switch u := r.Float64(); {
	case u < fw.NoPatch+m.NoPatch:
		run.Outcome, run.ErrorType = "no_patch", "empty patch"
	case r.Float64() < 0.012:
		run.Outcome, run.ErrorType = "patch_failed", "patch failed"
	case r.Float64() < pTimeout:
		run.Outcome, run.ErrorType = "timeout", "Execution Timeout"
	case r.Float64() >= pExec:
		run.Outcome = "exec_error"
		run.ErrorType = rxErrorTypes[weighted(r, rxErrorWeights)]
	case r.Float64() < pSucc:
		run.Outcome = "success"
	default:
		run.Outcome = "wrong_result"
	}
	if run.Outcome == "no_patch" {
		run.Files = []string{}
		return
	}

	// Files edited: each gold file with an outcome-dependent probability,
	// run_final.sh almost always (unless it is the reported error), plus
	// sometimes unrelated files.
	pGold := map[string]float64{
		"success": 0.82, "wrong_result": 0.66, "exec_error": 0.55,
		"timeout": 0.6, "patch_failed": 0.5,
	}[run.Outcome]
	var nonScript []string
	for _, f := range t.GoldFiles {
		switch {
		case f == "run_final.sh":
			if run.ErrorType != "empty or missing" && r.Float64() < 0.85 {
				run.Files = append(run.Files, f)
			}
		case r.Float64() < pGold:
			run.Files = append(run.Files, f)
		default:
			nonScript = append(nonScript, f)
		}
	}
	if len(run.Files) == 0 || (len(run.Files) == 1 && run.Files[0] == "run_final.sh" && len(nonScript) > 0 && r.Float64() < 0.5) {
		if len(nonScript) > 0 {
			run.Files = append(run.Files, nonScript[r.IntN(len(nonScript))])
		}
	}
	if r.Float64() < 0.35 {
		extras := slices.Clone(rxExtraFiles)
		r.Shuffle(len(extras), func(i, j int) { extras[i], extras[j] = extras[j], extras[i] })
		k := 1
		if r.Float64() < 0.3 {
			k = 2
		}
		run.Files = append(run.Files, extras[:k]...)
	}
	slices.Sort(run.Files)
	run.Files = slices.Compact(run.Files)

	run.Added = max(1, int(math.Round(float64(t.GoldLines)*math.Exp(-0.15+float64(0.55*r.NormFloat64())))))
	run.Deleted = int(math.Round(float64(run.Added) * uniform(r, 0.05, 0.45)))

	switch run.Outcome {
	case "success":
		v := t.Gold + float64(t.GoldSD*clamp(0.7*r.NormFloat64(), -1, 1))
		v = roundTo(clamp(v, t.Lo, t.Hi), t.Decimals)
		run.Result = &v
	case "wrong_result":
		// Off by 3–30 % (at least 5 gold SDs), usually in the worse direction.
		off := math.Max(math.Abs(t.Gold)*uniform(r, 0.03, 0.3), 5*t.GoldSD)
		worse := r.Float64() < 0.75
		if (t.Direction == "higher") == worse {
			off = -off
		}
		v := roundTo(clamp(t.Gold+off, t.Lo, t.Hi), t.Decimals)
		if math.Abs(v-t.Gold) < 5*t.GoldSD { // clamped into the gold band
			v = roundTo(clamp(t.Gold-off, t.Lo, t.Hi), t.Decimals)
		}
		run.Result = &v
	}
}

func renderRXRuns(runs []*rxRun) []byte {
	var w bytes.Buffer
	for _, r := range runs {
		var o jsonObj
		o.str("run_id", r.ID)
		o.str("framework", r.Framework)
		o.str("model", r.Model)
		o.str("hint_level", r.Hint)
		o.str("task", r.Task)
		o.int("trial", int64(r.Trial))
		o.int("seed", int64(r.Trial))
		o.str("outcome", r.Outcome)
		o.bool("final_success", r.Outcome == "success")
		o.bool("exec_success", r.Outcome == "success" || r.Outcome == "wrong_result")
		o.strOrNull("error_type", r.ErrorType)
		o.strs("files_edited", r.Files)
		if r.Outcome == "no_patch" {
			o.int("lines_added", 0)
			o.int("lines_deleted", 0)
		} else {
			o.int("lines_added", int64(r.Added))
			o.int("lines_deleted", int64(r.Deleted))
		}
		o.numOrNull("result_value", r.Result)
		o.line(&w)
	}
	return w.Bytes()
}

func renderRXTasks() []byte {
	var b bytes.Buffer
	b.WriteString("# Synthetic gold data for the rdeval demo study. These are NOT the real\n")
	b.WriteString("# RExBench gold values; see cmd/rdeval/internal/demo/README.md.\n")
	b.WriteString("benchmark: rexbench\ntasks:\n")
	for _, t := range rxTasks {
		fmt.Fprintf(&b, "  - task_id: %s\n", t.ID)
		fmt.Fprintf(&b, "    family: %s\n", t.ID)
		fmt.Fprintf(&b, "    direction: %s\n", t.Direction)
		b.WriteString("    aggregation: last\n")
		b.WriteString("    selection: best\n")
		fmt.Fprintf(&b, "    gold_value: %s\n", fmtFloat(t.Gold))
		fmt.Fprintf(&b, "    gold_sd: %s\n", fmtFloat(t.GoldSD))
		fmt.Fprintf(&b, "    tolerance: %s\n", fmtFloat(t.Tol))
		fmt.Fprintf(&b, "    gold_files: [%s]\n", strings.Join(t.GoldFiles, ", "))
		fmt.Fprintf(&b, "    gold_lines_changed: %d\n", t.GoldLines)
	}
	return b.Bytes()
}
