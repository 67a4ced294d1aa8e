package ingest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
	"math"
	"path/filepath"
	"strings"
	"time"
)

// ReaderMLEBench reads MLE-bench grading reports
// (<run group>/<timestamp>_grading_report.json, written by `mlebench
// grade`: mlebench/grade.py aggregate_reports).
const ReaderMLEBench = "mle-bench"

// mleCompetitionReport is one entry of a grading report's
// competition_reports (mlebench/grade_helpers.py CompetitionReport.to_dict).
// Pointers tell a missing key from false or 0.
type mleCompetitionReport struct {
	CompetitionID    *string  `json:"competition_id"`
	Score            *float64 `json:"score"`
	GoldThreshold    *float64 `json:"gold_threshold"`
	SilverThreshold  *float64 `json:"silver_threshold"`
	BronzeThreshold  *float64 `json:"bronze_threshold"`
	MedianThreshold  *float64 `json:"median_threshold"`
	AnyMedal         *bool    `json:"any_medal"`
	GoldMedal        *bool    `json:"gold_medal"`
	SilverMedal      *bool    `json:"silver_medal"`
	BronzeMedal      *bool    `json:"bronze_medal"`
	AboveMedian      *bool    `json:"above_median"`
	SubmissionExists *bool    `json:"submission_exists"`
	ValidSubmission  *bool    `json:"valid_submission"`
	IsLowerBetter    *bool    `json:"is_lower_better"`
	CreatedAt        *string  `json:"created_at"`
	SubmissionPath   *string  `json:"submission_path"`
}

// mleState is what the MLE-bench reader keeps across grading reports.
type mleState struct {
	seeds  map[string]int               // agent + "\x00" + competition → entries read so far
	groups map[string]map[string]string // run_group_experiments.csv path → run group → experiment_id
}

// mleExperimentsCSV is MLE-bench's map of run groups to experiments
// (runs/run_group_experiments.csv: experiment_id,run_group).
const mleExperimentsCSV = "run_group_experiments.csv"

// skipMLEFile reports whether a file found in a folder is read with the
// grading reports rather than as an input: runs/run_group_experiments.csv.
func skipMLEFile(p string) bool { return filepath.Base(p) == mleExperimentsCSV }

// mleExperiment returns the experiment_id of run group group from the
// run_group_experiments.csv in folder dir, or "".
func (l *loader) mleExperiment(dir, group string) string {
	p := filepath.Join(dir, mleExperimentsCSV)
	m, ok := l.mle.groups[p]
	if !ok {
		m = map[string]string{}
		if b, err := readFileFS(l.opt.FS, p); err == nil {
			for _, line := range strings.Split(string(b), "\n") {
				exp, g, ok := strings.Cut(strings.TrimSpace(line), ",")
				if !ok || exp == "experiment_id" {
					continue
				}
				m[strings.TrimSpace(g)] = strings.TrimSpace(exp)
			}
		}
		if l.mle.groups == nil {
			l.mle.groups = map[string]map[string]string{}
		}
		l.mle.groups[p] = m
	}
	return m[group]
}

// looksMLEGradingReport reports whether a file is an MLE-bench grading
// report: named *grading_report*.json (as aggregate_grading_reports.py
// finds them) or holding "competition_reports" near its start.
func looksMLEGradingReport(p string, head []byte) bool {
	name := filepath.Base(p)
	if strings.HasSuffix(name, ".json") && strings.Contains(name, "grading_report") {
		return true
	}
	return bytes.Contains(head, []byte(`"competition_reports"`)) && bytes.Contains(head, []byte(`"total_runs"`))
}

// isMLEGradingReportFile reports whether a JSON file found in a folder is
// an MLE-bench grading report (expandInput).
func isMLEGradingReportFile(fsys fs.FS, p string) bool {
	if looksMLEGradingReport(p, nil) {
		return true
	}
	head, err := readHead(fsys, p, 4096)
	return err == nil && looksMLEGradingReport(p, head)
}

