// Package cmdtest runs a command the way the commands' tests need: on test
// streams, with cobra's own usage and error printing silenced.
package cmdtest

import (
	"testing"

	"github.com/rdeval/rdeval/cmd/rdeval/internal/iostreams"
	"github.com/spf13/cobra"
)

// Run builds a command with newCmd on test streams, executes it on args and
// returns what it wrote to stdout and stderr, and its error.
func Run(t testing.TB, newCmd func(*iostreams.IO) *cobra.Command, args ...string) (stdout, stderr string, err error) {
	t.Helper()
	io, out, errOut := iostreams.Test()
	cmd := newCmd(io)
	cmd.SetArgs(args)
	cmd.SetOut(out)
	cmd.SetErr(errOut)
	cmd.SilenceUsage, cmd.SilenceErrors = true, true
	err = cmd.Execute()
	return out.String(), errOut.String(), err
}
