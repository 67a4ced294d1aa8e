package reportcmd

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/rdeval/rdeval/cmd/rdeval/internal/cmdutil"
	"github.com/rdeval/rdeval/cmd/rdeval/internal/figconfig"
	"github.com/rdeval/rdeval/ingest"
)

// autoFigure is one figure of a generated config.
type autoFigure struct {
	id, typ string
	title   string // "" for the figure's own
	where   []string
	options string // YAML flow map, "" for none
	comment string
}

// studyConfigName is the generated config's file in the report folder.
const studyConfigName = "study.yaml"

// autoConfig generates the figures config of a study read from INPUT
// (rdeval report INPUT... without --config): the figure types its runs
// allow, each on the runs it is about, and the figure types left out with
// the reason (shown in the page). The config's paths (inputs, tasks,
// release dates) are relative to outDir, where it is written as
// study.yaml, so that `rdeval report --config OUT/study.yaml` draws the
// same figures. Rules:
//
//   - RE-Bench figures on the runs of benchmark re-bench with a score (the
//     headline tables' runs): scoreatk for each agent run length present;
//     allocation and allocation-bars (budget: the longest run length) when
//     there are several; per-task (humans at their run length) and, when
//     score logs are present, curves at the run length whose runs cover
//     the most tasks (ties: the longest).
//   - RExBench figures on the runs of benchmark rexbench: success (final,
//     exec, recall: each when the runs have it), errors when runs have an
//     error type, forest and gold-lines when the tasks have gold lines
//     changed (a catalog).
//   - horizon-fit on the agent runs with human_minutes (all benchmarks but
//     RExBench); horizon-trend too when release dates are given.
//   - cost, one per benchmark whose agent runs have cost_usd.
func autoConfig(ds *ingest.Dataset, rel func(string) string, releaseDates string) (figs []autoFigure, leftOut []string) {
	skip := func(typ, why string) { leftOut = append(leftOut, "figure "+typ+": "+why) }
	add := func(f autoFigure) { figs = append(figs, f) }

	// RE-Bench.
	const rb = "benchmark=re-bench"
	agentLens := map[int64]map[string]bool{} // run length → tasks
	humanLens := map[string]bool{}
	scored := 0
	rbRuns := map[string]bool{}
	otherScored := map[string]bool{} // other benchmarks (not RExBench) with scored runs
	for i := range ds.Runs {
		r := &ds.Runs[i]
		if r.Benchmark != "re-bench" && r.Benchmark != "rexbench" && r.Score.Valid && r.TimeLimitS.Valid {
			otherScored[r.Benchmark] = true
		}
		if r.Benchmark != "re-bench" || !r.Score.Valid {
			continue
		}
		scored++
		rbRuns[r.RunID] = true
		switch {
		case r.Kind == "human":
			v := ""
			if r.TimeLimitS.Valid {
				v = strconv.FormatInt(r.TimeLimitS.V, 10)
			}
			humanLens[v] = true
		case r.TimeLimitS.Valid && r.TimeLimitS.V > 0:
			if agentLens[r.TimeLimitS.V] == nil {
				agentLens[r.TimeLimitS.V] = map[string]bool{}
			}
			agentLens[r.TimeLimitS.V][r.TaskID] = true
		}
	}
	lens := make([]int64, 0, len(agentLens))
	for l := range agentLens {
		lens = append(lens, l)
	}
	sort.Slice(lens, func(i, j int) bool { return lens[i] < lens[j] })
	reTypes := []string{"scoreatk", "allocation", "allocation-bars", "per-task", "curves"}
	switch {
	case scored == 0:
		why := "no RE-Bench runs (benchmark re-bench) with a score"
		if len(otherScored) > 0 {
			why += " (--benchmark re-bench reads the scored runs of " + strings.Join(sortedLabels(otherScored), ", ") + " as RE-Bench's)"
		}
		for _, t := range reTypes {
			skip(t, why)
		}
	case len(lens) == 0:
		for _, t := range reTypes {
			skip(t, "no RE-Bench agent runs with a time limit (time_limit_s)")
		}
	default:
		for _, l := range lens {
			s := durationText(l)
			add(autoFigure{id: "scoreatk_" + fileSafe(durationLabel(l)), typ: "scoreatk", where: []string{rb}, options: "{time_limit: " + s + "}", comment: "RE-Bench Figs. 7–8"})
		}
		longest := durationText(lens[len(lens)-1])
		if len(lens) > 1 {
			add(autoFigure{id: "allocation", typ: "allocation", where: []string{rb}, comment: "RE-Bench Fig. 2"})
			add(autoFigure{id: "allocation_" + fileSafe(durationLabel(lens[len(lens)-1])), typ: "allocation-bars", where: []string{rb}, options: "{budget: " + longest + "}", comment: "RE-Bench Fig. 6"})
		} else {
			why := "one agent run length (" + durationLabel(lens[len(lens)-1]) + "): an allocation compares several"
			skip("allocation", why)
			skip("allocation-bars", why)
		}
		// Per task and over time: the run length whose runs cover the most
		// tasks (ties: the longest), so that the figure has every task it can.
		main := lens[0]
		for _, l := range lens {
			if len(agentLens[l]) >= len(agentLens[main]) {
				main = l
			}
		}
		tl := map[string]bool{strconv.FormatInt(main, 10): true}
		for v := range humanLens {
			tl[v] = true
		}
		vals := make([]string, 0, len(tl))
		for v := range tl {
			vals = append(vals, v)
		}
		sort.Strings(vals)
		add(autoFigure{id: "per_task", typ: "per-task", where: []string{rb, "time_limit_s=" + strings.Join(vals, ",")}, comment: "RE-Bench Fig. 9: " + durationLabel(main) + " agent runs"})
		logs := false
		for i := range ds.Scores {
			if rbRuns[ds.Scores[i].RunID] {
				logs = true
				break
			}
		}
		if logs {
			add(autoFigure{id: "curves", typ: "curves", where: []string{rb}, options: "{time_limit: " + durationText(main) + "}", comment: "RE-Bench Figs. 4–5"})
		} else {
			skip("curves", "no score logs for the RE-Bench runs")
		}
	}

	// RExBench.
	const rx = "benchmark=rexbench"
	var nRx, nFinal, nExec, nRecall int
	hints := map[string]bool{}
	for i := range ds.Runs {
		r := &ds.Runs[i]
		if r.Benchmark != "rexbench" {
			continue
		}
		nRx++
		if r.FinalSuccess.Valid {
			nFinal++
		}
		if r.ExecSuccess.Valid {
			nExec++
		}
		if r.FileRecall.Valid {
			nRecall++
		}
		if r.HintLevel.Valid {
			hints[r.HintLevel.V] = true
		}
	}
	gold := hasGoldLines(ds)
	if nRx == 0 {
		for _, t := range []string{"success", "errors", "forest", "gold-lines"} {
			skip(t, "no RExBench runs (benchmark rexbench)")
		}
	} else {
		for _, m := range []struct {
			id, metric string
			n          int
			col        string
		}{{"success_final", "final", nFinal, "final_success"}, {"success_exec", "exec", nExec, "exec_success"}, {"file_recall", "recall", nRecall, "file_recall"}} {
			if m.n > 0 {
				add(autoFigure{id: m.id, typ: "success", where: []string{rx}, options: "{metric: " + m.metric + "}"})
			} else {
				skip("success ("+m.metric+")", "no RExBench run has "+m.col)
			}
		}
		if _, _, _, ok := figconfig.ErrorTypeCounts(ds.Runs, 7); ok {
			add(autoFigure{id: "errors", typ: "errors", where: []string{rx}, comment: "RExBench Fig. 10"})
		} else {
			skip("errors", "no RExBench run has an error type (error_type)")
		}
		switch {
		case !gold:
			why := "no gold lines changed for the RExBench tasks (give a catalog with --tasks)"
			skip("forest", why)
			skip("gold-lines", why)
		case nFinal == 0:
			why := "no RExBench run has final_success"
			skip("forest", why)
			skip("gold-lines", why)
		default:
			f := "final_success ~ scale(gold_lines_changed)"
			if len(hints) > 1 {
				f = headlineFormula
			}
			add(autoFigure{id: "gold_lines", typ: "gold-lines", where: []string{rx}})
			add(autoFigure{id: "forest", typ: "forest", where: []string{rx}, options: "{formula: " + strconv.Quote(f) + ", cluster: task_id}", comment: "RExBench Fig. 5"})
		}
	}

	// Time horizons.
	hzBench := map[string]bool{}
	for i := range ds.Runs {
		r := &ds.Runs[i]
		if r.Benchmark != "rexbench" && r.Kind != "human" && r.HumanMinutes.Valid {
			hzBench[r.Benchmark] = true
		}
	}
	if len(hzBench) == 0 {
		skip("horizon-fit", "no agent runs with human_minutes")
		skip("horizon-trend", "no agent runs with human_minutes")
	} else {
		var bs []string
		for b := range hzBench {
			bs = append(bs, b)
		}
		sort.Strings(bs)
		hz := []string{"benchmark=" + strings.Join(bs, ",")}
		add(autoFigure{id: "horizon_fit", typ: "horizon-fit", where: hz, comment: "METR: success against human minutes"})
		if releaseDates != "" {
			add(autoFigure{id: "horizon_trend", typ: "horizon-trend", where: hz, options: "{release_dates: " + strconv.Quote(rel(releaseDates)) + "}", comment: "METR Fig. 1"})
		} else {
			skip("horizon-trend", "no release dates (give --release-dates FILE, agent: YYYY-MM-DD)")
		}
	}
	// Cost: one figure per benchmark whose agent runs have cost_usd
	// (scores of different benchmarks are not on one scale; humans alone
	// compare no agents).
	costBench := map[string]bool{}
	humanCost := false
	for i := range ds.Runs {
		switch r := &ds.Runs[i]; {
		case r.CostUSD.Valid && r.Kind == "human":
			humanCost = true
		case r.CostUSD.Valid:
			costBench[r.Benchmark] = true
		}
	}
	switch {
	case len(costBench) == 0 && humanCost:
		skip("cost", "only human runs have cost_usd: no agent to compare")
	case len(costBench) == 0:
		skip("cost", "no runs with cost_usd")
	}
	cb := make([]string, 0, len(costBench))
	for b := range costBench {
		cb = append(cb, b)
	}
	sort.Strings(cb)
	for _, b := range cb {
		id, title := "cost", ""
		if len(cb) > 1 {
			id, title = "cost_"+idSafe(b), "Cost, "+b+" runs"
		}
		add(autoFigure{id: id, typ: "cost", title: title, where: []string{"benchmark=" + b}, comment: "RE-Bench Fig. 8, HAL: cost against score, Pareto frontier"})
	}
	return figs, leftOut
}

