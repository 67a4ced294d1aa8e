package execute

import (
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/go-git/go-billy/v5/osfs"
	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/cache"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/plumbing/storer"
	"github.com/go-git/go-git/v5/storage/filesystem"
)

// ErrUnknownRev is wrapped by the *CheckoutError that Checkout and
// ResolveCommit return when a rev names no commit in the repository.
var ErrUnknownRev = errors.New("unknown revision")

// Limits on what a task repository may hold.
const (
	// maxTreeDepth is the deepest folder nesting Checkout writes; go-git's
	// own tree walker stops at the same depth.
	maxTreeDepth = 1024
	// maxLinkTarget is the longest symbolic link target Checkout writes, in
	// bytes (PATH_MAX on Linux).
	maxLinkTarget = 4096
	// maxTagChain is the most annotated tags Checkout peels through to reach
	// a commit.
	maxTagChain = 16
	// minAbbrev is the shortest abbreviated commit id accepted, as in git.
	minAbbrev = 4
	// refsListed is how many branches and how many tags an unknown-rev
	// error lists.
	refsListed = 5
)

// CheckoutError reports a checkout or a resolution that cannot be done: a
// repository that cannot be opened, a rev that names no commit, a
// destination that is not an empty folder, or a tree entry that is unsafe
// to write or cannot be read.
type CheckoutError struct {
	// Repo is the repository folder as given.
	Repo string
	// Rev is the revision as given.
	Rev string
	// Path is the tree path at fault, slash-separated and relative to the
	// repository root; "" when the fault is not in one path.
	Path string
	// Msg says what is wrong.
	Msg string
	// Err is the underlying error, if any: ErrUnknownRev for a rev that
	// names no commit, a go-git or file system error otherwise.
	Err error
}

// Error returns "checkout: repo <repo>, rev <rev>: <path>: <msg>: <err>",
// leaving out the path and the underlying error when they are empty. Names
// with control characters or invalid UTF-8 are quoted.
func (e *CheckoutError) Error() string {
	var b strings.Builder
	b.WriteString("checkout: repo ")
	b.WriteString(printablePath(e.Repo))
	b.WriteString(", rev ")
	b.WriteString(printablePath(e.Rev))
	b.WriteString(": ")
	if e.Path != "" {
		b.WriteString(printablePath(e.Path))
		b.WriteString(": ")
	}
	b.WriteString(e.Msg)
	if e.Err != nil && !errors.Is(e.Err, ErrUnknownRev) {
		b.WriteString(": ")
		b.WriteString(e.Err.Error())
	}
	return b.String()
}

// Unwrap returns the underlying error.
func (e *CheckoutError) Unwrap() error { return e.Err }

// ResolveCommit returns the full id of the commit that rev names in the git
// repository at repoDir (a work tree with its .git, or a bare repository
// such as a local mirror), for recording base commits in manifests. It only
// reads the repository and never uses the network.
//
// rev is resolved as git rev-parse resolves it, for the forms task specs
// use:
//
//   - a full commit id (40 hex digits, either case) is taken as an object id;
//   - otherwise a ref wins, looked up as git does: rev itself (HEAD and
//     refs/... names), refs/<rev>, refs/tags/<rev>, refs/heads/<rev>,
//     refs/remotes/<rev> and refs/remotes/<rev>/HEAD, in that order;
//   - otherwise rev of at least 4 hex digits is an abbreviated object id,
//     which must name exactly one commit or tag (a prefix shared by several
//     is an error, as in git);
//   - otherwise a rev with ~, ^, @ or a colon (such as main~1) is left to
//     go-git's Repository.ResolveRevision.
//
// Annotated tags, also tags of tags, are peeled to the commit they tag; a
// rev naming a tree or a blob is an error. Any error is a *CheckoutError; it
// wraps ErrUnknownRev when rev names nothing, and then lists a few branches
// and tags the repository has.
func ResolveCommit(repoDir, rev string) (string, error) {
	repo, err := openRepo(repoDir, rev)
	if err != nil {
		return "", err
	}
	defer closeRepo(repo)
	c, err := resolveCommit(repo, repoDir, rev)
	if err != nil {
		return "", err
	}
	return c.Hash.String(), nil
}

