package ingest

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/rdeval/rdeval/ingest/internal/csvline"
)

// Options control Load.
type Options struct {
	Benchmark string            // if set, overrides the benchmark of every run read
	Reader    string            // if set, forces this reader (see Readers) instead of detecting one
	Map       map[string]string // generic reader: canonical column ← source column (--map agent=model_name)
	RunID     string            // score.log CSV: the run id; default: the name of the file's folder
	Strict    bool              // a task that is not in its benchmark's catalog is an error, not a warning
	Catalog   *Catalog          // task catalog; nil means the built-in catalogs
	FS        fs.FS             // if set, paths are read from this file system (e.g. the embedded demo study)

	// WriteOnly says the dataset will only be passed to WriteDataset (as
	// `rdeval ingest` does). Load may then keep the runs of JSON Lines
	// files as the runs table's columns rather than as Runs (run_store.go):
	// Dataset.Runs is then nil and Dataset.NumRuns counts them. The file
	// written is the same; run timestamps are held to the microsecond, the
	// table's resolution, for the elapsed times filled into score logs.
	WriteOnly bool

	// Inspect logs.
	Scorer     string             // the scorer whose value becomes the score (default: the first by name)
	TaskIDFrom string             // task id: "task/sample" (default), "sample" or "task"
	ScoreMap   map[string]float64 // text score values → numbers, overriding C=1, I=0, P=0.5, N=0
}

// InputStats describes one input file as read.
type InputStats struct {
	Path         string `json:"path"`
	SHA256       string `json:"sha256"`
	Bytes        int64  `json:"bytes"`
	Reader       string `json:"reader"`
	Gzip         bool   `json:"gzip,omitempty"`
	RowsRead     int    `json:"rows_read"`
	RowsKept     int    `json:"rows_kept"`
	RowsRejected int    `json:"rows_rejected"`
	// Error is the first error that rejected the file as a whole, or the
	// rest of it from some line on (a truncated gzip stream); "" when the
	// whole file was read.
	Error string `json:"error,omitempty"`
}

// Dataset is what Load returns: the three tables as Go values, with the
// provenance and caveats of the read.
type Dataset struct {
	Runs     []Run
	Scores   []ScoreEntry
	Tasks    []Task
	Inputs   []InputStats
	Warnings []Warning
	Rejected []Rejected
	Errors   []*Error // one per rejected record (and per unreadable file)

	runStore *runStore // the runs, when a write-only load kept them as columns (Runs is then nil)
}

// NumRuns is the number of runs: len(Runs), or the rows of the columns a
// write-only load (Options.WriteOnly) kept them in.
func (d *Dataset) NumRuns() int {
	if d.runStore != nil {
		return d.runStore.n
	}
	return len(d.Runs)
}

// rowRuns turns runs kept as columns into Runs.
func (d *Dataset) rowRuns() {
	if d.runStore != nil {
		d.Runs = d.runStore.rows()
		d.runStore = nil
	}
}

// Err returns an *InputErrors when any record was rejected, else nil.
func (d *Dataset) Err() error {
	if len(d.Errors) == 0 {
		return nil
	}
	return &InputErrors{Errs: d.Errors}
}

type loader struct {
	opt      Options
	ds       *Dataset
	cat      *Catalog
	humanRef map[string]float64 // task_id → METR human_score (setHumanRef)
	// lastHuman is the entry setHumanRef stored last.
	lastHuman struct {
		task  string
		score float64
	}
	runIndex *runIDIndex // run_id → index in ds.Runs (or row of ds.runStore)
	touched  uint64      // keeps runIDIndex.touch's loads
	dupSame  int         // identical duplicate runs dropped

	runIndexStale bool
	stretches     []taskStretch // of ds.Runs, from checkTasks; nil when stale
	interner
	tableTasks []Task         // tasks read from rdeval tables (kept even without runs)
	aux        map[string]any // per-folder state of folder readers (auxState)
	mle        mleState       // MLE-bench seeds counted across grading reports (read_mlebench.go)
	// inspectTasks: Inspect task_id + model → the first log read with them
	// (inspectHeaderOK warns about a second log of the same task).
	inspectTasks map[string][2]string
	listed       map[string]*listedOutput // tables that manifests list, by path (verifyManifest)
	fileErrs     map[string]string        // path → its first whole-file error, until loadFile records it in the file's InputStats
	undo         *loadMark                // while a gzip input is read: what to go back to (rollback)
}

