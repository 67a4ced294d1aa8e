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
// RExBench gold catalog, which Load adds to the catalog instead. The
// horizon part (HorizonRunsPath) is not among them: LoadAll adds it.
func Inputs() []string {
	var in []string
	for _, f := range Files() {
		if strings.HasSuffix(f, ".yaml") || f == REBenchExampleScoreLog || f == HorizonRunsPath {
			continue
		}
		in = append(in, f)
	}
	return in
}

// AllInputs are Inputs and then the horizon part's runs (last, so that
// the runs of the other parts keep their order).
func AllInputs() []string { return append(Inputs(), HorizonRunsPath) }

// Load ingests the RE-Bench and RExBench parts of the demo study (Inputs)
// with opt (its FS is replaced by the embedded
// files, and the RExBench gold catalog is added to opt.Catalog, or to the
// built-in catalog when opt.Catalog is nil). Bad records — there are none
// in the shipped data — are returned as ds.Err().
//
// The commands whose statistics pool every run (scoreatk, allocation,
// curves, …) read these two parts with --demo; the time-horizon part is
// read by LoadAll (rdeval horizon --demo, the report, figure configs with
// demo: true), so that their demo output is not mixed with it.
func Load(opt ingest.Options) (*ingest.Dataset, error) { return load(opt, Inputs()) }

// LoadAll is Load with the time-horizon part too (AllInputs): the whole
// demo study.
func LoadAll(opt ingest.Options) (*ingest.Dataset, error) { return load(opt, AllInputs()) }

func load(opt ingest.Options, inputs []string) (*ingest.Dataset, error) {
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
	ds, err := ingest.Load(inputs, opt)
	if err != nil {
		return nil, err
	}
	return ds, ds.Err()
}
