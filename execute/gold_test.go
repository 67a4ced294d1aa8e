package execute

import (
	"bufio"
	"context"
	"math"
	"os"
	"strconv"
	"strings"
	"testing"
)

// TestMeanSDReference checks MeanSD against R's mean() and sd()
// (testdata/reference/gold_meansd.R; relative tolerance 1e-12).
func TestMeanSDReference(t *testing.T) {
	t.Parallel()
	xs := map[string][]float64{
		"acc5":   {0.8125, 0.8131, 0.8119, 0.8127, 0.8122},
		"loss3":  {1.5e-3, 2.25e-3, 9.75e-4},
		"const2": {0.5, 0.5},
		"wide4":  {-12.5, 3, 1e3, 7.25},
	}
	f, err := os.Open("testdata/reference/gold_meansd.csv")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	n := 0
	for sc.Scan() {
		l := sc.Text()
		if strings.HasPrefix(l, "#") || strings.HasPrefix(l, "name,") {
			continue
		}
		p := strings.Split(l, ",")
		wantMean, _ := strconv.ParseFloat(p[2], 64)
		wantSD, _ := strconv.ParseFloat(p[3], 64)
		mean, sd, err := MeanSD(xs[p[0]])
		if err != nil {
			t.Fatal(err)
		}
		close := func(a, b float64) bool { return math.Abs(a-b) <= 1e-12*math.Max(1, math.Abs(b)) }
		if !close(mean, wantMean) || !close(sd, wantSD) {
			t.Errorf("%s: mean %v sd %v, R %v %v", p[0], mean, sd, wantMean, wantSD)
		}
		n++
	}
	if n != len(xs) {
		t.Fatalf("%d reference rows, want %d", n, len(xs))
	}
	if _, _, err := MeanSD([]float64{1}); err == nil {
		t.Error("sd of one value")
	}
}

// calibratedSpec's metric is 0.8<seed> and its range is to be calibrated.
const calibratedSpec = `id: cal
repo: repo
base_commit: main
run: 'echo "ACC: 0.8$RDEVAL_SEED"'
timeout: 20s
gpus: 0
seeds: [1, 2, 3, 4, 5]
metrics:
  accuracy: {stdout_regex: 'ACC: ([0-9.]+)'}
success:
  range: {accuracy: {m: 3}}
`

