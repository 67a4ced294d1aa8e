package regresscmd

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/rdeval/rdeval/cmd/rdeval/internal/cmdutil"
	"github.com/rdeval/rdeval/ingest"
)

func readRef(t *testing.T, name string) [][]string {
	t.Helper()
	f, err := os.Open(filepath.Join("..", "..", "..", "..", "testdata", "reference", name))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r := csv.NewReader(f)
	r.Comment = '#'
	rows, err := r.ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	return rows[1:]
}

func num(t *testing.T, s string) float64 {
	t.Helper()
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

type regressJSON struct {
	N            int              `json:"n"`
	NDropped     int              `json:"n_dropped"`
	LogLik       float64          `json:"loglik"`
	NAGQ         int              `json:"nagq"`
	Offset       string           `json:"offset"`
	CIMethod     string           `json:"ci_method"`
	Coefficients []map[string]any `json:"coefficients"`
	Random       []map[string]any `json:"random_effects"`
	Converged    bool             `json:"converged"`
	Deviance     float64          `json:"deviance"`
	DevianceKind string           `json:"deviance_kind"`
	DFResidual   int              `json:"df_residual"`
}

func runJSON(t *testing.T, args ...string) regressJSON {
	t.Helper()
	out, stderr, err := runCmd(t, append(args, "--format", "json")...)
	if err != nil {
		t.Fatal(err, stderr)
	}
	var res regressJSON
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatal(err, out)
	}
	return res
}

// TestRegressGLMMMatchesLme4: rdeval regress --nagq / --weights / --offset
// on testdata/reference/glmm_data.csv gives glmer's fits of glmm.R (R 4.2.2,
// lme4 1.1.31, tolPwrss = 1e-12): fixed effects to 1e-3 relative, SEs to
// 2e-3, logLik to 1e-6, deviance and df_residual as deviance(fit) and
// df.residual(fit) of mixed_deviance.R (2e-6 relative, exact); the offset
// model also with offset(off) in the formula.
func TestRegressGLMMMatchesLme4(t *testing.T) {
	data := filepath.Join("..", "..", "..", "..", "testdata", "reference", "glmm_data.csv")
	coefs := map[string][][]string{}
	for _, r := range readRef(t, "glmm_coef.csv") {
		coefs[r[0]] = append(coefs[r[0]], r)
	}
	stats := map[string][]string{}
	for _, r := range readRef(t, "glmm_stats.csv") {
		stats[r[0]] = r
	}
	devs := map[string][]string{} // mixed_deviance.R: deviance(fit), df.residual(fit)
	for _, r := range readRef(t, "mixed_deviance.csv") {
		devs[r[0]] = r
	}
	for _, tc := range []struct {
		id   string
		args []string
	}{
		{"agq5", []string{"--formula", "yb ~ x1 + x2 + (1|g)", "--nagq", "5"}},
		{"agq25", []string{"--formula", "yb ~ x1 + x2 + (1|g)", "--nagq", "25"}},
		{"crossed", []string{"--formula", "yc ~ x1 + x2 + (1|g) + (1|h)"}},
		{"weights", []string{"--formula", "prop ~ x1 + (1|g)", "--weights", "trials"}},
		{"offset", []string{"--formula", "yo ~ x1 + (1|g)", "--offset", "off"}},
		{"offset", []string{"--formula", "yo ~ x1 + offset(off) + (1|g)"}},
		{"offset_agq5", []string{"--formula", "yo ~ x1 + (1|g)", "--offset", "off", "--nagq", "5"}},
	} {
		t.Run(tc.id, func(t *testing.T) {
			res := runJSON(t, append([]string{"--data", data}, tc.args...)...)
			want := coefs[tc.id]
			if len(res.Coefficients) != len(want) || !res.Converged {
				t.Fatalf("%+v", res)
			}
			for j, w := range want {
				c := res.Coefficients[j]
				est, se := c["estimate"].(float64), c["se"].(float64)
				if c["term"] != w[1] || math.Abs(est-num(t, w[2])) > 1e-3*math.Abs(num(t, w[2])) || math.Abs(se-num(t, w[3])) > 2e-3*num(t, w[3]) {
					t.Errorf("%v: %v ± %v, lme4 %s: %s ± %s", c["term"], est, se, w[1], w[2], w[3])
				}
			}
			st := stats[tc.id]
			if ll := num(t, st[7]); math.Abs(res.LogLik-ll) > 1e-6*math.Abs(ll) {
				t.Errorf("logLik %v, lme4 %v", res.LogLik, ll)
			}
			if n, _ := strconv.Atoi(st[2]); res.NAGQ != n {
				t.Errorf("nagq %d, want %d", res.NAGQ, n)
			}
			if (st[5] != "") != (res.Offset != "") {
				t.Errorf("offset %q", res.Offset)
			}
			dv := devs[tc.id]
			if d := num(t, dv[8]); math.Abs(res.Deviance-d) > 2e-6*d || res.DevianceKind != "conditional" || res.DFResidual != int(num(t, dv[9])) {
				t.Errorf("deviance %v (%s) on %d df, lme4 deviance(fit) %s, df.residual %s", res.Deviance, res.DevianceKind, res.DFResidual, dv[8], dv[9])
			}
		})
	}
}

