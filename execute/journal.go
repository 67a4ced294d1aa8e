package execute

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// JournalFile is the run folder's append-only journal, one JSON object a
// line (JSON Lines).
const JournalFile = "journal.jsonl"

// lockFile is held (flock) by the driver working on a run folder.
const lockFile = ".lock"

// Journal events.
const (
	EventBatchStart = "batch_start"
	EventRunStart   = "run_start"
	EventRunFinish  = "run_finish"
	EventBatchEnd   = "batch_end"
)

// JournalEntry is one line of journal.jsonl.
type JournalEntry struct {
	Time  string `json:"t"`
	Event string `json:"event"`
	// PID is the driver's process id.
	PID     int    `json:"pid"`
	RunID   string `json:"run_id,omitempty"`
	Outcome string `json:"outcome,omitempty"`
	Reason  string `json:"reason,omitempty"`
	// GPUs are the UUIDs assigned to the run (run_start).
	GPUs []string `json:"gpus,omitempty"`
	// Planned is the number of runs of the batch (batch_start); Ran and
	// Skipped what it did (batch_end).
	Planned int `json:"planned,omitempty"`
	// StaleKilled counts processes of an earlier, killed driver that this
	// one killed (batch_start; see killStale).
	StaleKilled int    `json:"stale_killed,omitempty"`
	Ran         int    `json:"ran,omitempty"`
	Skipped     int    `json:"skipped,omitempty"`
	Error       string `json:"error,omitempty"`
}

// journal appends entries to RUNDIR/journal.jsonl: each entry is one
// write(2) of one line to a file opened O_APPEND, so a killed driver
// leaves at most a torn last line, which ReadJournal skips.
type journal struct {
	mu sync.Mutex
	f  *os.File
}

func openJournal(out string) (*journal, error) {
	f, err := os.OpenFile(filepath.Join(out, JournalFile), os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		return nil, err
	}
	// A torn last line from a killed driver: start on a fresh line.
	if fi, err := f.Stat(); err == nil && fi.Size() > 0 {
		if r, err := os.Open(f.Name()); err == nil {
			b := make([]byte, 1)
			if _, err := r.ReadAt(b, fi.Size()-1); err == nil && b[0] != '\n' {
				_, _ = f.Write([]byte("\n"))
			}
			r.Close()
		}
	}
	return &journal{f: f}, nil
}

func (j *journal) add(e JournalEntry) error {
	e.Time = stamp(time.Now())
	e.PID = os.Getpid()
	b, err := json.Marshal(e)
	if err != nil {
		return err
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	if _, err := j.f.Write(append(b, '\n')); err != nil {
		return err
	}
	if e.Event == EventRunFinish || e.Event == EventBatchEnd {
		return j.f.Sync()
	}
	return nil
}

func (j *journal) close() error { return j.f.Close() }

// ReadJournal reads RUNDIR/journal.jsonl; a line that does not parse (the
// torn last line of a killed driver) is skipped and counted. A missing
// journal is no entries.
func ReadJournal(out string) ([]JournalEntry, int, error) {
	f, err := os.Open(filepath.Join(out, JournalFile))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, 0, nil
	}
	if err != nil {
		return nil, 0, err
	}
	defer f.Close()
	var es []JournalEntry
	bad := 0
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" {
			continue
		}
		var e JournalEntry
		if json.Unmarshal([]byte(line), &e) != nil || e.Event == "" {
			bad++
			continue
		}
		es = append(es, e)
	}
	return es, bad, sc.Err()
}

// lockRunDir takes an exclusive flock on RUNDIR/.lock so that two drivers
// never work on one run folder; the kernel drops it when the driver dies,
// however it dies. The file holds the driver's pid.
func lockRunDir(out string) (*os.File, error) {
	path := filepath.Join(out, lockFile)
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		b, _ := os.ReadFile(path)
		f.Close()
		return nil, fmt.Errorf("%s is in use by another rdeval execute (pid %s): wait for it or use another --out", out, strings.TrimSpace(string(b)))
	}
	_ = f.Truncate(0)
	_, _ = f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0)
	return f, nil
}

// DriverRunning reports whether a driver holds RUNDIR's lock now, and its
// pid.
func DriverRunning(out string) (bool, int) {
	path := filepath.Join(out, lockFile)
	f, err := os.Open(path)
	if err != nil {
		return false, 0
	}
	defer f.Close()
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_SH|syscall.LOCK_NB); err == nil {
		_ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
		return false, 0
	}
	b, _ := os.ReadFile(path)
	pid, _ := strconv.Atoi(strings.TrimSpace(string(b)))
	return true, pid
}

// killStale SIGKILLs the processes left by an earlier driver of this run
// folder: those whose command line names a path under RUNDIR/runs/. A
// driver killed with SIGKILL takes its sandboxes with it (Pdeathsig,
// bwrap --die-with-parent), except one whose bwrap was starting at that
// instant: bwrap's namespace init can then outlive it, blocked and
// without agent code, holding the run's work tree. The caller holds the
// run folder's lock, so no live driver owns such a process. It returns
// how many it killed. Only bwrap processes are considered.
func killStale(out string) int {
	needle := []byte(filepath.Join(out, "runs") + "/")
	procs, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	n := 0
	for _, p := range procs {
		pid, err := strconv.Atoi(filepath.Base(filepath.Dir(p)))
		if err != nil || pid == os.Getpid() {
			continue
		}
		b, err := os.ReadFile(p)
		argv0, _, _ := strings.Cut(string(b), "\x00")
		if err != nil || filepath.Base(argv0) != "bwrap" || !bytesContains(b, needle) {
			continue // only sandboxes: never, say, a viewer of a log file
		}
		if syscall.Kill(pid, syscall.SIGKILL) == nil {
			n++
		}
	}
	return n
}

func bytesContains(b, sub []byte) bool { return strings.Contains(string(b), string(sub)) }
