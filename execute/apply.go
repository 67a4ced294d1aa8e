package execute

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"strings"
	"time"

	"github.com/bluekeyes/go-gitdiff/gitdiff"
)

// Apply methods recorded in result.json.
const (
	ApplyGo       = "go-gitdiff"
	ApplyGit3Way  = "git-apply-3way"
	ApplyPatchCLI = "patch"
	ApplyNone     = ""
)

// ApplyError reports a patch that no step of the cascade applied.
type ApplyError struct {
	// File is the file the first step (go-gitdiff) failed on; "" if unknown.
	File string
	// Msg says why each step failed.
	Msg string
}

func (e *ApplyError) Error() string {
	if e.File != "" {
		return "apply: " + printablePath(e.File) + ": " + e.Msg
	}
	return "apply: " + e.Msg
}

// applyCascade applies a vetted patch to the tree in dir: first in Go with
// go-gitdiff (all or nothing), then, when the git CLI exists, with
// git apply --3way and patch -p1 --forward --fuzz=3. reset restores dir to
// the pristine checkout between steps. It returns the step that applied
// the patch.
func applyCascade(ctx context.Context, dir string, data []byte, p *Patch, scratch string, reset func() error) (string, error) {
	goErr := applyGo(dir, data, p)
	if goErr == nil {
		return ApplyGo, nil
	}
	ae := &ApplyError{Msg: "go-gitdiff: " + goErr.Error()}
	var pe *PatchError
	if errors.As(goErr, &pe) {
		ae.File = pe.File
		ae.Msg = "go-gitdiff: " + pe.Msg
	}
	if _, err := exec.LookPath("git"); err != nil {
		ae.Msg += "; git not installed, no fallback"
		return ApplyNone, ae
	}
	// applyGo writes nothing unless every file applies, but a write can
	// still fail half-way: start the fallbacks from a pristine tree.
	if err := reset(); err != nil {
		return ApplyNone, err
	}
	// The fallbacks read the patch their own way (GNU patch takes context
	// diffs, ed scripts and sections go-gitdiff skips as garbage): they get
	// only what vetting parsed, written anew from go-gitdiff's files.
	vetted, err := vettedPatch(data, p)
	if err != nil {
		ae.Msg += "; not given to git apply or patch: " + err.Error()
		return ApplyNone, ae
	}
	patchFile := filepath.Join(scratch, "apply.diff")
	if err := os.WriteFile(patchFile, vetted, 0o600); err != nil {
		return ApplyNone, err
	}
	defer os.Remove(patchFile)

	// git apply --3way needs an index: a throwaway git dir outside the work
	// tree, so the experiment never sees a .git.
	gitDir := filepath.Join(scratch, "apply.git")
	defer os.RemoveAll(gitDir)
	git := func(args ...string) ([]byte, error) {
		c := exec.CommandContext(ctx, "git", append([]string{"--git-dir=" + gitDir, "--work-tree=."}, args...)...)
		c.Dir = dir
		c.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null",
			"GIT_AUTHOR_NAME=rdeval", "GIT_AUTHOR_EMAIL=rdeval@localhost",
			"GIT_COMMITTER_NAME=rdeval", "GIT_COMMITTER_EMAIL=rdeval@localhost")
		c.WaitDelay = 5 * time.Second
		return c.CombinedOutput()
	}
	var out []byte
	if out, err = git("init", "-q"); err == nil {
		if out, err = git("add", "-A"); err == nil {
			out, err = git("apply", "--3way", "--whitespace=nowarn", patchFile)
			if err == nil {
				return ApplyGit3Way, nil
			}
		}
	}
	ae.Msg += "; git apply --3way: " + firstLine(out, err)
	if rerr := reset(); rerr != nil {
		return ApplyNone, rerr
	}
	if _, lerr := exec.LookPath("patch"); lerr != nil {
		ae.Msg += "; patch not installed"
		return ApplyNone, ae
	}
	c := exec.CommandContext(ctx, "patch", "-p1", "--forward", "--fuzz=3", "--batch",
		"--no-backup-if-mismatch", "--reject-file=-", "-i", patchFile)
	c.Dir = dir
	c.WaitDelay = 5 * time.Second
	out, err = c.CombinedOutput()
	if err == nil {
		return ApplyPatchCLI, nil
	}
	ae.Msg += "; patch -p1: " + firstLine(out, err)
	if rerr := reset(); rerr != nil {
		return ApplyNone, rerr
	}
	return ApplyNone, ae
}

