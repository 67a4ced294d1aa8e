package study

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/rdeval/rdeval/analysis"
	"github.com/rdeval/rdeval/analysis/formula"
	"github.com/rdeval/rdeval/cmd/rdeval/internal/cmdutil"
	"github.com/rdeval/rdeval/ingest"
	"go.yaml.in/yaml/v3"
)

// Spec is one statistic: its kind and the parameters that kind takes. It
// is the stat: of an audit claim and of a multiverse spec, and what the
// flags of rdeval influence (--stat is kind, --human-run-length is
// human_run_length, --k, --a, --b, --budget, --measure) describe. Which
// fields a kind takes is SpecFields; DecodeSpec reads one from YAML,
// Validate checks it and fills in the defaults, Evaluate computes it.
type Spec struct {
	Kind           string            `yaml:"kind"`
	Where          map[string]string `yaml:"where"` // applied by the caller (Subset)
	K              int               `yaml:"k"`
	A              string            `yaml:"a"`
	B              string            `yaml:"b"`
	Budget         string            `yaml:"budget"`
	Measure        string            `yaml:"measure"`
	HumanRunLength string            `yaml:"human_run_length"`
	Framework      string            `yaml:"framework"`
	Model          string            `yaml:"model"`
	HintLevel      string            `yaml:"hint_level"`
	Agent          string            `yaml:"agent"`
	Quantile       float64           `yaml:"quantile"`
	Formula        string            `yaml:"formula"`
	Family         string            `yaml:"family"`
	Cluster        string            `yaml:"cluster"`
	Term           string            `yaml:"term"`
	NAGQ           int               `yaml:"nagq"`

	// Set by Validate: the budget and the length of a human run without
	// a time limit (DefaultHumanRunLength unless human_run_length).
	BudgetLen, HumanLen time.Duration `yaml:"-"`
}

// SpecFields are the fields each kind takes.
var SpecFields = map[string][]string{
	"scoreatk": {"kind", "where", "k"},
	"compare":  {"kind", "where", "a", "b", "budget", "measure", "human_run_length"},
	"success":  {"kind", "where", "framework", "model", "hint_level", "measure"},
	"rates":    {"kind", "where", "agent", "human_run_length"},
	"regress":  {"kind", "where", "formula", "family", "cluster", "term", "measure", "nagq"},
	"horizon":  {"kind", "where", "agent", "quantile"},
}

// DefaultHumanRunLength is how long a human run without a time limit is
// taken to last (RE-Bench's human runs are 8 hours).
const DefaultHumanRunLength = 8 * time.Hour

// DecodeSpec reads a stat: mapping whose kind is one of kinds (the
// caller's, sorted); another kind, or a field that the kind does not
// take, is an error naming its line. The result is not validated.
func DecodeSpec(n *yaml.Node, kinds []string) (Spec, error) {
	kind := ""
	if k := cmdutil.NodeKey(n, "kind"); k != nil {
		kind = k.Value
	}
	if !slices.Contains(kinds, kind) {
		return Spec{}, fmt.Errorf("line %d: stat kind %q: want one of %s", n.Line, kind, strings.Join(kinds, ", "))
	}
	fields := SpecFields[kind]
	for i := 0; i < len(n.Content); i += 2 {
		if k := n.Content[i]; !slices.Contains(fields, k.Value) {
			return Spec{}, fmt.Errorf("line %d: stat field %q is not one of %s's fields (%s)", k.Line, k.Value, kind, strings.Join(fields, ", "))
		}
	}
	var s Spec
	if err := n.Decode(&s); err != nil {
		return s, fmt.Errorf("stat: %v", err)
	}
	return s, nil
}

