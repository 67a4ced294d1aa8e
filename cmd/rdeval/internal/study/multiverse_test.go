package study

import (
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/rdeval/rdeval/ingest"
)

// TestApplyLeavesInputAlone: applying a cell (re-normalization and
// exclude:X) changes neither the runs nor the score log of its input, which
// every other cell shares (ingest.Dataset.Filter compacts the score log in
// place, which once corrupted later cells).
func TestApplyLeavesInputAlone(t *testing.T) {
	ds, err := loadDemo()
	if err != nil {
		t.Fatal(err)
	}
	ds = Subset(ds, map[string]string{"benchmark": "re-bench", "agent": "Modular (Model A)"})
	scores := append([]ingest.ScoreEntry(nil), ds.Scores...)
	runs := append([]ingest.Run(nil), ds.Runs...)
	s := defaultCellSettings()
	s.Renormalize, s.NoFloor, s.Cap, s.TritonRule, s.Outlier, s.OutlierAt = true, true, 1, "max", "exclude", 0.5
	out, err := applyCell(ds, s)
	if err != nil {
		t.Fatal(err)
	}
	if len(out.Runs) >= len(ds.Runs) {
		t.Fatalf("exclude:0.5 left %d of %d runs", len(out.Runs), len(ds.Runs))
	}
	if len(scores) != len(ds.Scores) {
		t.Fatal("Apply changed the length of its input's score log")
	}
	for i, e := range scores {
		g := ds.Scores[i]
		// RawScore NaN marks an invalid attempt; DeepEqual says NaN ≠ NaN.
		if e.RunID != g.RunID || e.ElapsedS != g.ElapsedS || !(e.RawScore == g.RawScore || math.IsNaN(e.RawScore) && math.IsNaN(g.RawScore)) {
			t.Fatalf("Apply changed its input's score log at %d: %+v → %+v", i, e, g)
		}
	}
	if !reflect.DeepEqual(runs, ds.Runs) {
		for i := range runs {
			if !reflect.DeepEqual(runs[i], ds.Runs[i]) {
				t.Fatalf("Apply changed its input's run %d: %+v\n→ %+v", i, runs[i], ds.Runs[i])
			}
		}
	}
}

// TestCellsDoNotDependOnEachOther: a sample of the demo spec's cells,
// each recomputed alone (a spec whose choices hold that cell's values
// only), give the same estimate as in the full multiverse.
func TestCellsDoNotDependOnEachOther(t *testing.T) {
	full := computeSpec(t, "../../../../examples/multiverse-demo.yaml", 0)
	for i := 5; i < len(full.Cells); i += 13 {
		c := full.Cells[i]
		var b strings.Builder
		b.WriteString("data: [\"@demo\"]\nwhere: {benchmark: re-bench}\nstat: {kind: scoreatk, k: 16, where: {agent: \"Modular (Model A)\", time_limit_s: \"1800\"}}\nchoices:\n")
		for j, ch := range full.Choices {
			b.WriteString("  " + ch.Key + ": [\"" + c.Labels[j] + "\"]\n")
		}
		one := computeSpec(t, writeSpecFile(t, b.String()), 0)
		if len(one.Cells) != 1 || one.Cells[0].Value != c.Value {
			t.Errorf("cell %d %v: %v in the multiverse, %v alone", i, c.Labels, c.Value, one.Cells[0].Value)
		}
	}
}

// TestHorizonCellRefusedNote (issue 24): the demo study's AIDE (Model B)
// horizon (p50 = 2.8e-145 min on tasks of 417–653 min) is kept as the
// cell's value, but the cell's note says it is no measurement, as rdeval
// horizon refuses it; more than 5 % skipped replicates are flagged too.
func TestHorizonCellRefusedNote(t *testing.T) {
	spec := writeSpecFile(t, `data: ["@demo"]
stat: {kind: horizon, agent: "AIDE (Model B)"}
choices:
  weighting: [invsqrt, equal]
`)
	res := computeSpec(t, spec, 100)
	for _, c := range res.Cells {
		if !strings.Contains(c.Note, "not a measurement: p50 = ") || !strings.Contains(c.Note, "an extrapolation") {
			t.Errorf("cell %v: note %q", c.Labels, c.Note)
		}
		if !strings.Contains(c.Note, "the interval is conditional on the others") {
			t.Errorf("cell %v: no skipped-share flag in %q", c.Labels, c.Note)
		}
	}
}

// TestHorizonKey: in examples/multiverse-horizons.yaml the 3a947ac and
// 19b0311 files hold the same runs of Claude 3.5 Sonnet (New), so 48 of the
// 144 cells share their inputs with a cell of another version (Multiverse
// fits each once); cells with one key have the same estimate (B = 20).
func TestHorizonKey(t *testing.T) {
	path := filepath.Join("..", "..", "..", "..", "examples", "multiverse-horizons.yaml")
	sp, err := LoadMultiverseSpec(path)
	if err != nil {
		t.Fatal(err)
	}
	dataIdx := -1
	for i, c := range sp.Choices {
		if c.Key == keyData {
			dataIdx = i
		}
	}
	if _, err := os.Stat(sp.Choices[dataIdx].values[0].Inputs[0]); err != nil {
		t.Skipf("METR data beside the checkout not found: %v", err)
	}
	p := MultiverseParams{Boot: 20, Seed: 1, MaxCells: testMaxCells, Load: testLoad}
	res, err := Multiverse(sp, p)
	if err != nil {
		t.Fatal(err)
	}
	sets := map[int]*ingest.Dataset{}
	keys := map[string]Estimate{}
	for _, c := range res.Cells {
		s, di := settingsFor(sp, c.Combo)
		if sets[di] == nil {
			ds, err := loadVersion(p, sp.Choices[dataIdx].values[di].Inputs)
			if err != nil {
				t.Fatal(err)
			}
			sets[di] = Subset(ds, sp.Where, sp.Stat.Where)
		}
		ds, err := applyCell(sets[di], s)
		if err != nil {
			t.Fatal(err)
		}
		k := horizonKey(sp.Stat, ds, s)
		if e, ok := keys[k]; ok && !reflect.DeepEqual(e, c.Estimate) && !math.IsNaN(e.Value) {
			t.Errorf("cell %d: key of an earlier cell, estimate %+v against %+v", c.Index, c.Estimate, e)
		}
		keys[k] = c.Estimate
	}
	if len(res.Cells) != 144 || len(keys) != 96 {
		t.Errorf("%d cells, %d distinct horizon inputs; want 144 and 96", len(res.Cells), len(keys))
	}
}
