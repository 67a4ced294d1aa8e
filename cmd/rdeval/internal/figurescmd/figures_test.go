package figurescmd

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/rdeval/rdeval/cmd/rdeval/internal/cmdtest"
	"github.com/rdeval/rdeval/cmd/rdeval/internal/cmdutil"
	"github.com/rdeval/rdeval/cmd/rdeval/internal/figconfig"
	"github.com/rdeval/rdeval/cmd/rdeval/internal/iostreams"
	"github.com/spf13/cobra"
)

var update = flag.Bool("update", false, "rewrite testdata/demo/ from the demo study config")

const demoConfig = "../../../../examples/demo-study.yaml"

func runCmd(t *testing.T, args ...string) (string, string, error) {
	t.Helper()
	return cmdtest.Run(t, func(io *iostreams.IO) *cobra.Command { return NewCmd(io, "test", nil) }, args...)
}

func exitCode(err error) int {
	var ue *cmdutil.UsageError
	var be *cmdutil.BadInputError
	switch {
	case err == nil:
		return cmdutil.ExitOK
	case errors.As(err, &ue), errors.As(err, &be):
		return cmdutil.ExitBadInput
	}
	return cmdutil.ExitFailure
}

func readIndex(t *testing.T, dir string) figconfig.Index {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, "index.json"))
	if err != nil {
		t.Fatal(err)
	}
	var idx figconfig.Index
	if err := json.Unmarshal(b, &idx); err != nil {
		t.Fatal(err)
	}
	return idx
}