// Validate checks the spec and fills in its defaults (measure, nagq,
// quantile, family, the budget and human run length).
func (s *Spec) Validate() error {
	for k := range s.Where {
		if !ingest.IsRunColumn(k) {
			return fmt.Errorf("where: %q is not a runs column", k)
		}
	}
	measure := func(def string, ok ...string) error {
		if s.Measure == "" {
			s.Measure = def
		}
		if !slices.Contains(ok, s.Measure) {
			return fmt.Errorf("%s measure %q: want %s", s.Kind, s.Measure, cmdutil.OrList(ok))
		}
		return nil
	}
	switch s.Kind {
	case "scoreatk":
		if s.K < 1 {
			return fmt.Errorf("scoreatk needs k ≥ 1")
		}
	case "compare":
		if s.A == "" || s.B == "" {
			return fmt.Errorf("compare needs a and b (COLUMN=VALUE[;COLUMN=VALUE…])")
		}
		for _, g := range []string{s.A, s.B} {
			if _, err := ParseGroup(g); err != nil {
				return err
			}
		}
		d, err := time.ParseDuration(s.Budget)
		if err != nil || d <= 0 {
			return fmt.Errorf("compare budget %q: want a positive duration, e.g. 2h", s.Budget)
		}
		s.BudgetLen = d
		if err := measure("ratio", "ratio", "diff"); err != nil {
			return err
		}
	case "regress":
		if s.Formula == "" || s.Term == "" {
			return fmt.Errorf("regress needs formula and term (a coefficient name as rdeval regress prints it)")
		}
		f, err := formula.Parse(s.Formula)
		if err != nil {
			return fmt.Errorf("regress formula: %v", err)
		}
		for _, r := range f.Random {
			if r.Expr != "1" {
				return fmt.Errorf("regress formula: random term (%s): only random intercepts (1 | group) are supported", r.Label())
			}
		}
		if len(f.Random) > 0 && s.Cluster != "" {
			return fmt.Errorf("regress: cluster with random intercepts: the random intercept already models the grouping; drop cluster")
		}
		if s.NAGQ < 0 || s.NAGQ > 100 || (s.NAGQ > 1 && len(f.Random) != 1) {
			return fmt.Errorf("regress nagq %d: want 1 (Laplace) to 100 quadrature points, and more than 1 only with a single (1 | group) term (as lme4)", s.NAGQ)
		}
		s.NAGQ = max(s.NAGQ, 1)
		if s.Family, err = CheckFamily(s.Family); err != nil {
			return fmt.Errorf("regress %v", err)
		}
		if s.Measure == "" {
			s.Measure = "estimate"
		}
		if s.Measure != "estimate" && s.Measure != "p" {
			return fmt.Errorf("regress measure %q: want estimate (with its Wald CI) or p", s.Measure)
		}
	case "success":
		if s.Framework == "" || s.Model == "" || s.HintLevel == "" {
			return fmt.Errorf("success needs framework, model and hint_level")
		}
		if err := measure("final_success", "final_success", "execution_success", "file_recall"); err != nil {
			return err
		}
	case "rates":
		if s.Agent == "" && len(s.Where) == 0 {
			return fmt.Errorf("rates needs agent (or where)")
		}
	case "horizon":
		if s.Agent == "" {
			return fmt.Errorf("horizon needs agent")
		}
		if s.Quantile == 0 {
			s.Quantile = 0.5
		}
		if !(s.Quantile > 0 && s.Quantile < 1) {
			return fmt.Errorf("horizon quantile %v: want a success probability between 0 and 1", s.Quantile)
		}
	default:
		return fmt.Errorf("unknown stat kind %q", s.Kind)
	}
	s.HumanLen = DefaultHumanRunLength
	if s.HumanRunLength != "" {
		d, err := time.ParseDuration(s.HumanRunLength)
		if err != nil || d <= 0 {
			return fmt.Errorf("human_run_length %q: want a positive duration, e.g. 8h", s.HumanRunLength)
		}
		s.HumanLen = d
	}
	return nil
}

// Describe names the statistic in words.
func (s *Spec) Describe() string {
	switch s.Kind {
	case "compare":
		return fmt.Sprintf("%s of [%s] to [%s] at %s", s.Measure, s.A, s.B, s.Budget)
	case "horizon":
		return fmt.Sprintf("p%s horizon (minutes) of %s", strconv.FormatFloat(100*s.Quantile, 'f', -1, 64), s.Agent)
	case "regress":
		return fmt.Sprintf("coefficient %s of %s (%s GLM)", s.Term, s.Formula, s.Family)
	}
	return s.Short()
}

// Short names the statistic for a figure axis.
func (s *Spec) Short() string {
	switch s.Kind {
	case "scoreatk":
		return fmt.Sprintf("score@%d (mean over tasks)", s.K)
	case "compare":
		return fmt.Sprintf("%s A/B at %s", s.Measure, s.Budget)
	case "horizon":
		return fmt.Sprintf("p%s horizon (minutes)", strconv.FormatFloat(100*s.Quantile, 'f', -1, 64))
	case "regress":
		return "coefficient " + s.Term
	}
	return s.Kind
}

