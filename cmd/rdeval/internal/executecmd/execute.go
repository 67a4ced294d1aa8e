// Package executecmd implements `rdeval execute`: reproducing agent
// patches on a task repository, sandboxed, resumable and judged against
// gold values.
package executecmd

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/rdeval/rdeval/cmd/rdeval/internal/buildinfo"
	"github.com/rdeval/rdeval/cmd/rdeval/internal/cmdutil"
	"github.com/rdeval/rdeval/cmd/rdeval/internal/iostreams"
	"github.com/rdeval/rdeval/execute"
	"github.com/spf13/cobra"
)

// RunOptions are the parsed flags of `rdeval execute run`.
type RunOptions struct {
	IO      *iostreams.IO
	Task    string
	Patches []string
	Out     string
	GPUs    string
	Jobs    int
	Repeats int
	Backend string
	Image   string
	// Unconfined is the --unsafe-no-sandbox opt-in: agent code runs
	// without bubblewrap (execute.UnconfinedFlag).
	Unconfined bool
	KeepWork   bool
	// Worktree is auto (overlay work trees where they work) or checkout.
	Worktree string
	Format   string
	// Meta labels the patches (a PATCH.meta.json sidecar overrides it).
	Meta execute.PatchMeta
}

// NewCmd builds the `execute` command group; runF replaces Run in tests.
func NewCmd(io *iostreams.IO, runF func(*RunOptions) error) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "execute",
		Short: "Reproduce agent patches on a task repository: sandboxed, resumable, judged against gold",
		Long: `Reproduce research-agent runs the way RExBench's harness does: check out the
task repository at its base commit, apply each agent patch, run the experiment
with fixed seeds in a sandbox without network, extract the metrics and judge
them against the task's gold values. Every run ends in exactly one outcome:
success, wrong_result, exec_error, timeout, no_patch or patch_failed.

The task spec format is documented in docs/execute.md.`,
		Example: `  rdeval execute run --task tasks/cogs.yaml --patches patches/cogs/ --out runs/cogs
  rdeval execute run --task toy.yaml --patches agent.patch --out runs/toy --jobs 2`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error { return c.Help() },
	}
	cmd.AddCommand(newRunCmd(io, runF), newGoldCmd(io), newStatusCmd(io))
	return cmd
}

