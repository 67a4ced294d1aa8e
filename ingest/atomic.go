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
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return "", err
	}
	defer os.Remove(tmp.Name()) // no-op after the rename
	h := sha256.New()
	if err := fill(io.MultiWriter(tmp, h)); err != nil {
		tmp.Close()
		return "", err
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return "", err
	}
	if err := tmp.Close(); err != nil {
		return "", err
	}
	if err := os.Chmod(tmp.Name(), 0o644); err != nil {
		return "", err
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return "", err
	}
	if opt.SyncDir {
		// Best effort: some file systems refuse to sync a folder; the
		// file's own bytes are synced either way.
		if d, err := os.Open(dir); err == nil {
			d.Sync()
			d.Close()
		}
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// WriteFileAtomic is WriteAtomic of the bytes b.
func WriteFileAtomic(path string, b []byte, opt AtomicOptions) error {
	_, err := WriteAtomic(path, opt, func(w io.Writer) error {
		_, err := w.Write(b)
		return err
	})
	return err
}
