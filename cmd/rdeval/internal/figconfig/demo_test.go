package figconfig

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// TestDemoConfigIsExample: the default report's figures (the embedded
// demo-study.yaml) are examples/demo-study.yaml (a link to it), and they
// draw every figure type the configs know, so a new type must be added
// there.
func TestDemoConfigIsExample(t *testing.T) {
	ex, err := os.ReadFile(filepath.Join("..", "..", "..", "..", "examples", "demo-study.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(ex, demoStudyYAML) {
		t.Errorf("examples/demo-study.yaml is not cmd/rdeval/internal/figconfig/demo-study.yaml: keep it a link to that file")
	}
	cfg, err := DemoConfig()
	if err != nil {
		t.Fatal(err)
	}
	used := map[string]bool{}
	for _, f := range cfg.Figures {
		used[f.Type] = true
	}
	for _, k := range KindNames() {
		if !used[k] {
			t.Errorf("figure type %s is not in the demo config (the default report draws every type)", k)
		}
	}
}
