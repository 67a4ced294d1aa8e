package cli

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/rdeval/rdeval/cmd/rdeval/internal/iostreams"
	"github.com/spf13/cobra"
	"github.com/spf13/cobra/doc"
)

const docsDir = "../../../../docs/cli"

// TestCLIDocs: docs/cli/*.md are generated from the commands' help by
// cobra's doc generator and must not be stale. Regenerate with
// go test ./cmd/rdeval/internal/cli -run CLIDocs -update.
func TestCLIDocs(t *testing.T) {
	io, _, _ := iostreams.Test()
	root := NewRoot(io, "docs", nil)
	root.DisableAutoGenTag = true
	want := map[string][]byte{}
	var walk func(c *cobra.Command) error
	walk = func(c *cobra.Command) error {
		if !c.IsAvailableCommand() && c != root {
			return nil
		}
		var b bytes.Buffer
		if err := doc.GenMarkdownCustom(c, &b, func(s string) string { return s }); err != nil {
			return err
		}
		want[strings.ReplaceAll(c.CommandPath(), " ", "_")+".md"] = b.Bytes()
		for _, sub := range c.Commands() {
			if err := walk(sub); err != nil {
				return err
			}
		}
		return nil
	}
	if err := walk(root); err != nil {
		t.Fatal(err)
	}
	if *update {
		os.RemoveAll(docsDir)
		os.MkdirAll(docsDir, 0o755)
		for name, b := range want {
			if err := os.WriteFile(filepath.Join(docsDir, name), b, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		return
	}
	have, _ := filepath.Glob(filepath.Join(docsDir, "*.md"))
	if len(have) != len(want) {
		t.Errorf("docs/cli has %d files, the commands give %d: run go test ./cmd/rdeval/internal/cli -run CLIDocs -update", len(have), len(want))
	}
	for name, b := range want {
		got, err := os.ReadFile(filepath.Join(docsDir, name))
		if err != nil || !bytes.Equal(got, b) {
			t.Errorf("docs/cli/%s is stale: run go test ./cmd/rdeval/internal/cli -run CLIDocs -update", name)
		}
	}
}

// TestSeededCommandsDocumented: bench/xarch.sh compares the bytes of every
// command that takes --seed on the demo study (so it checks them without
// ../shared/anchors too), and README.md and docs/reproducibility.md name
// those commands and count the script's runs as it has them.
func TestSeededCommandsDocumented(t *testing.T) {
	io, _, _ := iostreams.Test()
	var seeded []string
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		if c.Flags().Lookup("seed") != nil {
			seeded = append(seeded, strings.TrimPrefix(c.CommandPath(), "rdeval "))
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(NewRoot(io, "test", nil))
	sort.Strings(seeded)
	script, err := os.ReadFile("../../../../bench/xarch.sh")
	if err != nil {
		t.Fatal(err)
	}
	// The demo runs are the lines of cmds=( … ), METR's those of cmds+=( … ).
	block := func(open string) []string {
		s := string(script)
		i := strings.Index(s, open)
		if i < 0 {
			t.Fatalf("bench/xarch.sh has no %q", open)
		}
		s = s[i+len(open):]
		var runs []string
		for _, l := range strings.Split(s, "\n") {
			switch l = strings.TrimSpace(l); l {
			case ")":
				return runs
			case "":
			default:
				runs = append(runs, strings.Trim(l, `"`))
			}
		}
		t.Fatalf("bench/xarch.sh: %q has no closing )", open)
		return nil
	}
	demo, metr := block("cmds=(\n"), block("cmds+=(\n")
	for _, c := range seeded {
		if !slices.ContainsFunc(demo, func(r string) bool { return strings.HasPrefix(r, c+" ") }) {
			t.Errorf("bench/xarch.sh runs no %q on the demo study", c)
		}
	}
	want := []string{
		fmt.Sprintf("the %d commands that take `--seed` (%s)", len(seeded), strings.Join(seeded, ", ")),
		fmt.Sprintf("%d runs on the demo study and %d more on METR's", len(demo), len(metr)),
	}
	for _, doc := range []string{"../../../../README.md", "../../../../docs/reproducibility.md"} {
		b, err := os.ReadFile(doc)
		if err != nil {
			t.Fatal(err)
		}
		text := strings.Join(strings.Fields(string(b)), " ")
		for _, w := range want {
			if !strings.Contains(text, w) {
				t.Errorf("%s does not say %q", doc, w)
			}
		}
	}
}