// EvalParams are the analyst's choices of an evaluation; the zero value
// (but for Boot and Seed) is each statistic's default.
type EvalParams struct {
	Boot int // bootstrap replicates (0: no interval)
	Seed uint64
	// Unit is what the bootstrap resamples; nil: the statistic's own
	// scheme (runs within tasks for score@k, the paired hierarchical
	// bootstrap for compare and horizons).
	Unit  *analysis.BootUnit
	Short analysis.ShortTasks // score@k: tasks with fewer than k runs
	// Horizon: the weighting, the regularization (0: 0.1, sklearn's 1/C)
	// and whether success is the score clipped to [0, 1] instead of
	// score_binarized.
	Weighting      analysis.Weighting
	Regularization float64
	SuccessScore   bool
	// AtBudget, if set, is given each compare group read at the budget
	// from score logs (ReadAtBudget), to change its scores; its error
	// stops the evaluation.
	AtBudget func(group string, side *analysis.Side) error
}

// Estimate is a Spec's value with its 95 % interval (NaN: none).
type Estimate struct {
	Value, Lo, Hi float64
	Note          string // what the value rests on, e.g. "5 tasks; dropped: …"
	// Tasks and Dropped (score@k: left out for fewer than k runs) for
	// scoreatk and compare; A and B, the groups' means at k KA and KB,
	// for compare.
	Tasks   int
	Dropped []string
	A, B    float64
	KA, KB  int
	// Refusal says why a horizon is no measurement (analysis.AgentHorizon
	// Refusals; Value is still the fit's).
	Refusal  string
	Warnings []error // caveats that do not block the value
}

// Evaluate computes the validated spec on ds, which holds the runs of its
// Where already (Subset).
func (s *Spec) Evaluate(ds *ingest.Dataset, p EvalParams) (Estimate, error) {
	nan := math.NaN()
	e := Estimate{Value: nan, Lo: nan, Hi: nan}
	if len(ds.Runs) == 0 {
		return e, fmt.Errorf("no run left")
	}
	var err error
	switch s.Kind {
	case "scoreatk":
		err = s.scoreAtK(ds, p, &e)
	case "compare":
		err = s.compare(ds, p, &e)
	case "success":
		err = s.success(ds, p, &e)
	case "rates":
		err = s.rates(ds, &e)
	case "regress":
		err = s.regress(ds, &e)
	case "horizon":
		err = s.horizon(ds, p, &e)
	default:
		err = fmt.Errorf("unknown stat kind %q", s.Kind)
	}
	return e, err
}

// unit is p's bootstrap unit, own when p has none.
func (p EvalParams) unit(own analysis.BootUnit) analysis.BootUnit {
	if p.Unit != nil {
		return *p.Unit
	}
	return own
}

func (s *Spec) scoreAtK(ds *ingest.Dataset, p EvalParams, e *Estimate) error {
	unit := p.unit(analysis.BootRuns)
	boot := p.Boot
	if unit != analysis.BootRuns {
		boot = 0
	}
	sr, err := ScoreAtK(ds, ScoreAtKParams{Ks: []int{s.K}, Boot: boot, Seed: p.Seed, CI: 0.95, Short: p.Short})
	e.Warnings = sr.Warnings
	if err != nil {
		return err
	}
	if len(sr.Rows) != 1 {
		return fmt.Errorf("expected one score@k group, got %d", len(sr.Rows))
	}
	r := sr.Rows[0]
	if r.NTasks == 0 {
		return fmt.Errorf("no task has %d runs (dropped: %s)", s.K, strings.Join(r.TasksDropped, ", "))
	}
	e.Value, e.Lo, e.Hi, e.Tasks, e.Dropped = r.Estimate, r.CILow, r.CIHigh, r.NTasks, r.TasksDropped
	if boot != p.Boot && p.Boot > 0 {
		// Another unit: the tasks ScoreAtKCurve keeps, each at its k.
		groups, _ := GroupRuns(ds, nil, Score)
		var kept []analysis.TaskScores
		var ks []int
		for _, t := range groups[0].Tasks {
			n := len(t.Scores)
			switch {
			case n >= s.K:
				ks = append(ks, s.K)
			case p.Short == analysis.TruncateShort || t.Random:
				ks = append(ks, n)
			default:
				continue
			}
			kept = append(kept, t)
		}
		lo, hi, _, err := analysis.UnitBootstrap([][]analysis.TaskScores{kept}, [][]int{ks}, unit, p.Boot, p.Seed, 0.95, func(m []float64) float64 { return m[0] })
		if err != nil {
			return err
		}
		e.Lo, e.Hi = lo, hi
	}
	e.Note = fmt.Sprintf("%d tasks", r.NTasks)
	if len(r.TasksDropped) > 0 {
		e.Note += "; dropped: " + strings.Join(r.TasksDropped, ", ")
	}
	return nil
}

