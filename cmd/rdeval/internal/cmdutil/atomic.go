package cmdutil

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
)

// WriteAtomic writes through fill into a temporary file beside path
// (".NAME.tmp-*"), syncs it, makes it mode 0644 and renames it over path,
// so that path never holds a partial file; on any error the temporary
// file is removed and path is left as it was. path's folder must exist.
func WriteAtomic(path string, fill func(io.Writer) error) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name()) // no-op after the rename
	if err := fill(tmp); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if err := os.Chmod(tmp.Name(), 0o644); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}

// WriteFileAtomic is WriteAtomic of the bytes b, creating path's folder
// (mode 0755) first when it does not exist.
func WriteFileAtomic(path string, b []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return WriteAtomic(path, func(w io.Writer) error {
		_, err := io.Copy(w, bytes.NewReader(b))
		return err
	})
}