// setHumanRef records METR's human score for a task; the last one read
// wins. Runs of a task are usually consecutive and repeat its score, so
// only a change is written to the map (METR ×20: one map write per run
// was 1.3 % of an ingest's CPU).
func (l *loader) setHumanRef(task string, score float64) {
	if task != l.lastHuman.task || score != l.lastHuman.score {
		if u := l.undo; u != nil && u.humanRef == nil {
			u.humanRef = maps.Clone(l.humanRef) // a gzip input may be taken back (rollback)
		}
		l.humanRef[task] = score
		l.lastHuman.task, l.lastHuman.score = task, score
	}
}

// interner shares one copy of equal strings (run ids, agents, messages
// repeat on every row); its table is bounded. Not safe for concurrent use:
// each parse worker has its own.
type interner struct {
	interned map[string]string
	last     string // the last value returned: a CSV column often repeats it
}

// intern returns b as a string, sharing one copy among equal values.
func (in *interner) intern(b []byte) string {
	if string(b) == in.last {
		return in.last
	}
	if s, ok := in.interned[string(b)]; ok {
		in.last = s
		return s
	}
	s := string(b)
	if len(b) <= 256 && len(in.interned) < 1<<16 {
		if in.interned == nil {
			in.interned = map[string]string{}
		}
		in.interned[s] = s
	}
	in.last = s
	return s
}

// growRuns makes room for the runs a file is likely to hold, estimated from
// its size and the length of its first line.
func (l *loader) growRuns(s *source, firstLen int) {
	l.rowRuns()
	if s.size <= 0 || s.isGzip || firstLen <= 0 {
		return
	}
	est := min(int(s.size/int64(firstLen+1))+16, 10_000_000)
	l.ds.Runs = slices.Grow(l.ds.Runs, est)
	if l.runIndex.len() == 0 {
		l.runIndex.reset(est)
	}
}

// growScores makes room for the score-log rows a file is likely to hold,
// estimated from its size and the length of one record, so that appending
// does not copy repeatedly.
func (l *loader) growScores(s *source, recLen int) {
	if s.size <= 0 || s.isGzip || recLen <= 0 {
		return
	}
	est := min(int(s.size/int64(recLen+1))+16, 50_000_000)
	l.ds.Scores = slices.Grow(l.ds.Scores, est)
}

// Load reads every input (files or folders; see the package doc for the
// formats), validates the records and returns the dataset. Bad records do
// not stop the read: each becomes an Error and a Rejected entry, so one call
// reports every problem. Callers that must not write partial output check
// Dataset.Err. A non-nil error return means Load itself could not proceed.
func Load(paths []string, opt Options) (*Dataset, error) {
	if opt.Reader != "" && !validReader(opt.Reader) {
		return nil, fmt.Errorf("unknown reader %q (want one of %s)", opt.Reader, strings.Join(Readers, ", "))
	}
	switch opt.TaskIDFrom {
	case "", "task/sample", "sample", "task":
	default:
		return nil, fmt.Errorf("task id from %q: want task/sample, sample or task", opt.TaskIDFrom)
	}
	for canon, src := range opt.Map {
		if _, ok := runColumns[canon]; !ok {
			return nil, fmt.Errorf("map %s=%s: %q is not a column that inputs can set (see docs/data-model.md)", canon, src, canon)
		}
	}
	l := newLoader(opt)
	l.cat = opt.Catalog
	if l.cat == nil {
		l.cat = BuiltinCatalog()
	}
	for _, p := range paths {
		files, skipped, err := expandInput(l.opt.FS, p, l.listed)
		l.ds.Warnings = append(l.ds.Warnings, skipped...)
		if err != nil {
			l.inputErr(p, err)
			continue
		}
		for _, f := range files {
			l.loadFile(f)
		}
	}
	l.missingOutputs()
	l.finish()
	return l.ds, nil
}