// readMLEBench maps a grading report to runs, one per entry of
// competition_reports:
//
//   - agent: the experiment_id that runs/run_group_experiments.csv (beside
//     the run group folders, as in the mle-bench repository) gives the run
//     group, else the run group folder's name. Not the scaffold in the
//     folder name (…_run-group_aide): many experiments (models) share aide,
//     and scaffold stays null because `rdeval success` groups by scaffold
//     before agent, which would merge them.
//   - run_id: <run group>/<competition_id>/<k>, k (1-based) counting the
//     competition's entries in this report in file order.
//   - trial: the seed: the competition's entries counted over every report
//     of the same agent, in the order Load reads them (a folder's files
//     sorted by path). MLE-bench's aggregate_grading_reports.py forms seed
//     k from the k-th report of every competition in the same way (report
//     paths sorted), so per-trial rates are its per-seed rates (`rdeval
//     success`: sd across trials).
//   - task_id: competition_id; benchmark: mle-bench; model null (the
//     report names none; the experiment id often does).
//   - raw_score: score, the competition's own metric (null for an invalid
//     submission). score stays null: competition metrics have different
//     scales and directions, so averaging them is meaningless.
//   - score_binarized and final_success: any_medal.
//   - outcome: success for a medal; wrong_result for a valid submission
//     without one; exec_error with error_type "invalid submission"
//     (submission_exists, not valid_submission) or "no submission"; so
//     exec_success = valid_submission.
//   - completed_at: created_at (when the submission was graded; MLE-bench
//     writes local time without a zone, read as UTC).
//   - tasks table: direction (is_lower_better: lower, else higher),
//     gold_value = gold_threshold, human_reference = median_threshold
//     (the median leaderboard entry, MLE-bench's above_median line), unless
//     the catalog has the task; a competition whose thresholds differ
//     between entries is a warning. bronze_threshold and silver_threshold
//     have no column in schema 1 (the medal flags are not re-derived from
//     them: MLE-bench's ranking rules are the leaderboard's).
//
// A missing required key (competition_id, any_medal, valid_submission,
// submission_exists), any_medal contradicting the medal flags, or a valid
// submission that does not exist is an error naming the entry.
func (l *loader) readMLEBench(p string, data []byte, st *InputStats) {
	var rep struct {
		Reports []json.RawMessage `json:"competition_reports"`
	}
	if err := json.Unmarshal(data, &rep); err != nil {
		l.fileErr(p, &Error{File: p, Msg: "not an MLE-bench grading report: " + err.Error()})
		return
	}
	if rep.Reports == nil {
		l.fileErr(p, &Error{File: p, Field: "competition_reports", Msg: "missing: an MLE-bench grading report lists its competition_reports"})
		return
	}
	dir := filepath.Dir(p)
	if abs, err := filepath.Abs(dir); err == nil {
		dir = abs
	}
	group := filepath.Base(dir)
	agent := l.mleExperiment(filepath.Dir(dir), group)
	if agent == "" {
		agent = group
	}
	if l.mle.seeds == nil {
		l.mle.seeds = map[string]int{}
	}
	seen := map[string]int{}
	for i, raw := range rep.Reports {
		st.RowsRead++
		field := fmt.Sprintf("competition_reports[%d]", i)
		var cr mleCompetitionReport
		if err := json.Unmarshal(raw, &cr); err != nil {
			l.reject(st, &Error{File: p, Field: field, Msg: err.Error()}, raw)
			continue
		}
		var missing []string
		for _, k := range []struct {
			name string
			ok   bool
		}{{"competition_id", cr.CompetitionID != nil && *cr.CompetitionID != ""}, {"any_medal", cr.AnyMedal != nil},
			{"valid_submission", cr.ValidSubmission != nil}, {"submission_exists", cr.SubmissionExists != nil}} {
			if !k.ok {
				missing = append(missing, k.name)
			}
		}
		if len(missing) > 0 {
			l.reject(st, &Error{File: p, Field: field, Msg: "missing " + strings.Join(missing, ", ")}, raw)
			continue
		}
		id := *cr.CompetitionID
		field = fmt.Sprintf("competition_reports[%d] (%s)", i, id)
		if cr.GoldMedal != nil && cr.SilverMedal != nil && cr.BronzeMedal != nil &&
			*cr.AnyMedal != (*cr.GoldMedal || *cr.SilverMedal || *cr.BronzeMedal) {
			l.reject(st, &Error{File: p, Field: field, Msg: fmt.Sprintf("any_medal=%v contradicts gold/silver/bronze_medal", *cr.AnyMedal)}, raw)
			continue
		}
		if *cr.ValidSubmission && !*cr.SubmissionExists {
			l.reject(st, &Error{File: p, Field: field, Msg: "valid_submission=true with submission_exists=false"}, raw)
			continue
		}
		if *cr.AnyMedal && !*cr.ValidSubmission {
			l.reject(st, &Error{File: p, Field: field, Msg: "any_medal=true with valid_submission=false"}, raw)
			continue
		}
		seen[id]++
		seedKey := agent + "\x00" + id
		l.mle.seeds[seedKey]++
		run := Run{RunID: fmt.Sprintf("%s/%s/%d", group, id, seen[id]), Benchmark: "mle-bench", TaskID: id, Agent: agent, Kind: "agent",
			Trial: Some(int64(l.mle.seeds[seedKey])), SourceFile: p, SourceLine: 1}
		if cr.Score != nil && !math.IsNaN(*cr.Score) {
			run.RawScore = Some(*cr.Score)
		}
		run.ScoreBinarized = Some(int8(0))
		switch {
		case *cr.AnyMedal:
			run.Outcome = Some("success")
			run.ScoreBinarized = Some(int8(1))
		case *cr.ValidSubmission:
			run.Outcome = Some("wrong_result")
		case *cr.SubmissionExists:
			run.Outcome, run.ErrorType = Some("exec_error"), Some("invalid submission")
		default:
			run.Outcome, run.ErrorType = Some("exec_error"), Some("no submission")
		}
		if cr.CreatedAt != nil && *cr.CreatedAt != "" {
			t, err := parseMLETime(*cr.CreatedAt)
			if err != nil {
				l.reject(st, &Error{File: p, Field: field + ".created_at", Msg: fmt.Sprintf("want an ISO 8601 time, got %q", *cr.CreatedAt)}, raw)
				continue
			}
			run.CompletedAt = Some(t)
		}
		var err error
		if run.Extras, err = extrasWithout(raw, mleMapped...); err != nil {
			l.reject(st, &Error{File: p, Field: field, Msg: err.Error()}, raw)
			continue
		}
		if err := l.finishRun(&run, ReaderMLEBench); err != nil {
			l.reject(st, &Error{File: p, Field: field, Msg: err.Error()}, raw)
			continue
		}
		l.mleTask(p, id, cr)
		l.addRun(&run, st)
	}
}

