package ingest

import (
	"fmt"
	"slices"
	"strings"
)

// ExecuteResult is one run's RUNDIR/runs/<run_id>/result.json, the record
// that `rdeval execute run` writes (execute.Result is this type) and
// ReaderExecute reads back. The field order is the file's key order.
type ExecuteResult struct {
	RunID       string `json:"run_id"`
	TaskID      string `json:"task_id"`
	PatchFile   string `json:"patch_file"`
	PatchSHA256 string `json:"patch_sha256"`
	Seed        int64  `json:"seed"`
	Repeat      int    `json:"repeat"`
	// ExecutePatchMeta: agent, framework, model, hint (omitted when unset).
	ExecutePatchMeta
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
	GPUs       []ExecuteGPU `json:"gpus,omitempty"`
	CPUs       []int        `json:"cpus,omitempty"`
	StartedAt  string       `json:"started_at"`
	FinishedAt string       `json:"finished_at"`
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

// ExecutePatchMeta says who made a patch (execute.PatchMeta is this type:
// a patch's .meta.json sidecar, and part of each result.json), so that
// analyses group execute's runs as RExBench's do (by agent = framework +
// model, and hint level).
type ExecutePatchMeta struct {
	Agent     string `json:"agent,omitempty"`
	Framework string `json:"framework,omitempty"`
	Model     string `json:"model,omitempty"`
	// Hint is RExBench's hint level: no_hints, hints or detailed_hints.
	Hint string `json:"hint,omitempty"`
}

var executeHintLevels = []string{"no_hints", "hints", "detailed_hints"}

// Validate checks the hint level and that no field holds a control
// character.
func (m ExecutePatchMeta) Validate() error {
	if m.Hint != "" && !slices.Contains(executeHintLevels, m.Hint) {
		return fmt.Errorf("hint %q: want one of %s", m.Hint, strings.Join(executeHintLevels, ", "))
	}
	for _, v := range []string{m.Agent, m.Framework, m.Model} {
		if len(v) > 200 || strings.ContainsFunc(v, func(r rune) bool { return r < 0x20 || r == 0x7f }) {
			return fmt.Errorf("%q: at most 200 characters, no control characters", v)
		}
	}
	return nil
}

// ExecuteGPU is one NVIDIA GPU as nvidia-smi lists it (execute.GPU is this
// type), as a result.json records the GPUs a run had.
type ExecuteGPU struct {
	// Index is nvidia-smi's index (PCI bus order). It is not necessarily
	// CUDA's device number (CUDA orders fastest first by default), which is
	// why runs get GPUs by UUID.
	Index int `json:"index"`
	// UUID is "GPU-…" (or "MIG-…"), what CUDA_VISIBLE_DEVICES is set to.
	UUID string `json:"uuid"`
	Name string `json:"name"`
	// MemoryTotalMiB and MemoryUsedMiB are -1 when nvidia-smi says [N/A].
	MemoryTotalMiB int64 `json:"memory_total_mib"`
	MemoryUsedMiB  int64 `json:"memory_used_mib"`
	// BusID is the PCI bus id as nvidia-smi prints it (00000000:3B:00.0).
	BusID string `json:"pci_bus_id,omitempty"`
	// Minor is the minor number of the GPU's device node /dev/nvidia<Minor>,
	// read from /proc/driver/nvidia/gpus/<bus id>/information; the index
	// when that file is missing.
	Minor int `json:"minor"`
}
