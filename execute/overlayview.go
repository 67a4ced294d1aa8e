package execute

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
)

// workTree is a finished run's work tree as the driver reads it: metric
// files (json_file, csv_file) and keep globs. A checkout-mode run has an
// ordinary folder (dirTree); an overlay-mode run has the base tree and the
// run's upper folder, read as the kernel's overlayfs merged them
// (mergedTree).
type workTree interface {
	// open opens the file at the slash-separated path rel without blocking
	// (O_NONBLOCK: a FIFO opens at once) and refuses a symbolic link as its
	// last element; folders on the way may be links that stay inside the
	// tree. Callers check with fstat that it is a regular file.
	open(rel string) (*os.File, error)
	// keepMatches returns the regular files (not symbolic links) matching
	// the slash-separated glob, as (rel, host path) pairs.
	keepMatches(glob string) [][2]string
}

// dirTree is a work tree that is an ordinary folder.
type dirTree string

func (d dirTree) open(rel string) (*os.File, error) {
	root, err := os.OpenRoot(string(d))
	if err != nil {
		return nil, err
	}
	defer root.Close()
	name := filepath.FromSlash(rel)
	if fi, err := root.Lstat(name); err == nil && fi.Mode()&fs.ModeSymlink != 0 {
		return nil, fmt.Errorf("%s: a symbolic link (not followed)", rel)
	}
	f, err := root.OpenFile(name, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", rel, errors.Unwrap(err))
	}
	return f, nil
}

func (d dirTree) keepMatches(glob string) [][2]string {
	work := string(d)
	var out [][2]string
	matches, _ := filepath.Glob(filepath.Join(work, filepath.FromSlash(glob)))
	for _, m := range matches {
		rel, err := filepath.Rel(work, m)
		if err != nil || strings.HasPrefix(rel, "..") {
			continue
		}
		fi, err := os.Lstat(m)
		if err != nil || !fi.Mode().IsRegular() {
			continue
		}
		// A glob may pass through a symlinked folder: keep only files
		// that really are inside the work tree.
		if real, err := filepath.EvalSymlinks(m); err != nil || !strings.HasPrefix(real, work+string(filepath.Separator)) {
			continue
		}
		out = append(out, [2]string{filepath.ToSlash(rel), m})
	}
	return out
}

// mergedTree reads an overlayfs work tree from outside the mount, after the
// run: Upper is the run's upper folder, Lower the base tree. The rules are
// overlayfs's (Documentation/filesystems/overlayfs.rst):
//
//   - a name in Upper hides the same name in Lower, except that two folders
//     merge;
//   - a whiteout in Upper (a character device 0/0, which the kernel makes
//     when the run deletes a Lower entry) means the name is gone;
//   - an opaque folder in Upper (xattr trusted.overlay.opaque or
//     user.overlay.opaque = "y", made when the run removes a Lower folder
//     and makes one of the same name) hides the Lower folder's entries.
//
// Symbolic links are followed as os.Root follows them: relative targets
// only, never above the tree's root, at most maxLinkHops of them.
type mergedTree struct{ Upper, Lower string }

// maxLinkHops is the most symbolic links one lookup follows (as Linux's
// MAXSYMLINKS).
const maxLinkHops = 40

// mergedDir is a folder of the merged view: its Upper and Lower folders on
// the host ("" where that layer has none, or hides it).
type mergedDir struct{ upper, lower string }