// Checkout writes the tree of rev in the git repository at repoDir into
// dst, which must not exist or be an empty folder, and returns the full
// commit id rev resolved to. It never touches repoDir's work tree, index or
// refs, and never uses the network.
//
// repoDir and rev are read as ResolveCommit reads them. When dst does not
// exist its parent folder must, and dst is created with mode 0755; an
// existing empty dst keeps its mode.
//
// The tree is written as it is stored, as git archive would export it
// without attributes: no line-ending conversion, no filters (Git LFS files
// stay pointer files), no export-ignore, and no .git folder. Folders get
// mode 0755, regular files 0644 and executable files 0755, whatever the
// umask. A symbolic link is created only when its target, read relative to
// the link's folder, stays inside dst: it must be relative, may start with
// ".." elements (no more than the link's folder is deep) but have none after
// another element, and may not name .git; any other link is an error naming
// its path, even a harmless one such as "sub/../x", since "sub" might itself
// be a link. A submodule (a gitlink, mode 160000) becomes an empty folder and
// nothing else is recorded about it: its commit lives in another
// repository, which Checkout does not fetch.
//
// Every tree path is vetted as ParsePatch vets patch paths: an entry name
// that is empty, ".", "..", holds a slash, names .git in any spelling a file
// system may read as .git, or contains NUL, another control character or a
// backslash is an error, as are two entries with the same name in one tree
// and a tree nested deeper than 1024 folders. Entry modes are read as git
// reads them (go-git canonicalises them on decoding): any regular file with
// an executable bit is executable, setuid, setgid and sticky bits are
// dropped, and an entry of unknown type is a submodule. All writes go through an os.Root opened on dst; files are created
// with O_CREATE|O_EXCL, so nothing is ever overwritten, and symbolic links
// are created last, after every file and folder, so no write follows one.
//
// On any error Checkout removes whatever it wrote, leaving dst as it was:
// absent or empty. errors.As finds a *CheckoutError in any error it returns
// (joined with the removal's error when that fails too).
func Checkout(repoDir, rev, dst string) (commit string, err error) {
	repo, err := openRepo(repoDir, rev)
	if err != nil {
		return "", err
	}
	defer closeRepo(repo)
	c, err := resolveCommit(repo, repoDir, rev)
	if err != nil {
		return "", err
	}
	fail := func(p, msg string, err error) error {
		return &CheckoutError{Repo: repoDir, Rev: rev, Path: p, Msg: msg, Err: err}
	}
	tree, err := c.Tree()
	if err != nil {
		return "", fail("", "read tree of commit "+c.Hash.String(), err)
	}

	created, err := prepareDst(dst)
	if err != nil {
		return "", fail("", err.Error(), nil)
	}
	root, err := os.OpenRoot(dst)
	if err != nil {
		if created {
			err = errors.Join(err, os.Remove(dst))
		}
		return "", fail("", "open destination", err)
	}

	w := &treeWriter{repo: repo, root: root, fail: fail}
	err = w.writeTree(tree, "", 0)
	if err == nil {
		err = w.writeLinks()
	}
	if err != nil {
		if cerr := cleanDst(dst, root, created); cerr != nil {
			err = errors.Join(err, fmt.Errorf("checkout: clean %s after failure: %w", dst, cerr))
		}
		root.Close()
		return "", err
	}
	if err := root.Close(); err != nil {
		return "", fail("", "close destination", err)
	}
	return c.Hash.String(), nil
}