func (s *Spec) compare(ds *ingest.Dataset, p EvalParams, e *Estimate) error {
	T, hl := s.BudgetLen.Seconds(), s.HumanLen.Seconds()
	a, _, err := Side(ds, s.A, T, hl)
	if err != nil {
		return err
	}
	b, _, err := Side(ds, s.B, T, hl)
	if err != nil {
		return err
	}
	if p.AtBudget != nil {
		for _, g := range []struct {
			spec string
			side *analysis.Side
		}{{s.A, &a}, {s.B, &b}} {
			if ReadAtBudget(ds, g.spec, T, hl) {
				if err := p.AtBudget(g.spec, g.side); err != nil {
					return err
				}
			}
		}
	}
	unit := p.unit(analysis.BootHierarchical)
	boot := p.Boot
	if unit != analysis.BootHierarchical {
		boot = 0
	}
	c, err := analysis.Compare(a, b, analysis.ScoreAtKOptions{Boot: boot, Seed: p.Seed, Level: 0.95})
	if err != nil {
		return err
	}
	if boot != p.Boot && p.Boot > 0 {
		// Another unit: the paired bootstrap over Compare's common tasks.
		bt := map[string]analysis.TaskScores{}
		for _, t := range b.Tasks {
			bt[t.Task] = t
		}
		var ta, tb []analysis.TaskScores
		for _, t := range a.Tasks {
			if u, ok := bt[t.Task]; ok && len(t.Scores) >= a.K && len(u.Scores) >= b.K {
				ta, tb = append(ta, t), append(tb, u)
			}
		}
		ka, kb := make([]int, len(ta)), make([]int, len(tb))
		for i := range ka {
			ka[i], kb[i] = a.K, b.K
		}
		stat := func(m []float64) float64 { return m[0] / m[1] }
		if s.Measure == "diff" {
			stat = func(m []float64) float64 { return m[0] - m[1] }
		}
		lo, hi, _, err := analysis.UnitBootstrap([][]analysis.TaskScores{ta, tb}, [][]int{ka, kb}, unit, p.Boot, p.Seed, 0.95, stat)
		if err != nil {
			return err
		}
		c.RatioLow, c.RatioHigh, c.DiffLow, c.DiffHigh = lo, hi, lo, hi
	}
	e.Tasks, e.A, e.B, e.KA, e.KB, e.Warnings = len(c.Tasks), c.EstimateA, c.EstimateB, a.K, b.K, c.Warnings
	e.Note = fmt.Sprintf("%d tasks; A %.4g (k=%d), B %.4g (k=%d)", len(c.Tasks), c.EstimateA, a.K, c.EstimateB, b.K)
	e.Value, e.Lo, e.Hi = c.Ratio, c.RatioLow, c.RatioHigh
	if s.Measure == "diff" {
		e.Value, e.Lo, e.Hi = c.Diff, c.DiffLow, c.DiffHigh
	}
	return nil
}

// ReadAtBudget reports whether Side reads group spec's runs at the budget
// from their score logs: its scored runs last longer than the budget
// (humans without a time limit last humanLen seconds).
func ReadAtBudget(ds *ingest.Dataset, spec string, budget, humanLen float64) bool {
	g, _ := ParseGroup(spec)
	for i := range ds.Runs {
		r := &ds.Runs[i]
		if !r.Score.Valid || !InGroup(r, g) {
			continue
		}
		switch {
		case r.TimeLimitS.Valid && r.TimeLimitS.V > 0:
			return float64(r.TimeLimitS.V) > budget
		case r.Kind == "human":
			return humanLen > budget
		}
	}
	return false
}

