package execute

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Options configure a batch of runs.
type Options struct {
	// Spec is the task.
	Spec *Spec
	// Patches are patch files and folders (a folder stands for its *.diff
	// and *.patch files, not recursively).
	Patches []string
	// Out is the run folder RUNDIR.
	Out string
	// Jobs bounds how many runs execute at once (default 1).
	Jobs int
	// Repeats runs every (patch, seed) this many times (default 1).
	Repeats int
	// Sandbox is SandboxBwrap, SandboxUnshare or SandboxNone (see
	// DetectSandbox).
	Sandbox string
	// KeepWork leaves each run's work tree in place; by default it is
	// removed once result.json is written (keep globs copy files out).
	KeepWork bool
	// GPUs are the GPUs runs may use (see DiscoverGPUs, SelectGPUs); each
	// run gets Spec.GPUs of them for itself, waiting while they are taken.
	GPUs []GPU
	// GPUHost says where the GPUs' device nodes are (default /dev).
	GPUHost GPUHost
	// CPUSet are the CPUs runs may be pinned to when Spec.CPUs > 0 (nil:
	// the CPUs this process may use).
	CPUSet []int
	// Backend is BackendLocal (default), BackendDocker, BackendPodman or
	// BackendSlurm.
	Backend string
	// Image overrides the spec's image (docker, podman).
	Image string
	// Version is rdeval's version, recorded in the manifest.
	Version string
	// Meta labels every patch (agent, framework, model, hint level); a
	// patch's sidecar file PATCH.meta.json overrides it field by field.
	Meta PatchMeta
	// NoJudge runs without applying the success criterion (gold runs,
	// which calibrate it): a run that exits 0 with every metric found is
	// success.
	NoJudge bool
	// Worktree is how run work trees are made: "" (auto: WorktreeOverlay
	// when the local bwrap sandbox can mount overlays here, else
	// WorktreeCheckout; the RDEVAL_WORKTREE environment variable may force
	// checkout) or WorktreeCheckout (always a full checkout per run).
	Worktree string
	// OnResult, if set, is called after each run finishes or is skipped
	// (from the worker goroutines, one call at a time).
	OnResult func(r *Result, skipped bool)
}

// Summary is what a batch did.
type Summary struct {
	// Results has one result per planned run, in plan order.
	Results []*Result
	// Skipped counts runs already finished by an earlier invocation.
	Skipped int
	// Ran counts runs executed now.
	Ran int
}

// Counts returns the number of runs per outcome.
func (s *Summary) Counts() map[string]int {
	m := map[string]int{}
	for _, r := range s.Results {
		if r != nil { // a batch stopped early did not reach every run
			m[r.Outcome]++
		}
	}
	return m
}

type plannedRun struct {
	ManifestRun
	data []byte // nil when the patch is larger than MaxPatchBytes
	size int64
}

// PatchFiles expands files and folders into the list of patch files: a
// folder gives its *.diff and *.patch files in name order.
func PatchFiles(args []string) ([]string, error) {
	var out []string
	for _, a := range args {
		fi, err := os.Stat(a)
		if err != nil {
			return nil, err
		}
		if !fi.IsDir() {
			out = append(out, a)
			continue
		}
		ents, err := os.ReadDir(a)
		if err != nil {
			return nil, err
		}
		n := 0
		for _, e := range ents {
			if e.Type().IsRegular() && (strings.HasSuffix(e.Name(), ".diff") || strings.HasSuffix(e.Name(), ".patch")) {
				out = append(out, filepath.Join(a, e.Name()))
				n++
			}
		}
		if n == 0 {
			return nil, fmt.Errorf("%s: no *.diff or *.patch files", a)
		}
	}
	return out, nil
}

// RunID is the run's folder name: task id, the first 12 hex digits of the
// patch's sha256, seed and repeat. It is the resume key.
func RunID(taskID, patchSHA string, seed int64, repeat int) string {
	return fmt.Sprintf("%s-%s-s%d-r%d", taskID, patchSHA[:12], seed, repeat)
}

