package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rdeval/rdeval/cmd/rdeval/internal/cmdutil"
	"github.com/rdeval/rdeval/cmd/rdeval/internal/iostreams"
	"github.com/spf13/cobra"
)

// selfContained are --help examples that need no file of the user's and
// write only below the current folder, so they are run as they are.
var selfContained = map[string]bool{
	"rdeval version": true,
	"rdeval report":  true,
	"rdeval power --pa 0.3 --pb 0.5 --runs 3,5,10 --tasks 6,12,24": true,
}

// noRunnableExample are the commands whose examples all need the user's
// files: execute runs a task repository at a commit and reads its run
// folders (its tests build both).
var noRunnableExample = map[string]bool{"rdeval execute run": true, "rdeval execute gold": true, "rdeval execute status": true}

// runnable reports whether an example runs anywhere: on the embedded demo
// study (--demo), on the files shipped in examples/, or self-contained.
func runnable(line string) bool {
	words, err := shellWords(line)
	if err != nil {
		return false
	}
	shipped := false
	for _, w := range words {
		if w == "--demo" {
			return true
		}
		if strings.HasPrefix(w, "examples/") {
			// Claims files that read the reference data beside the
			// checkout (../shared) need more than the shipped files.
			b, err := os.ReadFile(w)
			if err != nil || strings.Contains(string(b), "shared/anchors") {
				return false
			}
			shipped = true
		}
	}
	if shipped {
		return true
	}
	return selfContained[strings.Join(words, " ")]
}

// TestRunnableExamples runs every --help example that needs no file of the
// user's (on the demo study, the shipped examples/, or self-contained) in a
// fresh temporary folder and wants exit status 0; every command must have
// one (but those in noRunnableExample). The
// other examples name the user's files and are parsed by TestHelpExamples.
func TestRunnableExamples(t *testing.T) {
	if testing.Short() {
		t.Skip("skipping in -short mode: runs every runnable --help example")
	}
	// The shipped examples/ folder (claims files) is visible as examples/.
	examples, err := filepath.Abs(filepath.Join("..", "..", "..", "..", "examples"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := os.Symlink(examples, filepath.Join(dir, "examples")); err != nil {
		t.Fatal(err)
	}
	t.Chdir(dir)
	io, _, _ := iostreams.Test()
	var walk func(c *cobra.Command)
	ran := 0
	walk = func(c *cobra.Command) {
		for _, sub := range c.Commands() {
			if sub.IsAvailableCommand() && sub.Name() != "completion" {
				walk(sub)
			}
		}
		if c.Parent() == nil || c.HasSubCommands() {
			return
		}
		n := 0
		for _, line := range exampleLines(c.Example) {
			if !runnable(line) {
				continue
			}
			n++
			words, _ := shellWords(line)
			tio, out, errOut := iostreams.Test()
			if code := Main(words[1:], tio); code != cmdutil.ExitOK {
				t.Errorf("%s: example %q: exit %d\nstderr:\n%s", c.CommandPath(), line, code, errOut)
				continue
			}
			if out.Len() == 0 && errOut.Len() == 0 {
				t.Errorf("%s: example %q printed nothing", c.CommandPath(), line)
			}
			ran++
		}
		switch {
		case c.Flags().Lookup("demo") != nil && n == 0:
			t.Errorf("%s has --demo but no --help example that uses it", c.CommandPath())
		case n == 0 && !noRunnableExample[c.CommandPath()]:
			t.Errorf("%s: no --help example runs without the user's files (use --demo, examples/ or add it to selfContained)", c.CommandPath())
		}
	}
	walk(NewRoot(io, "test", nil))
	if ran < len(selfContained) {
		t.Errorf("ran %d examples, want at least %d", ran, len(selfContained))
	}
	t.Logf("ran %d --help examples", ran)
}