// InGroup reports whether run r has every value of group g (ParseGroup).
func InGroup(r *ingest.Run, g map[string]string) bool {
	for c, v := range g {
		if got, _ := ingest.RunValue(r, c); got != v {
			return false
		}
	}
	return true
}

func (s *Spec) success(ds *ingest.Dataset, p EvalParams, e *Estimate) error {
	res, err := Success(ds, SuccessParams{Boot: p.Boot, Seed: p.Seed, CI: 0.95})
	if err != nil {
		return err
	}
	var sum *analysis.RateSummary
	var cells []string
	for _, c := range res.Cells {
		k := c.Key
		cells = append(cells, k.Framework+" × "+k.Model+" × "+k.Hint)
		if k.Framework == s.Framework && k.Model == s.Model && k.Hint == s.HintLevel {
			x := c.Summary
			sum = &x
		}
	}
	if sum == nil {
		if len(cells) > 8 {
			cells = append(cells[:8], "…")
		}
		return fmt.Errorf("no runs for %s × %s × %s (cells: %s)", s.Framework, s.Model, s.HintLevel, strings.Join(cells, "; "))
	}
	e.Note = fmt.Sprintf("%d tasks, %d runs", sum.Tasks, sum.Runs)
	switch s.Measure {
	case "execution_success":
		e.Value, e.Lo, e.Hi = sum.Exec, sum.ExecLow, sum.ExecHigh
	case "file_recall":
		e.Value = sum.Recall
	default:
		e.Value, e.Lo, e.Hi = sum.Final, sum.FinalLow, sum.FinalHigh
	}
	return nil
}

func (s *Spec) rates(ds *ingest.Dataset, e *Estimate) error {
	if s.Agent != "" {
		ds = Subset(ds, map[string]string{"agent": s.Agent})
		if len(ds.Runs) == 0 {
			return fmt.Errorf("no run of agent %q", s.Agent)
		}
	}
	_, _, st := RunCurves(ds, s.HumanLen.Seconds())
	var runs, calls, hours float64
	for _, v := range st {
		runs, calls, hours = runs+v[0], calls+v[1], hours+v[2]
	}
	if runs == 0 {
		return fmt.Errorf("none of the %d matching runs has a score log with elapsed times (and a task with y_start/y_ref): scoring rates need score logs", len(ds.Runs))
	}
	if hours <= 0 {
		return fmt.Errorf("the runs with score logs have no length")
	}
	e.Value = calls / hours
	e.Note = fmt.Sprintf("%d runs, %d calls, %s h", int(runs), int(calls), strconv.FormatFloat(hours, 'g', 4, 64))
	return nil
}

// regress fits the GLM (or, with (1 | group) terms, the mixed model:
// lmer REML for gaussian, glmer Laplace or nAGQ for binomial) as rdeval
// regress does and reads one coefficient: its estimate with the Wald (or,
// with cluster, CR1) 95 % interval, or its p-value. The fit's warnings
// are Warnings.
func (s *Spec) regress(ds *ingest.Dataset, e *Estimate) error {
	res, err := Regress(RunsTable(ds), RegressParams{Formula: s.Formula, Family: s.Family, Cluster: s.Cluster, MaxIter: 25, NAGQ: s.NAGQ, CI: CIWald}, nil)
	if err != nil {
		return err
	}
	coef, err := res.Coefficient(s.Term)
	if err != nil {
		return err
	}
	coef = coef.Finite()
	e.Warnings = res.Warnings
	e.Note = fmt.Sprintf("%s GLM on %d runs", s.Family, res.N)
	if len(res.NGroups) > 0 && len(res.RandomEffects) > 0 {
		var gs []string
		for _, r := range res.RandomEffects {
			if r.Group != "Residual" {
				gs = append(gs, fmt.Sprintf("%s (%d levels, sd %s)", r.Group, res.NGroups[r.Group], strconv.FormatFloat(r.SD, 'g', 4, 64)))
			}
		}
		kind := "LMM (REML)"
		if s.Family == "binomial" {
			kind = "GLMM (Laplace)"
			if res.NAGQ > 1 {
				kind = fmt.Sprintf("GLMM (nAGQ = %d)", res.NAGQ)
			}
		}
		e.Note = fmt.Sprintf("%s %s on %d runs, random intercepts of %s", s.Family, kind, res.N, strings.Join(gs, ", "))
	}
	if s.Measure == "p" {
		e.Value = coef.P
		return nil
	}
	e.Value, e.Lo, e.Hi = coef.Estimate, coef.CILow, coef.CIHigh
	return nil
}

