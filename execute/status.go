package execute

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
)

// Run states in a status report besides the outcomes.
const (
	// StateRunning: started by the driver that holds the run folder now.
	StateRunning = "running"
	// StateInterrupted: started by a driver that is gone (killed, crashed);
	// the next `execute run` redoes it.
	StateInterrupted = "interrupted"
	// StateQueued: planned, not started (or waiting for GPUs).
	StateQueued = "queued"
)

// RunStatus is one planned run's state.
type RunStatus struct {
	RunID     string `json:"run_id"`
	PatchFile string `json:"patch_file"`
	Seed      int64  `json:"seed"`
	Repeat    int    `json:"repeat"`
	// State is an outcome for a finished run, else running, interrupted
	// or queued.
	State  string `json:"state"`
	Reason string `json:"reason,omitempty"`
	// Since is when the run started (running, interrupted) or finished.
	Since string `json:"since,omitempty"`
}

// StatusReport is what `rdeval execute status` prints.
type StatusReport struct {
	RunDir string `json:"run_dir"`
	TaskID string `json:"task_id"`
	// DriverRunning says whether an `execute run` holds the folder now.
	DriverRunning bool `json:"driver_running"`
	DriverPID     int  `json:"driver_pid,omitempty"`
	// Counts by state (outcomes and running/interrupted/queued).
	Counts map[string]int `json:"counts"`
	Runs   []RunStatus    `json:"runs"`
	// TornJournalLines are journal lines that did not parse (a driver
	// killed while writing).
	TornJournalLines int `json:"torn_journal_lines,omitempty"`
}

// Status reads a run folder (manifest, journal, result files) without
// changing it.
func Status(out string) (*StatusReport, error) {
	b, err := os.ReadFile(filepath.Join(out, "manifest.json"))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%s: no manifest.json: not a run folder of rdeval execute", out)
	}
	if err != nil {
		return nil, err
	}
	var m Manifest
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, fmt.Errorf("%s: %w", filepath.Join(out, "manifest.json"), err)
	}
	es, torn, err := ReadJournal(out)
	if err != nil {
		return nil, err
	}
	running, pid := DriverRunning(out)
	// The last start of each run by the current driver, and of any driver.
	started := map[string]JournalEntry{}
	for _, e := range es {
		switch e.Event {
		case EventRunStart:
			started[e.RunID] = e
		case EventRunFinish:
			delete(started, e.RunID)
		}
	}
	rep := &StatusReport{RunDir: out, TaskID: m.TaskID, DriverRunning: running, DriverPID: pid,
		Counts: map[string]int{}, TornJournalLines: torn}
	for _, mr := range m.Runs {
		rs := RunStatus{RunID: mr.RunID, PatchFile: mr.PatchFile, Seed: mr.Seed, Repeat: mr.Repeat, State: StateQueued}
		if r, err := ReadResult(filepath.Join(out, "runs", mr.RunID, "result.json")); err == nil && r.RunID == mr.RunID {
			rs.State, rs.Reason, rs.Since = r.Outcome, r.Reason, r.FinishedAt
		} else if e, ok := started[mr.RunID]; ok {
			rs.Since = e.Time
			rs.State = StateInterrupted
			if running && e.PID == pid {
				rs.State = StateRunning
			}
		}
		rep.Counts[rs.State]++
		rep.Runs = append(rep.Runs, rs)
	}
	sort.SliceStable(rep.Runs, func(i, j int) bool { return rep.Runs[i].RunID < rep.Runs[j].RunID })
	return rep, nil
}