// newLoader returns a loader with an empty dataset.
func newLoader(opt Options) *loader {
	l := &loader{opt: opt, ds: &Dataset{}, humanRef: map[string]float64{}, listed: map[string]*listedOutput{}}
	l.runIndex = newRunIDIndex(func(i int) string {
		if st := l.ds.runStore; st != nil {
			return st.ids[i]
		}
		return l.ds.Runs[i].RunID
	})
	return l
}

func validReader(r string) bool {
	for _, x := range Readers {
		if r == x {
			return true
		}
	}
	return false
}

// expandInput lists the input files under a folder (sorted), or the path
// itself. Inside folders, hidden files and rdeval's own outputs
// (manifest.json, rejected.jsonl) are skipped, and so is anything that is
// not a regular file (a FIFO would block the read, a device never ends)
// and any symbolic link whose target is not a regular file inside the
// folder (a link to ~/.ssh/id_rsa must not be read, nor its first line
// quoted in an error): each of those is returned as a warning. A path
// given by name is read whatever it is (`rdeval ingest <(zcat x.gz)`).
//
// Each manifest.json that rdeval ingest wrote, in a folder walked or beside
// a table named, adds its outputs to listed (verifyManifest).
func expandInput(fsys fs.FS, p string, listed map[string]*listedOutput) (files []string, skipped []Warning, err error) {
	stat, walk := os.Stat, filepath.WalkDir
	if fsys != nil {
		stat = func(name string) (fs.FileInfo, error) { return fs.Stat(fsys, name) }
		walk = func(root string, fn fs.WalkDirFunc) error { return fs.WalkDir(fsys, root, fn) }
	}
	fi, err := stat(p)
	if err != nil {
		return nil, nil, err
	}
	if !fi.IsDir() {
		if m := readManifest(fsys, filepath.Join(filepath.Dir(p), "manifest.json")); m != nil {
			for _, o := range m.Outputs {
				if path := filepath.Join(filepath.Dir(p), o.Path); path == filepath.Clean(p) {
					listed[path] = &listedOutput{sha: o.SHA256, manifest: filepath.Join(filepath.Dir(p), "manifest.json"), seen: true}
				}
			}
		}
		return []string{p}, nil, nil
	}
	// The folder's real path, for links (resolved lazily: most folders have none).
	var root string
	inside := func(path string) (string, bool) {
		if root == "" {
			r, err := filepath.EvalSymlinks(p)
			if err != nil {
				return "", false
			}
			root = r
		}
		t, err := filepath.EvalSymlinks(path)
		if err != nil {
			return "", false
		}
		rel, err := filepath.Rel(root, t)
		return t, err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
	}
	var out []string
	err = walk(p, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if !d.IsDir() && !d.Type().IsRegular() && !strings.HasPrefix(name, ".") {
			if d.Type()&fs.ModeSymlink == 0 || fsys != nil {
				skipped = append(skipped, Warning{File: path, Msg: fmt.Sprintf("skipped: not a regular file (%s)", fileKind(d.Type()))})
				return nil
			}
			target, ok := inside(path)
			if !ok {
				skipped = append(skipped, Warning{File: path, Msg: "skipped: a symbolic link that leads out of the input folder (or nowhere); name the target itself to read it"})
				return nil
			}
			if tfi, err := os.Stat(target); err != nil || !tfi.Mode().IsRegular() {
				kind := "missing"
				if err == nil {
					kind = fileKind(tfi.Mode().Type())
				}
				skipped = append(skipped, Warning{File: path, Msg: fmt.Sprintf("skipped: a symbolic link to something that is not a regular file (%s)", kind)})
				return nil
			}
		}
		// In a run folder of `rdeval execute` (RUNDIR/manifest.json and
		// RUNDIR/runs/<run_id>/), only runs/<run_id>/result.json is an input:
		// the journal, kept files and work trees are not.
		isRunDir := func(dir string) bool {
			_, err := stat(filepath.Join(dir, "manifest.json"))
			_, err2 := stat(filepath.Join(dir, "runs"))
			return err == nil && err2 == nil
		}
		if d.IsDir() {
			if path != p && strings.HasPrefix(name, ".") {
				return filepath.SkipDir
			}
			if run := filepath.Dir(path); filepath.Base(filepath.Dir(run)) == "runs" && isRunDir(filepath.Dir(filepath.Dir(run))) {
				return filepath.SkipDir // runs/<run_id>/keep, runs/<run_id>/work
			}
			if up2 := filepath.Dir(filepath.Dir(path)); path != p && isHarborJobDir(fsys, up2) {
				return filepath.SkipDir // a Harbor trial's agent/ and verifier/ logs
			}
			if up3 := filepath.Dir(filepath.Dir(filepath.Dir(path))); path != p && isTBRunDir(fsys, up3) {
				return filepath.SkipDir // a terminal-bench trial's sessions/, panes/, agent-logs/
			}
			return nil
		}
		if name == "manifest.json" {
			if m := readManifest(fsys, path); m != nil {
				for _, o := range m.Outputs {
					listed[filepath.Join(filepath.Dir(path), o.Path)] = &listedOutput{sha: o.SHA256, manifest: path}
				}
			}
			return nil
		}
		if strings.HasPrefix(name, ".") || name == "rejected.jsonl" {
			return nil
		}
		if name == "journal.jsonl" && isRunDir(filepath.Dir(path)) {
			return nil
		}
		if skipHarnessFile(fsys, path) {
			return nil // read with the harness's report (read_swebench.go, read_mlebench.go)
		}
		base := strings.TrimSuffix(name, ".gz")
		switch {
		case base == "score.log", strings.HasSuffix(base, ".jsonl"), strings.HasSuffix(base, ".csv"),
			strings.HasSuffix(base, ".parquet"), strings.HasSuffix(base, ".arrow"), strings.HasSuffix(base, ".ndjson"),
			strings.HasSuffix(base, ".eval"):
			out = append(out, path)
		case name == "result.json" && filepath.Base(filepath.Dir(filepath.Dir(path))) == "runs":
			// A run of `rdeval execute run` (RUNDIR/runs/<run_id>/result.json).
			out = append(out, path)
		case name == "result.json" && looksHarborTrial(fileHead(fsys, path)):
			out = append(out, path) // a Harbor trial (jobs/<job>/<trial>/result.json)
		case name == "results.json" && looksTerminalBench(fileHead(fsys, path)):
			if !tbTrialFileShadowed(fsys, stat, p, path) {
				out = append(out, path) // a terminal-bench run's or trial's results
			}
		case isInspectManifestName(name) && looksInspectManifest(fileHead(fsys, path)):
			// An Inspect log folder's manifest: loadFile says it is skipped.
			out = append(out, path)
		case strings.HasSuffix(name, ".json"):
			// Other JSON documents in a folder (e.g. a run's result.json) are
			// not inputs; Inspect .json logs are.
			if inspectJSONFile(fsys, path) || isSWEHarnessInput(fsys, path) || isMLEGradingReportFile(fsys, path) {
				out = append(out, path)
			}
		}
		return nil
	})
	if err == nil && len(out) == 0 {
		err = errors.New("folder holds no input files (*.jsonl, *.csv, score.log, *.parquet, *.arrow, Inspect *.eval/*.json logs, Harbor jobs, terminal-bench runs, optionally .gz)")
	}
	sort.Strings(out)
	return out, skipped, err
}