// HorizonRuns are the runs of agent that a horizon fit reads (not humans,
// with human_minutes), with the outcome: score_binarized, or with
// successScore the score clipped to [0, 1].
func HorizonRuns(ds *ingest.Dataset, agent string, successScore bool) []analysis.HorizonRun {
	var runs []analysis.HorizonRun
	task := TaskNames(ds) // the one task key
	for _, r := range ds.Runs {
		if r.Kind == "human" || r.Agent != agent {
			continue
		}
		if !r.HumanMinutes.Valid || !(r.HumanMinutes.V > 0) || math.IsInf(r.HumanMinutes.V, 0) {
			continue
		}
		var y float64
		if successScore {
			if !r.Score.Valid || math.IsNaN(r.Score.V) {
				continue
			}
			y = math.Min(1, math.Max(0, r.Score.V))
		} else {
			if !r.ScoreBinarized.Valid {
				continue
			}
			y = float64(r.ScoreBinarized.V)
		}
		runs = append(runs, analysis.HorizonRun{Agent: r.Agent, Family: r.TaskFamily.Or(""), Task: task(r.Benchmark, r.TaskID), HumanMinutes: r.HumanMinutes.V, Y: y})
	}
	return runs
}

func (s *Spec) horizon(ds *ingest.Dataset, p EvalParams, e *Estimate) error {
	runs := HorizonRuns(ds, s.Agent, p.SuccessScore)
	if len(runs) == 0 {
		success := "score_binarized"
		if p.SuccessScore {
			success = "score"
		}
		return fmt.Errorf("agent %q has no run with human_minutes and %s", s.Agent, success)
	}
	reg := p.Regularization
	if reg == 0 {
		reg = 0.1
	}
	res, err := analysis.Horizons(runs, analysis.HorizonOptions{Weighting: p.Weighting, Regularization: reg,
		Quantiles: []float64{s.Quantile}, Boot: p.Boot, Seed: p.Seed, Level: 0.95, Unit: p.unit(analysis.BootHierarchical), ExtrapolationFactor: analysis.DefaultExtrapolationFactor})
	if err != nil {
		return err
	}
	a := res.Agents[0]
	e.Value = a.Horizons[0]
	if p.Boot > 0 {
		e.Lo, e.Hi = a.CILow[0], a.CIHigh[0]
	}
	e.Note = fmt.Sprintf("%d runs", a.N)
	if a.BootSkipped > 0 {
		e.Note += fmt.Sprintf("; %d replicates skipped", a.BootSkipped)
		if a.SkippedShare > analysis.HorizonSkipWarnShare {
			e.Note += fmt.Sprintf(" (%.1f %%: the interval is conditional on the others)", 100*a.SkippedShare)
		}
	}
	if r := a.Refusals[0]; r != "" {
		// rdeval horizon prints no number for it; here the value is kept
		// (a multiverse's spread needs one) with why it is no measurement.
		e.Refusal = r
		e.Note += "; not a measurement: " + r
	}
	return nil
}

// Subset returns the runs of ds that match every where (COLUMN: VALUE,
// values may list alternatives "a,b"; as cmdutil.Filters, a null value is
// "") and their score-log entries (a new slice); tasks are shared with ds,
// which is not changed. A column that is not a runs column matches no run.
func Subset(ds *ingest.Dataset, wheres ...map[string]string) *ingest.Dataset {
	var args []string
	for _, w := range wheres {
		for c, v := range w {
			args = append(args, c+"="+v)
		}
	}
	out := &ingest.Dataset{Tasks: ds.Tasks}
	fs, err := cmdutil.ParseFilters("where", args)
	if err != nil {
		return out
	}
	ids := map[string]bool{}
	for i := range ds.Runs {
		if r := &ds.Runs[i]; fs.Match(r) {
			out.Runs = append(out.Runs, *r)
			ids[r.RunID] = true
		}
	}
	for _, e := range ds.Scores {
		if ids[e.RunID] {
			out.Scores = append(out.Scores, e)
		}
	}
	return out
}
