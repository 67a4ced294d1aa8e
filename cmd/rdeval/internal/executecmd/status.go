package executecmd

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/rdeval/rdeval/cmd/rdeval/internal/cmdutil"
	"github.com/rdeval/rdeval/cmd/rdeval/internal/iostreams"
	"github.com/rdeval/rdeval/execute"
	"github.com/spf13/cobra"
)

// StatusOptions are the parsed flags of `rdeval execute status`.
type StatusOptions struct {
	IO     *iostreams.IO
	RunDir string
	All    bool
	Format string
}

func newStatusCmd(io *iostreams.IO) *cobra.Command {
	opts := &StatusOptions{IO: io}
	cmd := &cobra.Command{
		Use:   "status RUNDIR",
		Short: "Count a run folder's runs by outcome and list what is running and what failed and why",
		Long: `Read a run folder of 'execute run' (manifest.json, journal.jsonl and every
runs/<run_id>/result.json) without changing it, and print one row per run that
is not a success: its state and reason. A state is an outcome (success,
wrong_result, exec_error, timeout, resource_limit, no_patch, patch_failed) for
a finished run; 'running' for a run started by the driver that holds the folder
now; 'interrupted' for a run started by a driver that is gone (the next
'execute run' redoes it); 'queued' for a run not started. The counts go to
stderr with the table and json formats; --format json prints the whole report
(counts and every run) on stdout.`,
		Example: `  rdeval execute status runs/toy
  rdeval execute status runs/toy --all --format csv
  rdeval execute status runs/toy --format json`,
		Args: cobra.ExactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			opts.RunDir = args[0]
			if err := cmdutil.CheckFormat(opts.Format, cmdutil.FormatTable, cmdutil.FormatJSON, cmdutil.FormatCSV); err != nil {
				return err
			}
			return status(opts)
		},
	}
	cmd.Flags().BoolVar(&opts.All, "all", false, "list every run, successes included")
	cmd.Flags().StringVarP(&opts.Format, "format", "f", cmdutil.FormatTable, "output: table, json or csv")
	return cmd
}

// status prints a run folder's state.
func status(opts *StatusOptions) error {
	rep, err := execute.Status(opts.RunDir)
	if err != nil {
		return &cmdutil.BadInputError{Err: err}
	}
	if opts.Format == cmdutil.FormatJSON {
		if !opts.All {
			var keep []execute.RunStatus
			for _, r := range rep.Runs {
				if r.State != execute.OutcomeSuccess {
					keep = append(keep, r)
				}
			}
			rep.Runs = keep
		}
		if rep.Runs == nil {
			rep.Runs = []execute.RunStatus{}
		}
		return cmdutil.WriteJSON(opts.IO.Out, rep)
	}
	t := cmdutil.Table{Header: []string{"run_id", "state", "patch_file", "seed", "repeat", "since", "reason"}}
	for _, r := range rep.Runs {
		if r.State == execute.OutcomeSuccess && !opts.All {
			continue
		}
		t.Rows = append(t.Rows, []string{r.RunID, r.State, r.PatchFile, strconv.FormatInt(r.Seed, 10), strconv.Itoa(r.Repeat), r.Since, oneLine(r.Reason)})
	}
	var err2 error
	if opts.Format == cmdutil.FormatCSV {
		err2 = t.WriteCSV(opts.IO.Out)
	} else {
		err2 = t.WriteText(opts.IO.Out)
	}
	if err2 != nil {
		return err2
	}
	keys := make([]string, 0, len(rep.Counts))
	for k := range rep.Counts {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s %d", k, rep.Counts[k])
	}
	driver := "no driver running"
	if rep.DriverRunning {
		driver = fmt.Sprintf("driver running (pid %d)", rep.DriverPID)
	}
	opts.IO.Infof("task %s: %d runs: %s; %s", rep.TaskID, len(rep.Runs), strings.Join(parts, ", "), driver)
	return nil
}