// TestRegressProfileCI: --ci profile gives R 4.2's confint(fit) (MASS
// profile.glm; testdata/reference/glm_profile.R) to 1e-6 relative, for a
// binomial model, a gaussian one, and offsets as --offset and offset().
func TestRegressProfileCI(t *testing.T) {
	ref := map[string][][]string{}
	for _, r := range readRef(t, "glm_profile.csv") {
		ref[r[0]] = append(ref[r[0]], r)
	}
	for _, tc := range []struct {
		id   string
		args []string
	}{
		{"bin_main", []string{"--formula", "y ~ x1 + x2 + f"}},
		{"gauss_star", []string{"--formula", "y2 ~ x1 * f", "--family", "gaussian"}},
		{"bin_offset", []string{"--formula", "y ~ x1 + x2", "--offset", "x2"}},
		{"bin_offset_formula", []string{"--formula", "y ~ x1 + f + offset(log(x3))"}},
		{"gauss_offset", []string{"--formula", "y2 ~ x1 + f", "--family", "gaussian", "--offset", "x3"}},
	} {
		t.Run(tc.id, func(t *testing.T) {
			res := runJSON(t, append([]string{"--data", refData, "--ci", "profile"}, tc.args...)...)
			want := ref[tc.id]
			if res.CIMethod != "profile" || len(res.Coefficients) != len(want) {
				t.Fatalf("%+v", res)
			}
			for j, w := range want {
				c := res.Coefficients[j]
				for k, key := range []string{"estimate", "se", "ci_low", "ci_high"} {
					got, ref := c[key].(float64), num(t, w[6+k])
					if math.Abs(got-ref) > 1e-6*math.Abs(ref) {
						t.Errorf("%s %s: %.10g, R %.10g", w[5], key, got, ref)
					}
				}
			}
		})
	}
	// Wald is the default, and the table says which intervals it prints.
	if res := runJSON(t, "--data", refData, "--formula", "y ~ x1"); res.CIMethod != "wald" {
		t.Errorf("default ci_method %q", res.CIMethod)
	}
	out, stderr, err := runCmd(t, "--data", refData, "--formula", "y ~ x1 + offset(log(x3))", "--ci", "profile")
	if err != nil || !strings.Contains(out, "profile-likelihood intervals") || !strings.Contains(out, "offset: offset(log(x3))") {
		t.Errorf("table:\n%s\n%v %s", out, err, stderr)
	}
}

func TestRegressGLMMErrors(t *testing.T) {
	data := filepath.Join("..", "..", "..", "..", "testdata", "reference", "glmm_data.csv")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--formula", "yc ~ x1 + (1|g) + (1|h)", "--nagq", "5"}, "nAGQ > 1 is only available for models with a single, scalar random-effects term"},
		{[]string{"--formula", "yc ~ x1", "--nagq", "5"}, "no random intercept"},
		{[]string{"--formula", "x1 ~ x2 + (1|g)", "--family", "gaussian", "--nagq", "3"}, "quadrature applies to logistic mixed models"},
		{[]string{"--formula", "yb ~ x1 + (1|g)", "--nagq", "-1"}, "--nagq -1"},
		{[]string{"--formula", "yb ~ x1 + (1|g)", "--nagq", "0"}, "nAGQ = 0"},
		{[]string{"--formula", "yb ~ x1", "--ci", "likelihood"}, `"likelihood" for "--ci" flag: want wald or profile`},
		{[]string{"--formula", "yb ~ x1", "--ci", "profile", "--cluster", "g"}, "profile intervals need the model's likelihood"},
		{[]string{"--formula", "yb ~ x1 + (1|g)", "--ci", "profile"}, "GLMs only"},
		{[]string{"--formula", "x1 ~ x2 + (1|g)", "--family", "gaussian", "--weights", "trials"}, "linear mixed models take no prior weights"},
	} {
		_, _, err := runCmd(t, append([]string{"--data", data}, tc.args...)...)
		if _, ok := err.(*cmdutil.UsageError); !ok || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: %T %v, want a usage error with %q", tc.args, err, err, tc.want)
		}
	}
	out, stderr, err := runCmd(t, "--data", data, "--formula", "yo ~ x1 + (1|g)", "--offset", "off", "--nagq", "5")
	if err != nil || !strings.Contains(out, "adaptive Gauss–Hermite quadrature with 5 points, as glmer nAGQ = 5") || !strings.Contains(out, "offset: off\n") {
		t.Errorf("table:\n%s\n%v %s", out, err, stderr)
	}
	_, _, err = runCmd(t, "--data", data, "--formula", "yb ~ x1 + (1|g)", "--offset", "g")
	if _, ok := err.(*cmdutil.BadInputError); !ok || !strings.Contains(err.Error(), `--offset g: row 1: "g`) {
		t.Errorf("text offset: %T %v", err, err)
	}
}