func firstLine(out []byte, err error) string {
	s := strings.TrimSpace(string(out))
	lines := strings.Split(s, "\n")
	for _, l := range lines {
		if l = strings.TrimSpace(l); strings.HasPrefix(l, "error:") || strings.Contains(l, "FAILED") {
			return l
		}
	}
	if s == "" {
		return err.Error()
	}
	return lines[0]
}

// applyGo applies the patch with go-gitdiff. It computes every new file in
// memory first and writes only when all files apply, so a failure leaves
// dir untouched. Paths come from ParsePatch's vetted FileChanges and all
// file access goes through an os.Root, so nothing is written outside dir.
func applyGo(dir string, data []byte, p *Patch) error {
	root, err := os.OpenRoot(dir)
	if err != nil {
		return err
	}
	defer root.Close()
	order, final, err := planGo(data, p, rootReader(root))
	if err != nil {
		return err
	}
	// Deletions first, so that a rename onto a deleted path works.
	for _, p := range order {
		if st := final[p]; !st.exists {
			if err := root.Remove(filepath.FromSlash(p)); err != nil && !errors.Is(err, fs.ErrNotExist) {
				return &PatchError{File: p, Msg: err.Error()}
			}
		}
	}
	return writeFiles(root, order, final)
}

// fileState is a file as the patch leaves it.
type fileState struct {
	data   []byte
	mode   fs.FileMode
	exists bool
}

// rootReader reads the regular file p (slash-separated) of root: absent
// files give a state with exists false, other kinds of files an error.
func rootReader(root *os.Root) func(p string) (*fileState, error) {
	return func(p string) (*fileState, error) {
		fi, err := root.Lstat(filepath.FromSlash(p))
		if errors.Is(err, fs.ErrNotExist) {
			return &fileState{}, nil
		}
		if err != nil {
			return nil, err
		}
		if !fi.Mode().IsRegular() {
			return nil, errors.New("not a regular file")
		}
		b, err := root.ReadFile(filepath.FromSlash(p))
		if err != nil {
			return nil, err
		}
		return &fileState{data: b, mode: fi.Mode().Perm(), exists: true}, nil
	}
}

// writeFiles writes the files of final that exist, in order, creating
// their folders (mode 0755).
func writeFiles(root *os.Root, order []string, final map[string]*fileState) error {
	for _, p := range order {
		st := final[p]
		if !st.exists {
			continue
		}
		name := filepath.FromSlash(p)
		if d := path.Dir(p); d != "." {
			if err := root.MkdirAll(filepath.FromSlash(d), 0o755); err != nil {
				return &PatchError{File: p, Msg: err.Error()}
			}
		}
		if err := root.WriteFile(name, st.data, st.mode); err != nil {
			return &PatchError{File: p, Msg: err.Error()}
		}
		if err := root.Chmod(name, st.mode); err != nil {
			return &PatchError{File: p, Msg: err.Error()}
		}
	}
	return nil
}