// listedOutput is a table that a manifest.json of rdeval ingest lists.
type listedOutput struct {
	sha      string // its SHA-256, hex
	manifest string // the manifest's path
	seen     bool   // the file was found (or named) as an input
	checked  bool   // its checksum was compared (and a mismatch reported)
}

// readManifest reads path as a manifest.json of rdeval ingest; nil when it
// is missing or is some other manifest (e.g. of rdeval execute).
func readManifest(fsys fs.FS, path string) *Manifest {
	var b []byte
	var err error
	if fsys != nil {
		b, err = fs.ReadFile(fsys, path)
	} else {
		b, err = os.ReadFile(path)
	}
	if err != nil {
		return nil
	}
	var m Manifest
	if json.Unmarshal(b, &m) != nil || m.SchemaVersion == "" {
		return nil
	}
	return &m
}

// verifyManifest compares the SHA-256 of a table a manifest lists (sum,
// of the whole file) with the manifest's, and records an error when they
// differ: the output set was written by two different ingests (one was
// killed between renames), or a file was replaced by hand. It reports
// whether the file may be read.
func (l *loader) verifyManifest(path, sum string) bool {
	o := l.listed[filepath.Clean(path)]
	if o == nil || o.checked {
		return true
	}
	o.checked = true
	if sum == o.sha {
		return true
	}
	l.fileErr(path, &Error{File: path, Msg: fmt.Sprintf("does not match %s (sha256 %.12s…, listed %.12s…): the folder mixes the outputs of two ingests (one interrupted?) or the file was replaced; ingest again", o.manifest, sum, o.sha)})
	return false
}

