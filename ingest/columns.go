package ingest

import (
	"fmt"
	"time"

	"github.com/rdeval/rdeval/ingest/internal/jsonline"
)

// runSetter stores one cell into a Run. Each canonical runs column has one.
type runSetter func(r *Run, c cell) error

func setStr(dst *string) func(cell) error {
	return func(c cell) error {
		s, err := c.str()
		*dst = s
		return err
	}
}

func optStr(f func(*Run) *Opt[string]) runSetter {
	return func(r *Run, c cell) error {
		s, err := c.str()
		if err == nil {
			*f(r) = Some(s)
		}
		return err
	}
}

func optFloat(f func(*Run) *Opt[float64]) runSetter {
	return func(r *Run, c cell) error {
		v, err := c.float()
		if err == nil {
			*f(r) = Some(v)
		}
		return err
	}
}

// optScore is optFloat for score columns: true/false read as 1/0.
func optScore(f func(*Run) *Opt[float64]) runSetter {
	return func(r *Run, c cell) error {
		v, err := c.score()
		if err == nil {
			*f(r) = Some(v)
		}
		return err
	}
}

func optInt(f func(*Run) *Opt[int64]) runSetter {
	return func(r *Run, c cell) error {
		v, err := c.int()
		if err == nil {
			*f(r) = Some(v)
		}
		return err
	}
}

func optBool(f func(*Run) *Opt[bool]) runSetter {
	return func(r *Run, c cell) error {
		v, err := c.boolean()
		if err == nil {
			*f(r) = Some(v)
		}
		return err
	}
}

func optTime(f func(*Run) *Opt[time.Time]) runSetter {
	return func(r *Run, c cell) error {
		v, err := c.timeMillis()
		if err == nil {
			*f(r) = Some(v)
		}
		return err
	}
}

// runColumns maps each canonical runs column that an input may carry to
// its setter. source_file and source_line are set by the reader.
var runColumns = map[string]runSetter{
	"run_id": func(r *Run, c cell) (err error) { r.RunID, err = c.id(); return },
	"benchmark": func(r *Run, c cell) (err error) {
		r.Benchmark, err = c.str()
		r.Benchmark = normalizeBenchmark(r.Benchmark)
		return
	},
	"task_id":     func(r *Run, c cell) (err error) { r.TaskID, err = c.id(); return },
	"task_family": optStr(func(r *Run) *Opt[string] { return &r.TaskFamily }),
	"agent":       func(r *Run, c cell) (err error) { r.Agent, err = c.str(); return },
	"model":       optStr(func(r *Run) *Opt[string] { return &r.Model }),
	"scaffold":    optStr(func(r *Run) *Opt[string] { return &r.Scaffold }),
	"kind": func(r *Run, c cell) (err error) {
		r.Kind, err = c.str()
		if err == nil && r.Kind != "agent" && r.Kind != "human" {
			return wantErr(`"agent" or "human"`, c)
		}
		return
	},
	"time_limit_s": optInt(func(r *Run) *Opt[int64] { return &r.TimeLimitS }),
	"started_at":   optTime(func(r *Run) *Opt[time.Time] { return &r.StartedAt }),
	"completed_at": optTime(func(r *Run) *Opt[time.Time] { return &r.CompletedAt }),
	"duration_s":   optFloat(func(r *Run) *Opt[float64] { return &r.DurationS }),
	"raw_score":    optScore(func(r *Run) *Opt[float64] { return &r.RawScore }),
	"score":        optScore(func(r *Run) *Opt[float64] { return &r.Score }),
	"score_binarized": func(r *Run, c cell) error {
		v, err := c.boolean()
		if err == nil {
			r.ScoreBinarized = Some(int8(0))
			if v {
				r.ScoreBinarized.V = 1
			}
		}
		return err
	},
	"human_minutes":       optFloat(func(r *Run) *Opt[float64] { return &r.HumanMinutes }),
	"hint_level":          optStr(func(r *Run) *Opt[string] { return &r.HintLevel }),
	"trial":               optInt(func(r *Run) *Opt[int64] { return &r.Trial }),
	"seed":                optInt(func(r *Run) *Opt[int64] { return &r.Seed }),
	"final_success":       optBool(func(r *Run) *Opt[bool] { return &r.FinalSuccess }),
	"exec_success":        optBool(func(r *Run) *Opt[bool] { return &r.ExecSuccess }),
	"outcome":             setOutcome,
	"error_type":          optStr(func(r *Run) *Opt[string] { return &r.ErrorType }),
	"files_edited":        func(r *Run, c cell) (err error) { r.FilesEdited, err = c.stringList(); return },
	"lines_added":         optInt(func(r *Run) *Opt[int64] { return &r.LinesAdded }),
	"lines_deleted":       optInt(func(r *Run) *Opt[int64] { return &r.LinesDeleted }),
	"result_value":        optFloat(func(r *Run) *Opt[float64] { return &r.ResultValue }),
	"file_recall":         optFloat(func(r *Run) *Opt[float64] { return &r.FileRecall }),
	"tokens":              optFloat(func(r *Run) *Opt[float64] { return &r.Tokens }),
	"cost_usd":            optFloat(func(r *Run) *Opt[float64] { return &r.CostUSD }),
	"equal_task_weight":   optFloat(func(r *Run) *Opt[float64] { return &r.EqualTaskWeight }),
	"invsqrt_task_weight": optFloat(func(r *Run) *Opt[float64] { return &r.InvsqrtTaskWeight }),
	"weight":              optFloat(func(r *Run) *Opt[float64] { return &r.Weight }),
	"task_version":        optStr(func(r *Run) *Opt[string] { return &r.TaskVersion }),
	"extras":              setExtras,
}

