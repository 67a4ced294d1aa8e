package execute

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// OutcomeResourceLimit is the outcome of a run stopped for using more
// processes or memory than its limits allow.
const OutcomeResourceLimit = "resource_limit"

// DefaultPIDs is the process and thread limit of a run when the spec sets
// none.
const DefaultPIDs = 4096

// Limits bound one run. How each is enforced (docs/execute.md, "Resource
// limits"):
//
//   - PIDs: processes plus threads in the run. RLIMIT_NPROC set inside the
//     bwrap sandbox (for a non-root driver bwrap makes a user namespace, and
//     since Linux 5.14 RLIMIT_NPROC counts per user namespace, so the limit
//     is per run); the kernel does not enforce RLIMIT_NPROC for uid 0, so
//     for a root driver, and always as a backstop, the watchdog counts the
//     run's tasks every watchInterval and kills the run at PIDs or more.
//   - MemoryBytes: the watchdog kills the run when the summed resident set
//     of its processes exceeds it; for CPU tasks (no GPUs) RLIMIT_AS is
//     also set to it per process (CUDA reserves far more address space than
//     it uses, so GPU runs get the watchdog only).
//   - CPUs: the run is pinned to that many CPUs (sched_setaffinity through
//     taskset), disjoint from other runs' CPUs; OMP_NUM_THREADS is set to
//     the count unless the spec's env sets it.
type Limits struct {
	PIDs        int
	MemoryBytes int64
	// AddressSpace sets RLIMIT_AS = MemoryBytes (CPU tasks only).
	AddressSpace bool
}

// watchInterval is how often the watchdog samples a run's processes.
var watchInterval = 50 * time.Millisecond

// ParseMemory reads a memory size: a number of bytes, or a number with a
// unit K, M, G, T (powers of 1024, with or without "i" and "B": 512M,
// 4GiB, 1.5G).
func ParseMemory(s string) (int64, error) {
	t := strings.TrimSpace(s)
	num := strings.TrimRightFunc(t, func(r rune) bool { return r >= 'A' && r <= 'z' })
	unit := strings.ToUpper(strings.TrimSpace(t[len(num):]))
	unit = strings.TrimSuffix(strings.TrimSuffix(unit, "B"), "I")
	mult := map[string]float64{"": 1, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40}[unit]
	v, err := strconv.ParseFloat(strings.TrimSpace(num), 64)
	if mult == 0 || err != nil || v <= 0 || v*mult > 1<<60 {
		return 0, fmt.Errorf("memory %q: want a size such as 512M, 4GiB or 1.5G", s)
	}
	return int64(v * mult), nil
}

// limitPrelude is bash run before the task's command inside the sandbox:
// it lowers the soft and hard RLIMIT_NPROC (bwrap only) and RLIMIT_AS
// (never raising a hard limit already lower), then execs bash -c with the
// command as $1 so that its line numbers and $0 stay as without limits.
func limitPrelude(l Limits, nproc bool) string {
	var b strings.Builder
	b.WriteString(`__rdeval_lim() { local h; h=$(ulimit -H "$1"); if [ "$h" = unlimited ] || [ "$h" -gt "$2" ]; then ulimit "$1" "$2" || { echo "rdeval: cannot set ulimit $1 $2" >&2; exit 125; }; fi; }; `)
	if nproc && l.PIDs > 0 {
		fmt.Fprintf(&b, "__rdeval_lim -u %d; ", l.PIDs)
	}
	if l.AddressSpace && l.MemoryBytes > 0 {
		fmt.Fprintf(&b, "__rdeval_lim -v %d; ", (l.MemoryBytes+1023)/1024)
	}
	b.WriteString(`unset -f __rdeval_lim; renice -n 10 -p $$ >/dev/null 2>&1; exec bash -c "$1"`)
	return b.String()
}

// procUsage is a sample of a run's processes.
type procUsage struct {
	Tasks    int   // processes plus threads
	RSSBytes int64 // summed resident sets
	PIDs     []int
}

var pageSize = int64(os.Getpagesize())

