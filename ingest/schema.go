package ingest

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"time"
)

// SchemaVersion is the version of the table layout below. It is written
// into every file's key-value metadata (rdeval.schema_version) and bumped
// on any incompatible change.
const SchemaVersion = "1"

// Table names, used as file stems and in metadata (rdeval.table).
const (
	TableRuns     = "runs"
	TableScoreLog = "score_log"
	TableTasks    = "tasks"
)

// memPool allocates every Arrow buffer rdeval builds and the Parquet
// writer's (hugepages.go).
var memPool memory.Allocator = &hugeAllocator{}

// runCols defines the runs table, in column order. The weight columns and
// extras are written only when some run has them (see RunsSchema).
var runCols = []colDef[Run]{
	reqStr("run_id", func(r *Run) *string { return &r.RunID }),
	reqStr("benchmark", func(r *Run) *string { return &r.Benchmark }),
	reqStr("task_id", func(r *Run) *string { return &r.TaskID }),
	nStr("task_family", func(r *Run) *Opt[string] { return &r.TaskFamily }),
	nStr("task_version", func(r *Run) *Opt[string] { return &r.TaskVersion }),
	reqStr("agent", func(r *Run) *string { return &r.Agent }),
	nStr("model", func(r *Run) *Opt[string] { return &r.Model }),
	nStr("scaffold", func(r *Run) *Opt[string] { return &r.Scaffold }),
	reqStr("kind", func(r *Run) *string { return &r.Kind }),
	nInt("time_limit_s", func(r *Run) *Opt[int64] { return &r.TimeLimitS }),
	nTime("started_at", func(r *Run) *Opt[time.Time] { return &r.StartedAt }),
	nTime("completed_at", func(r *Run) *Opt[time.Time] { return &r.CompletedAt }),
	nFloat("duration_s", func(r *Run) *Opt[float64] { return &r.DurationS }),
	nFloat("raw_score", func(r *Run) *Opt[float64] { return &r.RawScore }),
	nFloat("score", func(r *Run) *Opt[float64] { return &r.Score }),
	nInt8("score_binarized", func(r *Run) *Opt[int8] { return &r.ScoreBinarized }),
	nFloat("human_minutes", func(r *Run) *Opt[float64] { return &r.HumanMinutes }),
	nStr("hint_level", func(r *Run) *Opt[string] { return &r.HintLevel }),
	nInt("trial", func(r *Run) *Opt[int64] { return &r.Trial }),
	nInt("seed", func(r *Run) *Opt[int64] { return &r.Seed }),
	nBool("final_success", func(r *Run) *Opt[bool] { return &r.FinalSuccess }),
	nBool("exec_success", func(r *Run) *Opt[bool] { return &r.ExecSuccess }),
	nStr("outcome", func(r *Run) *Opt[string] { return &r.Outcome }),
	nStr("error_type", func(r *Run) *Opt[string] { return &r.ErrorType }),
	nList("files_edited", func(r *Run) *[]string { return &r.FilesEdited }),
	nInt("lines_added", func(r *Run) *Opt[int64] { return &r.LinesAdded }),
	nInt("lines_deleted", func(r *Run) *Opt[int64] { return &r.LinesDeleted }),
	nFloat("result_value", func(r *Run) *Opt[float64] { return &r.ResultValue }),
	nFloat("file_recall", func(r *Run) *Opt[float64] { return &r.FileRecall }),
	nFloat("tokens", func(r *Run) *Opt[float64] { return &r.Tokens }),
	nFloat("cost_usd", func(r *Run) *Opt[float64] { return &r.CostUSD }),
	nFloat("equal_task_weight", func(r *Run) *Opt[float64] { return &r.EqualTaskWeight }),
	nFloat("invsqrt_task_weight", func(r *Run) *Opt[float64] { return &r.InvsqrtTaskWeight }),
	nFloat("weight", func(r *Run) *Opt[float64] { return &r.Weight }),
	nStr("extras", func(r *Run) *Opt[string] { return &r.Extras }),
	reqStr("source_file", func(r *Run) *string { return &r.SourceFile }),
	reqInt("source_line", func(r *Run) *int64 { return &r.SourceLine }),
}

// optionalCols are the optional runs columns, present only when used: the
// weights and extras.
var optionalCols = map[string]func(*Run) bool{
	"extras":              func(r *Run) bool { return r.Extras.Valid },
	"equal_task_weight":   func(r *Run) bool { return r.EqualTaskWeight.Valid },
	"invsqrt_task_weight": func(r *Run) bool { return r.InvsqrtTaskWeight.Valid },
	"weight":              func(r *Run) bool { return r.Weight.Valid },
}

var scoreCols = []colDef[ScoreEntry]{
	reqStr("run_id", func(e *ScoreEntry) *string { return &e.RunID }),
	nFloat("elapsed_s", func(e *ScoreEntry) *Opt[float64] { return &e.ElapsedS }),
	nTime("scored_at", func(e *ScoreEntry) *Opt[time.Time] { return &e.ScoredAt }),
	reqFloat("raw_score", func(e *ScoreEntry) *float64 { return &e.RawScore }),
	nStr("message", func(e *ScoreEntry) *Opt[string] { return &e.Message }),
}