// hasGoldLines reports whether a RExBench task with runs in ds has its
// gold lines changed (from a catalog).
func hasGoldLines(ds *ingest.Dataset) bool {
	tasks := map[string]bool{}
	for i := range ds.Runs {
		if ds.Runs[i].Benchmark == "rexbench" {
			tasks[ds.Runs[i].TaskID] = true
		}
	}
	for _, t := range ds.Tasks {
		if t.Benchmark == "rexbench" && t.GoldLinesChanged.Valid && tasks[t.TaskID] {
			return true
		}
	}
	return false
}

// relTo makes paths relative to dir (slash-separated), for a config
// written there.
func relTo(dir string) (func(string) string, error) {
	absDir, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	return func(p string) string {
		a, err := filepath.Abs(p)
		if err != nil {
			return filepath.ToSlash(p)
		}
		r, err := filepath.Rel(absDir, a)
		if err != nil {
			return filepath.ToSlash(a)
		}
		return filepath.ToSlash(r)
	}, nil
}

// autoYAML is the generated config of figs as YAML, with the input
// options in and the inputs (paths through rel).
func autoYAML(figs []autoFigure, in cmdutil.InputFlags, inputs []string, rel func(string) string) []byte {
	var b bytes.Buffer
	b.WriteString("# The figures config rdeval report generated from its inputs (the figure\n# types these runs allow). Paths are relative to this file's folder; redraw with\n#   rdeval report --config " + studyConfigName + "\n")
	if in.RunID != "" || in.Scorer != "" || len(in.ScoreMap) > 0 || (in.TaskIDFrom != "" && in.TaskIDFrom != "task/sample") {
		b.WriteString("# (--run-id, --scorer, --score-map and --task-id-from are not config keys: give the inputs as read)\n")
	}
	b.WriteString("inputs:\n")
	for _, p := range inputs {
		fmt.Fprintf(&b, "  - %s\n", strconv.Quote(rel(p)))
	}
	if in.Benchmark != "" || in.TasksFile != "" || in.Reader != "" || len(in.Map) > 0 || len(in.Where) > 0 || in.Strict {
		b.WriteString("input:\n")
		if in.Benchmark != "" {
			fmt.Fprintf(&b, "  benchmark: %s\n", strconv.Quote(in.Benchmark))
		}
		if in.TasksFile != "" {
			fmt.Fprintf(&b, "  tasks: %s\n", strconv.Quote(rel(in.TasksFile)))
		}
		if in.Reader != "" {
			fmt.Fprintf(&b, "  reader: %s\n", strconv.Quote(in.Reader))
		}
		if len(in.Map) > 0 {
			fmt.Fprintf(&b, "  map: %s\n", quoteList(in.Map))
		}
		if len(in.Where) > 0 {
			fmt.Fprintf(&b, "  where: %s\n", quoteList(in.Where))
		}
		if in.Strict {
			b.WriteString("  strict: true\n")
		}
	}
	fmt.Fprintf(&b, "seed: %d\nboot: %d\nci: %g\nformats: [svg]\nfigures:\n", figconfig.DefaultSeed, figconfig.DefaultBoot, figconfig.DefaultCI)
	for _, f := range figs {
		fmt.Fprintf(&b, "  - id: %s\n    type: %s", f.id, f.typ)
		if f.comment != "" {
			fmt.Fprintf(&b, "  # %s", f.comment)
		}
		b.WriteString("\n")
		if f.title != "" {
			fmt.Fprintf(&b, "    title: %s\n", strconv.Quote(f.title))
		}
		fmt.Fprintf(&b, "    where: %s\n", quoteList(f.where))
		if f.options != "" {
			fmt.Fprintf(&b, "    options: %s\n", f.options)
		}
	}
	if len(figs) == 0 {
		b.WriteString("  [] # none fits these runs\n")
	}
	return b.Bytes()
}