// openRepo opens the repository at repoDir without looking in parent
// folders. EnableDotGitCommonDir lets it read linked work trees (git
// worktree add) too.
//
// A plain repository (a .git folder, not a linked work tree) is opened with
// go-git's KeepDescriptors, so that reading its objects does not reopen the
// packfile for every blob (on a 10,000-file tree that was half of
// Checkout's time); closeRepo closes the descriptors.
func openRepo(repoDir, rev string) (*git.Repository, error) {
	gitDir := filepath.Join(repoDir, ".git")
	if fi, err := os.Stat(gitDir); err == nil && fi.IsDir() {
		if _, err := os.Stat(filepath.Join(gitDir, "commondir")); errors.Is(err, fs.ErrNotExist) {
			st := filesystem.NewStorageWithOptions(osfs.New(gitDir), cache.NewObjectLRUDefault(), filesystem.Options{KeepDescriptors: true})
			repo, err := git.Open(st, osfs.New(repoDir))
			if err == nil {
				return repo, nil
			}
			st.Close()
		}
	}
	repo, err := git.PlainOpenWithOptions(repoDir, &git.PlainOpenOptions{
		DetectDotGit:          false,
		EnableDotGitCommonDir: true,
	})
	if err != nil {
		return nil, &CheckoutError{Repo: repoDir, Rev: rev, Msg: "open git repository", Err: err}
	}
	return repo, nil
}

// closeRepo closes the file descriptors openRepo kept open.
func closeRepo(repo *git.Repository) {
	if st, ok := repo.Storer.(*filesystem.Storage); ok {
		st.Close()
	}
}

// resolveCommit implements ResolveCommit's rules on an open repository.
func resolveCommit(repo *git.Repository, repoDir, rev string) (*object.Commit, error) {
	fail := func(msg string, err error) error {
		return &CheckoutError{Repo: repoDir, Rev: rev, Msg: msg, Err: err}
	}
	if rev == "" {
		return nil, fail("empty rev"+refList(repo), ErrUnknownRev)
	}
	hexRev := isHex(rev)

	if hexRev && len(rev) == 2*len(plumbing.ZeroHash) {
		h := plumbing.NewHash(rev)
		c, err := peelToCommit(repo, h)
		if errors.Is(err, plumbing.ErrObjectNotFound) {
			return nil, fail("no such object"+refList(repo), ErrUnknownRev)
		}
		if err != nil {
			return nil, fail("object "+h.String(), err)
		}
		return c, nil
	}

	if ref := lookupRef(repo, rev); ref != nil {
		c, err := peelToCommit(repo, ref.Hash())
		if err != nil {
			return nil, fail("ref "+ref.Name().String(), err)
		}
		return c, nil
	}

	if hexRev && len(rev) >= minAbbrev {
		cands, err := abbrevCandidates(repo, strings.ToLower(rev))
		if err != nil {
			return nil, fail("look up abbreviated id", err)
		}
		var commits []*object.Commit
		var ids []string
		for _, h := range cands {
			if c, err := peelToCommit(repo, h); err == nil {
				commits = append(commits, c)
				ids = append(ids, h.String())
			}
		}
		switch len(commits) {
		case 0:
		case 1:
			return commits[0], nil
		default:
			slices.Sort(ids)
			return nil, fail("ambiguous abbreviated id; candidates: "+strings.Join(ids, ", "), nil)
		}
	}

	if strings.ContainsAny(rev, "~^@:") {
		h, err := repo.ResolveRevision(plumbing.Revision(rev))
		if err == nil {
			c, err := repo.CommitObject(*h)
			if err != nil {
				return nil, fail("commit "+h.String(), err)
			}
			return c, nil
		}
		if !errors.Is(err, plumbing.ErrReferenceNotFound) && !errors.Is(err, plumbing.ErrObjectNotFound) {
			return nil, fail("resolve", err)
		}
	}
	return nil, fail("rev names no commit"+refList(repo), ErrUnknownRev)
}

// isHex reports whether s is made of hex digits only.
func isHex(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F') {
			return false
		}
	}
	return s != ""
}

// lookupRef finds the ref rev names, trying git's rules in git's order, and
// follows symbolic refs such as HEAD. go-git refuses names that would read
// files outside refs/ other than all-capital pseudo-refs; such names and
// broken refs count as missing.
func lookupRef(repo *git.Repository, rev string) *plumbing.Reference {
	for _, rule := range plumbing.RefRevParseRules {
		name := plumbing.ReferenceName(fmt.Sprintf(rule, rev))
		ref, err := storer.ResolveReference(repo.Storer, name)
		if err == nil && ref != nil && ref.Type() == plumbing.HashReference {
			return ref
		}
	}
	return nil
}

