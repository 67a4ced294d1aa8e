package ingest

import (
	"crypto/sha256"
	"encoding/hex"
	"io"
	"os"
	"path/filepath"
)

// AtomicOptions change how WriteAtomic makes a file durable.
type AtomicOptions struct {
	// SyncDir syncs path's folder after the rename, so that the rename
	// itself survives a crash (execute's results rely on it); best effort,
	// as some file systems refuse to sync a folder.
	SyncDir bool
	// MkdirAll creates path's folder (mode 0755) when it does not exist.
	MkdirAll bool
}

// WriteAtomic writes through fill into a temporary file beside path
// (".NAME.tmp-*"), syncs it, makes it mode 0644 and renames it over path,
// so that path never holds a partial file; on any error the temporary
// file is removed and path is left as it was. It returns the SHA-256 (hex)
// of the bytes written. Every command and package that writes an output
// goes through it.
func WriteAtomic(path string, opt AtomicOptions, fill func(io.Writer) error) (sha string, err error) {
	dir := filepath.Dir(path)
	if opt.MkdirAll {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return "", err
		}
	}
	tmp, sha, err := writeTempFile(path, fill)
	if err != nil {
		return "", err
	}
	defer os.Remove(tmp) // no-op after the rename
	if err := os.Rename(tmp, path); err != nil {
		return "", err
	}
	if opt.SyncDir {
		syncDir(dir)
	}
	return sha, nil
}

// writeTempFile writes through fill into a new temporary file beside path
// (".NAME.tmp-*"), synced and of mode 0644, and returns its name and the
// SHA-256 (hex) of its bytes; on error it removes the file. The caller
// renames it over path (or removes it).
func writeTempFile(path string, fill func(io.Writer) error) (name, sha string, err error) {
	tmp, err := os.CreateTemp(filepath.Dir(path), tempPrefix(filepath.Base(path))+"*")
	if err != nil {
		return "", "", err
	}
	defer func() {
		if err != nil {
			os.Remove(tmp.Name())
		}
	}()
	h := sha256.New()
	if err := fill(io.MultiWriter(tmp, h)); err != nil {
		tmp.Close()
		return "", "", err
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return "", "", err
	}
	if err := tmp.Close(); err != nil {
		return "", "", err
	}
	if err := os.Chmod(tmp.Name(), 0o644); err != nil {
		return "", "", err
	}
	return tmp.Name(), hex.EncodeToString(h.Sum(nil)), nil
}

// tempPrefix is how the temporary files of WriteAtomic for a file named
// base begin.
func tempPrefix(base string) string { return "." + base + ".tmp-" }

// syncDir syncs a folder, so that renames in it survive a crash. Best
// effort: some file systems refuse to sync a folder; the files' own bytes
// are synced either way.
func syncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		d.Sync()
		d.Close()
	}
}

// WriteFileAtomic is WriteAtomic of the bytes b.
func WriteFileAtomic(path string, b []byte, opt AtomicOptions) error {
	_, err := WriteAtomic(path, opt, func(w io.Writer) error {
		_, err := w.Write(b)
		return err
	})
	return err
}