// missingOutputs records an error for each table a manifest lists that is
// not in its folder.
func (l *loader) missingOutputs() {
	paths := make([]string, 0, len(l.listed))
	for p, o := range l.listed {
		if !o.seen {
			paths = append(paths, p)
		}
	}
	sort.Strings(paths)
	for _, p := range paths {
		l.inputErr(p, &Error{File: p, Msg: fmt.Sprintf("listed in %s but missing: the folder is incomplete (an interrupted ingest?); ingest again", l.listed[p].manifest)})
	}
}

// fileKind names a file type for a "skipped" note.
func fileKind(m fs.FileMode) string {
	switch {
	case m&fs.ModeDir != 0:
		return "a folder"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeDevice != 0:
		return "a device"
	case m&fs.ModeSymlink != 0:
		return "a symbolic link"
	}
	return "mode " + m.String()
}

func (l *loader) fileErr(path string, err error) {
	var e *Error
	if !errors.As(err, &e) {
		msg := err.Error()
		var pe *fs.PathError
		if errors.As(err, &pe) {
			msg = pe.Err.Error()
		}
		e = &Error{File: path, Msg: msg}
	}
	e.Input = true
	l.ds.Errors = append(l.ds.Errors, e)
	// With --skip-bad the file (or what was left of it) is lost: say so in
	// rejected.jsonl and, through fileErrs, in the manifest's input entry.
	l.ds.Rejected = append(l.ds.Rejected, Rejected{File: e.File, Line: e.Line, Error: e.Error(), Input: true})
	if l.fileErrs == nil {
		l.fileErrs = map[string]string{}
	}
	if _, ok := l.fileErrs[path]; !ok {
		l.fileErrs[path] = e.Error()
	}
}

// loadMark is what the dataset held before a gzip input was read, so
// that the input can be taken back when its stream turns out corrupt
// (rollback).
type loadMark struct {
	runs, scores, dupSame int
	humanRef              map[string]float64 // the METR human scores before the input; nil while it changed none
}

// mark notes what the dataset holds now, in l.undo. The runs a write-only
// load keeps as columns count without their holes (runStore.rows leaves
// them out).
func (l *loader) mark() {
	m := &loadMark{runs: len(l.ds.Runs), scores: len(l.ds.Scores), dupSame: l.dupSame}
	if st := l.ds.runStore; st != nil {
		m.runs = st.n - len(st.holes)
	}
	l.undo = m
}

