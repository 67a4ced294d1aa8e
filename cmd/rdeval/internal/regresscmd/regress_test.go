package regresscmd

import (
	"encoding/csv"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/rdeval/rdeval/cmd/rdeval/internal/cmdtest"
	"github.com/rdeval/rdeval/cmd/rdeval/internal/cmdutil"
	"github.com/rdeval/rdeval/cmd/rdeval/internal/iostreams"
	"github.com/spf13/cobra"
)

func runCmd(t *testing.T, args ...string) (string, string, error) {
	t.Helper()
	return cmdtest.Run(t, func(io *iostreams.IO) *cobra.Command {
		c := NewCmd(io, nil)
		c.SetFlagErrorFunc(cmdutil.FlagError) // a bad flag is a usage error, as in rdeval
		return c
	}, args...)
}

var refData = filepath.Join("..", "..", "..", "..", "testdata", "reference", "glm_data.csv")

// TestRegressJSONMatchesR: the bin_cluster model of testdata/reference/glm.R
// (R: x1 estimate 0.57588363595992431, CR1 SE from sandwich::vcovCL).
func TestRegressJSONMatchesR(t *testing.T) {
	out, stderr, err := runCmd(t, "--data", refData, "--formula", "y ~ x1 + x2 + f", "--cluster", "cl", "--format", "json")
	if err != nil {
		t.Fatal(err, stderr)
	}
	var res map[string]any
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatal(err, out)
	}
	if res["n"].(float64) != 400 || res["converged"] != true || res["n_groups"].(map[string]any)["cl"].(float64) != 40 {
		t.Errorf("header: %v", res)
	}
	if math.Abs(res["loglik"].(float64)+170.39810193033361) > 1e-8 {
		t.Errorf("loglik %v", res["loglik"])
	}
	coefs := res["coefficients"].([]any)
	x1 := coefs[1].(map[string]any)
	if x1["term"] != "x1" || math.Abs(x1["estimate"].(float64)-0.57588363595992431) > 1e-8 {
		t.Errorf("x1: %v", x1)
	}
	for _, k := range []string{"term", "estimate", "se", "z", "p", "ci_low", "ci_high"} {
		if _, ok := x1[k]; !ok {
			t.Errorf("coefficient lacks %s", k)
		}
	}
	if _, ok := res["random_effects"].([]any); !ok {
		t.Errorf("random_effects: %v", res["random_effects"])
	}
}

func TestRegressTableJoinStandardize(t *testing.T) {
	dir := t.TempDir()
	data := filepath.Join(dir, "runs.csv")
	tasks := filepath.Join(dir, "tasks.csv")
	var b strings.Builder
	b.WriteString("task_id,agent,ok\n")
	for i := 0; i < 60; i++ {
		task := []string{"t1", "t2", "t3", "t4"}[i%4]
		agent := []string{"A", "B"}[i/4%2]
		ok := "0"
		if (i*7)%5 < 2+i%4/2 {
			ok = "1"
		}
		b.WriteString(task + "," + agent + "," + ok + "\n")
	}
	os.WriteFile(data, []byte(b.String()), 0o644)
	os.WriteFile(tasks, []byte("task_id,gold_lines\nt1,10\nt2,40\nt3,25\nt4,90\n"), 0o644)
	out, stderr, err := runCmd(t, "--data", data, "--join", tasks, "--on", "task_id", "--formula", "ok ~ gold_lines + agent", "--standardize", "all")
	if err != nil {
		t.Fatal(err, stderr)
	}
	for _, want := range []string{"(Intercept)", "scale(gold_lines)", "agentB", "logLik"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}

// TestRegressFigure: --figure writes a forest plot of the non-intercept
// terms of the R reference model (x1, x2 and the levels of f) after the
// normal output, and nothing else beside it.
func TestRegressFigure(t *testing.T) {
	dir := t.TempDir()
	fig := filepath.Join(dir, "forest.svg")
	out, stderr, err := runCmd(t, "--data", refData, "--formula", "y ~ x1 + x2 + f", "--figure", fig)
	if err != nil {
		t.Fatal(err, stderr)
	}
	if !strings.Contains(out, "x1") || !strings.Contains(stderr, "wrote "+fig) {
		t.Errorf("stdout %q / stderr %q", out, stderr)
	}
	b, err := os.ReadFile(fig)
	if err != nil {
		t.Fatal(err)
	}
	svg := string(b)
	for _, want := range []string{"<svg", ">x1<", ">x2<", "Coefficient (log-odds)"} {
		if !strings.Contains(svg, want) {
			t.Errorf("figure lacks %q", want)
		}
	}
	if strings.Contains(svg, "(Intercept)") {
		t.Error("figure shows the intercept")
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		t.Errorf("files in the output folder: %v", ents)
	}
}

func TestRegressErrors(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.csv")
	os.WriteFile(bad, []byte("y,x\n0,1\n2,2\n1,3\n0,4\n"), 0o644)
	for _, tc := range []struct {
		args  []string
		want  string
		usage bool
	}{
		{[]string{"--data", refData, "--formula", "y ~ x1 + foo"}, `column "foo" not found; columns are: y, y2, p, x1`, true},
		{[]string{"--data", refData, "--formula", "y ~ x1 + (x1 | cl)"}, "only random intercepts", true},
		{[]string{"--data", refData, "--formula", "y ~ x1 + (1 | cl)", "--cluster", "cl"}, "drop --cluster", true},
		{[]string{"--data", refData, "--formula", "y ~ x1 +"}, "position 9", true},
		{[]string{"--data", refData, "--formula", "y ~ x1", "--family", "poisson"}, "want binomial or gaussian", true},
		{[]string{"--data", bad, "--formula", "y ~ x"}, "binomial outcome y = 2", false},
		{[]string{"--data", refData, "--formula", "y ~ x1", "--figure", "forest.txt"}, "want a .svg, .png or .pdf file", true},
	} {
		_, _, err := runCmd(t, tc.args...)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: error %v, want %q", tc.args, err, tc.want)
			continue
		}
		var isUsage bool
		switch err.(type) {
		case *cmdutil.UsageError:
			isUsage = true
		case *cmdutil.BadInputError:
		default:
			t.Errorf("%v: error type %T, want an exit-2 error", tc.args, err)
		}
		if isUsage != tc.usage {
			t.Errorf("%v: usage error %v, want %v", tc.args, isUsage, tc.usage)
		}
	}
}

