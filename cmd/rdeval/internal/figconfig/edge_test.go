package figconfig

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rdeval/rdeval/cmd/rdeval/internal/iostreams"
)

// kindOptions are options that let every kind run on the demo study.
func kindOptions(t *testing.T, dir string) map[string]string {
	dates := filepath.Join(dir, "dates.yaml")
	os.WriteFile(dates, []byte("Modular (Model A): 2024-01-01\nAIDE (Model B): 2024-06-01\nModular (Model C): 2025-01-01\n"), 0o644)
	return map[string]string{
		"allocation-bars": "{budget: 8h}",
		"forest":          `{formula: "final_success ~ hint_level"}`,
		"horizon-trend":   "{release_dates: dates.yaml}",
	}
}

// TestKindsOnTinyData draws every figure type on slivers of the demo
// study — one run, one task of one agent, one agent on all tasks, and no
// run of the kind's benchmark — with very long titles. Each either draws
// a figure whose SVG has a non-zero size or fails with an error; none
// panics.
func TestKindsOnTinyData(t *testing.T) {
	dir := t.TempDir()
	ds, err := LoadDemo()
	if err != nil {
		t.Fatal(err)
	}
	opts := kindOptions(t, dir)
	long := strings.Repeat("a very long title that goes on ", 8)
	slivers := map[string]string{
		"one rebench run":   `["run_id=demo-rb-000001"]`,
		"one rexbench run":  `["run_id=demo-rx-0001"]`,
		"one task, agent":   `["task_id=ai_rd_fix_embedding/main,checkeval", "agent=AIDE (Model B),aider + model-a"]`,
		"one agent":         `["agent=Modular (Model C),openhands + model-c"]`,
		"humans only":       `["agent=human"]`,
		"rexbench, no hint": `["benchmark=rexbench", "hint_level=no_hints"]`,
	}
	for _, name := range KindNames() {
		for sliver, where := range slivers {
			o := opts[name]
			if o == "" {
				o = "{}"
			}
			cfg := fmt.Sprintf("demo: true\nboot: 50\nfigures:\n  - id: f\n    type: %s\n    title: %q\n    where: %s\n    options: %s\n", name, long, where, o)
			path := filepath.Join(dir, "c.yaml")
			c, err := ParseConfig(path, []byte(cfg))
			if err != nil {
				t.Fatalf("%s, %s: %v", name, sliver, err)
			}
			cp := *ds
			cp.Runs = append(cp.Runs[:0:0], ds.Runs...)
			io, _, _ := iostreams.Test()
			drawn, err := Render(c, &cp, io)
			if err != nil {
				t.Logf("%s, %s: error (allowed): %v", name, sliver, err)
				continue
			}
			if len(drawn) != 1 || !bytes.Contains(drawn[0].SVG, []byte("<svg")) || bytes.Contains(drawn[0].SVG, []byte(`width="0`)) {
				t.Errorf("%s, %s: %d figures, svg %.80q", name, sliver, len(drawn), drawn[0].SVG)
			}
		}
	}
}