// rollback drops every run and score-log row added since l.undo, and the
// METR human scores they set, and indexes the runs anew. The input's
// rejected records and warnings stay: they are true of the file.
func (l *loader) rollback() {
	m := l.undo
	l.rowRuns()
	clear(l.ds.Runs[m.runs:])
	l.ds.Runs = l.ds.Runs[:m.runs]
	clear(l.ds.Scores[m.scores:])
	l.ds.Scores = l.ds.Scores[:m.scores]
	l.dupSame = m.dupSame
	if m.humanRef != nil {
		l.humanRef = m.humanRef
		l.lastHuman.task, l.lastHuman.score = "", 0
	}
	l.stretches = nil
	l.rebuildRunIndex()
}

// checkGzipEnd reads what is left of a gzip source's stream, so that its
// trailer (CRC-32 and length) is checked also when the reader stopped
// before the end (a JSON document's reader stops after its last value),
// and records an error when it fails.
func (l *loader) checkGzipEnd(s *source) {
	if _, ok := l.fileErrs[s.path]; ok {
		return
	}
	if _, err := io.Copy(io.Discard, s.br); err != nil {
		e := s.readErr(err).(*Error)
		if s.line == 0 {
			e.Line = 0 // a reader of a JSON document counts no lines
		}
		l.fileErr(s.path, e)
	}
}

// inputErr records an input that could not be opened at all: an error,
// and an entry in Dataset.Inputs that holds it (with no checksum).
func (l *loader) inputErr(path string, err error) {
	l.fileErr(path, err)
	l.ds.Inputs = append(l.ds.Inputs, InputStats{Path: path, Reader: "none", Error: l.fileErrs[path]})
	delete(l.fileErrs, path)
}

func (l *loader) warn(file, format string, args ...any) {
	l.ds.Warnings = append(l.ds.Warnings, Warning{File: file, Msg: fmt.Sprintf(format, args...)})
}

// reject records a bad record.
func (l *loader) reject(st *InputStats, e *Error, text []byte) {
	st.RowsRejected++
	l.ds.Errors = append(l.ds.Errors, e)
	if len(text) > 1<<20 {
		text = text[:1<<20]
	}
	l.ds.Rejected = append(l.ds.Rejected, Rejected{File: e.File, Line: e.Line, Error: e.Error(), Text: strings.ToValidUTF8(string(text), "\uFFFD")})
}

