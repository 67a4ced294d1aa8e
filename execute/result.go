package execute

import (
	"encoding/json"
	"os"
	"time"

	"github.com/rdeval/rdeval/ingest"
)

// Result is one run's result.json.
type Result struct {
	RunID       string `json:"run_id"`
	TaskID      string `json:"task_id"`
	PatchFile   string `json:"patch_file"`
	PatchSHA256 string `json:"patch_sha256"`
	Seed        int64  `json:"seed"`
	Repeat      int    `json:"repeat"`
	// PatchMeta: agent, framework, model, hint (omitted when unset).
	PatchMeta
	Outcome string `json:"outcome"`
	// Reason says why the outcome is not success ("" for success).
	Reason      string `json:"reason"`
	ApplyMethod string `json:"apply_method"`
	// FailedFile is the file the patch failed on (patch_failed only).
	FailedFile string `json:"failed_file,omitempty"`
	Sandbox    string `json:"sandbox"`
	// Backend is where the commands ran: local, docker, podman or slurm.
	Backend string `json:"backend,omitempty"`
	// Worktree is how the work tree was made: "overlay" (the base tree
	// under the run's own upper folder) or "checkout" (a full checkout).
	Worktree   string `json:"worktree,omitempty"`
	BaseCommit string `json:"base_commit"`
	// Metrics are the values found; MetricErrors say why others are not.
	Metrics      map[string]float64 `json:"metrics"`
	MetricErrors map[string]string  `json:"metric_errors,omitempty"`
	// ExitCode is the run command's exit status (128+signal when killed);
	// null when it did not run.
	ExitCode      *int    `json:"exit_code"`
	WallS         float64 `json:"wall_s"`
	CPUS          float64 `json:"cpu_s"`
	MaxRSSKB      int64   `json:"max_rss_kb"`
	LogsTruncated bool    `json:"logs_truncated,omitempty"`
	// PeakTasks and PeakRSSKB are the largest process+thread count and
	// summed resident set the watchdog sampled (every 50 ms).
	PeakTasks int   `json:"peak_tasks"`
	PeakRSSKB int64 `json:"peak_rss_kb"`
	// LimitPIDs and LimitMemoryBytes are the limits the run had (0: none).
	LimitPIDs        int   `json:"limit_pids"`
	LimitMemoryBytes int64 `json:"limit_memory_bytes"`
	// GPUs are the GPUs assigned to the run (CUDA_VISIBLE_DEVICES holds
	// their UUIDs); CPUs the CPUs it was pinned to.
	GPUs       []GPU  `json:"gpus,omitempty"`
	CPUs       []int  `json:"cpus,omitempty"`
	StartedAt  string `json:"started_at"`
	FinishedAt string `json:"finished_at"`
	// FilesEdited are the paths the patch touches (both sides of renames).
	FilesEdited  []string `json:"files_edited"`
	LinesAdded   int      `json:"lines_added"`
	LinesDeleted int      `json:"lines_deleted"`
	// Kept are the files copied out by the spec's keep globs, relative to
	// the run folder's keep/.
	Kept []string `json:"kept,omitempty"`
	// KeepErrors say why files matching the keep globs were not kept.
	KeepErrors []string `json:"keep_errors,omitempty"`
	// WorkSanitized lists what was removed or changed in a kept work tree
	// (--keep-work): .git entries the run made, setuid and setgid bits.
	WorkSanitized []string `json:"work_sanitized,omitempty"`
}

// Manifest is RUNDIR/manifest.json: the task and every run planned.
type Manifest struct {
	TaskID     string `json:"task_id"`
	TaskFile   string `json:"task_file"`
	Repo       string `json:"repo"`
	BaseCommit string `json:"base_commit"`
	Commit     string `json:"base_commit_resolved"`
	Sandbox    string `json:"sandbox"`
	Backend    string `json:"backend,omitempty"`
	// Worktree is how the last driver made work trees ("overlay" or
	// "checkout"; see Result.Worktree), WorktreeReason why not overlay.
	Worktree       string `json:"worktree,omitempty"`
	WorktreeReason string `json:"worktree_reason,omitempty"`
	// RdevalVersion is the version of the last driver that used the folder.
	RdevalVersion string        `json:"rdeval_version,omitempty"`
	UpdatedAt     string        `json:"updated_at"`
	Runs          []ManifestRun `json:"runs"`
}

// ManifestRun is one planned run.
type ManifestRun struct {
	RunID       string `json:"run_id"`
	PatchFile   string `json:"patch_file"`
	PatchSHA256 string `json:"patch_sha256"`
	Seed        int64  `json:"seed"`
	Repeat      int    `json:"repeat"`
	PatchMeta
}

// writeJSONAtomic writes v as indented JSON to path through a temporary
// file in the same folder, synced and renamed over path.
func writeJSONAtomic(path string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	return writeFileAtomic(path, append(b, '\n'))
}

// writeFileAtomic writes data to path through a synced temporary file in
// the same folder renamed over it, then syncs the folder, so that a
// result, once written, survives a crash (resume relies on it).
func writeFileAtomic(path string, data []byte) error {
	return ingest.WriteFileAtomic(path, data, ingest.AtomicOptions{SyncDir: true})
}

// ReadResult reads a run's result.json.
func ReadResult(path string) (*Result, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var r Result
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, err
	}
	return &r, nil
}

func stamp(t time.Time) string { return t.UTC().Format(time.RFC3339Nano) }
