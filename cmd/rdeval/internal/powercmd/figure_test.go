package powercmd

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/rdeval/rdeval/analysis"
	"github.com/rdeval/rdeval/figures"
)

// TestPowerFigure: --figure writes the figure of the cells printed (the
// same bytes as figures.PowerFigure on them, whose look is pinned by the
// golden test in figures), the same for the same seed; a bad extension is
// a usage error before anything runs.
func TestPowerFigure(t *testing.T) {
	dir := t.TempDir()
	fig := filepath.Join(dir, "power.svg")
	args := []string{"--pa", "0.3", "--pb", "0.5", "--runs", "2,4,8", "--tasks", "6,12", "--sims", "200", "--figure", fig, "--format", "json"}
	out, _, err := runCmd(t, args...)
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(fig)
	if err != nil {
		t.Fatal(err)
	}
	var printed struct {
		Cells []struct {
			RunsPerTask int     `json:"runs_per_task"`
			Tasks       int     `json:"tasks"`
			Sims        int     `json:"sims"`
			Power       float64 `json:"power"`
			PowerSE     float64 `json:"power_se"`
			CIHalfWidth float64 `json:"ci_half_width"`
		} `json:"cells"`
	}
	if err := json.Unmarshal([]byte(out), &printed); err != nil || len(printed.Cells) != 6 {
		t.Fatalf("json output: %v (%d cells)\n%s", err, len(printed.Cells), out)
	}
	var cells []analysis.PowerCell
	for _, c := range printed.Cells {
		cells = append(cells, analysis.PowerCell{RunsPerTask: c.RunsPerTask, Tasks: c.Tasks, Sims: c.Sims, Power: c.Power, PowerSE: c.PowerSE, CIHalfWidth: c.CIHalfWidth})
	}
	p, err := figures.PowerFigure("Power, α = 0.05 (200 simulations per point)", cells)
	if err != nil {
		t.Fatal(err)
	}
	var want bytes.Buffer
	if err := figures.Save(p, figures.OneColumn, figures.Height(figures.OneColumn), "svg", &want); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want.Bytes()) {
		t.Error("--figure differs from figures.PowerFigure on the printed cells")
	}
	if _, _, err := runCmd(t, "--pa", "0.3", "--pb", "0.5", "--figure", filepath.Join(dir, "p.gif")); err == nil {
		t.Error("--figure p.gif: want an error")
	}
	if _, err := os.Stat(filepath.Join(dir, "p.gif")); err == nil {
		t.Error("p.gif written despite the error")
	}
}
