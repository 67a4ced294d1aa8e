//go:build linux

package execute

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"syscall"
	"testing"
)

// layers builds a lower and an upper folder by hand: files map a
// slash path to content, "->T" makes a symbolic link to T, "WH" a whiteout
// (upper only), "DIR" a folder, "OPAQUE" an opaque folder (upper only).
func layers(t *testing.T, lower, upper map[string]string) mergedTree {
	t.Helper()
	dir := t.TempDir()
	m := mergedTree{Upper: filepath.Join(dir, "upper"), Lower: filepath.Join(dir, "lower")}
	for root, files := range map[string]map[string]string{m.Lower: lower, m.Upper: upper} {
		if err := os.MkdirAll(root, 0o755); err != nil {
			t.Fatal(err)
		}
		for rel, v := range files {
			p := filepath.Join(root, filepath.FromSlash(rel))
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
			var err error
			switch {
			case v == "WH":
				err = syscall.Mknod(p, syscall.S_IFCHR, 0)
				if err != nil {
					t.Skipf("cannot make a whiteout here (%v): Linux 5.8 lets any user", err)
				}
			case v == "DIR":
				err = os.MkdirAll(p, 0o755)
			case v == "OPAQUE":
				if err = os.MkdirAll(p, 0o755); err == nil {
					// trusted.* needs root; user.* is what userxattr mounts use.
					if err = syscall.Setxattr(p, "trusted.overlay.opaque", []byte("y"), 0); err != nil {
						err = syscall.Setxattr(p, "user.overlay.opaque", []byte("y"), 0)
					}
					if err != nil {
						t.Skipf("cannot set an opaque xattr here: %v", err)
					}
				}
			case strings.HasPrefix(v, "->"):
				err = os.Symlink(v[2:], p)
			default:
				err = os.WriteFile(p, []byte(v), 0o644)
			}
			if err != nil {
				t.Fatal(err)
			}
		}
	}
	return m
}

func readMerged(m mergedTree, rel string) (string, error) {
	f, err := m.open(rel)
	if err != nil {
		return "", err
	}
	defer f.Close()
	b, err := io.ReadAll(f)
	return string(b), err
}

func TestMergedTreeRules(t *testing.T) {
	m := layers(t, map[string]string{
		"a.txt":          "lower a",
		"b.txt":          "lower b",
		"keep/x.txt":     "lower x",
		"keep/y.txt":     "lower y",
		"gone/z.txt":     "lower z",
		"opq/old.txt":    "lower old",
		"lnk":            "->keep",
		"up":             "->../outside",
		"abs":            "->/etc/passwd",
		"loop":           "->loop",
		"sub/back":       "->../a.txt",
		"sub/deep/f.txt": "lower f",
	}, map[string]string{
		"a.txt":       "upper a",
		"b.txt":       "WH",
		"keep/y.txt":  "WH",
		"keep/n.txt":  "upper n",
		"gone":        "WH",
		"opq":         "OPAQUE",
		"opq/new.txt": "upper new",
		"out/m.json":  `{"v": 1}`,
	})
	for rel, want := range map[string]string{
		"a.txt":          "upper a", // upper wins
		"keep/x.txt":     "lower x", // folders merge
		"keep/n.txt":     "upper n",
		"opq/new.txt":    "upper new",
		"lnk/x.txt":      "lower x", // links followed inside the tree
		"lnk/n.txt":      "upper n",
		"sub/../a.txt":   "upper a",
		"out/m.json":     `{"v": 1}`,
		"sub/deep/f.txt": "lower f",
	} {
		got, err := readMerged(m, rel)
		if err != nil || got != want {
			t.Errorf("%s: %q, %v; want %q", rel, got, err, want)
		}
	}
	for rel, why := range map[string]string{
		"b.txt":       "no such file",                   // whiteout
		"keep/y.txt":  "no such file",                   // whiteout in a merged folder
		"gone/z.txt":  "no such file",                   // whited-out folder
		"opq/old.txt": "no such file",                   // opaque folder
		"sub/back":    "a symbolic link (not followed)", // metric files are never links
		"up":          "a symbolic link (not followed)",
		"up/x":        "escapes",       // .. above the root
		"../x":        "escapes",       //
		"abs/x":       "absolute path", // never leaves the tree
		"loop/x":      "too many levels",
		"a.txt/x":     "not a directory",
	} {
		if _, err := readMerged(m, rel); err == nil || !strings.Contains(err.Error(), why) {
			t.Errorf("%s: err %v, want %q", rel, err, why)
		}
	}
	if _, err := readMerged(m, "b.txt"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("whiteout: %v is not ErrNotExist", err)
	}
	for rel, want := range map[string][]string{
		".":    {"a.txt", "abs", "keep", "lnk", "loop", "opq", "out", "sub", "up"},
		"keep": {"n.txt", "x.txt"},
		"lnk":  {"n.txt", "x.txt"},
		"opq":  {"new.txt"},
	} {
		got, err := m.readDir(rel)
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("readDir %s: %v, %v; want %v", rel, got, err, want)
		}
	}
	rels := func(ms [][2]string) []string {
		var out []string
		for _, x := range ms {
			out = append(out, x[0])
		}
		return out
	}
	for glob, want := range map[string][]string{
		"*.txt":      {"a.txt"},
		"keep/*":     {"keep/n.txt", "keep/x.txt"},
		"*/*.txt":    {"keep/n.txt", "keep/x.txt", "lnk/n.txt", "lnk/x.txt", "opq/new.txt"},
		"out/m.json": {"out/m.json"},
		"lnk":        nil, // a link, not a regular file
		"b.txt":      nil,
		"../*":       nil,
		"sub/back":   nil,
	} {
		if got := rels(m.keepMatches(glob)); !reflect.DeepEqual(got, want) {
			t.Errorf("keepMatches %s: %v, want %v", glob, got, want)
		}
	}
	// Host paths point into the layer that won.
	for _, x := range m.keepMatches("keep/*") {
		wantLayer := m.Lower
		if x[0] == "keep/n.txt" {
			wantLayer = m.Upper
		}
		if !strings.HasPrefix(x[1], wantLayer+string(filepath.Separator)) {
			t.Errorf("%s read from %s", x[0], x[1])
		}
	}
}

// TestMergedTreeUpperFileOverLowerFolder: a file in upper replaces a
// folder of lower (the run removed the folder and wrote a file).
func TestMergedTreeUpperFileOverLowerFolder(t *testing.T) {
	m := layers(t, map[string]string{"d/f.txt": "lower"}, map[string]string{"d": "a file now"})
	if got, err := readMerged(m, "d"); err != nil || got != "a file now" {
		t.Fatalf("%q %v", got, err)
	}
	if _, err := readMerged(m, "d/f.txt"); err == nil {
		t.Fatal("lower file visible under an upper file")
	}
}
