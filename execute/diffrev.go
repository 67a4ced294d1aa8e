package execute

import (
	"bytes"
	"context"

	"github.com/go-git/go-git/v5/plumbing/object"
)

// DiffRevs returns the patch, in git diff format, that turns the tree of
// commit base into the tree of commit rev in the git repository at repoDir:
// what `git diff base rev` prints (both trees compared directly, not from
// their merge base). It only reads the repository and never uses the
// network; base and rev are read as ResolveCommit reads them.
//
// The patch is made by go-git (object.DiffTreeWithOptions with
// object.DefaultDiffTreeOptions, then its unified encoder with 3 lines of
// context), so it differs from git's output in small ways that no patch
// reader depends on: renames are detected at go-git's 60 % similarity (git:
// 50 %) and written without a similarity index, index lines give full ids,
// hunks may split differently where several minimal diffs exist, and binary
// files are written as "Binary files a/x and b/x differ" without data.
// Identical trees give an empty patch.
//
// Any error is a *CheckoutError (for an unknown revision it wraps
// ErrUnknownRev); the patch is not vetted: pass it to ParsePatch.
func DiffRevs(repoDir, base, rev string) ([]byte, error) {
	repo, err := openRepo(repoDir, base)
	if err != nil {
		return nil, err
	}
	defer closeRepo(repo)
	from, err := resolveCommit(repo, repoDir, base)
	if err != nil {
		return nil, err
	}
	to, err := resolveCommit(repo, repoDir, rev)
	if err != nil {
		return nil, err
	}
	fail := func(msg string, err error) error {
		return &CheckoutError{Repo: repoDir, Rev: base + ".." + rev, Msg: msg, Err: err}
	}
	fromTree, err := from.Tree()
	if err != nil {
		return nil, fail("read tree of commit "+from.Hash.String(), err)
	}
	toTree, err := to.Tree()
	if err != nil {
		return nil, fail("read tree of commit "+to.Hash.String(), err)
	}
	changes, err := object.DiffTreeWithOptions(context.Background(), fromTree, toTree, object.DefaultDiffTreeOptions)
	if err != nil {
		return nil, fail("compare trees", err)
	}
	patch, err := changes.Patch()
	if err != nil {
		return nil, fail("make patch", err)
	}
	var buf bytes.Buffer
	if err := patch.Encode(&buf); err != nil {
		return nil, fail("write patch", err)
	}
	return buf.Bytes(), nil
}