// TestDemoStudyGolden draws every figure of examples/demo-study.yaml on
// the embedded demo study and byte-compares each SVG and index.json with
// testdata/demo/ (rewrite with -update); a second run gives the same bytes.
func TestDemoStudyGolden(t *testing.T) {
	dir := t.TempDir()
	if _, stderr, err := runCmd(t, "--config", demoConfig, "--out", dir); err != nil {
		t.Fatal(err, stderr)
	}
	cfg, err := figconfig.LoadConfig(demoConfig)
	if err != nil {
		t.Fatal(err)
	}
	idx := readIndex(t, dir)
	if len(idx.Figures) != len(cfg.Figures) {
		t.Fatalf("index.json lists %d figures, the config %d", len(idx.Figures), len(cfg.Figures))
	}
	types := map[string]bool{}
	for _, f := range idx.Figures {
		types[f.Type] = true
	}
	for _, k := range figconfig.KindNames() {
		if !types[k] && k != "horizon-fit" && k != "horizon-trend" { // the demo has no task lengths to speak of nor release dates
			t.Errorf("the demo config draws no %s figure", k)
		}
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	golden := filepath.Join("testdata", "demo")
	if *update {
		os.RemoveAll(golden)
		if err := os.MkdirAll(golden, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, n := range names {
		got, err := os.ReadFile(filepath.Join(dir, n))
		if err != nil {
			t.Fatal(err)
		}
		if *update {
			if err := os.WriteFile(filepath.Join(golden, n), got, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		want, err := os.ReadFile(filepath.Join(golden, n))
		if err != nil {
			t.Errorf("%s: %v (run go test -update)", n, err)
			continue
		}
		if !bytes.Equal(got, want) {
			os.WriteFile(filepath.Join(golden, n+".got"), got, 0o644) // *.got is in .gitignore
			t.Errorf("%s differs from testdata/demo/%s (see %s.got; run go test -update if intended)", n, n, n)
		}
	}
	if !*update {
		gold, _ := os.ReadDir(golden)
		var want []string
		for _, e := range gold {
			if !strings.HasSuffix(e.Name(), ".got") {
				want = append(want, e.Name())
			}
		}
		sort.Strings(names)
		if strings.Join(names, " ") != strings.Join(want, " ") {
			t.Errorf("files %v, golden %v", names, want)
		}
	}
	// Same config, same bytes.
	dir2 := t.TempDir()
	if _, stderr, err := runCmd(t, "--config", demoConfig, "--out", dir2); err != nil {
		t.Fatal(err, stderr)
	}
	for _, n := range names {
		a, _ := os.ReadFile(filepath.Join(dir, n))
		b, _ := os.ReadFile(filepath.Join(dir2, n))
		if !bytes.Equal(a, b) {
			t.Errorf("%s differs between two runs", n)
		}
	}
}

// TestIndexProvenance: index.json records the config's and each file's
// sha256 (checked against the bytes written), the seed, boot, parameters
// and version, and the demo inputs' checksums.
func TestIndexProvenance(t *testing.T) {
	dir := t.TempDir()
	if _, stderr, err := runCmd(t, "--config", demoConfig, "--out", dir, "--only", "scoreatk_2h,forest", "--formats", "svg,pdf"); err != nil {
		t.Fatal(err, stderr)
	}
	idx := readIndex(t, dir)
	cb, _ := os.ReadFile(demoConfig)
	if idx.RdevalVersion != "test" || idx.Config.SHA256 != hexSum(cb) || idx.Config.Path != "demo-study.yaml" {
		t.Errorf("version %q, config %+v", idx.RdevalVersion, idx.Config)
	}
	if len(idx.Figures) != 2 || idx.Figures[0].ID != "scoreatk_2h" || idx.Figures[1].ID != "forest" {
		t.Fatalf("figures %+v", idx.Figures)
	}
	for _, f := range idx.Figures {
		if len(f.Files) != 2 {
			t.Errorf("%s: files %+v, want svg and pdf", f.ID, f.Files)
		}
		for _, file := range f.Files {
			b, err := os.ReadFile(filepath.Join(dir, file.Name))
			if err != nil || hexSum(b) != file.SHA256 {
				t.Errorf("%s: sha256 %s recorded, file %s (%v)", file.Name, file.SHA256, hexSum(b), err)
			}
		}
		if len(f.Inputs) != 5 || !strings.HasPrefix(f.Inputs[0].Path, "demo:") || len(f.Inputs[0].SHA256) != 64 {
			t.Errorf("%s: inputs %+v", f.ID, f.Inputs)
		}
		if f.Seed != 1 || f.Boot != 2000 || f.CI != 0.95 {
			t.Errorf("%s: seed %d boot %d ci %v", f.ID, f.Seed, f.Boot, f.CI)
		}
	}
	if got := idx.Figures[0].Parameters["time_limit_s"]; got != "7200" {
		t.Errorf("scoreatk_2h time_limit_s %v", got)
	}
	if got := idx.Figures[1].Parameters["formula"]; got != "final_success ~ hint_level + scale(gold_lines_changed)" {
		t.Errorf("forest formula %v", got)
	}
	if len(idx.Figures[1].Warnings) == 0 {
		t.Errorf("forest: no warning about its 12 clusters")
	}
}

func hexSum(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

// TestSeedChangesBootstrap: a figure's seed reaches its bootstrap (a
// different seed gives a different band), and is recorded.
func TestSeedChangesBootstrap(t *testing.T) {
	dir := t.TempDir()
	cfg := `demo: true
boot: 200
figures:
  - {id: a, type: scoreatk, where: ["benchmark=re-bench"], options: {time_limit: 2h}}
  - {id: b, type: scoreatk, seed: 99, where: ["benchmark=re-bench"], options: {time_limit: 2h}}
`
	path := filepath.Join(dir, "s.yaml")
	os.WriteFile(path, []byte(cfg), 0o644)
	out := filepath.Join(dir, "out")
	if _, stderr, err := runCmd(t, "--config", path, "--out", out); err != nil {
		t.Fatal(err, stderr)
	}
	a, _ := os.ReadFile(filepath.Join(out, "a.svg"))
	b, _ := os.ReadFile(filepath.Join(out, "b.svg"))
	if bytes.Equal(a, b) {
		t.Error("seeds 1 and 99 drew the same bands")
	}
	idx := readIndex(t, out)
	if idx.Figures[0].Seed != 1 || idx.Figures[1].Seed != 99 || idx.Figures[0].Boot != 200 {
		t.Errorf("seeds %d, %d; boot %d", idx.Figures[0].Seed, idx.Figures[1].Seed, idx.Figures[0].Boot)
	}
}

// TestMETRConfig runs examples/rebench.yaml on METR's public data (skips
// without ../shared): every figure is written, and index.json records the
// data's and the release dates' sha256.
func TestMETRConfig(t *testing.T) {
	cfg, err := figconfig.LoadConfig("../../../../examples/rebench.yaml")
	if err != nil {
		t.Fatal(err)
	}
	data := cfg.Resolve(cfg.Inputs[0])
	if _, err := os.Stat(data); err != nil {
		t.Skipf("skipping: %s not found (../shared sits beside the checkout)", data)
	}
	dir := t.TempDir()
	stdout, stderr, err := runCmd(t, "--config", "../../../../examples/rebench.yaml", "--out", dir, "--format", "json")
	if err != nil {
		t.Fatal(err, stderr)
	}
	var rows []map[string]any
	if err := json.Unmarshal([]byte(stdout), &rows); err != nil || len(rows) != len(cfg.Figures) {
		t.Fatalf("stdout %q: %v", stdout, err)
	}
	b, _ := os.ReadFile(data)
	idx := readIndex(t, dir)
	for _, f := range idx.Figures {
		if f.Inputs[0].SHA256 != hexSum(b) || f.Inputs[0].Path != filepath.ToSlash(cfg.Inputs[0]) {
			t.Errorf("%s: input %+v", f.ID, f.Inputs[0])
		}
		if _, err := os.Stat(filepath.Join(dir, f.ID+".svg")); err != nil {
			t.Error(err)
		}
		if f.Type == "horizon-trend" && (len(f.Inputs) != 2 || !strings.HasSuffix(f.Inputs[1].Path, "release_dates.yaml")) {
			t.Errorf("horizon-trend inputs %+v", f.Inputs)
		}
	}
	// --input replaces the config's inputs (same file, same figures).
	dir2 := t.TempDir()
	if _, stderr, err := runCmd(t, "--config", "../../../../examples/rebench.yaml", "--input", data, "--out", dir2, "--only", "horizon_fit"); err != nil {
		t.Fatal(err, stderr)
	}
	x, _ := os.ReadFile(filepath.Join(dir, "horizon_fit.svg"))
	y, _ := os.ReadFile(filepath.Join(dir2, "horizon_fit.svg"))
	if !bytes.Equal(x, y) {
		t.Error("--input with the same file drew a different horizon_fit.svg")
	}
}

// TestBadConfig: mistakes in a config exit 2 with the file, line and field
// named, and leave no output folder behind.
func TestBadConfig(t *testing.T) {
	for _, tc := range []struct{ name, cfg, want string }{
		{"unknown key", "demo: true\nfigurez: []\n", "line 2: field figurez not found"},
		{"no figures", "demo: true\n", "figures: none"},
		{"demo with input options", "demo: true\ninput: {benchmark: x}\nfigures: [{id: a, type: errors}]\n", "input may only hold where"},
		{"no inputs", "figures: [{id: a, type: errors}]\n", "want either inputs"},
		{"bad type", "demo: true\nfigures:\n  - id: a\n    type: pie\n", "c.yaml:3: figure \"a\": type \"pie\": want one of"},
		{"bad option", "demo: true\nfigures:\n  - id: a\n    type: scoreatk\n    options: {budget: 8h}\n", "c.yaml:5: figure \"a\" (type scoreatk): unknown option \"budget\" (options: human_percentiles, humans, ks, partial, time_limit)"},
		{"inline option", "demo: true\nfigures:\n  - id: a\n    type: horizon-trend\n    options: {release_dates: d.yaml, weighting: square}\n", "c.yaml:3: figure \"a\": weighting \"square\": want invsqrt or equal"},
		{"option type", "demo: true\nfigures:\n  - id: a\n    type: per-task\n    options: {k: two}\n", "figure \"a\": options: unmarshal errors"},
		{"duplicate id", "demo: true\nfigures:\n  - {id: a, type: errors}\n  - {id: a, type: errors}\n", "c.yaml:4: figure id \"a\" is already used on line 3"},
		{"bad id", "demo: true\nfigures:\n  - {id: ../x, type: errors}\n", "id \"../x\""},
		{"bad format", "demo: true\nformats: [gif]\nfigures: [{id: a, type: errors}]\n", "formats: \"gif\""},
		{"missing input", "inputs: [nope.jsonl]\nfigures: [{id: a, type: errors}]\n", "input"},
		{"time limit absent", "demo: true\nfigures:\n  - {id: a, type: scoreatk, options: {time_limit: 3h}}\n", "c.yaml:3: figure \"a\": time_limit 3h: no runs of that length"},
		{"release dates missing", "demo: true\nfigures:\n  - {id: a, type: errors}\n  - {id: b, type: horizon-trend, options: {release_dates: none.yaml}}\n", "c.yaml:4: figure \"b\": release_dates"},
		{"where column", "demo: true\nfigures:\n  - {id: a, type: errors, where: [colour=red]}\n", "c.yaml:3: figure \"a\": where"},
		{"bad colour", "demo: true\ncolors: {human: yellow}\nfigures: [{id: a, type: errors}]\n", "colors: human: colour \"yellow\": want #RRGGBB"},
		{"axis limits", "demo: true\nfigures:\n  - {id: a, type: errors, y_min: 1, y_max: 0}\n", "c.yaml:3: figure \"a\": axis limits"},
		{"log axis limit", "demo: true\nfigures:\n  - {id: a, type: allocation, x_min: 0}\n", "c.yaml:3: figure \"a\": x_min 0: the axis is logarithmic"},
		{"limits cross the data range", "demo: true\nfigures:\n  - {id: a, type: errors, y_max: -5}\n", "c.yaml:3: figure \"a\": axis limits: x"},
		{"bad partial", "demo: true\nfigures:\n  - {id: a, type: allocation, options: {partial: hide}}\n", "partial \"hide\": want distinct or omit"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "c.yaml")
			if err := os.WriteFile(path, []byte(tc.cfg), 0o644); err != nil {
				t.Fatal(err)
			}
			out := filepath.Join(dir, "out")
			_, _, err := runCmd(t, "--config", path, "--out", out)
			if exitCode(err) != cmdutil.ExitBadInput {
				t.Fatalf("exit %d (%v), want 2", exitCode(err), err)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %q does not contain %q", err, tc.want)
			}
			if _, err := os.Stat(out); !os.IsNotExist(err) {
				t.Errorf("the output folder exists after a failure (%v)", err)
			}
		})
	}
}

// TestUsage: flags are checked before anything is read.
func TestUsage(t *testing.T) {
	for _, args := range [][]string{
		{},
		{"--config", demoConfig, "--formats", "gif"},
		{"--config", demoConfig, "--format", "xml"},
		{"--config", demoConfig, "--only", "nope"},
		{"--config", "nope.yaml"},
	} {
		_, _, err := runCmd(t, args...)
		if exitCode(err) != cmdutil.ExitBadInput {
			t.Errorf("%v: exit %d (%v), want 2", args, exitCode(err), err)
		}
	}
}

// TestDocsListEveryOption: docs/figures.md names every figure type and
// every option of each.
func TestDocsListEveryOption(t *testing.T) {
	b, err := os.ReadFile("../../../../docs/figures.md")
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	for _, name := range figconfig.KindNames() {
		i := strings.Index(doc, "- `"+name+"` —")
		if i < 0 {
			t.Errorf("docs/figures.md does not describe type %s", name)
			continue
		}
		section := doc[i:]
		if j := strings.Index(section[1:], "\n- `"); j >= 0 {
			section = section[:j+1]
		}
		for _, o := range figconfig.KindOptions(name) {
			if !strings.Contains(section, "`"+o+"`") && !(name == "horizon-trend" && strings.Contains(section, "those of `horizon-fit`")) {
				t.Errorf("docs/figures.md: type %s: option %s not described", name, o)
			}
		}
	}
}

// TestRelativeInputs: a config's inputs are read relative to the config
// file, not the working directory, and index.json records them so.
func TestRelativeInputs(t *testing.T) {
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "data"), 0o755)
	os.MkdirAll(filepath.Join(dir, "study"), 0o755)
	var b strings.Builder
	n := 0
	for _, task := range []string{"t1", "t2", "t3"} {
		for _, agent := range []string{"a", "b"} {
			for i := 0; i < 4; i++ {
				n++
				fmt.Fprintf(&b, `{"run_id":"r%d","benchmark":"synthetic","task_id":"%s","agent":"%s","score":%v,"time_limit_s":1800}`+"\n", n, task, agent, 0.1*float64(i+1))
			}
		}
	}
	data := []byte(b.String())
	os.WriteFile(filepath.Join(dir, "data", "runs.jsonl"), data, 0o644)
	cfg := "inputs: [../data/runs.jsonl]\nseed: 3\nboot: 100\nfigures:\n  - {id: sak, type: scoreatk, options: {ks: [1, 2, 4]}}\n"
	os.WriteFile(filepath.Join(dir, "study", "study.yaml"), []byte(cfg), 0o644)
	t.Chdir(t.TempDir()) // somewhere else
	out := filepath.Join(dir, "out")
	if _, stderr, err := runCmd(t, "--config", filepath.Join(dir, "study", "study.yaml"), "--out", out); err != nil {
		t.Fatal(err, stderr)
	}
	idx := readIndex(t, out)
	in := idx.Figures[0].Inputs
	if len(in) != 1 || in[0].Path != "../data/runs.jsonl" || in[0].SHA256 != hexSum(data) {
		t.Errorf("inputs %+v", in)
	}
	if idx.Figures[0].Seed != 3 || idx.Figures[0].Parameters["time_limit_s"] != "1800" {
		t.Errorf("figure %+v", idx.Figures[0])
	}
}

// TestStudyStylesAndNames (issue 24): an agent keeps its colour across the
// figures of a study whatever subset a figure draws; humans are dark grey;
// colors, names, axis labels and limits from the config are applied; the
// RE-Bench task ids get display names by default.
func TestStudyStylesAndNames(t *testing.T) {
	dir := t.TempDir()
	cfg := `demo: true
boot: 0
colors: {"Modular (Model C)": "#CC79A7"}
names: {"AIDE (Model B)": "AIDE B", ai_rd_triton_cumsum/main: Triton}
figures:
  - {id: all, type: allocation, options: {budgets: [2h, 8h]}}
  - {id: some, type: allocation, where: ["agent=Modular (Model C),human"], options: {budgets: [2h, 8h], partial: omit},
     y_label: "Score", y_min: 0, y_max: 2}
  - {id: tasks, type: per-task, where: ["benchmark=re-bench", "time_limit_s=28800"]}
`
	path := filepath.Join(dir, "c.yaml")
	os.WriteFile(path, []byte(cfg), 0o644)
	out := filepath.Join(dir, "out")
	if _, stderr, err := runCmd(t, "--config", path, "--out", out); err != nil {
		t.Fatal(err, stderr)
	}
	read := func(n string) string {
		b, err := os.ReadFile(filepath.Join(out, n+".svg"))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	all, some, tasks := read("all"), read("some"), read("tasks")
	for name, svg := range map[string]string{"all": all, "some": some} {
		if !strings.Contains(svg, "stroke:#CC79A7") || !strings.Contains(svg, "stroke:#444444") {
			t.Errorf("%s: Model C is not #CC79A7 or humans not #444444", name)
		}
	}
	if !strings.Contains(all, "AIDE B") || strings.Contains(all, "AIDE (Model B)") {
		t.Error("all: the display name of AIDE (Model B) is not used")
	}
	if !strings.Contains(some, ">Score<") || !strings.Contains(some, ">1<") {
		t.Error("some: y label or limit not applied")
	}
	if !strings.Contains(tasks, ">Triton<") || !strings.Contains(tasks, ">Fix embedding<") || strings.Contains(tasks, "ai_rd_") {
		t.Error("tasks: display names of tasks not used")
	}
	if strings.Contains(all+some+tasks, "#F0E442") {
		t.Error("yellow in a figure")
	}
}
