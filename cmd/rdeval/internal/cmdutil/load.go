package cmdutil

import (
	"encoding/csv"
	"fmt"
	"math"
	"os"
	"sort"
	"strconv"
	"strings"

	"github.com/rdeval/rdeval/cmd/rdeval/internal/demo"
	"github.com/rdeval/rdeval/cmd/rdeval/internal/iostreams"
	"github.com/rdeval/rdeval/ingest"
	"github.com/spf13/cobra"
)

// InputFlags are the flags every command that reads runs accepts.
type InputFlags struct {
	Benchmark string
	TasksFile string
	Map       []string
	Reader    string
	RunID     string
	Strict    bool
	Where     []string

	Scorer     string
	TaskIDFrom string
	ScoreMap   []string

	// Demo reads the embedded demo study instead of PATH arguments:
	// its RE-Bench and RExBench parts (demo.Load), or every part, the
	// time-horizon one too, when DemoAll is set (demo.LoadAll).
	Demo    bool
	DemoAll bool
}

// AddInputFlags registers the input flags on cmd.
func AddInputFlags(cmd *cobra.Command, f *InputFlags, where bool) {
	fl := cmd.Flags()
	fl.StringVar(&f.Benchmark, "benchmark", "", "set the benchmark of every run read (e.g. re-bench, rexbench)")
	fl.StringVar(&f.TasksFile, "tasks", "", "YAML task catalog that adds to or overrides the built-in ones")
	fl.StringSliceVar(&f.Map, "map", nil, "generic inputs: COLUMN=FIELD pairs, e.g. --map agent=model_name,score=final")
	fl.StringVar(&f.Reader, "reader", "", "force a reader instead of detecting one ("+strings.Join(ingest.Readers, ", ")+")")
	fl.StringVar(&f.RunID, "run-id", "", "score.log input: the run id (default: the name of the file's folder)")
	fl.BoolVar(&f.Strict, "strict", false, "a task missing from its benchmark's catalog is an error")
	fl.StringVar(&f.Scorer, "scorer", "", "Inspect logs: the score to use: a scorer, or scorer.key for a key of a dict-valued score (default: the first in the log's results, as Inspect reports it; stderr names it); Harbor jobs: the reward key that is the score (default: the only one, else \"reward\")")
	fl.StringVar(&f.TaskIDFrom, "task-id-from", "task/sample", "Inspect logs: task id from task/sample, sample or task")
	fl.StringSliceVar(&f.ScoreMap, "score-map", nil, "Inspect logs: text score values as numbers, e.g. --score-map C=1,P=0.5,I=0")
	fl.BoolVar(&f.Demo, "demo", false, "read the embedded demo study (synthetic RE-Bench and RExBench runs) instead of PATH")
	// With --demo a command whose arguments are its inputs (Use
	// "name INPUT..." or "name PATH...") needs none and takes none.
	if orig := cmd.Args; orig != nil && argsAreInputs(cmd.Use) {
		cmd.Args = func(c *cobra.Command, args []string) error {
			if f.Demo {
				if len(args) > 0 {
					return Usagef("--demo reads the embedded demo study: give no PATH with it (got %s)", strings.Join(args, " "))
				}
				return nil
			}
			if len(args) == 0 {
				if err := orig(c, args); err != nil {
					return Usagef("give at least one PATH (an ingested folder, a .parquet/.arrow table or raw runs), or --demo for the embedded demo study")
				}
			}
			return orig(c, args)
		}
	}
	if where {
		fl.StringArrayVar(&f.Where, "where", nil, "keep runs whose COLUMN is one of the values: --where agent=human,o1 (repeatable; all must hold)")
	}
}

// argsAreInputs reports whether a command's positional arguments are the
// inputs to read, from its Use line ("scoreatk INPUT...", "inspect PATH...").
func argsAreInputs(use string) bool {
	f := strings.Fields(use)
	return len(f) > 1 && (f[1] == "INPUT..." || f[1] == "PATH..." || f[1] == "[INPUT...]")
}