// abbrevCandidates returns the ids of all objects whose id starts with the
// lowercase hex prefix.
func abbrevCandidates(repo *git.Repository, prefix string) ([]plumbing.Hash, error) {
	b, err := hex.DecodeString(prefix[:len(prefix)&^1])
	if err != nil {
		return nil, err
	}
	var hashes []plumbing.Hash
	// go-git's file system storage lists ids by prefix from loose object
	// folders and pack indexes without reading the objects.
	type prefixLister interface {
		HashesWithPrefix(prefix []byte) ([]plumbing.Hash, error)
	}
	if pl, ok := repo.Storer.(prefixLister); ok {
		if hashes, err = pl.HashesWithPrefix(b); err != nil {
			return nil, err
		}
	} else {
		iter, err := repo.Storer.IterEncodedObjects(plumbing.AnyObject)
		if err != nil {
			return nil, err
		}
		err = iter.ForEach(func(o plumbing.EncodedObject) error {
			hashes = append(hashes, o.Hash())
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	out := hashes[:0]
	for _, h := range hashes {
		if strings.HasPrefix(h.String(), prefix) && !slices.Contains(out, h) {
			out = append(out, h)
		}
	}
	return out, nil
}

// peelToCommit returns the commit h names, peeling annotated tags.
func peelToCommit(repo *git.Repository, h plumbing.Hash) (*object.Commit, error) {
	for range maxTagChain {
		obj, err := repo.Object(plumbing.AnyObject, h)
		if err != nil {
			return nil, err
		}
		switch o := obj.(type) {
		case *object.Commit:
			return o, nil
		case *object.Tag:
			h = o.Target
		default:
			return nil, fmt.Errorf("%s names a %s, not a commit", h, obj.Type())
		}
	}
	return nil, fmt.Errorf("%s: more than %d nested tags", h, maxTagChain)
}

// refList returns " (branches: a, b; tags: v1)" listing up to refsListed
// branches and tags of repo (remote-tracking branches when it has no local
// ones), or "" when it has none.
func refList(repo *git.Repository) string {
	var heads, remotes, tags []string
	iter, err := repo.References()
	if err != nil {
		return ""
	}
	_ = iter.ForEach(func(r *plumbing.Reference) error {
		switch n := r.Name(); {
		case n.IsBranch():
			heads = append(heads, n.Short())
		case n.IsRemote():
			remotes = append(remotes, n.Short())
		case n.IsTag():
			tags = append(tags, n.Short())
		}
		return nil
	})
	list := func(kind string, names []string) string {
		slices.Sort(names)
		names = slices.Compact(names)
		s := kind + ": " + strings.Join(names[:min(len(names), refsListed)], ", ")
		if len(names) > refsListed {
			s += fmt.Sprintf(" and %d more", len(names)-refsListed)
		}
		return s
	}
	var parts []string
	switch {
	case len(heads) > 0:
		parts = append(parts, list("branches", heads))
	case len(remotes) > 0:
		parts = append(parts, list("remote branches", remotes))
	}
	if len(tags) > 0 {
		parts = append(parts, list("tags", tags))
	}
	if len(parts) == 0 {
		return " (the repository has no branches or tags)"
	}
	return " (" + strings.Join(parts, "; ") + ")"
}

// prepareDst makes sure dst is an empty folder, creating it when it does
// not exist, and reports whether it did.
func prepareDst(dst string) (created bool, err error) {
	if dst == "" {
		return false, errors.New("empty destination path")
	}
	fi, err := os.Lstat(dst)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		if err := os.Mkdir(dst, 0o755); err != nil {
			return false, fmt.Errorf("create destination: %w", err)
		}
		if err := os.Chmod(dst, 0o755); err != nil {
			return true, errors.Join(fmt.Errorf("create destination: %w", err), os.Remove(dst))
		}
		return true, nil
	case err != nil:
		return false, fmt.Errorf("destination: %w", err)
	case !fi.IsDir():
		return false, fmt.Errorf("destination %s exists and is not a folder", dst)
	}
	f, err := os.Open(dst)
	if err != nil {
		return false, fmt.Errorf("destination: %w", err)
	}
	defer f.Close()
	if names, err := f.Readdirnames(1); len(names) > 0 {
		return false, fmt.Errorf("destination %s is not empty", dst)
	} else if err != nil && err != io.EOF {
		return false, fmt.Errorf("destination: %w", err)
	}
	return false, nil
}

// cleanDst removes everything written into dst, and dst itself when
// Checkout created it.
func cleanDst(dst string, root *os.Root, created bool) error {
	if created {
		return os.RemoveAll(dst)
	}
	f, err := root.Open(".")
	if err != nil {
		return err
	}
	names, err := f.Readdirnames(-1)
	f.Close()
	if err != nil {
		return err
	}
	var errs []error
	for _, n := range names {
		errs = append(errs, root.RemoveAll(n))
	}
	return errors.Join(errs...)
}

// treeWriter writes a tree into a destination folder.
type treeWriter struct {
	repo  *git.Repository
	root  *os.Root
	fail  func(path, msg string, err error) error
	links []link // symbolic links, created after everything else
}

// link is a symbolic link to create.
type link struct{ path, target string }

// writeTree writes the entries of t into the folder dir ("" for the root),
// depth folders deep.
func (w *treeWriter) writeTree(t *object.Tree, dir string, depth int) error {
	if depth >= maxTreeDepth {
		return w.fail(dir, fmt.Sprintf("folders nested more than %d deep", maxTreeDepth), nil)
	}
	seen := make(map[string]bool, len(t.Entries))
	for _, e := range t.Entries {
		p, err := w.vetEntry(dir, e.Name)
		if err != nil {
			return err
		}
		if seen[e.Name] {
			return w.fail(p, "tree has two entries of this name", nil)
		}
		seen[e.Name] = true

		switch e.Mode {
		case filemode.Dir:
			sub, err := object.GetTree(w.repo.Storer, e.Hash)
			if err != nil {
				return w.fail(p, "read tree "+e.Hash.String(), err)
			}
			if err := w.mkdir(p); err != nil {
				return err
			}
			if err := w.writeTree(sub, p, depth+1); err != nil {
				return err
			}
		case filemode.Submodule:
			if err := w.mkdir(p); err != nil {
				return err
			}
		case filemode.Regular, filemode.Deprecated:
			if err := w.writeFile(p, e.Hash, 0o644); err != nil {
				return err
			}
		case filemode.Executable:
			if err := w.writeFile(p, e.Hash, 0o755); err != nil {
				return err
			}
		case filemode.Symlink:
			target, err := w.readLink(p, e.Hash)
			if err != nil {
				return err
			}
			if msg := vetLinkTarget(p, target); msg != "" {
				return w.fail(p, fmt.Sprintf("symbolic link to %s %s", printablePath(target), msg), nil)
			}
			w.links = append(w.links, link{path: p, target: target})
		default:
			return w.fail(p, fmt.Sprintf("unsupported tree entry mode %07o", uint32(e.Mode)), nil)
		}
	}
	return nil
}

// vetEntry checks one tree entry name and returns its path under dir.
func (w *treeWriter) vetEntry(dir, name string) (string, error) {
	p := name
	if dir != "" {
		p = dir + "/" + name
	}
	switch {
	case name == "":
		return "", w.fail(p, "tree entry with an empty name", nil)
	case name == "." || name == "..":
		return "", w.fail(p, fmt.Sprintf("tree entry named %q", name), nil)
	case strings.IndexByte(name, '/') >= 0:
		return "", w.fail(p, "tree entry name contains a slash", nil)
	}
	clean, err := vetPath(p)
	if err != nil {
		var pe *PatchError
		if errors.As(err, &pe) {
			return "", w.fail(p, pe.Msg, nil)
		}
		return "", w.fail(p, "invalid path", err)
	}
	if clean != p {
		return "", w.fail(p, "path is not clean", nil)
	}
	return p, nil
}

// mkdir creates the folder p with mode 0755.
func (w *treeWriter) mkdir(p string) error {
	if err := w.root.Mkdir(p, 0o755); err != nil {
		return w.fail(p, "create folder", err)
	}
	if err := w.root.Chmod(p, 0o755); err != nil {
		return w.fail(p, "set folder mode", err)
	}
	return nil
}

// writeFile creates the file p with the content of blob h and mode perm.
func (w *treeWriter) writeFile(p string, h plumbing.Hash, perm os.FileMode) error {
	blob, err := w.repo.BlobObject(h)
	if err != nil {
		return w.fail(p, "read blob "+h.String(), err)
	}
	r, err := blob.Reader()
	if err != nil {
		return w.fail(p, "read blob "+h.String(), err)
	}
	defer r.Close()
	f, err := w.root.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
	if err != nil {
		return w.fail(p, "create file", err)
	}
	n, err := io.Copy(f, r)
	if err == nil && n != blob.Size {
		err = fmt.Errorf("blob %s: read %d of %d bytes", h, n, blob.Size)
	}
	if err == nil {
		err = f.Chmod(perm) // whatever the umask
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return w.fail(p, "write file", err)
	}
	return nil
}

// readLink returns the target stored in the symbolic link blob h.
func (w *treeWriter) readLink(p string, h plumbing.Hash) (string, error) {
	blob, err := w.repo.BlobObject(h)
	if err != nil {
		return "", w.fail(p, "read blob "+h.String(), err)
	}
	if blob.Size > maxLinkTarget {
		return "", w.fail(p, fmt.Sprintf("symbolic link target longer than %d bytes", maxLinkTarget), nil)
	}
	r, err := blob.Reader()
	if err != nil {
		return "", w.fail(p, "read blob "+h.String(), err)
	}
	defer r.Close()
	b, err := io.ReadAll(io.LimitReader(r, maxLinkTarget+1))
	if err != nil {
		return "", w.fail(p, "read blob "+h.String(), err)
	}
	return string(b), nil
}

// writeLinks creates the symbolic links collected by writeTree.
func (w *treeWriter) writeLinks() error {
	for _, l := range w.links {
		if err := w.root.Symlink(l.target, l.path); err != nil {
			return w.fail(l.path, "create symbolic link", err)
		}
	}
	return nil
}

// vetLinkTarget checks the target of the symbolic link at the clean,
// slash-separated tree path p and returns why it is unsafe, or "" when it
// stays inside the checkout.
//
// The target is read relative to the link's folder. It must be non-empty
// and relative, without NUL or other control characters, and without a .git
// element (a patch could otherwise reach a .git folder through the link).
// ".." elements may only lead the target, and no more of them than the
// link's folder is deep. Checking this way, element by element rather than
// after path.Clean, keeps every link inside the checkout even when links
// point at links: a folder is only ever entered through a real folder or a
// link that is itself vetted, and ".." is only ever applied to the real
// folders holding a link, which Checkout creates as plain folders. A
// target such as "sub/../x" is refused even when harmless, since "sub"
// might itself be a link.
func vetLinkTarget(p, target string) string {
	switch {
	case target == "":
		return "with an empty target"
	case strings.HasPrefix(target, "/"):
		return "with an absolute target"
	case strings.ContainsFunc(target, func(r rune) bool { return r == 0 || isControl(r) }):
		return "with a control character in its target"
	}
	depth := strings.Count(path.Dir(p), "/") + 1
	if path.Dir(p) == "." {
		depth = 0
	}
	up, leading := 0, true
	for elem := range strings.SplitSeq(target, "/") {
		switch {
		case elem == "..":
			if !leading {
				return `with ".." after another element in its target`
			}
			up++
			if up > depth {
				return "leading out of the checkout"
			}
		case isDotGit(elem):
			return "into .git"
		case elem == "" || elem == ".":
			// "a//b" and "./a" stay where they are.
		default:
			leading = false
		}
	}
	return ""
}
