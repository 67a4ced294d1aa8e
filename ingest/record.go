package ingest

import "time"

// Run is one row of the runs table: one attempt of one agent (or human) at
// one task. Field comments give the Arrow column name. Optional fields are
// null in Arrow when not Valid.
type Run struct {
	RunID      string      // run_id (required, unique within a dataset)
	Benchmark  string      // benchmark (required): re-bench, rexbench, hcast, swaa, …
	TaskID     string      // task_id (required)
	TaskFamily Opt[string] // task_family
	Agent      string      // agent (required): the thing compared, e.g. METR alias or "framework + model"
	Model      Opt[string] // model
	Scaffold   Opt[string] // scaffold (agent framework), e.g. "modular", "aide", "openhands"
	Kind       string      // kind (required): "agent" or "human"

	TimeLimitS  Opt[int64]     // time_limit_s: the run's time budget in seconds
	StartedAt   Opt[time.Time] // started_at (UTC)
	CompletedAt Opt[time.Time] // completed_at (UTC)
	DurationS   Opt[float64]   // duration_s: wall time of the run when known (completed − started, or a source's duration)

	RawScore       Opt[float64] // raw_score: the task's own scale (e.g. ln(loss − 1.5))
	Score          Opt[float64] // score: normalized score (0 = starting solution, 1 = reference)
	ScoreBinarized Opt[int8]    // score_binarized: 0/1 success as the source defines it
	HumanMinutes   Opt[float64] // human_minutes: time a human expert needs for the task
	TaskVersion    Opt[string]  // task_version

	HintLevel    Opt[string]  // hint_level: no_hints | hints | detailed_hints
	Trial        Opt[int64]   // trial
	Seed         Opt[int64]   // seed
	FinalSuccess Opt[bool]    // final_success
	ExecSuccess  Opt[bool]    // exec_success
	Outcome      Opt[string]  // outcome: no_patch | patch_failed | exec_error | timeout | wrong_result | success
	ErrorType    Opt[string]  // error_type: e.g. ValueError, "empty patch"
	FilesEdited  []string     // files_edited (list; nil = unknown)
	LinesAdded   Opt[int64]   // lines_added
	LinesDeleted Opt[int64]   // lines_deleted
	ResultValue  Opt[float64] // result_value: the number judged against gold
	FileRecall   Opt[float64] // file_recall: |agent files ∩ gold files| / |gold files|, when the source gives it

	Tokens  Opt[float64] // tokens (float: some sources average over attempts, e.g. METR 66383.4)
	CostUSD Opt[float64] // cost_usd

	EqualTaskWeight   Opt[float64] // equal_task_weight (METR)
	InvsqrtTaskWeight Opt[float64] // invsqrt_task_weight (METR)
	Weight            Opt[float64] // weight (generic inputs)

	// Extras is extras: the source record's fields that no column holds,
	// as canonical JSON object text (extras.go); written only when some
	// run has it.
	Extras Opt[string]

	SourceFile string // source_file: the input path as given
	SourceLine int64  // source_line: 1-based line (CSV: the record's first line)
}

// ScoreEntry is one row of the score_log table: one call to a task's scorer
// during a run.
type ScoreEntry struct {
	RunID    string         // run_id
	ElapsedS Opt[float64]   // elapsed_s: seconds since run start, pauses excluded
	ScoredAt Opt[time.Time] // scored_at (UTC)
	RawScore float64        // raw_score: NaN marks an invalid attempt
	Message  Opt[string]    // message
}

// Task is one row of the tasks table: a task's scoring rules and gold data.
type Task struct {
	TaskID           string       // task_id
	Benchmark        string       // benchmark
	Family           Opt[string]  // family
	Direction        Opt[string]  // direction: higher | lower (raw score)
	Aggregation      Opt[string]  // aggregation: max | min | last | mean (final score from a score log)
	Selection        Opt[string]  // selection: best | random (how best-of-k picks a run)
	YStart           Opt[float64] // y_start: raw score of the starting solution
	YRef             Opt[float64] // y_ref: raw score of the reference solution
	HumanReference   Opt[float64] // human_reference: e.g. human expert minutes or raw human score
	GoldValue        Opt[float64] // gold_value
	GoldSD           Opt[float64] // gold_sd
	Tolerance        Opt[float64] // tolerance
	GoldFiles        []string     // gold_files (list; nil = unknown)
	GoldLinesChanged Opt[int64]   // gold_lines_changed
}
