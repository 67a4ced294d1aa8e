package ingest

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"
)

// TestWriteAtomic: the file gets the bytes, mode 0644 and their SHA-256
// (crypto/sha256 of the same bytes); a failing fill leaves the old file as
// it was and no temporary file behind; MkdirAll creates the folder, and
// without it a missing folder is an error; SyncDir syncs the folder.
func TestWriteAtomic(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "out.txt")
	data := []byte("first version\n")
	sum := sha256.Sum256(data)
	got, err := WriteAtomic(path, AtomicOptions{SyncDir: true}, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if got != hex.EncodeToString(sum[:]) {
		t.Errorf("sha %s, want %x", got, sum)
	}
	if b, _ := os.ReadFile(path); string(b) != string(data) {
		t.Errorf("file holds %q", b)
	}
	if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != 0o644 {
		t.Errorf("mode %v, %v", fi.Mode(), err)
	}

	boom := errors.New("boom")
	_, err = WriteAtomic(path, AtomicOptions{}, func(w io.Writer) error {
		w.Write([]byte("half of the second ver"))
		return boom
	})
	if !errors.Is(err, boom) {
		t.Errorf("error %v, want boom", err)
	}
	if b, _ := os.ReadFile(path); string(b) != string(data) {
		t.Errorf("after a failed write the file holds %q", b)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		t.Errorf("folder holds %d entries, want only out.txt", len(ents))
	}

	nested := filepath.Join(dir, "a", "b", "c.txt")
	if err := WriteFileAtomic(nested, []byte("x"), AtomicOptions{}); err == nil {
		t.Error("missing folder without MkdirAll: no error")
	}
	if err := WriteFileAtomic(nested, []byte("x"), AtomicOptions{MkdirAll: true}); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(nested); string(b) != "x" {
		t.Errorf("nested file holds %q", b)
	}
}