// Run executes every (patch, seed, repeat) of the batch, skipping runs
// whose result.json already exists in opts.Out, and redoing unfinished
// ones. An error means the batch could not go on (bad repository, full
// disk, cancelled); every run's own failure is an outcome instead.
func Run(ctx context.Context, opts Options) (*Summary, error) {
	s := opts.Spec
	if s == nil {
		return nil, errors.New("execute: no task spec")
	}
	switch opts.Backend {
	case "":
		opts.Backend = BackendLocal
	case BackendLocal, BackendSlurm:
	case BackendDocker, BackendPodman:
		opts.Sandbox = SandboxNone // the container is the sandbox; recorded as the engine's name
		if opts.Image == "" {
			opts.Image = s.Image
		}
		if opts.Image == "" {
			return nil, fmt.Errorf("execute: the %s backend needs a container image: give image: in %s or --image", opts.Backend, s.File)
		}
	default:
		return nil, fmt.Errorf("execute: unknown backend %q (want local, docker, podman or slurm)", opts.Backend)
	}
	if opts.Backend == BackendDocker || opts.Backend == BackendPodman {
		if err := checkEngine(ctx, opts.Backend); err != nil {
			return nil, err
		}
	}
	if opts.Backend == BackendSlurm {
		// Slurm grants GPUs (--gres) and CPUs on its nodes.
	} else if s.GPUs > len(opts.GPUs) {
		if len(opts.GPUs) == 0 {
			return nil, fmt.Errorf("execute: task %s needs %d GPUs per run and none are available (--gpus none, or no GPU found)", s.ID, s.GPUs)
		}
		return nil, fmt.Errorf("execute: task %s needs %d GPUs per run but only %d are available (--gpus)", s.ID, s.GPUs, len(opts.GPUs))
	}
	if s.CPUs > 0 && opts.CPUSet == nil && opts.Backend != BackendSlurm {
		set, err := allowedCPUs("/proc/self/status")
		if err != nil {
			return nil, err
		}
		opts.CPUSet = set
	}
	if s.CPUs > len(opts.CPUSet) && s.CPUs > 0 && opts.Backend != BackendSlurm {
		return nil, fmt.Errorf("execute: task %s needs %d CPUs per run but only %d are available to this process", s.ID, s.CPUs, len(opts.CPUSet))
	}
	if s.GPUs > 0 && opts.Sandbox == SandboxBwrap && opts.Backend == BackendLocal {
		if len(gpuDeviceBinds(opts.GPUHost, opts.GPUs[:1])) == 0 {
			return nil, fmt.Errorf("execute: task %s needs GPUs but no /dev/nvidia* device nodes exist under %s", s.ID, opts.GPUHost.devDir())
		}
	}
	if u := s.Uncalibrated(); len(u) > 0 && !opts.NoJudge {
		return nil, fmt.Errorf("execute: task %s: success.range.%s gives no mean and sd and %s does not calibrate it: run rdeval execute gold first", s.ID, u[0], GoldFile(s.File))
	}
	if opts.Jobs < 1 {
		opts.Jobs = 1
	}
	if opts.Repeats < 1 {
		opts.Repeats = 1
	}
	switch opts.Sandbox {
	case SandboxBwrap, SandboxUnshare, SandboxNone:
	default:
		return nil, fmt.Errorf("execute: unknown sandbox %q", opts.Sandbox)
	}
	if opts.Worktree != "" && opts.Worktree != WorktreeCheckout {
		return nil, fmt.Errorf("execute: unknown worktree mode %q (want \"\" for auto, or %q)", opts.Worktree, WorktreeCheckout)
	}
	if v := os.Getenv(WorktreeEnv); v != "" && v != WorktreeCheckout && v != "auto" {
		return nil, fmt.Errorf("execute: %s=%q: want %s or auto (or unset)", WorktreeEnv, v, WorktreeCheckout)
	}
	commit, err := ResolveCommit(s.Repo, s.BaseCommit)
	if err != nil {
		return nil, err
	}
	files, err := PatchFiles(opts.Patches)
	if err != nil {
		return nil, err
	}
	var plan []plannedRun
	seen := map[string]bool{}
	for _, f := range files {
		data, sha, size, err := readPatchFile(f)
		if err != nil {
			return nil, err
		}
		side, err := readPatchMeta(f)
		if err != nil {
			return nil, err
		}
		meta := metaOver(opts.Meta, side)
		if err := meta.Validate(); err != nil {
			return nil, fmt.Errorf("%s: %v", f, err)
		}
		for _, seed := range s.Seeds {
			for rep := 1; rep <= opts.Repeats; rep++ {
				id := RunID(s.ID, runKey(sha, meta), seed, rep)
				if seen[id] {
					continue // the same patch content given twice
				}
				seen[id] = true
				plan = append(plan, plannedRun{ManifestRun{RunID: id, PatchFile: f, PatchSHA256: sha, Seed: seed, Repeat: rep, PatchMeta: meta}, data, size})
			}
		}
	}
	out, err := filepath.Abs(opts.Out)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(filepath.Join(out, "runs"), 0o755); err != nil {
		return nil, err
	}
	if out, err = absDir(out); err != nil {
		return nil, err
	}
	lock, err := lockRunDir(out)
	if err != nil {
		return nil, err
	}
	defer lock.Close()
	if err := cleanBaseTemps(out); err != nil {
		return nil, err
	}
	mode, userNS, why := worktreeMode(&opts, out)
	if err := updateManifest(out, s, commit, opts.Sandbox, opts.Backend, opts.Version, mode, why, plan); err != nil {
		return nil, err
	}
	jr, err := openJournal(out)
	if err != nil {
		return nil, err
	}
	defer jr.close()
	if err := jr.add(JournalEntry{Event: EventBatchStart, Planned: len(plan), StaleKilled: killStale(out)}); err != nil {
		return nil, err
	}

	// Runs whose finish the journal holds already: a driver killed between
	// writing a result.json and journaling its finish left runs with a
	// result but no finish entry; runOne journals those when it skips them.
	journaled := map[string]bool{}
	if es, _, err := ReadJournal(out); err == nil {
		for _, e := range es {
			if e.Event == EventRunFinish {
				journaled[e.RunID] = true
			}
		}
	}
	b := &batch{opts: &opts, out: out, commit: commit, gpus: newPool(len(opts.GPUs)), cpus: newPool(len(opts.CPUSet)), journal: jr, journaled: journaled,
		overlay: mode == WorktreeOverlay, userNS: userNS}
	sum := &Summary{Results: make([]*Result, len(plan))}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var mu sync.Mutex
	var firstErr error
	next := make(chan int)
	var wg sync.WaitGroup
	for range opts.Jobs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				r, skipped, err := b.runOne(ctx, &plan[i])
				mu.Lock()
				if err != nil {
					if firstErr == nil {
						firstErr = fmt.Errorf("run %s: %w", plan[i].RunID, err)
					}
					cancel()
				} else {
					sum.Results[i] = r
					if skipped {
						sum.Skipped++
					} else {
						sum.Ran++
					}
					if opts.OnResult != nil {
						opts.OnResult(r, skipped)
					}
				}
				mu.Unlock()
			}
		}()
	}