// Options turns the flags into ingest options.
func (f *InputFlags) Options() (ingest.Options, error) {
	opt := ingest.Options{Benchmark: f.Benchmark, Reader: f.Reader, RunID: f.RunID, Strict: f.Strict, Scorer: f.Scorer, TaskIDFrom: f.TaskIDFrom}
	switch f.TaskIDFrom {
	case "", "task/sample", "sample", "task":
	default:
		return opt, Usagef("--task-id-from %q: want task/sample, sample or task", f.TaskIDFrom)
	}
	for _, kv := range f.ScoreMap {
		k, v, ok := strings.Cut(kv, "=")
		x, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
		if !ok || k == "" || err != nil || math.IsNaN(x) || math.IsInf(x, 0) {
			return opt, Usagef("--score-map %q: want VALUE=NUMBER, e.g. C=1", kv)
		}
		if opt.ScoreMap == nil {
			opt.ScoreMap = map[string]float64{}
		}
		opt.ScoreMap[k] = x
	}
	if len(f.Map) > 0 {
		opt.Map = map[string]string{}
		for _, kv := range f.Map {
			k, v, ok := strings.Cut(kv, "=")
			if !ok || k == "" || v == "" {
				return opt, Usagef("--map %q: want COLUMN=FIELD, e.g. agent=model_name", kv)
			}
			if !ingest.IsMappableColumn(k) {
				return opt, Usagef("--map %q: %q is not a runs column that inputs can set (see docs/data-model.md)", kv, k)
			}
			opt.Map[k] = v
		}
	}
	if f.TasksFile != "" {
		cat := ingest.BuiltinCatalog()
		if err := cat.LoadCatalogFile(f.TasksFile); err != nil {
			return opt, &UsageError{Err: fmt.Errorf("--tasks: %w", err)}
		}
		opt.Catalog = cat
	}
	return opt, nil
}

// Load reads inputs (raw files, folders, rdeval tables) and applies --where.
// Bad records make it return *ingest.InputErrors.
func (f *InputFlags) Load(inputs []string) (*ingest.Dataset, error) {
	opt, err := f.Options()
	if err != nil {
		return nil, err
	}
	filters, err := ParseFilters("--where", f.Where)
	if err != nil {
		return nil, err
	}
	ds, err := f.Read(inputs, opt)
	if err != nil {
		return nil, err
	}
	if err := ds.Err(); err != nil {
		return ds, err
	}
	if len(filters) > 0 {
		// A value that no run has is almost always a typo: say which exist.
		for _, fl := range filters {
			present := map[string]bool{}
			for i := range ds.Runs {
				v, _ := ingest.RunValue(&ds.Runs[i], fl.Col)
				present[v] = true
			}
			for v := range fl.Values {
				if !present[v] {
					have := make([]string, 0, len(present))
					for p := range present {
						have = append(have, p)
					}
					sort.Strings(have)
					if len(have) > 12 {
						have = append(have[:12], "…")
					}
					return nil, Usagef("--where %s=%s: no run has %s %q (present: %s)", fl.Col, v, fl.Col, v, strings.Join(have, ", "))
				}
			}
		}
		ds.Filter(filters.Match)
		if len(ds.Runs) == 0 {
			return nil, Usagef("no runs left after --where %s", strings.Join(f.Where, " --where "))
		}
	}
	return ds, nil
}

// Read reads inputs with opt, or the embedded demo study with --demo (then
// inputs must be empty), with the collector paused (PauseCollector). Bad
// records are left in ds.Errors, as ingest.Load leaves them.
func (f *InputFlags) Read(inputs []string, opt ingest.Options) (*ingest.Dataset, error) {
	defer PauseCollector(inputs)()
	if !f.Demo {
		return ingest.Load(inputs, opt)
	}
	if len(inputs) > 0 {
		return nil, Usagef("--demo reads the embedded demo study: give no input with it (got %s)", strings.Join(inputs, " "))
	}
	load := demo.Load
	if f.DemoAll {
		load = demo.LoadAll
	}
	ds, err := load(opt)
	if ds != nil && ds.Err() != nil {
		return ds, nil
	}
	return ds, err
}

// Filter is one COLUMN=V1[,V2…] condition on runs (--where, power's --a
// and --b, the where: lists of figure configs); a null value is "".
type Filter struct {
	Col    string
	Values map[string]bool
}

// Match reports whether r's value of the column is one of the values.
func (w Filter) Match(r *ingest.Run) bool {
	v, ok := ingest.RunValue(r, w.Col)
	if !ok {
		return w.Values[""]
	}
	return w.Values[v]
}