// TestGoldCalibration: a spec whose range has no mean and sd refuses to
// run; gold runs (NoJudge) over 5 seeds calibrate it; the .gold.yaml file
// written next to the spec (the spec's bytes unchanged) fills the range
// when the spec is loaded again, with the spec's m kept.
func TestGoldCalibration(t *testing.T) {
	t.Parallel()
	specPath := toyTask(t, calibratedSpec)
	orig, _ := os.ReadFile(specPath)
	s, err := LoadSpec(specPath)
	if err != nil {
		t.Fatal(err)
	}
	if u := s.Uncalibrated(); len(u) != 1 || u[0] != "accuracy" {
		t.Fatalf("uncalibrated %v", u)
	}
	dir := writePatches(t, map[string]string{"gold.diff": patchCorrect})
	_, err = Run(context.Background(), Options{Spec: s, Patches: []string{dir}, Out: t.TempDir(), Sandbox: SandboxNone})
	if err == nil || !strings.Contains(err.Error(), "run rdeval execute gold first") {
		t.Fatalf("uncalibrated run: %v", err)
	}
	sum, err := Run(context.Background(), Options{Spec: s, Patches: []string{dir}, Out: t.TempDir(), Sandbox: testSandbox(t), NoJudge: true})
	if err != nil {
		t.Fatal(err)
	}
	ranges, err := Calibrate(s, sum.Results, 2)
	if err != nil {
		t.Fatal(err)
	}
	r := ranges["accuracy"]
	// R: mean(c(.81,.82,.83,.84,.85)) = 0.83, sd(...) = 0.015811388300841896
	if math.Abs(r.Mean-0.83) > 1e-12 || math.Abs(r.SD-0.015811388300841896) > 1e-12 || r.N != 5 || r.M != 2 {
		t.Fatalf("%+v", r)
	}
	if err := WriteGold(GoldFile(specPath), &GoldCalibration{TaskID: "cal", Seeds: s.Seeds, Range: ranges}); err != nil {
		t.Fatal(err)
	}
	if now, _ := os.ReadFile(specPath); string(now) != string(orig) {
		t.Error("the task spec was rewritten")
	}
	s2, err := LoadSpec(specPath)
	if err != nil {
		t.Fatal(err)
	}
	got := s2.Success.Range["accuracy"]
	if len(s2.Uncalibrated()) != 0 || got.Mean != r.Mean || got.SD != r.SD || *got.M != 3 || got.From != GoldFile(specPath) {
		t.Fatalf("filled %+v", got)
	}
	// 0.83 ± 3·0.0158: seeds 1..5 all within.
	sum, err = Run(context.Background(), Options{Spec: s2, Patches: []string{dir}, Out: t.TempDir(), Sandbox: testSandbox(t)})
	if err != nil || sum.Counts()[OutcomeSuccess] != 5 {
		t.Fatalf("%v %v", sum.Counts(), err)
	}
	// A failed gold run calibrates nothing.
	sum.Results[2].Outcome, sum.Results[2].Reason = OutcomeExecError, "exited with status 1"
	if _, err := Calibrate(s, sum.Results, 2); err == nil || !strings.Contains(err.Error(), "1 of 5 gold runs failed") {
		t.Errorf("failed gold run: %v", err)
	}
	// A calibration file of another task is refused.
	os.WriteFile(GoldFile(specPath), []byte("task_id: other\nrange: {accuracy: {mean: 1, sd: 0, m: 2, n: 2}}\n"), 0o644)
	if _, err := LoadSpec(specPath); err == nil || !strings.Contains(err.Error(), `calibrates task "other"`) {
		t.Errorf("other task: %v", err)
	}
	// Half a range is an error naming the line.
	if _, err := ParseSpec([]byte(strings.Replace(calibratedSpec, "{m: 3}", "{mean: 0.8}", 1)), "/"); err == nil || !strings.Contains(err.Error(), "line 11") {
		t.Errorf("mean without sd: %v", err)
	}
}

func TestPatchMeta(t *testing.T) {
	t.Parallel()
	for _, h := range []string{"s", "hint", "no_hints ", "HINTS"} {
		if err := (PatchMeta{Hint: h}).Validate(); err == nil {
			t.Errorf("hint %q accepted", h)
		}
	}
	for _, h := range []string{"", "no_hints", "hints", "detailed_hints"} {
		if err := (PatchMeta{Hint: h}).Validate(); err != nil {
			t.Errorf("hint %q: %v", h, err)
		}
	}
	if err := (PatchMeta{Agent: "a\nb"}).Validate(); err == nil {
		t.Error("newline in agent accepted")
	}
	// Identical patches of different agents are different runs; without
	// metadata the key is the patch's sha256.
	if runKey("abc", PatchMeta{}) != "abc" || runKey("abc", PatchMeta{Agent: "x"}) == runKey("abc", PatchMeta{Agent: "y"}) {
		t.Error("runKey")
	}
	dir := t.TempDir()
	p := dir + "/a.diff"
	os.WriteFile(p+MetaSuffix, []byte(`{"agent": "x", "colour": "red"}`), 0o644)
	if _, err := readPatchMeta(p); err == nil || !strings.Contains(err.Error(), "a.diff.meta.json") {
		t.Errorf("unknown key: %v", err)
	}
	os.WriteFile(p+MetaSuffix, []byte(`{"agent": "x", "hint": "hints"}`), 0o644)
	m, err := readPatchMeta(p)
	if err != nil || metaOver(PatchMeta{Agent: "y", Model: "m"}, m) != (PatchMeta{Agent: "x", Model: "m", Hint: "hints"}) {
		t.Errorf("%+v %v", m, err)
	}
}