var taskCols = []colDef[Task]{
	reqStr("task_id", func(t *Task) *string { return &t.TaskID }),
	reqStr("benchmark", func(t *Task) *string { return &t.Benchmark }),
	nStr("family", func(t *Task) *Opt[string] { return &t.Family }),
	nStr("direction", func(t *Task) *Opt[string] { return &t.Direction }),
	nStr("aggregation", func(t *Task) *Opt[string] { return &t.Aggregation }),
	nStr("selection", func(t *Task) *Opt[string] { return &t.Selection }),
	nFloat("y_start", func(t *Task) *Opt[float64] { return &t.YStart }),
	nFloat("y_ref", func(t *Task) *Opt[float64] { return &t.YRef }),
	nFloat("human_reference", func(t *Task) *Opt[float64] { return &t.HumanReference }),
	nFloat("gold_value", func(t *Task) *Opt[float64] { return &t.GoldValue }),
	nFloat("gold_sd", func(t *Task) *Opt[float64] { return &t.GoldSD }),
	nFloat("tolerance", func(t *Task) *Opt[float64] { return &t.Tolerance }),
	nList("gold_files", func(t *Task) *[]string { return &t.GoldFiles }),
	nInt("gold_lines_changed", func(t *Task) *Opt[int64] { return &t.GoldLinesChanged }),
}

func schemaOf[R any](table string, cols []colDef[R], version string) *arrow.Schema {
	fields := make([]arrow.Field, len(cols))
	for i, c := range cols {
		fields[i] = c.field
	}
	md := arrow.NewMetadata(
		[]string{"rdeval.table", "rdeval.schema_version", "rdeval.version"},
		[]string{table, SchemaVersion, version})
	return arrow.NewSchema(fields, &md)
}

// runColsFor returns the runs columns for rows: all fixed columns, plus each
// weight column that some row fills.
func runColsFor(rows []Run) []colDef[Run] {
	out := make([]colDef[Run], 0, len(runCols))
	for _, c := range runCols {
		if has, ok := optionalCols[c.field.Name]; ok {
			used := false
			for i := range rows {
				if has(&rows[i]) {
					used = true
					break
				}
			}
			if !used {
				continue
			}
		}
		out = append(out, c)
	}
	return out
}

// RunsSchema returns the Arrow schema of the runs table for rows (weight
// columns appear only when used). version is the rdeval version recorded in
// the metadata.
func RunsSchema(rows []Run, version string) *arrow.Schema {
	return schemaOf(TableRuns, runColsFor(rows), version)
}

// ScoreLogSchema returns the Arrow schema of the score_log table.
func ScoreLogSchema(version string) *arrow.Schema { return schemaOf(TableScoreLog, scoreCols, version) }

// TasksSchema returns the Arrow schema of the tasks table.
func TasksSchema(version string) *arrow.Schema { return schemaOf(TableTasks, taskCols, version) }

// RunsRecord builds the runs table as one Arrow record batch.
func RunsRecord(rows []Run, version string) arrow.RecordBatch {
	cols := runColsFor(rows)
	return buildRecord(schemaOf(TableRuns, cols, version), cols, rows)
}

// ScoreLogRecord builds the score_log table as one Arrow record batch. It
// fills typed builders directly (score logs reach 10^7 rows); the result
// equals buildRecord with scoreCols, which TestScoreLogRecordFast checks.
func ScoreLogRecord(rows []ScoreEntry, version string) arrow.RecordBatch {
	return scoreLogRecord(ScoreLogSchema(version), rows)
}

func scoreLogRecord(schema *arrow.Schema, rows []ScoreEntry) arrow.RecordBatch {
	// Columns are independent: fill them on up to GOMAXPROCS goroutines
	// (the result does not depend on how many).
	arrs := make([]arrow.Array, len(scoreCols))
	forEachParallel(len(arrs), len(rows) >= parallelBuildRows, func(ci int) { arrs[ci] = scoreLogColumn(ci, rows) })
	rec := array.NewRecordBatch(schema, arrs, int64(len(rows)))
	for _, a := range arrs {
		a.Release()
	}
	return rec
}

// scoreLogColumn builds column ci of the score_log table (scoreCols order)
// without scoreCols' per-row indirection through Opt pointers.
func scoreLogColumn(ci int, rows []ScoreEntry) arrow.Array {
	switch ci {
	case 0:
		return stringArray(rows, nil, func(e *ScoreEntry) string { return e.RunID })
	case 1:
		return fixedArray(arrow.PrimitiveTypes.Float64, rows, func(e *ScoreEntry) bool { return e.ElapsedS.Valid }, func(e *ScoreEntry) float64 { return e.ElapsedS.V })
	case 2:
		return fixedArray(TimestampType, rows, func(e *ScoreEntry) bool { return e.ScoredAt.Valid }, func(e *ScoreEntry) arrow.Timestamp { return arrow.Timestamp(e.ScoredAt.V.UnixMicro()) })
	case 3:
		return fixedArray(arrow.PrimitiveTypes.Float64, rows, nil, func(e *ScoreEntry) float64 { return e.RawScore })
	case 4:
		return stringArray(rows, func(e *ScoreEntry) bool { return e.Message.Valid }, func(e *ScoreEntry) string { return e.Message.V })
	}
	panic(fmt.Sprintf("score_log has no column %d", ci))
}

// TasksRecord builds the tasks table as one Arrow record batch.
func TasksRecord(rows []Task, version string) arrow.RecordBatch {
	return buildRecord(TasksSchema(version), taskCols, rows)
}
