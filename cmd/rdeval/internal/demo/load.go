package demo

import (
	"io/fs"
	"strings"

	"github.com/rdeval/rdeval/ingest"
)

// Inputs are the embedded files that make up the study, in the order they
// are read: runs and score logs of both benchmarks. The example score.log
// repeats one run's entries of score_log.jsonl in METR's CSV format (it is
// there to show that format, not to be counted twice) and tasks.yaml is the
// RExBench gold catalog, which Load adds to the catalog instead.
func Inputs() []string {
	var in []string
	for _, f := range Files() {
		if strings.HasSuffix(f, ".yaml") || f == REBenchExampleScoreLog {
			continue
		}
		in = append(in, f)
	}
	return in
}

// Load ingests the demo study with opt (its FS is replaced by the embedded
// files, and the RExBench gold catalog is added to opt.Catalog, or to the
// built-in catalog when opt.Catalog is nil). Bad records — there are none
// in the shipped data — are returned as ds.Err().
func Load(opt ingest.Options) (*ingest.Dataset, error) {
	fsys := FS()
	cat := opt.Catalog
	if cat == nil {
		cat = ingest.BuiltinCatalog()
	}
	b, err := fs.ReadFile(fsys, RExBenchTasksPath)
	if err != nil {
		return nil, err
	}
	if err := cat.AddYAML("demo:"+RExBenchTasksPath, b); err != nil {
		return nil, err
	}
	opt.FS, opt.Catalog = fsys, cat
	ds, err := ingest.Load(Inputs(), opt)
	if err != nil {
		return nil, err
	}
	return ds, ds.Err()
}