// TestRegressSeparation: x > 0 predicts y perfectly; the fit warns and
// does not panic.
func TestRegressSeparation(t *testing.T) {
	p := filepath.Join(t.TempDir(), "sep.csv")
	os.WriteFile(p, []byte("y,x\n0,-3\n0,-2\n0,-1\n1,1\n1,2\n1,3\n"), 0o644)
	out, stderr, err := runCmd(t, "--data", p, "--formula", "y ~ x", "--format", "json")
	if err != nil {
		t.Fatal(err, stderr)
	}
	if !strings.Contains(stderr, "separation") || !strings.Contains(out, "separation") {
		t.Errorf("no separation warning:\nstdout %s\nstderr %s", out, stderr)
	}
}

// TestRegressRuns reads runs through ingest (JSON Lines) and uses runs
// columns (final_success is true/false, model is a factor).
func TestRegressRuns(t *testing.T) {
	p := filepath.Join(t.TempDir(), "runs.jsonl")
	var b strings.Builder
	for i := 0; i < 40; i++ {
		model := []string{"m1", "m2"}[i%2]
		ok := "false"
		if i%3 == 0 || (model == "m2" && i%5 == 0) {
			ok = "true"
		}
		b.WriteString(`{"run_id":"r` + strings.Repeat("x", i+1) + `","task_id":"t` + string(rune('a'+i%4)) + `","agent":"A","model":"` + model + `","benchmark":"rexbench","final_success":` + ok + `,"trial":` + string(rune('0'+i%5)) + "}\n")
	}
	os.WriteFile(p, []byte(b.String()), 0o644)
	out, stderr, err := runCmd(t, "--data", p, "--formula", "final_success ~ model + trial", "--format", "json")
	if err != nil {
		t.Fatal(err, stderr)
	}
	if !strings.Contains(out, `"term": "modelm2"`) || !strings.Contains(out, `"n": 40`) {
		t.Errorf("output:\n%s\nstderr %s", out, stderr)
	}
}

// TestRegressMixedMatchesLme4: rdeval regress with random intercepts on
// testdata/reference/mixed_data.csv gives lme4's fixed effects (lmer REML and
// glmer Laplace; testdata/reference/mixed.R, R 4.2.2, lme4 1.1.31) through the
// command line: estimates to 1e-4 relative, SEs to 1e-4 (lmer) and 2e-3
// (glmer, Hessian-based, see analysis/mixed_reference_test.go).
func TestRegressMixedMatchesLme4(t *testing.T) {
	data := "../../../../testdata/reference/mixed_data.csv"
	ref := map[string][2]float64{}
	f, err := os.Open("../../../../testdata/reference/mixed_coef.csv")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r := csv.NewReader(f)
	r.Comment = '#'
	rows, _ := r.ReadAll()
	for _, row := range rows[1:] {
		est, _ := strconv.ParseFloat(row[2], 64)
		se, _ := strconv.ParseFloat(row[3], 64)
		ref[row[0]+"/"+row[1]] = [2]float64{est, se}
	}
	for _, tc := range []struct {
		model, formula, family string
		seTol                  float64
	}{
		{"lmm_reml", "y ~ x1 + x2 + (1|g)", "gaussian", 1e-4},
		{"glmm_laplace", "yb ~ x1 + x2 + (1|g)", "binomial", 2e-3},
	} {
		out, stderr, err := runCmd(t, "--data", data, "--formula", tc.formula, "--family", tc.family, "--format", "json")
		if err != nil {
			t.Fatal(err, stderr)
		}
		var res struct {
			Coefficients []map[string]any `json:"coefficients"`
			Random       []map[string]any `json:"random_effects"`
		}
		if err := json.Unmarshal([]byte(out), &res); err != nil {
			t.Fatal(err)
		}
		if len(res.Coefficients) != 3 || len(res.Random) == 0 {
			t.Fatalf("%s: %s", tc.model, out)
		}
		for _, c := range res.Coefficients {
			w, ok := ref[tc.model+"/"+c["term"].(string)]
			if !ok {
				t.Fatalf("%s: no reference for %v (have %v)", tc.model, c["term"], ref)
			}
			est, se := c["estimate"].(float64), c["se"].(float64)
			if math.Abs(est-w[0]) > 1e-4*math.Abs(w[0]) || math.Abs(se-w[1]) > tc.seTol*w[1] {
				t.Errorf("%s %v: %v ± %v, lme4 %v ± %v", tc.model, c["term"], est, se, w[0], w[1])
			}
		}
	}
}