func newRunCmd(io *iostreams.IO, runF func(*RunOptions) error) *cobra.Command {
	opts := &RunOptions{IO: io}
	cmd := &cobra.Command{
		Use:   "run --task T.yaml --patches FILE|DIR... --out RUNDIR",
		Short: "Apply each patch and run the task's experiment for every seed",
		Long: `For every patch, seed and repeat: write the task repository's tree at
base_commit into RUNDIR/runs/<run_id>/work, apply the patch (go-gitdiff, then
git apply --3way, then patch -p1 --forward --fuzz=3; the step used is recorded),
run the spec's setup and run commands with bash -c in the sandbox with
$RDEVAL_SEED set, extract the metrics and judge them. Each run writes
RUNDIR/runs/<run_id>/{patch.diff, stdout.log, stderr.log, result.json};
RUNDIR/manifest.json lists the runs, RUNDIR/journal.jsonl logs every start and
finish. A patch folder stands for its *.diff and *.patch files. --agent,
--framework, --model and --hint label the patches in result.json (rdeval
ingest reads them as agent, scaffold, model, hint_level); a sidecar
PATCH.meta.json ({"agent": …, "framework": …, "model": …, "hint": …}) labels one
patch, field by field over the flags.

Re-running the same command skips runs whose result.json exists (the run id
is task id, patch sha256 prefix, seed and repeat) and redoes unfinished ones.

Sandbox: agent code runs only in bubblewrap (Debian package bubblewrap): as
uid 65534 with no capabilities (under a root driver, on the host too), in a
new session (no terminal to type into), without network, seeing only the
system's programs and libraries (/usr, /etc without its secrets), the
spec's mounts: and its work tree, the only writable host folder (mounted
nosuid); $HOME, /root, /run, the task spec, other runs and patches are
hidden. A kept work tree loses setuid bits and any .git the run made.
Without a working bwrap nothing runs: rdeval exits 1 and says what is
missing. --unsafe-no-sandbox runs agent code unconfined instead (it can
read your files and write anywhere; as root, unshare still cuts the
network); the choice is printed even with -q, recorded in result.json, and
a run folder is never resumed under another sandbox. docs/execute.md,
"Threat model", says what each backend protects.

GPUs: for a task with gpus: N > 0, rdeval lists the GPUs with nvidia-smi
(--gpus auto: all of them; --gpus 0,2: those nvidia-smi indexes or UUIDs;
--gpus none: none) and gives each run N GPUs of its own: CUDA_VISIBLE_DEVICES
and NVIDIA_VISIBLE_DEVICES hold their UUIDs, and only their /dev/nvidia<minor>
nodes (plus nvidiactl, nvidia-uvm, nvidia-uvm-tools, nvidia-modeset) are bound
into the sandbox. Runs wait for free GPUs; --jobs bounds how many run at once.
result.json records the GPUs of each run. CPU tasks (gpus: 0) never call
nvidia-smi and see no GPU.

Backends: --backend docker|podman runs each command in a container of the
spec's image (or --image) with --network none, --read-only, the work tree as
the only volume, --cap-drop ALL, --pids-limit/--memory/--cpuset-cpus and the
GPUs by UUID (docker --gpus "device=UUID", podman --device nvidia.com/gpu=UUID).
--backend slurm submits each command as an sbatch job (--gres=gpu:N, --mem,
--cpus-per-task, --time) run in the same sandbox on the node, polls squeue and
reads the end with sacct; RUNDIR must be on a file system the nodes share.

Limits: the spec's pids (default 4096 processes and threads), memory and cpus
bound each run; a run that exceeds pids or memory is killed at once and ends
in outcome resource_limit (see docs/execute.md for what is enforced how).`,
		Example: `  rdeval execute run --task tasks/toy/toy.yaml --patches patches/ --out runs/toy
  rdeval execute run --task toy.yaml --patches a.diff,b.diff --out runs/toy --jobs 4 --repeats 3`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			if opts.Task == "" {
				return cmdutil.Usagef("--task is required")
			}
			if len(opts.Patches) == 0 {
				return cmdutil.Usagef("--patches is required (patch files or folders)")
			}
			if opts.Out == "" {
				return cmdutil.Usagef("--out is required (the run folder)")
			}
			if err := checkGPUFlag(opts.GPUs); err != nil {
				return err
			}
			switch opts.Backend {
			case execute.BackendLocal, execute.BackendDocker, execute.BackendPodman, execute.BackendSlurm:
			default:
				return cmdutil.Usagef("--backend %q: want local, docker, podman or slurm", opts.Backend)
			}
			if opts.Jobs < 1 {
				return cmdutil.Usagef("--jobs %d: want 1 or more", opts.Jobs)
			}
			if err := opts.Meta.Validate(); err != nil {
				return cmdutil.Usagef("--agent/--framework/--model/--hint: %v", err)
			}
			if opts.Repeats < 1 {
				return cmdutil.Usagef("--repeats %d: want 1 or more", opts.Repeats)
			}
			if err := cmdutil.CheckFormat(opts.Format, cmdutil.FormatTable, cmdutil.FormatJSON, cmdutil.FormatCSV); err != nil {
				return err
			}
			if opts.Worktree != "auto" && opts.Worktree != execute.WorktreeCheckout {
				return cmdutil.Usagef("--worktree %q: want auto or checkout", opts.Worktree)
			}
			if runF != nil {
				return runF(opts)
			}
			return runExecute(opts)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&opts.Task, "task", "", "task spec YAML (see docs/execute.md)")
	fl.StringSliceVar(&opts.Patches, "patches", nil, "patch files or folders of *.diff/*.patch files (repeatable, comma-separated)")
	fl.StringVar(&opts.Out, "out", "", "run folder: manifest.json and runs/<run_id>/")
	fl.StringVar(&opts.GPUs, "gpus", "auto", "GPUs runs may use: auto (all nvidia-smi lists), none, or nvidia-smi indexes/UUIDs such as 0,2")
	fl.IntVar(&opts.Jobs, "jobs", 1, "runs at once")
	fl.IntVar(&opts.Repeats, "repeats", 1, "runs per patch and seed")
	fl.StringVar(&opts.Backend, "backend", "local", "where runs execute: local (sandbox here), docker, podman (the spec's image) or slurm (sbatch jobs)")
	fl.StringVar(&opts.Image, "image", "", "container image for --backend docker|podman (default: the spec's image)")
	fl.BoolVar(&opts.Unconfined, strings.TrimPrefix(execute.UnconfinedFlag, "--"), false, "run agent code WITHOUT a sandbox: it can read your files (~/.ssh too) and write anywhere; never needed where bubblewrap works")
	addRemovedNoSandbox(cmd)
	fl.BoolVar(&opts.KeepWork, "keep-work", false, "keep each run's work tree, or with overlay work trees its upper folder (default: removed once result.json is written)")
	fl.StringVar(&opts.Worktree, "worktree", "auto", "how run work trees are made: auto (an overlay of one cached base checkout where the bwrap sandbox can mount it, else a full checkout per run; RDEVAL_WORKTREE=checkout forces checkout) or checkout")
	fl.StringVarP(&opts.Format, "format", "f", cmdutil.FormatTable, "output: table, json or csv (one row per run)")
	fl.StringVar(&opts.Meta.Agent, "agent", "", "agent that made the patches, recorded in result.json (a PATCH.meta.json sidecar overrides)")
	fl.StringVar(&opts.Meta.Framework, "framework", "", "agent framework (scaffold), e.g. openhands, aider")
	fl.StringVar(&opts.Meta.Model, "model", "", "model behind the agent, e.g. o4-mini")
	fl.StringVar(&opts.Meta.Hint, "hint", "", "hint level the agent had: no_hints, hints or detailed_hints")
	return cmd
}

