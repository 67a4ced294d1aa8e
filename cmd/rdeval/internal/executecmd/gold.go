package executecmd

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"os/signal"
	"path/filepath"
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

// GoldOptions are the parsed flags of `rdeval execute gold`.
type GoldOptions struct {
	IO         *iostreams.IO
	Task       string
	Gold       string
	Seeds      int
	M          float64
	Out        string
	GPUs       string
	Jobs       int
	Unconfined bool
	Format     string
}

func newGoldCmd(io *iostreams.IO) *cobra.Command {
	opts := &GoldOptions{IO: io}
	cmd := &cobra.Command{
		Use:   "gold --task T.yaml --gold G.patch --seeds N --out RUNDIR",
		Short: "Run the gold patch over seeds and write the calibrated success range next to the task",
		Long: `Run the task's gold patch (the reference solution) once per seed, the way
'execute run' runs agent patches but without judging, and calibrate the success
range of every metric as RExBench does: mean ± m·sd of the gold values, with the
sample sd (n − 1; R's sd()). The ranges go to T.gold.yaml next to T.yaml
(written atomically; the task spec itself is never rewritten). When the spec is
loaded, every 'range' target that gives no mean and sd, such as
  success:
    range: {accuracy: {}}        # or {m: 3} to keep its own m
takes them from T.gold.yaml. --seeds N runs seeds 1..N (default: the spec's
seeds). Every gold run must exit 0 with all metrics found; otherwise nothing is
written and the command exits 1.`,
		Example: `  rdeval execute gold --task tasks/toy/toy.yaml --gold tasks/toy/gold.patch --seeds 5 --out runs/toy-gold
  rdeval execute gold --task cogs.yaml --gold cogs-gold.diff --seeds 5 --m 2 --out runs/cogs-gold --format json`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			switch {
			case opts.Task == "":
				return cmdutil.Usagef("--task is required")
			case opts.Gold == "":
				return cmdutil.Usagef("--gold is required (the gold patch)")
			case opts.Out == "":
				return cmdutil.Usagef("--out is required (the run folder of the gold runs)")
			case opts.Seeds < 0 || opts.Seeds == 1:
				return cmdutil.Usagef("--seeds %d: want 2 or more (a standard deviation needs two values), or 0 for the spec's seeds", opts.Seeds)
			case !(opts.M > 0):
				return cmdutil.Usagef("--m %v: want a positive multiplier", opts.M)
			case opts.Jobs < 1:
				return cmdutil.Usagef("--jobs %d: want 1 or more", opts.Jobs)
			}
			if err := checkGPUFlag(opts.GPUs); err != nil {
				return err
			}
			if err := cmdutil.CheckFormat(opts.Format, cmdutil.FormatTable, cmdutil.FormatJSON, cmdutil.FormatCSV); err != nil {
				return err
			}
			return gold(opts)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&opts.Task, "task", "", "task spec YAML")
	fl.StringVar(&opts.Gold, "gold", "", "the gold patch (a diff against base_commit; may be empty when the repository already is the solution)")
	fl.IntVar(&opts.Seeds, "seeds", 0, "run seeds 1..N (0: the spec's seeds)")
	fl.Float64Var(&opts.M, "m", 2, "range multiplier m of mean ± m·sd (a spec's own m wins)")
	fl.StringVar(&opts.Out, "out", "", "run folder of the gold runs")
	fl.StringVar(&opts.GPUs, "gpus", "auto", "GPUs runs may use: auto, none, or nvidia-smi indexes/UUIDs such as 0,2")
	fl.IntVar(&opts.Jobs, "jobs", 1, "runs at once")
	fl.BoolVar(&opts.Unconfined, strings.TrimPrefix(execute.UnconfinedFlag, "--"), false, "run gold code WITHOUT a sandbox (it can read and write your files)")
	addRemovedNoSandbox(cmd)
	fl.StringVarP(&opts.Format, "format", "f", cmdutil.FormatTable, "output: table, json or csv (one row per metric)")
	return cmd
}

// gold runs the gold patch and writes the calibration file.
func gold(opts *GoldOptions) error {
	spec, err := execute.LoadSpec(opts.Task)
	if err != nil {
		return &cmdutil.BadInputError{Err: err}
	}
	patch, err := os.ReadFile(opts.Gold)
	if err != nil {
		return cmdutil.Usagef("--gold: %v", err)
	}
	if opts.Seeds > 0 {
		spec.Seeds = nil
		for s := 1; s <= opts.Seeds; s++ {
			spec.Seeds = append(spec.Seeds, int64(s))
		}
	}
	if len(spec.Seeds) < 2 {
		return cmdutil.Usagef("%s lists %d seed: give --seeds 2 or more", opts.Task, len(spec.Seeds))
	}
	gpus, err := resolveGPUs(opts.IO, opts.Task, spec, opts.GPUs)
	if err != nil {
		return err
	}
	sandbox, err := pickSandbox(opts.IO, opts.Unconfined)
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	sum, err := execute.Run(ctx, execute.Options{Spec: spec, Patches: []string{opts.Gold}, Out: opts.Out,
		Jobs: opts.Jobs, Sandbox: sandbox, GPUs: gpus, NoJudge: true, Version: buildinfo.Version()})
	if err != nil {
		return err
	}
	ranges, err := execute.Calibrate(spec, sum.Results, opts.M)
	if err != nil {
		return err
	}
	specBytes, err := os.ReadFile(opts.Task)
	if err != nil {
		return err
	}
	ss, ps := sha256.Sum256(specBytes), sha256.Sum256(patch)
	out, _ := filepath.Abs(opts.Out)
	g := &execute.GoldCalibration{TaskID: spec.ID, TaskFileSHA256: hex.EncodeToString(ss[:]), GoldPatch: opts.Gold,
		GoldPatchSHA256: hex.EncodeToString(ps[:]), Seeds: spec.Seeds, RunDir: out, RdevalVersion: buildinfo.Version(),
		CalibratedAt: time.Now().UTC().Format(time.RFC3339), Range: ranges}
	if len(sum.Results) > 0 {
		g.BaseCommit = sum.Results[0].BaseCommit
	}
	path := execute.GoldFile(opts.Task)
	if err := execute.WriteGold(path, g); err != nil {
		return err
	}
	opts.IO.Infof("calibrated %d metrics over %d gold runs: %s", len(ranges), len(sum.Results), path)
	t := cmdutil.Table{Header: []string{"metric", "n", "mean", "sd", "m", "low", "high"}}
	var js []map[string]any
	for _, name := range sortedNames(ranges) {
		r := ranges[name]
		lo, hi := r.Mean-float64(r.M*r.SD), r.Mean+float64(r.M*r.SD)
		t.Rows = append(t.Rows, []string{name, strconv.Itoa(r.N), cmdutil.FormatFloat(r.Mean), cmdutil.FormatFloat(r.SD),
			cmdutil.FormatFloat(r.M), cmdutil.FormatFloat(lo), cmdutil.FormatFloat(hi)})
		js = append(js, map[string]any{"metric": name, "n": r.N, "mean": r.Mean, "sd": r.SD, "m": r.M, "low": lo, "high": hi, "values": r.Values})
	}
	return cmdutil.Emit(opts.IO.Out, opts.Format, &t, js)
}

func sortedNames[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sortStrings(out)
	return out
}