// TestRegressJoinTasksParquet: --join reads an rdeval Parquet tasks table
// (written here by the ingest package) and gives the same fit as the same
// columns joined from a CSV; a task without gold_lines_changed leaves its
// rows out as missing.
func TestRegressJoinTasksParquet(t *testing.T) {
	dir := t.TempDir()
	opt := func(v int64) ingest.Opt[int64] { return ingest.Opt[int64]{V: v, Valid: true} }
	tasks := []ingest.Task{
		{TaskID: "t1", Benchmark: "rexbench", GoldLinesChanged: opt(12), GoldFiles: []string{"a.py"}},
		{TaskID: "t2", Benchmark: "rexbench", GoldLinesChanged: opt(45), GoldFiles: []string{"a.py", "b.py"}},
		{TaskID: "t3", Benchmark: "rexbench", GoldLinesChanged: opt(130), GoldFiles: []string{"a.py", "b.py", "c.py"}},
		{TaskID: "t4", Benchmark: "rexbench", GoldLinesChanged: opt(8), GoldFiles: []string{"a.py"}},
		{TaskID: "t5", Benchmark: "rexbench", GoldLinesChanged: opt(300), GoldFiles: []string{"a.py", "b.py", "c.py", "d.py"}},
		{TaskID: "t6", Benchmark: "rexbench"}, // no gold diff known
	}
	pq := filepath.Join(dir, "tasks.parquet")
	if err := ingest.WriteTableFile(pq, ingest.TasksRecord(tasks, "test"), ingest.FormatParquet, "test"); err != nil {
		t.Fatal(err)
	}
	tcsv := filepath.Join(dir, "tasks.csv")
	os.WriteFile(tcsv, []byte("task_id,gold_lines_changed,gold_files_n\nt1,12,1\nt2,45,2\nt3,130,3\nt4,8,1\nt5,300,4\nt6,,\n"), 0o644)
	var b strings.Builder
	b.WriteString("task_id,agent,y\n")
	for i := 0; i < 120; i++ {
		task := fmt.Sprintf("t%d", 1+i%6)
		y := 0
		if (i*37)%11 < 5-(i%6)/2 {
			y = 1
		}
		fmt.Fprintf(&b, "%s,a%d,%d\n", task, i%3, y)
	}
	data := filepath.Join(dir, "runs.csv")
	os.WriteFile(data, []byte(b.String()), 0o644)
	args := []string{"--data", data, "--on", "task_id", "--formula", "y ~ log(gold_lines_changed) + agent"}
	fromPQ := runJSON(t, append(args, "--join", pq)...)
	fromCSV := runJSON(t, append(args, "--join", tcsv)...)
	if fromPQ.N != 100 || fromPQ.NDropped != 20 || len(fromPQ.Coefficients) != 4 {
		t.Fatalf("n %d dropped %d coefficients %v", fromPQ.N, fromPQ.NDropped, fromPQ.Coefficients)
	}
	for j, c := range fromPQ.Coefficients {
		if c["term"] != fromCSV.Coefficients[j]["term"] || c["estimate"] != fromCSV.Coefficients[j]["estimate"] || c["se"] != fromCSV.Coefficients[j]["se"] {
			t.Errorf("parquet %v, csv %v", c, fromCSV.Coefficients[j])
		}
	}
	if fromPQ.Coefficients[1]["term"] != "log(gold_lines_changed)" {
		t.Errorf("terms %v", fromPQ.Coefficients)
	}
	res := runJSON(t, "--data", data, "--on", "task_id", "--join", pq, "--formula", "y ~ gold_files_n")
	if res.N != 100 {
		t.Errorf("gold_files_n: n %d", res.N)
	}
}

// TestRegressProfileSeparation (issue 25 item 3): --ci profile on the
// separated data of testdata/reference/glm_separation.R gives fb's true
// interval (2.9101, +Inf): the open end null in JSON with ci_high_open
// saying why, and a warning.
func TestRegressProfileSeparation(t *testing.T) {
	data := filepath.Join("..", "..", "..", "..", "testdata", "reference", "glm_separation_data.csv")
	out, stderr, err := runCmd(t, "--data", data, "--table", "--formula", "y ~ x + f", "--ci", "profile", "--format", "json")
	if err != nil {
		t.Fatal(err, stderr)
	}
	var res regressJSON
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatal(err, out)
	}
	fb := res.Coefficients[2]
	lo, _ := fb["ci_low"].(float64)
	why, _ := fb["ci_high_open"].(string)
	if fb["term"] != "fb" || math.Abs(lo-2.9101243785534954) > 1e-6*2.91 || fb["ci_high"] != nil || !strings.Contains(why, "separation") {
		t.Errorf("fb: %v", fb)
	}
	if !strings.Contains(stderr, "fb: the likelihood profile stays within the 95% cut") {
		t.Errorf("stderr: %s", stderr)
	}
}