func (l *loader) loadFile(path string) {
	if o := l.listed[filepath.Clean(path)]; o != nil {
		o.seen = true
	}
	var s *source
	var err error
	if l.opt.FS != nil {
		var f fs.File
		if f, err = l.opt.FS.Open(path); err == nil {
			s, err = newSource(path, f, nil)
			if err != nil {
				f.Close()
			} else {
				s.closer = f
			}
		}
	} else {
		s, err = openSource(path)
	}
	if err != nil {
		l.inputErr(path, err)
		return
	}
	defer s.Close()
	st := InputStats{Path: path, Gzip: s.isGzip, Reader: "none"}
	if s.isGzip {
		l.mark()
	}
	defer func() {
		if s.isGzip {
			l.checkGzipEnd(s)
		}
		st.SHA256, st.Bytes = s.finish()
		l.verifyManifest(path, st.SHA256)
		if msg, ok := l.fileErrs[path]; ok {
			st.Error = msg
			delete(l.fileErrs, path)
			if s.isGzip && (st.RowsKept > 0 || l.undo.humanRef != nil) {
				// The CRC-32 and length in a gzip trailer cover the whole
				// stream: with the stream corrupt or cut short, the records
				// read before the error cannot be trusted either.
				l.rollback()
				st.RowsKept = 0
			}
		}
		l.undo = nil
		l.ds.Inputs = append(l.ds.Inputs, st)
	}()

	head := s.peek(8)
	switch {
	case bytes.HasPrefix(head, []byte("PAR1")):
		st.Reader = ReaderRdevalParquet
		l.readTableFile(s, &st, readParquetTables)
		return
	case bytes.HasPrefix(head, []byte("ARROW1")):
		st.Reader = ReaderRdevalArrowIPC
		l.readTableFile(s, &st, readIPCTables)
		return
	case bytes.HasPrefix(head, []byte("PK\x03\x04")):
		if s.isGzip {
			l.fileErr(path, &Error{File: path, Msg: "a gzip-compressed zip archive: decompress it first"})
			return
		}
		l.readInspectEval(path, &st)
		return
	}
	if isInspectManifestName(filepath.Base(path)) && looksInspectManifest(s.peek(64<<10)) {
		st.Reader = ReaderInspectManifest
		l.warn(path, "%s", inspectManifestNote(filepath.Base(path)))
		return
	}
	if l.readHarnessJSON(s, &st) {
		return
	}
	if looksInspectJSON(s.peek(64 << 10)) {
		l.readInspectJSON(path, s.br, &st)
		return
	}
	if filepath.Base(path) == "result.json" && looksExecuteResult(s.peek(64<<10)) {
		l.readExecuteResult(path, s.br, &st)
		return
	}
	if filepath.Base(path) == "result.json" && looksHarborTrial(s.peek(64<<10)) {
		l.readHarborTrial(path, s.br, &st)
		return
	}
	if strings.HasSuffix(strings.TrimSuffix(filepath.Base(path), ".gz"), ".json") && looksTerminalBench(s.peek(64<<10)) {
		l.readTerminalBench(path, s.br, &st)
		return
	}
	if r := l.opt.Reader; r == ReaderHarbor || r == ReaderTerminalBench {
		l.fileErr(path, &Error{File: path, Msg: "--reader " + r + ": not a " + map[string]string{ReaderHarbor: "Harbor trial result.json", ReaderTerminalBench: "terminal-bench results.json"}[r]})
		return
	}

	// The first non-blank line decides the format.
	var first []byte
	for {
		line, err := s.readLine()
		if err == io.EOF {
			l.fileErr(path, &Error{File: path, Msg: "empty file: no records (want JSON Lines or CSV with a header)"})
			return
		}
		if err != nil {
			l.fileErr(path, err)
			return
		}
		if len(bytes.TrimSpace(line)) > 0 {
			// A line in the read buffer is copied (peek may move it); a
			// long one, in s.scratch, stays put until the next readLine,
			// which each reader calls only after it is done with first.
			first = line
			if !s.inScratch {
				first = append([]byte(nil), line...)
			}
			break
		}
	}
	if crOnly(first) {
		l.fileErr(path, &Error{File: path, Line: s.line, Msg: `lines end in CR alone (old Mac style), so the whole file reads as one line: convert the line ends, e.g. tr '\r' '\n'`})
		return
	}
	if looksJSON(first) {
		t := bytes.TrimSpace(first)
		if bytes.Equal(t, []byte("{")) || t[0] == '[' {
			l.fileErr(path, &Error{File: path, Line: s.line, Msg: "a single JSON document, not JSON Lines (one object per line) nor an Inspect log; convert it with `jq -c '.[]'`"})
			return
		}
		reader := l.opt.Reader
		if reader == "" {
			reader = sniffJSON(first)
			if reader == ReaderGeneric {
				// A bad first line (cut short, or a stray object) must not
				// make the file generic, and every good line an error
				// about a missing column: the next lines decide.
				reader = sniffJSONLines(s.peek(64<<10), reader)
			}
			if len(l.opt.Map) > 0 {
				reader = ReaderGeneric
			}
		}
		st.Reader = reader
		l.readJSONL(s, &st, first, reader)
		return
	}
	if !utf8.Valid(first) {
		l.fileErr(path, &Error{File: path, Line: s.line, Msg: "invalid UTF-8 in the header: want UTF-8 text (JSON Lines or CSV)"})
		return
	}
	var sp csvline.Splitter
	fields, err := sp.Split(first)
	header := make([]string, len(fields))
	for i, f := range fields {
		header[i] = string(f)
	}
	if err != nil {
		l.fileErr(path, &Error{File: path, Line: s.line, Msg: "not JSON Lines, and the first line is not a CSV header: " + err.Error()})
		return
	}
	if len(header) < 2 {
		l.fileErr(path, &Error{File: path, Line: s.line, Msg: fmt.Sprintf("unrecognized format: first line %q is neither a JSON object nor a CSV header with 2+ columns", truncate(string(first), 60))})
		return
	}
	reader := l.opt.Reader
	if reader == "" {
		reader = sniffCSV(header)
		if len(l.opt.Map) > 0 {
			reader = ReaderGeneric
		}
	}
	st.Reader = reader
	l.readCSV(s, &st, header, s.line, reader)
}