// setExtras reads an extras field: a JSON object, or a string holding one
// (CSV, or a JSON Lines export), kept as canonical text (extras.go).
func setExtras(r *Run, c cell) error {
	raw := []byte(nil)
	if c.isJSON && c.jv.Kind == jsonline.Object {
		raw = c.jv.Raw
	} else {
		s, err := c.str()
		if err != nil {
			return wantErr("a JSON object (or a string holding one)", c)
		}
		raw = []byte(s)
	}
	e, err := canonicalExtras(raw)
	if err != nil {
		return fmt.Errorf("%v, got %s", err, c.describe())
	}
	r.Extras = e
	return nil
}

// Outcomes lists the run outcomes in the order of the RExBench pipeline:
// every run has exactly one, so rates keep a fixed denominator.
var Outcomes = []string{"no_patch", "patch_failed", "exec_error", "timeout", "wrong_result", "success"}

func setOutcome(r *Run, c cell) error {
	s, err := c.str()
	if err != nil {
		return err
	}
	for _, o := range Outcomes {
		if s == o {
			r.Outcome = Some(s)
			return nil
		}
	}
	return wantErr("one of no_patch, patch_failed, exec_error, timeout, wrong_result, success", c)
}

// scoreColumns maps score_log columns (and their common aliases) to setters.
type scoreSetter func(e *ScoreEntry, c cell) error

var scoreColumns = map[string]scoreSetter{
	"run_id": func(e *ScoreEntry, c cell) (err error) { e.RunID, err = c.id(); return },
	"elapsed_s": func(e *ScoreEntry, c cell) error {
		v, err := c.float()
		if err == nil {
			e.ElapsedS = Some(v)
		}
		return err
	},
	"elapsedTime": func(e *ScoreEntry, c cell) error { // Vivaria: milliseconds
		v, err := c.float()
		if err == nil {
			e.ElapsedS = Some(v / 1000)
		}
		return err
	},
	"scored_at": func(e *ScoreEntry, c cell) error {
		v, err := c.timeMillis()
		if err == nil {
			e.ScoredAt = Some(v)
		}
		return err
	},
	"raw_score": func(e *ScoreEntry, c cell) (err error) { e.RawScore, err = c.scoreNaN(); return },
	"message": func(e *ScoreEntry, c cell) error {
		if c.isJSON && (c.jv.Kind == jsonline.Object || c.jv.Kind == jsonline.Array) {
			e.Message = Some(string(c.jv.Raw)) // Vivaria and newer score logs log structured messages
			return nil
		}
		s, err := c.str()
		if err == nil {
			e.Message = Some(s)
		}
		return err
	},
}

var scoreAliases = map[string]string{
	"score":       "raw_score",
	"timestamp":   "scored_at",
	"elapsed":     "elapsed_s",
	"elapsed_sec": "elapsed_s",
	"runId":       "run_id",
	"scoredAt":    "scored_at",
}
