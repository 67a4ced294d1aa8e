package cmdutil

import (
	"io"

	"github.com/rdeval/rdeval/ingest"
)

// WriteAtomic writes through fill into a temporary file beside path,
// syncs it, makes it mode 0644 and renames it over path, so that path
// never holds a partial file; on any error the temporary file is removed
// and path is left as it was (ingest.WriteAtomic). path's folder must
// exist.
func WriteAtomic(path string, fill func(io.Writer) error) error {
	_, err := ingest.WriteAtomic(path, ingest.AtomicOptions{}, fill)
	return err
}

// WriteFileAtomic is WriteAtomic of the bytes b, creating path's folder
// (mode 0755) first when it does not exist.
func WriteFileAtomic(path string, b []byte) error {
	return ingest.WriteFileAtomic(path, b, ingest.AtomicOptions{MkdirAll: true})
}