// runExecute executes the batch and prints one row per run.
func runExecute(opts *RunOptions) error {
	spec, err := execute.LoadSpec(opts.Task)
	if err != nil {
		return &cmdutil.BadInputError{Err: err}
	}
	var gpus []execute.GPU
	if opts.Backend != execute.BackendSlurm { // Slurm grants GPUs on its nodes
		if gpus, err = resolveGPUs(opts.IO, opts.Task, spec, opts.GPUs); err != nil {
			return err
		}
	}
	if _, err := execute.PatchFiles(opts.Patches); err != nil {
		return cmdutil.Usagef("--patches: %v", err)
	}
	if (opts.Backend == execute.BackendDocker || opts.Backend == execute.BackendPodman) && opts.Image == "" && spec.Image == "" {
		return cmdutil.Usagef("--backend %s needs a container image: image: in %s or --image", opts.Backend, opts.Task)
	}
	sandbox := execute.SandboxNone
	if opts.Backend == execute.BackendLocal || opts.Backend == execute.BackendSlurm {
		if sandbox, err = pickSandbox(opts.IO, opts.Unconfined); err != nil {
			return err
		}
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	done, total := 0, 0
	if files, err := execute.PatchFiles(opts.Patches); err == nil {
		total = len(files) * len(spec.Seeds) * opts.Repeats
	}
	worktree := opts.Worktree // "" is auto
	if worktree == "auto" {
		worktree = ""
	}
	start := time.Now()
	sum, err := execute.Run(ctx, execute.Options{
		Spec: spec, Patches: opts.Patches, Out: opts.Out, Jobs: opts.Jobs, Repeats: opts.Repeats,
		Sandbox: sandbox, KeepWork: opts.KeepWork, Worktree: worktree, GPUs: gpus, Meta: opts.Meta, Backend: opts.Backend, Image: opts.Image, Version: buildinfo.Version(),
		OnResult: func(r *execute.Result, skipped bool) {
			done++
			if opts.IO.ErrTTY {
				opts.IO.Infof("%s %s%s", progress(done, total, opts.Jobs, time.Since(start)), r.RunID+" "+r.Outcome, map[bool]string{true: " (done before)"}[skipped])
			}
		},
	})
	if sum != nil {
		if werr := write(opts, sum, filepath.Join(opts.Out, "runs")); werr != nil && err == nil {
			err = werr
		}
	}
	return err
}

func write(opts *RunOptions, sum *execute.Summary, runs string) error {
	var results []*execute.Result
	for _, r := range sum.Results {
		if r != nil {
			results = append(results, r)
		}
	}
	var err error
	switch opts.Format {
	case cmdutil.FormatJSON:
		err = cmdutil.WriteJSON(opts.IO.Out, results)
	default:
		err = writeTable(opts, results)
	}
	if err != nil {
		return err
	}
	counts := sum.Counts()
	keys := make([]string, 0, len(counts))
	for k := range counts {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s %d", k, counts[k])
	}
	opts.IO.Infof("%d runs (%d now, %d done before): %s; results in %s",
		len(results), sum.Ran, sum.Skipped, strings.Join(parts, ", "), runs)
	return nil
}

func writeTable(opts *RunOptions, results []*execute.Result) error {
	t := cmdutil.Table{Header: []string{"run_id", "patch_file", "seed", "repeat", "outcome", "apply_method", "wall_s", "reason"}}
	for _, r := range results {
		t.Rows = append(t.Rows, []string{r.RunID, r.PatchFile, strconv.FormatInt(r.Seed, 10), strconv.Itoa(r.Repeat),
			r.Outcome, r.ApplyMethod, strconv.FormatFloat(r.WallS, 'f', 2, 64), oneLine(r.Reason)})
	}
	if opts.Format == cmdutil.FormatCSV {
		return t.WriteCSV(opts.IO.Out)
	}
	return t.WriteText(opts.IO.Out)
}

func oneLine(s string) string {
	s = strings.ReplaceAll(s, "\n", " ")
	if len(s) > 120 {
		s = s[:117] + "..."
	}
	return s
}

// resolveGPUs discovers and selects the GPUs for a task that needs some
// (none for a CPU task: nvidia-smi is not called).
func resolveGPUs(io *iostreams.IO, task string, spec *execute.Spec, flag string) ([]execute.GPU, error) {
	if spec.GPUs == 0 {
		return nil, nil
	}
	if flag == "none" {
		return nil, &cmdutil.BadInputError{Err: fmt.Errorf("%s: gpus: %d per run, but --gpus none gives no GPU", task, spec.GPUs)}
	}
	found, err := execute.DiscoverGPUs(context.Background(), execute.GPUHost{})
	if err != nil {
		return nil, err
	}
	gpus, err := execute.SelectGPUs(flag, found)
	if err != nil {
		return nil, cmdutil.Usagef("%v", err)
	}
	if spec.GPUs > len(gpus) {
		return nil, &cmdutil.BadInputError{Err: fmt.Errorf("%s: gpus: %d per run, but only %d GPUs are available (--gpus %s)", task, spec.GPUs, len(gpus), flag)}
	}
	for _, g := range gpus {
		io.Infof("GPU %d: %s %s", g.Index, g.Name, g.UUID)
	}
	return gpus, nil
}

// pickSandbox detects the bubblewrap sandbox, or, with the unconfined
// opt-in, takes none. The opt-in's notice goes to stderr unconditionally
// (Errorf): --quiet never hides that agent code runs unconfined.
func pickSandbox(io *iostreams.IO, unconfined bool) (string, error) {
	sandbox, err := execute.DetectSandbox(unconfined)
	if err != nil {
		return "", err
	}
	if unconfined {
		how := "no network isolation either"
		if sandbox == execute.SandboxUnshare {
			how = "unshare cuts only the network and PID namespace"
		}
		io.Errorf("UNCONFINED (%s): agent code runs without a sandbox and can read and write your files (%s)", execute.UnconfinedFlag, how)
	}
	return sandbox, nil
}

// addRemovedNoSandbox keeps the old --no-sandbox flag as an error: it once
// fell back to running unconfined, which must now be asked for by name.
func addRemovedNoSandbox(cmd *cobra.Command) {
	var old bool
	cmd.Flags().BoolVar(&old, "no-sandbox", false, "removed: see "+execute.UnconfinedFlag)
	cmd.Flags().MarkHidden("no-sandbox")
	prev := cmd.PreRunE
	cmd.PreRunE = func(c *cobra.Command, args []string) error {
		if old {
			return cmdutil.Usagef("--no-sandbox was removed: agent code runs only inside bubblewrap (apt-get install bubblewrap); to run it unconfined anyway, pass %s", execute.UnconfinedFlag)
		}
		if prev != nil {
			return prev(c, args)
		}
		return nil
	}
}

func sortStrings(s []string) { sort.Strings(s) }

// checkGPUFlag vets --gpus: auto, all, none, or a comma-separated list of
// nvidia-smi indexes or GPU UUIDs.
func checkGPUFlag(v string) error {
	switch v {
	case "auto", "all", "none":
		return nil
	}
	for item := range strings.SplitSeq(v, ",") {
		item = strings.TrimSpace(item)
		if _, err := strconv.Atoi(item); err == nil && !strings.HasPrefix(item, "-") {
			continue
		}
		if strings.HasPrefix(item, "GPU-") || strings.HasPrefix(item, "MIG-") {
			continue
		}
		return cmdutil.Usagef("--gpus %q: want auto, none, or GPU indexes/UUIDs such as 0,2", v)
	}
	return nil
}

// progress is the line printed per finished run on a terminal: runs done
// of the total, how many are running (at most --jobs) and queued, and an
// ETA from the mean time per run so far (total may overcount when a patch
// is given twice).
func progress(done, total, jobs int, elapsed time.Duration) string {
	running := min(jobs, max(total-done, 0))
	queued := max(total-done-running, 0)
	eta := ""
	if done > 0 && total > done {
		left := time.Duration(float64(elapsed) / float64(done) * float64(total-done))
		eta = ", ETA " + left.Round(time.Second).String()
	}
	return fmt.Sprintf("[%d/%d done, %d running, %d queued%s]", done, total, running, queued, eta)
}
