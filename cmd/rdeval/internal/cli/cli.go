// Package cli assembles rdeval's commands and maps errors to exit codes.
package cli

import (
	"errors"

	"github.com/rdeval/rdeval/cmd/rdeval/internal/allocationcmd"
	"github.com/rdeval/rdeval/cmd/rdeval/internal/auditcmd"
	"github.com/rdeval/rdeval/cmd/rdeval/internal/buildinfo"
	"github.com/rdeval/rdeval/cmd/rdeval/internal/cmdutil"
	"github.com/rdeval/rdeval/cmd/rdeval/internal/comparecmd"
	"github.com/rdeval/rdeval/cmd/rdeval/internal/costcmd"
	"github.com/rdeval/rdeval/cmd/rdeval/internal/curvescmd"
	"github.com/rdeval/rdeval/cmd/rdeval/internal/diffcmd"
	"github.com/rdeval/rdeval/cmd/rdeval/internal/errorscmd"
	"github.com/rdeval/rdeval/cmd/rdeval/internal/executecmd"
	"github.com/rdeval/rdeval/cmd/rdeval/internal/exportcmd"
	"github.com/rdeval/rdeval/cmd/rdeval/internal/figurescmd"
	"github.com/rdeval/rdeval/cmd/rdeval/internal/horizoncmd"
	"github.com/rdeval/rdeval/cmd/rdeval/internal/influencecmd"
	"github.com/rdeval/rdeval/cmd/rdeval/internal/ingestcmd"
	"github.com/rdeval/rdeval/cmd/rdeval/internal/inspectcmd"
	"github.com/rdeval/rdeval/cmd/rdeval/internal/iostreams"
	"github.com/rdeval/rdeval/cmd/rdeval/internal/multiversecmd"
	"github.com/rdeval/rdeval/cmd/rdeval/internal/normalizecmd"
	"github.com/rdeval/rdeval/cmd/rdeval/internal/powercmd"
	"github.com/rdeval/rdeval/cmd/rdeval/internal/regresscmd"
	"github.com/rdeval/rdeval/cmd/rdeval/internal/reportcmd"
	"github.com/rdeval/rdeval/cmd/rdeval/internal/scoreatkcmd"
	"github.com/rdeval/rdeval/cmd/rdeval/internal/successcmd"
	"github.com/rdeval/rdeval/cmd/rdeval/internal/versioncmd"
	"github.com/rdeval/rdeval/ingest"
	"github.com/spf13/cobra"
)

// NewRoot builds the root command with every subcommand.
func NewRoot(ios *iostreams.IO, version string, args []string) *cobra.Command {
	io := ios
	root := &cobra.Command{
		Use:   "rdeval",
		Short: "Analyse AI research-agent benchmark runs (RE-Bench, RExBench, METR)",
		Long: `rdeval turns the raw runs of AI research-agent benchmarks into tables,
numbers, figures and verdicts.

Start with the embedded (synthetic) demo study:
  rdeval report                 # writes ./rdeval-report/
Then your own data:
  rdeval ingest all_runs.jsonl -o study/
  rdeval inspect study/
Every command that reads runs also takes --demo instead of a path.

Conventions: results go to stdout (--format table|json|csv|latex; JSON only there),
notes, warnings and progress to stderr (progress only when stderr is a
terminal; -q drops all but errors); rdeval never prints colour, so NO_COLOR
needs nothing. Exit status: 0 ok; 1 a check or audit claim failed, or the
command failed; 2 bad usage or bad input (the message says what to fix).`,
		Version:       version,
		SilenceErrors: true,
		SilenceUsage:  true,
	}
	var quiet bool
	root.PersistentFlags().BoolVarP(&quiet, "quiet", "q", false, "print no notes, warnings or progress on stderr (errors still are)")
	root.PersistentPreRun = func(*cobra.Command, []string) {
		io.Quiet = quiet
	}
	root.SetOut(io.Out)
	root.SetErr(io.ErrOut)
	root.SetIn(io.In)
	root.SetFlagErrorFunc(cmdutil.FlagError)
	full := append([]string{"rdeval"}, args...)
	io.Args, io.Version = full, version
	root.AddCommand(
		ingestcmd.NewCmd(io, version, full, nil),
		inspectcmd.NewCmd(io, nil),
		reportcmd.NewCmd(io, version, full, nil),
		figurescmd.NewCmd(io, version, nil),
		scoreatkcmd.NewCmd(io, nil),
		normalizecmd.NewCmd(io, version, nil),
		allocationcmd.NewCmd(io, nil),
		curvescmd.NewCmd(io, nil),
		comparecmd.NewCmd(io, nil),
		successcmd.NewCmd(io, nil),
		costcmd.NewCmd(io, nil),
		horizoncmd.NewCmd(io, nil),
		regresscmd.NewCmd(io, nil),
		errorscmd.NewCmd(io, nil),
		versioncmd.NewCmd(io, version),
		executecmd.NewCmd(io, nil),
		diffcmd.NewCmd(io, nil),
		auditcmd.NewCmd(io, nil),
		influencecmd.NewCmd(io, nil),
		powercmd.NewCmd(io, nil),
		exportcmd.NewCmd(io, version, nil),
		multiversecmd.NewCmd(io, version, nil),
	)
	return root
}

// Main runs rdeval with args and returns the exit code.
func Main(args []string, io *iostreams.IO) int {
	root := NewRoot(io, buildinfo.Version(), args)
	root.SetArgs(args)
	err := root.Execute()
	if err == nil {
		return cmdutil.ExitOK
	}
	io.Errorf("rdeval: %v", err) // printed even with --quiet
	var ue *cmdutil.UsageError
	var be *cmdutil.BadInputError
	var ie *ingest.InputErrors
	switch {
	case errors.As(err, &ue), errors.As(err, &be), errors.As(err, &ie):
		return cmdutil.ExitBadInput
	case isCobraArgError(err):
		return cmdutil.ExitBadInput
	}
	return cmdutil.ExitFailure
}