// mleMapped are the fields of a competition report that a column of the
// runs or tasks table holds (or that decide the outcome); the rest (the
// medal flags, silver_threshold, bronze_threshold, above_median,
// submission_path, …) are the run's extras.
var mleMapped = []string{"competition_id", "score", "any_medal", "valid_submission", "submission_exists",
	"created_at", "is_lower_better", "gold_threshold", "median_threshold"}

// mleTask records a competition's direction and thresholds in the catalog
// (unless it already has the task: an earlier entry or --tasks), warning
// when they disagree.
func (l *loader) mleTask(p, id string, cr mleCompetitionReport) {
	t := Task{TaskID: id, Benchmark: "mle-bench"}
	if cr.IsLowerBetter != nil {
		if *cr.IsLowerBetter {
			t.Direction = Some("lower")
		} else {
			t.Direction = Some("higher")
		}
	}
	if cr.GoldThreshold != nil {
		t.GoldValue = Some(*cr.GoldThreshold)
	}
	if cr.MedianThreshold != nil {
		t.HumanReference = Some(*cr.MedianThreshold)
	}
	prev, ok := l.cat.Lookup("mle-bench", id)
	if !ok {
		l.cat.Add(t)
		return
	}
	if prev.Direction != t.Direction || prev.GoldValue != t.GoldValue || prev.HumanReference != t.HumanReference {
		l.warn(p, "competition %s: direction, gold_threshold or median_threshold differ from an earlier report's or the catalog's, which are kept", id)
	}
}

// parseMLETime reads created_at (Python datetime.isoformat(), local time
// without a zone, or with one).
func parseMLETime(s string) (time.Time, error) {
	if t, err := parseISOTime(s); err == nil {
		return t, nil
	}
	for _, layout := range []string{"2006-01-02T15:04:05.999999", "2006-01-02T15:04:05"} {
		if t, err := time.Parse(layout, s); err == nil {
			return t.UTC(), nil
		}
	}
	return time.Time{}, fmt.Errorf("bad time %q", s)
}
