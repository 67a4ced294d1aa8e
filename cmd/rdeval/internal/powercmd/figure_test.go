package powercmd

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/rdeval/rdeval/analysis"
	"github.com/rdeval/rdeval/cmd/rdeval/internal/iostreams"
	"github.com/rdeval/rdeval/figures"
)

// TestPowerFigure: --figure writes the figure of the cells printed (the
// same bytes as figures.PowerFigure on them, whose look is pinned by the
// golden test in figures), the same for the same seed; a bad extension is
// a usage error before anything runs.
func TestPowerFigure(t *testing.T) {
	dir := t.TempDir()
	fig := filepath.Join(dir, "power.svg")
	args := []string{"--pa", "0.3", "--pb", "0.5", "--runs", "2,4,8", "--tasks", "6,12", "--sims", "200", "--figure", fig}
	if _, _, err := runCmd(t, args...); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(fig)
	if err != nil {
		t.Fatal(err)
	}
	var cells []analysis.PowerCell
	io, _, _ := iostreams.Test()
	opts := &Options{IO: io, Format: "table", Runs: []int{2, 4, 8}, Tasks: []int{6, 12}, Alpha: 0.05, Sims: 200, Seed: 1, PA: 0.3, PB: 0.5,
		OnRows: func(c []analysis.PowerCell) { cells = c }}
	if err := Run(opts); err != nil {
		t.Fatal(err)
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
