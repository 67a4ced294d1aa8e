package cli

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rdeval/rdeval/cmd/rdeval/internal/iostreams"
)

// statsGoldenDir holds one golden file per statistics command run below.
const statsGoldenDir = "testdata/stats"

// TestStatsGolden runs each statistics command on the embedded demo study
// (and the shipped examples) in every output format it offers, and compares
// its exit code, stdout and stderr with testdata/stats/<case>.golden. These
// goldens pin the commands' output while the glue between them is moved
// (issue 23): a change here is a change of behaviour. Regenerate with
// go test -run TestStatsGolden -update, and review the diff.
func TestStatsGolden(t *testing.T) {
	root, err := filepath.Abs("../../../..")
	if err != nil {
		t.Fatal(err)
	}
	golden, err := filepath.Abs(statsGoldenDir)
	if err != nil {
		t.Fatal(err)
	}
	type tc struct {
		name string
		args []string
	}
	var cases []tc
	formats := func(name string, fs []string, args ...string) {
		for _, f := range fs {
			cases = append(cases, tc{name + "." + f, append(append([]string{}, args...), "--format", f)})
		}
	}
	tcj := []string{"table", "csv", "json"}
	formats("scoreatk", tcj, "scoreatk", "--demo")
	formats("allocation", tcj, "allocation", "--demo")
	formats("curves", tcj, "curves", "--demo")
	formats("compare", tcj, "compare", "--demo", "--a", "agent=Modular (Model A);time_limit_s=1800", "--b", "agent=human", "--budget", "8h")
	formats("success", tcj, "success", "--demo")
	formats("horizon", tcj, "horizon", "--demo")
	formats("regress", []string{"table", "json"}, "regress", "--demo", "--where", "benchmark=rexbench", "--formula", "final_success ~ hint_level + scale(lines_added) + (1|model)")
	formats("audit", []string{"table", "json", "markdown"}, "audit", "examples/demo-claims.yaml", "--demo")
	formats("influence", tcj, "influence", "--demo", "--stat", "scoreatk", "--k", "4", "--where", "agent=Modular (Model A)", "--where", "time_limit_s=1800", "--top", "5")
	formats("multiverse", tcj, "multiverse", "--spec", "examples/multiverse-demo.yaml")
	formats("power", tcj, "power", "--pa", "0.3", "--pb", "0.5", "--runs", "3,5,10", "--tasks", "6,12,24")
	formats("errors", tcj, "errors", "examples/logs/run-1.log", "examples/logs/run-2.log")
	formats("inspect", []string{"table", "json"}, "inspect", "--demo")
	// --quiet drops the notes and warnings, not the results.
	cases = append(cases, tc{"horizon.quiet", []string{"horizon", "--demo", "-q"}})
	cases = append(cases, tc{"scoreatk.quiet", []string{"scoreatk", "--demo", "--quiet"}})
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Chdir(root)
			io, out, errOut := iostreams.Test()
			code := Main(c.args, io)
			got := fmt.Sprintf("$ rdeval %s\nexit %d\n--- stdout\n%s--- stderr\n%s", shellJoin(c.args), code, out.String(), errOut.String())
			checkGolden(t, filepath.Join(golden, c.name+".golden"), got)
		})
	}
}

// shellJoin quotes the arguments that need it, for the goldens' first line.
func shellJoin(args []string) string {
	q := make([]string, len(args))
	for i, a := range args {
		if strings.ContainsAny(a, " ;()|~*") {
			a = "'" + a + "'"
		}
		q[i] = a
	}
	return strings.Join(q, " ")
}