// sampleProcs reads /proc and sums the processes that belong to the run:
// those in process group pgid and the descendants of root (bwrap's
// children are reparented to its PID namespace's init, which descends
// from root, so a process that leaves the group is still found).
func sampleProcs(procDir string, root, pgid int) procUsage {
	type st struct {
		ppid, pgrp, threads int
		rss                 int64
	}
	ents, _ := os.ReadDir(procDir)
	all := make(map[int]st, len(ents))
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile(filepath.Join(procDir, e.Name(), "stat"))
		if err != nil {
			continue
		}
		s := string(b)
		i := strings.LastIndexByte(s, ')')
		if i < 0 {
			continue
		}
		f := strings.Fields(s[i+1:])
		if len(f) < 22 {
			continue
		}
		ppid, _ := strconv.Atoi(f[1])
		pgrp, _ := strconv.Atoi(f[2])
		thr, _ := strconv.Atoi(f[17])
		rss, _ := strconv.ParseInt(f[21], 10, 64)
		all[pid] = st{ppid, pgrp, thr, rss * pageSize}
	}
	in := map[int]bool{}
	var member func(pid, depth int) bool
	member = func(pid, depth int) bool {
		if v, ok := in[pid]; ok {
			return v
		}
		p, ok := all[pid]
		v := false
		switch {
		case !ok || depth > 4096:
		case pid == root || p.pgrp == pgid:
			v = true
		case p.ppid > 1:
			v = member(p.ppid, depth+1)
		}
		in[pid] = v
		return v
	}
	var u procUsage
	for pid, p := range all {
		if member(pid, 0) {
			u.Tasks += max(p.threads, 1)
			u.RSSBytes += p.rss
			u.PIDs = append(u.PIDs, pid)
		}
	}
	return u
}

// watchdog samples the run's processes until stop is closed. It reports
// the first limit exceeded on hit (after killing every process it found)
// and returns the peaks.
type watchdog struct {
	limits   Limits
	root     int
	pgid     int
	procDir  string
	hit      chan string
	stop     chan struct{}
	done     chan struct{}
	peakRSS  int64
	peakTask int
}

func startWatchdog(l Limits, root, pgid int) *watchdog {
	w := &watchdog{limits: l, root: root, pgid: pgid, procDir: "/proc",
		hit: make(chan string, 1), stop: make(chan struct{}), done: make(chan struct{})}
	go w.loop()
	return w
}

func (w *watchdog) loop() {
	defer close(w.done)
	t := time.NewTicker(watchInterval)
	defer t.Stop()
	for {
		u := sampleProcs(w.procDir, w.root, w.pgid)
		w.peakRSS = max(w.peakRSS, u.RSSBytes)
		w.peakTask = max(w.peakTask, u.Tasks)
		var why string
		switch {
		case w.limits.PIDs > 0 && u.Tasks >= w.limits.PIDs:
			why = fmt.Sprintf("processes: %d processes and threads reached the limit of %d", u.Tasks, w.limits.PIDs)
		case w.limits.MemoryBytes > 0 && u.RSSBytes > w.limits.MemoryBytes:
			why = fmt.Sprintf("memory: %s resident exceeded the limit of %s", fmtBytes(u.RSSBytes), fmtBytes(w.limits.MemoryBytes))
		}
		if why != "" {
			_ = syscall.Kill(-w.pgid, syscall.SIGKILL)
			for _, pid := range u.PIDs {
				_ = syscall.Kill(pid, syscall.SIGKILL)
			}
			w.hit <- why
			return
		}
		select {
		case <-w.stop:
			return
		case <-t.C:
		}
	}
}

// finish stops the watchdog and waits for it.
func (w *watchdog) finish() {
	close(w.stop)
	<-w.done
}

func fmtBytes(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.2f GiB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	}
	return fmt.Sprintf("%d KiB", n>>10)
}

// limitFromStderr recognises a run that ended by itself after hitting a
// kernel limit (RLIMIT_AS makes allocations fail, RLIMIT_NPROC makes fork
// fail): it returns a reason when the tail of stderr says so and the
// corresponding limit was set, else "".
func limitFromStderr(stderrPath string, l Limits) string {
	f, err := os.Open(stderrPath)
	if err != nil {
		return ""
	}
	defer f.Close()
	const tail = 64 << 10
	if fi, err := f.Stat(); err == nil && fi.Size() > tail {
		_, _ = f.Seek(fi.Size()-tail, 0)
	}
	buf := make([]byte, tail)
	n, _ := f.Read(buf)
	s := string(buf[:n])
	if l.AddressSpace && l.MemoryBytes > 0 {
		for _, m := range []string{"MemoryError", "Cannot allocate memory", "std::bad_alloc", "out of memory"} {
			if strings.Contains(s, m) {
				return fmt.Sprintf("memory: allocation failed under the %s address-space limit (stderr: %s)", fmtBytes(l.MemoryBytes), m)
			}
		}
	}
	if l.PIDs > 0 {
		for _, m := range []string{"fork: Resource temporarily unavailable", "fork: retry: Resource temporarily unavailable", "can't start new thread"} {
			if strings.Contains(s, m) {
				return fmt.Sprintf("processes: fork failed under the limit of %d processes and threads (stderr: %s)", l.PIDs, m)
			}
		}
	}
	return ""
}