// sniffJSONLines returns the reader that the first of up to 16 complete
// lines in buf (the bytes after a file's first line) that sniffJSON knows
// picks, or def when none does.
func sniffJSONLines(buf []byte, def string) string {
	for range 16 {
		i := bytes.IndexByte(buf, '\n')
		if i < 0 {
			break
		}
		line := bytes.TrimSpace(buf[:i])
		buf = buf[i+1:]
		if len(line) == 0 || !looksJSON(line) {
			continue
		}
		if r := sniffJSON(line); r != ReaderGeneric {
			return r
		}
	}
	return def
}

// crOnly reports whether a file's first line (without its "\n" or "\r\n")
// holds more lines that end in a bare CR: text follows a CR (in JSON
// Lines, the next object; a CR is also JSON whitespace within one).
func crOnly(first []byte) bool {
	i := bytes.IndexByte(first, '\r')
	if i < 0 {
		return false
	}
	rest := bytes.TrimSpace(first[i+1:])
	return len(rest) > 0 && (!looksJSON(first) || rest[0] == '{')
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

// readTableFile reads a Parquet or Arrow IPC file that rdeval wrote.
func (l *loader) readTableFile(s *source, st *InputStats, read func(*os.File, int64, *tableSink) error) {
	if s.file == nil || s.isGzip {
		l.fileErr(s.path, &Error{File: s.path, Msg: "compressed Parquet/Arrow files are not supported; decompress first"})
		return
	}
	fi, err := s.file.Stat()
	if err != nil {
		l.fileErr(s.path, err)
		return
	}
	if o := l.listed[filepath.Clean(s.path)]; o != nil {
		// Hashed before it is parsed, so a table that does not belong to
		// its manifest adds nothing; finish then has nothing left to hash.
		io.Copy(io.Discard, s.raw)
		if !l.verifyManifest(s.path, hex.EncodeToString(s.sum.Sum(nil))) {
			return
		}
	}
	sink := &tableSink{}
	if err := read(s.file, fi.Size(), sink); err != nil {
		l.fileErr(s.path, &Error{File: s.path, Msg: err.Error()})
		return
	}
	l.rowRuns()
	st.RowsRead = len(sink.runs) + len(sink.scores) + len(sink.tasks)
	st.RowsKept = st.RowsRead
	for _, r := range sink.runs {
		l.addRun(&r, st)
	}
	l.ds.Scores = append(l.ds.Scores, sink.scores...)
	for _, t := range sink.tasks {
		l.cat.Add(t)
		l.tableTasks = append(l.tableTasks, t)
	}
}

// ensure math is used (NaN defaults for score entries).
var nan = math.NaN()

// inspectJSONFile reports whether the file at path starts like an Inspect
// .json log.
func inspectJSONFile(fsys fs.FS, path string) bool {
	return looksInspectJSON(fileHead(fsys, path))
}

// fileHead returns the first 64 KiB of the file at path (nil if it cannot
// be read).
func fileHead(fsys fs.FS, path string) []byte {
	head, _ := readHead(fsys, path, 64<<10)
	return head
}