// durationLabel is seconds as "30 min" or "2 h".
func durationLabel(sec int64) string { return figconfig.DurationLabel(strconv.FormatInt(sec, 10)) }

// durationText is seconds as a config duration: 8h, 30m or 90s.
func durationText(sec int64) string {
	switch {
	case sec%3600 == 0:
		return strconv.FormatInt(sec/3600, 10) + "h"
	case sec%60 == 0:
		return strconv.FormatInt(sec/60, 10) + "m"
	}
	return strconv.FormatInt(sec, 10) + "s"
}

func quoteList(xs []string) string {
	q := make([]string, len(xs))
	for i, x := range xs {
		q[i] = strconv.Quote(x)
	}
	return "[" + strings.Join(q, ", ") + "]"
}

// idSafe is s with every character a figure id may not hold as "_".
func idSafe(s string) string {
	return strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' {
			return r
		}
		return '_'
	}, s)
}

// fileSafe is a duration label as a file stem: "30 min" → "30min", "1.5 h" → "1_5h".
func fileSafe(s string) string { return strings.ReplaceAll(strings.ReplaceAll(s, " ", ""), ".", "_") }

// parseAuto parses a generated config; one without figures (ParseConfig
// refuses those) is made by hand.
func parseAuto(path string, yml []byte, nfig int) (*figconfig.Config, error) {
	if nfig > 0 {
		return figconfig.ParseConfig(path, yml)
	}
	sum := sha256.Sum256(yml)
	return &figconfig.Config{Path: path, Dir: filepath.Dir(path), SHA256: hex.EncodeToString(sum[:]), Formats: []string{"svg"}}, nil
}