feed:
	for i := range plan {
		select {
		case next <- i:
		case <-ctx.Done():
			break feed
		}
	}
	close(next)
	wg.Wait()
	if firstErr == nil && ctx.Err() != nil {
		firstErr = ctx.Err()
	}
	end := JournalEntry{Event: EventBatchEnd, Ran: sum.Ran, Skipped: sum.Skipped}
	if firstErr != nil {
		end.Error = firstErr.Error()
	}
	if err := jr.add(end); err != nil && firstErr == nil {
		firstErr = err
	}
	if firstErr != nil {
		return sum, firstErr
	}
	return sum, nil
}

// updateManifest writes RUNDIR/manifest.json with the runs planned now
// added to those of earlier invocations.
func updateManifest(out string, s *Spec, commit, sandbox, backend, version, worktree, worktreeWhy string, plan []plannedRun) error {
	path := filepath.Join(out, "manifest.json")
	m := Manifest{}
	if b, err := os.ReadFile(path); err == nil {
		if err := json.Unmarshal(b, &m); err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		if m.TaskID != s.ID {
			return fmt.Errorf("%s is the run folder of task %q, not %q: use another --out", out, m.TaskID, s.ID)
		}
		if m.Commit != commit {
			return fmt.Errorf("%s: base commit was %s, is now %s: use another --out", out, m.Commit, commit)
		}
		if m.Sandbox != "" && m.Sandbox != sandbox || m.Backend != "" && m.Backend != backend {
			return fmt.Errorf("%s was run under sandbox %s (backend %s), not %s (backend %s): a run folder is resumed only under the sandbox and backend it was made with; use another --out", out, m.Sandbox, m.Backend, sandbox, backend)
		}
	} else if !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	m.TaskID, m.TaskFile, m.Repo, m.BaseCommit, m.Commit, m.Sandbox = s.ID, s.File, s.Repo, s.BaseCommit, commit, sandbox
	m.Backend, m.RdevalVersion = backend, version
	m.Worktree, m.WorktreeReason = worktree, worktreeWhy
	m.UpdatedAt = stamp(time.Now())
	have := map[string]bool{}
	for _, r := range m.Runs {
		have[r.RunID] = true
	}
	for _, p := range plan {
		if !have[p.RunID] {
			m.Runs = append(m.Runs, p.ManifestRun)
		}
	}
	sort.SliceStable(m.Runs, func(i, j int) bool { return m.Runs[i].RunID < m.Runs[j].RunID })
	return writeJSONAtomic(path, &m)
}

