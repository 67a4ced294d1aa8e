package cli

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rdeval/rdeval/cmd/rdeval/internal/cmdtest"
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
	formats("cost", tcj, "cost", "--demo", "--where", "benchmark=re-bench", "--boot", "200", "--seed", "1")
	formats("normalize", tcj, "normalize", "--demo", "--where", "task_id=ai_rd_fix_embedding/main", "--where", "agent=human")
	formats("regress-glm", []string{"table", "json"}, "regress", "--demo", "--where", "benchmark=rexbench", "--formula", "final_success ~ hint_level + scale(lines_added)")
	// --format latex (issue 24), beside the formats above, and success
	// --headline (Table 5) in every format.
	latex := []string{"latex"}
	formats("scoreatk", latex, "scoreatk", "--demo")
	formats("allocation", latex, "allocation", "--demo")
	formats("curves", latex, "curves", "--demo")
	formats("compare", latex, "compare", "--demo", "--a", "agent=Modular (Model A);time_limit_s=1800", "--b", "agent=human", "--budget", "8h")
	formats("success", latex, "success", "--demo")
	formats("success-headline", append(tcj, "latex"), "success", "--demo", "--headline")
	formats("success-ablation", latex, "success", "--demo", "--ablation")
	formats("horizon", latex, "horizon", "--demo")
	formats("cost", latex, "cost", "--demo", "--where", "benchmark=re-bench", "--boot", "200", "--seed", "1")
	formats("regress", latex, "regress", "--demo", "--where", "benchmark=rexbench", "--formula", "final_success ~ hint_level + scale(lines_added) + (1|model)")
	formats("regress-glm", latex, "regress", "--demo", "--where", "benchmark=rexbench", "--formula", "final_success ~ hint_level + scale(lines_added)")
	formats("audit", latex, "audit", "examples/demo-claims.yaml", "--demo")
	formats("influence", latex, "influence", "--demo", "--stat", "scoreatk", "--k", "4", "--where", "agent=Modular (Model A)", "--where", "time_limit_s=1800", "--top", "5")
	formats("multiverse", latex, "multiverse", "--spec", "examples/multiverse-demo.yaml")
	formats("power", latex, "power", "--pa", "0.3", "--pb", "0.5", "--runs", "3,5,10", "--tasks", "6,12,24")
	formats("errors", latex, "errors", "examples/logs/run-1.log", "examples/logs/run-2.log")
	formats("normalize", latex, "normalize", "--demo", "--where", "task_id=ai_rd_fix_embedding/main", "--where", "agent=human")
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
			if strings.HasSuffix(c.name, ".latex") {
				if code != 0 {
					t.Fatalf("exit %d", code)
				}
				checkLaTeX(t, out.String())
			}
		})
	}
}

// checkLaTeX checks what every --format latex table has (the comment line
// with the command, booktabs rules, the same number of cells in each row
// as the column spec has columns) and compiles it where pdflatex is
// installed.
func checkLaTeX(t *testing.T, tex string) {
	t.Helper()
	if !strings.HasPrefix(tex, "% rdeval ") {
		t.Errorf("no leading comment with the command line")
	}
	for _, table := range strings.SplitAfter(tex, "\\end{table}\n") {
		if strings.TrimSpace(table) == "" {
			continue
		}
		spec, _, ok := strings.Cut(table[strings.Index(table, "\\begin{tabular}{")+len("\\begin{tabular}{"):], "}\n")
		if !ok {
			t.Fatalf("no tabular in %q", table)
		}
		ncols := len(strings.ReplaceAll(spec, `p{0.3\linewidth}`, "p"))
		top, mid, bot := strings.Index(table, "\\toprule\n"), strings.Index(table, "\\midrule\n"), strings.Index(table, "\\bottomrule\n")
		if !(top > 0 && top < mid && mid < bot) || strings.Contains(spec, "|") {
			t.Errorf("booktabs rules missing, out of order or vertical rules (%q)", spec)
		}
		for _, line := range strings.Split(table[top:bot], "\n") {
			if strings.HasSuffix(line, `\\`) {
				if n := strings.Count(line, "&") - strings.Count(line, `\&`) + 1; n != ncols {
					t.Errorf("row %q: %d cells, %d columns", line, n, ncols)
				}
			}
		}
	}
	cmdtest.CompileLaTeX(t, tex)
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