// Filters must all hold.
type Filters []Filter

// Match reports whether r matches every filter.
func (fs Filters) Match(r *ingest.Run) bool {
	for _, f := range fs {
		if !f.Match(r) {
			return false
		}
	}
	return true
}

// ParseFilters parses COLUMN=V1[,V2…] arguments; the usage errors name
// flag (e.g. "--where").
func ParseFilters(flag string, args []string) (Filters, error) {
	var out Filters
	for _, a := range args {
		k, v, ok := strings.Cut(a, "=")
		if !ok || k == "" {
			return nil, Usagef("%s %q: want COLUMN=VALUE[,VALUE…]", flag, a)
		}
		if !ingest.IsRunColumn(k) {
			cols := ingest.RunColumnNames()
			sort.Strings(cols)
			return nil, Usagef("%s %q: unknown column %q (one of %s)", flag, a, k, strings.Join(cols, ", "))
		}
		w := Filter{Col: k, Values: map[string]bool{}}
		for _, x := range strings.Split(v, ",") {
			w.Values[strings.TrimSpace(x)] = true
		}
		out = append(out, w)
	}
	return out, nil
}

// FormatFloat formats a number for tables: up to 4 significant decimals.
func FormatFloat(f float64) string { return strconv.FormatFloat(f, 'g', 6, 64) }

// ReportLoadError prints the bad records of an *ingest.InputErrors (the
// first 20 and a count of the rest) to io.ErrOut and returns a
// BadInputError; other errors are returned as they are.
func ReportLoadError(io *iostreams.IO, err error) error {
	if ie, ok := err.(*ingest.InputErrors); ok {
		io.Errorf("%s", strings.TrimSuffix(ie.Format(20), "\n"))
		return &BadInputError{Err: fmt.Errorf("%s; fix the input (see the errors above)", ie.Summary())}
	}
	return err
}

// LoadForCommand is Load for a command: bad records are printed to
// io.ErrOut (ReportLoadError) and the dataset's warnings follow
// (PrintWarnings).
func (f *InputFlags) LoadForCommand(io *iostreams.IO, inputs []string) (*ingest.Dataset, error) {
	ds, err := f.Load(inputs)
	if err != nil {
		return nil, ReportLoadError(io, err)
	}
	PrintWarnings(io, ds)
	return ds, nil
}

// PrintWarnings writes the dataset's warnings (from ingest) to io.ErrOut.
func PrintWarnings(io *iostreams.IO, ds *ingest.Dataset) {
	for _, w := range ds.Warnings {
		io.Warnf("%s", w)
	}
}

// ReadTaskWeights reads a CSV file with a header naming task_id and weight
// columns; "" gives nil (no weights). Weights must be positive and finite.
func ReadTaskWeights(path string) (map[string]float64, error) {
	if path == "" {
		return nil, nil
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, &UsageError{Err: fmt.Errorf("--task-weights: %w", err)}
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		return nil, &BadInputError{Err: fmt.Errorf("%s: %w", path, err)}
	}
	if len(rows) < 2 {
		return nil, &BadInputError{Err: fmt.Errorf("%s: want a header task_id,weight and one row per task", path)}
	}
	ti, wi := -1, -1
	for i, h := range rows[0] {
		switch strings.TrimSpace(h) {
		case "task_id":
			ti = i
		case "weight":
			wi = i
		}
	}
	if ti < 0 || wi < 0 {
		return nil, &BadInputError{Err: fmt.Errorf("%s:1: header must name task_id and weight", path)}
	}
	out := map[string]float64{}
	for n, r := range rows[1:] {
		w, err := strconv.ParseFloat(strings.TrimSpace(r[wi]), 64)
		if err != nil || !(w > 0) || math.IsInf(w, 0) {
			return nil, &BadInputError{Err: fmt.Errorf("%s:%d: field \"weight\": want a positive number, got %q", path, n+2, r[wi])}
		}
		out[strings.TrimSpace(r[ti])] = w
	}
	return out, nil
}

// CheckRunColumns refuses a value of flag (e.g. --by) that is not a runs
// column (ingest.IsRunColumn).
func CheckRunColumns(flag string, cols []string) error {
	for _, c := range cols {
		if !ingest.IsRunColumn(c) {
			return Usagef("%s %q: not a runs column", flag, c)
		}
	}
	return nil
}