// batch is what the runs of one invocation share.
type batch struct {
	opts        *Options
	out, commit string
	gpus, cpus  *pool // slots index opts.GPUs and opts.CPUSet
	journal     *journal
	journaled   map[string]bool // run ids with a run_finish entry before this batch (read-only)
	// overlay: runs get overlay work trees over base (see worktreeMode),
	// mounted in a user namespace when userNS.
	overlay, userNS bool
	base            baseCache
}

// runOne does one run, or returns its earlier result.
func (b *batch) runOne(ctx context.Context, p *plannedRun) (*Result, bool, error) {
	opts, out, commit := b.opts, b.out, b.commit
	s := opts.Spec
	dir := filepath.Join(out, "runs", p.RunID)
	resPath := filepath.Join(dir, "result.json")
	if r, err := ReadResult(resPath); err == nil && r.RunID == p.RunID && r.TaskID == s.ID &&
		r.PatchSHA256 == p.PatchSHA256 && r.Seed == p.Seed && r.Repeat == p.Repeat && r.ExecutePatchMeta == p.PatchMeta {
		if !b.journaled[p.RunID] {
			// Finished, but the driver was killed before it journaled that.
			if err := b.journal.add(JournalEntry{Event: EventRunFinish, RunID: r.RunID, Outcome: r.Outcome,
				Reason: oneLine("recovered: result.json was written before the previous driver stopped; "+r.Reason, 300)}); err != nil {
				return nil, false, err
			}
		}
		return r, true, nil
	}
	// Unfinished (or unreadable) run: start over.
	if err := b.journal.add(JournalEntry{Event: EventRunStart, RunID: p.RunID}); err != nil {
		return nil, false, err
	}
	if err := removeOverlayDirs(dir); err != nil {
		return nil, false, err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, false, err
	}
	started := time.Now()
	r := &Result{RunID: p.RunID, TaskID: s.ID, PatchFile: p.PatchFile, PatchSHA256: p.PatchSHA256,
		Seed: p.Seed, Repeat: p.Repeat, ExecutePatchMeta: p.PatchMeta, Sandbox: opts.Sandbox, BaseCommit: commit,
		Metrics: map[string]float64{}, FilesEdited: []string{}, StartedAt: stamp(started)}
	finish := func() (*Result, bool, error) {
		r.FinishedAt = stamp(time.Now())
		if err := writeJSONAtomic(resPath, r); err != nil {
			return nil, false, err
		}
		if err := b.journal.add(JournalEntry{Event: EventRunFinish, RunID: r.RunID, Outcome: r.Outcome, Reason: oneLine(r.Reason, 300)}); err != nil {
			return nil, false, err
		}
		if err := removeWork(dir, opts.KeepWork); err != nil {
			return nil, false, err
		}
		return r, false, nil
	}
	if p.data == nil {
		r.Outcome, r.Reason = OutcomePatchFailed, fmt.Sprintf("patch is %d bytes, larger than the %d-byte limit (MaxPatchBytes): not read, not applied", p.size, MaxPatchBytes)
		return finish()
	}
	if err := os.WriteFile(filepath.Join(dir, "patch.diff"), p.data, 0o644); err != nil {
		return nil, false, err
	}

	// Vet before anything is written to a work tree.
	patch, err := ParsePatch(bytes.NewReader(p.data))
	if err != nil {
		var pe *PatchError
		if !errors.As(err, &pe) {
			return nil, false, err
		}
		r.Outcome, r.Reason, r.FailedFile = OutcomePatchFailed, pe.Error(), pe.File
		return finish()
	}
	r.FilesEdited = patch.FilesTouched()
	if r.FilesEdited == nil {
		r.FilesEdited = []string{}
	}
	for _, f := range patch.Files {
		r.LinesAdded += f.Added
		r.LinesDeleted += f.Deleted
	}
	if patch.Empty {
		r.Outcome, r.Reason = OutcomeNoPatch, "empty patch"
		return finish()
	}

	work := filepath.Join(dir, "work")
	var tree workTree = dirTree(work)
	var ov *overlayMount
	r.Worktree = WorktreeCheckout
	if b.overlay {
		base, err := b.base.get(out, s.Repo, commit)
		if err != nil {
			return nil, false, err
		}
		o := &overlayMount{Lower: base, Upper: filepath.Join(dir, "upper"), Work: filepath.Join(dir, "overlay-work"), Dest: work, UserNS: b.userNS}
		for _, d := range []string{o.Upper, o.Work, o.Dest} {
			if err := os.Mkdir(d, 0o755); err != nil {
				return nil, false, err
			}
		}
		if err := applyOverlay(base, o.Upper, p.data, patch); err == nil {
			ov, tree, r.Worktree = o, mergedTree{Upper: o.Upper, Lower: base}, WorktreeOverlay
		} else if err := removeWork(dir, false); err != nil {
			// go-gitdiff failed, or the patch goes through a link:
			// a full checkout and the whole cascade, as without overlays.
			return nil, false, err
		}
	}
	method := ApplyGo
	if ov == nil {
		checkout := func() error {
			if err := os.RemoveAll(work); err != nil {
				return err
			}
			_, err := Checkout(s.Repo, commit, work)
			return err
		}
		if err := checkout(); err != nil {
			return nil, false, err
		}
		method, err = applyCascade(ctx, work, p.data, patch, dir, checkout)
		if err != nil {
			var ae *ApplyError
			if !errors.As(err, &ae) {
				return nil, false, err
			}
			r.Outcome, r.Reason, r.FailedFile = OutcomePatchFailed, ae.Error(), ae.File
			return finish()
		}
	}
	r.ApplyMethod = method
	if opts.Sandbox == SandboxBwrap && opts.Backend == BackendLocal {
		if err := prepareWorkTree(work, ov); err != nil {
			return nil, false, fmt.Errorf("preparing the work tree for the sandbox: %w", err)
		}
	}

	// GPUs and CPUs of its own for the time the commands run (Slurm
	// grants them on its nodes instead).
	needGPUs, needCPUs := s.GPUs, s.CPUs
	if opts.Backend == BackendSlurm {
		needGPUs, needCPUs = 0, 0
	}
	gslots, err := b.gpus.acquire(ctx, needGPUs)
	if err != nil {
		return nil, false, fmt.Errorf("waiting for %d GPUs: %w", s.GPUs, err)
	}
	defer b.gpus.release(gslots)
	cslots, err := b.cpus.acquire(ctx, needCPUs)
	if err != nil {
		return nil, false, fmt.Errorf("waiting for %d CPUs: %w", s.CPUs, err)
	}
	defer b.cpus.release(cslots)
	var gpus []GPU
	for _, i := range gslots {
		gpus = append(gpus, opts.GPUs[i])
	}
	var cpus []int
	for _, i := range cslots {
		cpus = append(cpus, opts.CPUSet[i])
	}
	r.GPUs, r.CPUs = gpus, cpus
	limits := Limits{PIDs: s.PIDs, MemoryBytes: s.MemoryBytes, AddressSpace: s.GPUs == 0}
	r.LimitPIDs, r.LimitMemoryBytes = limits.PIDs, limits.MemoryBytes
	var devices []string
	if opts.Sandbox == SandboxBwrap && opts.Backend == BackendLocal {
		devices = gpuDeviceBinds(opts.GPUHost, gpus)
	}

	env := sandboxEnv(s.Env, map[string]string{
		"RDEVAL_SEED":   strconv.FormatInt(p.Seed, 10),
		"RDEVAL_REPEAT": strconv.Itoa(p.Repeat),
		"RDEVAL_RUN_ID": p.RunID,
		"RDEVAL_TASK":   s.ID,
	}, gpus, s.CPUs)
	hide := []string{s.Repo, out}
	if s.File != "" {
		if a, err := filepath.Abs(s.File); err == nil {
			hide = append(hide, filepath.Dir(a))
		}
	}
	r.Backend = opts.Backend
	if opts.Backend == BackendDocker || opts.Backend == BackendPodman {
		r.Sandbox = opts.Backend
	}
	mounts := append(append([]string(nil), s.Mounts...), toolchainMounts()...)
	mk := func(phase, script, stdout, stderr string, deadline time.Time) *command {
		return &command{Sandbox: opts.Sandbox, Script: script, Dir: work, Env: env,
			Stdout: stdout, Stderr: stderr, Deadline: deadline, Hide: hide,
			Devices: devices, CPUs: cpus, Limits: limits, Backend: opts.Backend, Image: opts.Image,
			Name: "rdeval-" + p.RunID + "-" + phase, GPUs: gpus, SlurmGPUs: s.GPUs, SlurmCPUs: s.CPUs, Overlay: ov,
			Mounts: mounts}
	}
	deadline := time.Now().Add(s.Timeout)
	var cr commandResult
	if strings.TrimSpace(s.Setup) != "" {
		setupLog := filepath.Join(dir, "setup.log")
		cr, err = mk("setup", s.Setup, setupLog, setupLog, deadline).run(ctx)
		if err != nil {
			return nil, false, fmt.Errorf("setup: %w", err)
		}
		r.WallS, r.CPUS = cr.Wall.Seconds(), cr.CPU.Seconds()
		r.PeakTasks, r.PeakRSSKB = cr.PeakTasks, cr.PeakRSS>>10
		if cr.TimedOut || cr.ExitCode != 0 || cr.LimitHit != "" {
			code := cr.ExitCode
			r.ExitCode = &code
			r.Outcome, r.Reason = OutcomeExecError, fmt.Sprintf("setup exited with status %d (see setup.log)", code)
			switch {
			case cr.TimedOut:
				r.Outcome, r.Reason = OutcomeTimeout, fmt.Sprintf("setup ran past the %v timeout", s.Timeout)
			case cr.LimitHit != "":
				r.Outcome, r.Reason = OutcomeResourceLimit, "setup: "+cr.LimitHit
			default:
				if why := limitFromStderr(setupLog, limits); why != "" {
					r.Outcome, r.Reason = OutcomeResourceLimit, "setup: "+why
				}
			}
			return finish()
		}
	}
	setupWall, setupCPU := r.WallS, r.CPUS
	cr, err = mk("run", s.Run, filepath.Join(dir, "stdout.log"), filepath.Join(dir, "stderr.log"), deadline).run(ctx)
	if err != nil {
		return nil, false, fmt.Errorf("run: %w", err)
	}
	code := cr.ExitCode
	r.ExitCode = &code
	r.WallS, r.CPUS, r.MaxRSSKB, r.LogsTruncated = setupWall+cr.Wall.Seconds(), setupCPU+cr.CPU.Seconds(), cr.MaxRSSKB, cr.Truncated
	r.PeakTasks, r.PeakRSSKB = max(r.PeakTasks, cr.PeakTasks), max(r.PeakRSSKB, cr.PeakRSS>>10)

	if opts.KeepWork {
		kept := work
		if ov != nil {
			kept = ov.Upper
		}
		notes, err := sanitizeTree(kept)
		if err != nil {
			return nil, false, fmt.Errorf("sanitizing the kept work tree: %w", err)
		}
		r.WorkSanitized = notes
	}
	vals, merrs := extractMetrics(s, filepath.Join(dir, "stdout.log"), tree)
	r.Metrics = vals
	if len(merrs) > 0 {
		r.MetricErrors = merrs
	}
	r.Kept, r.KeepErrors = keepFiles(s.Keep, tree, filepath.Join(dir, "keep"))
	switch {
	case cr.TimedOut:
		r.Outcome, r.Reason = OutcomeTimeout, fmt.Sprintf("ran past the %v timeout", s.Timeout)
	case cr.LimitHit != "":
		r.Outcome, r.Reason = OutcomeResourceLimit, cr.LimitHit
	case code != 0 && limitFromStderr(filepath.Join(dir, "stderr.log"), limits) != "":
		r.Outcome, r.Reason = OutcomeResourceLimit, limitFromStderr(filepath.Join(dir, "stderr.log"), limits)
	case code != 0:
		r.Outcome, r.Reason = OutcomeExecError, fmt.Sprintf("exited with status %d", code)
	case len(merrs) > 0:
		var b []string
		for _, k := range sortedKeys(merrs) {
			b = append(b, k+": "+merrs[k])
		}
		r.Outcome, r.Reason = OutcomeExecError, "missing metric: "+strings.Join(b, "; ")
	case opts.NoJudge:
		r.Outcome, r.Reason = OutcomeSuccess, ""
	default:
		r.Outcome, r.Reason = s.Success.Judge(vals)
	}
	if cr.Truncated {
		note := fmt.Sprintf("logs truncated: %d bytes of stdout and %d of stderr dropped from the middle (the first %d MiB and last %d MiB are kept)",
			cr.DroppedOut, cr.DroppedErr, (MaxLogBytes-logTail)>>20, logTail>>20)
		if r.Reason == "" {
			r.Reason = note
		} else {
			r.Reason += "; " + note
		}
	}
	return finish()
}

