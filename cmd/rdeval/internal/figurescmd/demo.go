package figurescmd

import (
	"crypto/sha256"
	"encoding/hex"
	"io/fs"
	"strings"

	"github.com/rdeval/rdeval/cmd/rdeval/internal/demo"
	"github.com/rdeval/rdeval/ingest"
)

// LoadDemo ingests the embedded demo study (synthetic; see
// cmd/rdeval/internal/demo) with its RExBench gold catalog.
func LoadDemo() (*ingest.Dataset, error) {
	fsys := demo.FS()
	cat := ingest.BuiltinCatalog()
	b, err := fs.ReadFile(fsys, demo.RExBenchTasksPath)
	if err != nil {
		return nil, err
	}
	if err := cat.AddYAML("demo:"+demo.RExBenchTasksPath, b); err != nil {
		return nil, err
	}
	var inputs []string
	for _, f := range demo.Files() {
		// The example score.log repeats one run's entries of score_log.jsonl in
		// METR's CSV format; it is there to show that format, not to be counted twice.
		if strings.HasSuffix(f, ".yaml") || f == demo.REBenchExampleScoreLog {
			continue
		}
		inputs = append(inputs, f)
	}
	ds, err := ingest.Load(inputs, ingest.Options{FS: fsys, Catalog: cat})
	if err != nil {
		return nil, err
	}
	return ds, ds.Err()
}

func sha256Hex(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}