// planGo computes with go-gitdiff what the patch makes of every file it
// touches, reading the pristine files with read. It returns the touched
// paths in patch order and their final states (exists false: deleted).
func planGo(data []byte, p *Patch, read0 func(p string) (*fileState, error)) ([]string, map[string]*fileState, error) {
	data = bytes.TrimPrefix(data, []byte("\ufeff"))
	data = bytes.ReplaceAll(data, []byte("\r\n"), []byte("\n"))
	files, _, err := gitdiff.Parse(bytes.NewReader(data))
	if err != nil {
		return nil, nil, &PatchError{Msg: err.Error()}
	}
	if len(files) != len(p.Files) {
		return nil, nil, &PatchError{Msg: "patch parsed differently from vetting"}
	}
	overlay := map[string]*fileState{}
	read := func(p string) (*fileState, error) {
		if st, ok := overlay[p]; ok {
			return st, nil
		}
		return read0(p)
	}
	var order []string
	set := func(p string, st *fileState) {
		if _, ok := overlay[p]; !ok {
			order = append(order, p)
		}
		overlay[p] = st
	}
	for i, f := range files {
		fc := p.Files[i]
		fail := func(msg string) error { return &PatchError{File: fc.Path, Msg: msg} }
		src := fc.Path
		if fc.OldPath != "" {
			src = fc.OldPath
		}
		old, err := read(src)
		if err != nil {
			return nil, nil, fail(err.Error())
		}
		switch {
		case fc.Op == "A" && old.exists:
			return nil, nil, fail("file to create already exists")
		case fc.Op != "A" && !old.exists:
			return nil, nil, fail("file to patch does not exist")
		}
		if (fc.Op == "R" || fc.Op == "C") && fc.Path != fc.OldPath {
			if dst, err := read(fc.Path); err != nil || dst.exists {
				return nil, nil, fail("rename or copy target already exists")
			}
		}
		for _, frag := range f.TextFragments {
			// go-gitdiff v0.9.0 puts a pure insertion without context
			// (git diff -U0: "@@ -N,0 +M,k @@") one line early, without an
			// error (bluekeyes/go-gitdiff PR #81). Leave such patches to the
			// git apply / patch steps of the cascade.
			if frag.OldLines == 0 && frag.LeadingContext == 0 && frag.OldPosition > 0 && fc.Op != "A" {
				return nil, nil, fail("zero-context insertion, which go-gitdiff misplaces; left to git apply")
			}
		}
		var buf bytes.Buffer
		if err := gitdiff.Apply(&buf, bytes.NewReader(old.data), f); err != nil {
			return nil, nil, fail(strings.TrimPrefix(err.Error(), "gitdiff: "))
		}
		mode := old.mode
		if fc.Op == "A" {
			mode = 0o644
		}
		if m := fc.NewMode; m != 0 {
			mode = 0o644
			if m&0o111 != 0 {
				mode = 0o755
			}
		}
		switch fc.Op {
		case "D":
			if buf.Len() != 0 {
				return nil, nil, fail("deletion does not match the file's content")
			}
			set(fc.Path, &fileState{})
		case "R":
			set(fc.OldPath, &fileState{})
			set(fc.Path, &fileState{data: buf.Bytes(), mode: mode, exists: true})
		default:
			set(fc.Path, &fileState{data: buf.Bytes(), mode: mode, exists: true})
		}
	}
	return order, overlay, nil
}

// vettedPatch is the patch as vetting parsed it, written anew file by file
// by go-gitdiff (git's format): nothing that vetting did not see reaches
// an applier.
func vettedPatch(data []byte, p *Patch) ([]byte, error) {
	files, _, err := gitdiff.Parse(bytes.NewReader(bytes.TrimPrefix(data, []byte("\ufeff"))))
	if err != nil {
		return nil, err
	}
	if len(files) != len(p.Files) {
		return nil, errors.New("the patch parses differently from vetting")
	}
	var b bytes.Buffer
	for i, f := range files {
		if got, want := filePath(f), p.Files[i].Path; got != want {
			return nil, fmt.Errorf("file %d is %q here and %q to vetting", i+1, got, want)
		}
		b.WriteString(f.String())
	}
	return b.Bytes(), nil
}

// filePath is the path a go-gitdiff file leaves: its new name, or its old
// one when deleted.
func filePath(f *gitdiff.File) string {
	if f.IsDelete {
		return f.OldName
	}
	return f.NewName
}