// isWhiteout reports whether fi is an overlayfs whiteout.
func isWhiteout(fi fs.FileInfo) bool {
	if fi.Mode()&fs.ModeCharDevice == 0 {
		return false
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	return ok && st.Rdev == 0
}

// isOpaque reports whether the Upper folder p hides its Lower folder.
func isOpaque(p string) bool {
	buf := make([]byte, 8)
	for _, name := range []string{"trusted.overlay.opaque", "user.overlay.opaque"} {
		if n, err := getxattr(p, name, buf); err == nil && n == 1 && buf[0] == 'y' {
			return true
		}
	}
	return false
}

// entry looks up name in the merged folder d: the host path of the entry
// that wins, its Lstat, and, for a folder, the merged folder it is.
func (d mergedDir) entry(name string) (host string, fi fs.FileInfo, sub mergedDir, err error) {
	if d.upper != "" {
		p := filepath.Join(d.upper, name)
		fi, err := os.Lstat(p)
		switch {
		case err == nil && isWhiteout(fi):
			return "", nil, mergedDir{}, syscall.ENOENT
		case err == nil && fi.IsDir():
			sub := mergedDir{upper: p}
			if d.lower != "" && !isOpaque(p) {
				if lfi, err := os.Lstat(filepath.Join(d.lower, name)); err == nil && lfi.IsDir() {
					sub.lower = filepath.Join(d.lower, name)
				}
			}
			return p, fi, sub, nil
		case err == nil:
			return p, fi, mergedDir{}, nil
		case !errors.Is(err, fs.ErrNotExist):
			return "", nil, mergedDir{}, err
		}
	}
	if d.lower == "" {
		return "", nil, mergedDir{}, syscall.ENOENT
	}
	p := filepath.Join(d.lower, name)
	fi, err = os.Lstat(p)
	if err != nil {
		return "", nil, mergedDir{}, err
	}
	if fi.IsDir() {
		return p, fi, mergedDir{lower: p}, nil
	}
	return p, fi, mergedDir{}, nil
}

// lookup resolves the slash-separated path rel in the merged view and
// returns the host path and Lstat of the entry it names. Symbolic links
// in the middle of rel are always followed, the last one only when
// followLast is set.
func (m mergedTree) lookup(rel string, followLast bool) (string, fs.FileInfo, error) {
	host, fi, _, err := m.resolve(rel, followLast)
	return host, fi, err
}

// resolve is lookup that also returns, for a folder, its layers.
func (m mergedTree) resolve(rel string, followLast bool) (string, fs.FileInfo, mergedDir, error) {
	fail := func(err error) (string, fs.FileInfo, mergedDir, error) {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err // host paths stay out of metric errors
		}
		return "", nil, mergedDir{}, &fs.PathError{Op: "lookup", Path: rel, Err: err}
	}
	stack := []mergedDir{{upper: m.Upper, lower: m.Lower}}
	rootFI, err := os.Lstat(m.Upper)
	if err != nil {
		return fail(err)
	}
	host, fi, dir := m.Upper, rootFI, stack[0]
	todo := strings.Split(rel, "/")
	hops := 0
	for len(todo) > 0 {
		name := todo[0]
		todo = todo[1:]
		last := len(todo) == 0
		switch name {
		case "", ".":
			if last {
				dir = stack[len(stack)-1]
				host = dir.upper
				if host == "" {
					host = dir.lower
				}
				if fi, err = os.Lstat(host); err != nil {
					return fail(err)
				}
			}
			continue
		case "..":
			if len(stack) == 1 {
				return fail(errors.New("path escapes from the work tree"))
			}
			stack = stack[:len(stack)-1]
			if last {
				todo = []string{"."}
			}
			continue
		}
		cur := stack[len(stack)-1]
		h, efi, sub, err := cur.entry(name)
		if err != nil {
			return fail(err)
		}
		if efi.Mode()&fs.ModeSymlink != 0 && (!last || followLast) {
			if hops++; hops > maxLinkHops {
				return fail(syscall.ELOOP)
			}
			target, err := os.Readlink(h)
			if err != nil {
				return fail(err)
			}
			if strings.HasPrefix(target, "/") {
				return fail(errors.New("symbolic link to an absolute path"))
			}
			todo = append(strings.Split(target, "/"), todo...)
			continue
		}
		if last {
			host, fi, dir = h, efi, sub
			break
		}
		if !efi.IsDir() {
			return fail(syscall.ENOTDIR)
		}
		stack = append(stack, sub)
	}
	return host, fi, dir, nil
}

// readDir returns the names in the merged folder rel (symbolic links
// followed), sorted.
func (m mergedTree) readDir(rel string) ([]string, error) {
	_, fi, d, err := m.resolve(rel, true)
	if err != nil {
		return nil, err
	}
	if !fi.IsDir() {
		return nil, &fs.PathError{Op: "readdir", Path: rel, Err: syscall.ENOTDIR}
	}
	seen := map[string]bool{}
	var names []string
	if d.upper != "" {
		ents, err := os.ReadDir(d.upper)
		if err != nil {
			return nil, err
		}
		for _, e := range ents {
			seen[e.Name()] = true
			if e.Type()&fs.ModeCharDevice != 0 {
				if fi, err := e.Info(); err == nil && isWhiteout(fi) {
					continue
				}
			}
			names = append(names, e.Name())
		}
	}
	if d.lower != "" {
		ents, err := os.ReadDir(d.lower)
		if err != nil {
			return nil, err
		}
		for _, e := range ents {
			if !seen[e.Name()] {
				names = append(names, e.Name())
			}
		}
	}
	sort.Strings(names)
	return names, nil
}

func (m mergedTree) open(rel string) (*os.File, error) {
	host, fi, err := m.lookup(rel, false)
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			return nil, fmt.Errorf("%s: %w", rel, pe.Err)
		}
		return nil, err
	}
	if fi.Mode()&fs.ModeSymlink != 0 {
		return nil, fmt.Errorf("%s: a symbolic link (not followed)", rel)
	}
	return os.OpenFile(host, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
}

// hasMeta reports whether a glob element has any of filepath.Match's
// special characters.
func hasMeta(s string) bool { return strings.ContainsAny(s, `*?[\`) }

// keepMatches expands glob element by element as filepath.Glob does
// (folders named by a pattern are read, links to folders followed), and
// keeps the matches that are regular files, not links.
func (m mergedTree) keepMatches(glob string) [][2]string {
	prefixes := []string{""}
	elems := strings.Split(path.Clean(glob), "/")
	for _, el := range elems {
		if el == ".." || el == "." || el == "" {
			return nil
		}
		var next []string
		for _, pre := range prefixes {
			if !hasMeta(el) {
				next = append(next, path.Join(pre, el))
				continue
			}
			if _, err := path.Match(el, ""); err != nil {
				return nil
			}
			dir := pre
			if dir == "" {
				dir = "."
			}
			names, err := m.readDir(dir)
			if err != nil {
				continue
			}
			for _, n := range names {
				if ok, _ := path.Match(el, n); ok {
					next = append(next, path.Join(pre, n))
				}
			}
		}
		prefixes = next
	}
	var out [][2]string
	for _, rel := range prefixes {
		host, fi, err := m.lookup(rel, false)
		if err == nil && fi.Mode().IsRegular() {
			out = append(out, [2]string{rel, host})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i][0] < out[j][0] })
	return out
}