// keepFiles copies the regular files matching the globs from the work
// tree into dst, keeping their relative paths; it returns them, sorted,
// and why others were not kept (a FIFO, a symbolic link, a file over the
// keep limits: see copyKept).
func keepFiles(globs []string, work workTree, dst string) ([]string, []string) {
	var kept, errs []string
	budget := int64(maxKeepTotal)
	for _, g := range globs {
		for _, m := range work.keepMatches(g) {
			n, err := copyKept(m[1], filepath.Join(dst, filepath.FromSlash(m[0])), m[0], budget)
			if err != nil {
				if !errors.Is(err, fs.ErrExist) { // matched by two globs
					errs = append(errs, err.Error())
				}
				continue
			}
			budget -= n
			kept = append(kept, m[0])
		}
	}
	sort.Strings(kept)
	return kept, errs
}

// removeWork removes the run folder dir's work tree: the checkout, or the
// overlay's mount point, upper and work folders; keep leaves the checkout
// or the upper folder (the run's changes over RUNDIR/.base/COMMIT).
func removeWork(dir string, keep bool) error {
	rm := []string{"overlay-work"}
	if fi, err := os.Lstat(filepath.Join(dir, "upper")); err == nil && fi.IsDir() && keep {
		rm = append(rm, "work") // only the empty mount point
	} else if !keep {
		rm = append(rm, "work", "upper")
	}
	for _, n := range rm {
		if err := removeOverlayDirs(filepath.Join(dir, n)); err != nil {
			return err
		}
	}
	return nil
}

// oneLine shortens s to one line of at most n bytes.
func oneLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > n {
		s = s[:n-3] + "..."
	}
	return s
}
