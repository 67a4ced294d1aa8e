package execute

import (
	"encoding/json"
	"os"
	"time"

	"github.com/rdeval/rdeval/ingest"
)

// Result is one run's result.json; ingest owns the format (ingest reads
// it back as ReaderExecute).
type Result = ingest.ExecuteResult

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
