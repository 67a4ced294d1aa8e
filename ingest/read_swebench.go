package ingest

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"go.yaml.in/yaml/v3"
)

// ReaderSWEBench reads SWE-bench evaluations: the SWE-bench/experiments
// layout (<submission>/results/results.json with logs/<instance>/) and the
// harness's own run report (<model>.<run_id>.json, with
// logs/run_evaluation/<run_id>/<model>/<instance>/ beside it).
const ReaderSWEBench = "swe-bench"

// SWE-bench split sizes (instances in the dataset's test split), used to
// say when a folder lists fewer instances than its split holds:
// princeton-nlp/SWE-bench 2294, SWE-bench_Lite 300, SWE-bench_Verified 500
// (the SWE-bench paper and the datasets' cards). bash-only is Verified.
var sweBenchSplitSize = map[string]int{"test": 2294, "lite": 300, "verified": 500, "bash-only": 500}

// sweInstanceReport is one instance's report.json entry (grading.py
// get_eval_report; report.json is {instance_id: this}).
type sweInstanceReport struct {
	PatchIsNone              bool    `json:"patch_is_None"`
	PatchExists              bool    `json:"patch_exists"`
	PatchSuccessfullyApplied bool    `json:"patch_successfully_applied"`
	Resolved                 bool    `json:"resolved"`
	InfraFailure             bool    `json:"infra_failure"`
	InfraFailureReason       *string `json:"infra_failure_reason"`
}

// sweRunReport is the harness's run report (reporting.py make_run_report;
// schema_version 2 in v5, no version before).
type sweRunReport struct {
	TotalInstances *int     `json:"total_instances"`
	CompletedIDs   []string `json:"completed_ids"`
	IncompleteIDs  []string `json:"incomplete_ids"`
	EmptyPatchIDs  []string `json:"empty_patch_ids"`
	SubmittedIDs   []string `json:"submitted_ids"`
	ResolvedIDs    []string `json:"resolved_ids"`
	UnresolvedIDs  []string `json:"unresolved_ids"`
	ErrorIDs       []string `json:"error_ids"`
	SchemaVersion  *int     `json:"schema_version"`
}

// looksSWERunReport reports whether a JSON document's first bytes look like
// a SWE-bench harness run report.
func looksSWERunReport(head []byte) bool {
	return bytes.Contains(head, []byte(`"total_instances"`)) && bytes.Contains(head, []byte(`"resolved_ids"`))
}

// isSWEResultsJSON reports whether path is an experiments results.json
// (results/results.json).
func isSWEResultsJSON(p string) bool {
	return filepath.Base(p) == "results.json" && filepath.Base(filepath.Dir(p)) == "results"
}

// skipHarnessFile reports whether a file found in a folder is read with a
// harness's report rather than on its own (skipSWEFile, skipMLEFile).
func skipHarnessFile(fsys fs.FS, p string) bool { return skipSWEFile(fsys, p) || skipMLEFile(p) }

// sweSubmissionAbove returns the submission folder of a file under
// <submission>/logs/ or <submission>/trajs/ (a folder holding
// results/results.json or per_instance_details.json).
func sweSubmissionAbove(fsys fs.FS, p string) (string, bool) {
	elems := strings.Split(filepath.ToSlash(p), "/")
	for i := len(elems) - 2; i >= 0; i-- {
		if elems[i] != "logs" && elems[i] != "trajs" {
			continue
		}
		sub := "."
		if i > 0 {
			sub = filepath.FromSlash(strings.Join(elems[:i], "/"))
		}
		if isFileFS(fsys, filepath.Join(sub, "results", "results.json")) || isFileFS(fsys, filepath.Join(sub, "per_instance_details.json")) {
			return sub, true
		}
	}
	return "", false
}

// isSWEDetailsJSON reports whether path is the per-instance map of the
// experiments' bash-only submissions (per_instance_details.json).
func isSWEDetailsJSON(p string) bool { return filepath.Base(p) == "per_instance_details.json" }

// isSWEHarnessInput reports whether a JSON file in a folder is a SWE-bench
// input (expandInput): an experiments results.json, a
// per_instance_details.json without a results/results.json beside it (the
// results.json reads it then), or a run report.
func isSWEHarnessInput(fsys fs.FS, p string) bool {
	if isSWEResultsJSON(p) {
		return true
	}
	if isSWEDetailsJSON(p) {
		_, err := statFS(fsys, filepath.Join(filepath.Dir(p), "results", "results.json"))
		return err != nil
	}
	head, err := readHead(fsys, p, 4096)
	return err == nil && looksSWERunReport(head)
}

// skipSWEFile reports whether a file found in a folder belongs to a
// SWE-bench experiments submission and is read with its results.json (or
// per_instance_details.json) rather than on its own:
// <submission>/all_preds.jsonl (the predictions, read for the model and
// the patches) and every file under <submission>/logs/ or
// <submission>/trajs/ (the logs are read per instance; trajectories are
// not runs). Other predictions files are recognised by their first record
// when read (readHarnessJSON), so that no file is opened twice here.
func skipSWEFile(fsys fs.FS, p string) bool {
	if _, ok := sweSubmissionAbove(fsys, p); ok {
		return true
	}
	if filepath.Base(p) == "all_preds.jsonl" {
		for _, f := range []string{filepath.Join("results", "results.json"), "per_instance_details.json"} {
			if _, err := statFS(fsys, filepath.Join(filepath.Dir(p), f)); err == nil {
				return true
			}
		}
	}
	return false
}

// looksSWEPredictions reports whether a file's first line is a SWE-bench
// prediction (instance_id and model_patch keys).
func looksSWEPredictions(head []byte) bool {
	first, _, _ := bytes.Cut(head, []byte("\n"))
	return bytes.Contains(first, []byte(`"instance_id"`)) && bytes.Contains(first, []byte(`"model_patch"`))
}

func statFS(fsys fs.FS, p string) (fs.FileInfo, error) {
	if fsys != nil {
		return fs.Stat(fsys, filepath.ToSlash(p))
	}
	return os.Stat(p)
}

func readFileFS(fsys fs.FS, p string) ([]byte, error) {
	if fsys != nil {
		return fs.ReadFile(fsys, filepath.ToSlash(p))
	}
	return os.ReadFile(p)
}

func readDirFS(fsys fs.FS, p string) ([]fs.DirEntry, error) {
	if fsys != nil {
		return fs.ReadDir(fsys, filepath.ToSlash(p))
	}
	return os.ReadDir(p)
}

func readHead(fsys fs.FS, p string, n int) ([]byte, error) {
	var f io.ReadCloser
	var err error
	if fsys != nil {
		f, err = fsys.Open(filepath.ToSlash(p))
	} else {
		f, err = os.Open(p)
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b := make([]byte, n)
	k, err := io.ReadFull(f, b)
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, io.EOF) {
		return nil, err
	}
	return b[:k], nil
}

// sweInstance is what rdeval knows about one instance of a SWE-bench
// evaluation before it becomes a run.
type sweInstance struct {
	id      string
	class   string          // the source's class: resolved, unresolved, error, empty_patch, incomplete, no_generation, no_logs, …
	logDir  string          // the instance's log folder ("" when none)
	patch   []byte          // the agent's patch (patch.diff, else the prediction), nil when unknown
	patchOK bool            // patch holds the patch
	lists   []string        // the source's lists that name the instance (extras)
	detail  json.RawMessage // its per_instance_details.json entry, nil when none (extras)
}

// readSWEBench reads a SWE-bench results.json (experiments layout) or a
// harness run report, whose whole content is in data. It returns false
// when data is neither, so that the caller tries the other readers.
func (l *loader) readSWEBench(p string, data []byte, st *InputStats) bool {
	if isSWEResultsJSON(p) || isSWEDetailsJSON(p) {
		st.Reader = ReaderSWEBench
		l.readSWEExperiments(p, data, st)
		return true
	}
	if looksSWERunReport(data[:min(len(data), 64<<10)]) {
		st.Reader = ReaderSWEBench
		l.readSWERunReport(p, data, st)
		return true
	}
	return false
}

// readSWEExperiments maps a SWE-bench/experiments submission to runs. p is
// <submission>/results/results.json or, for the bash-only entries that have
// no results.json, <submission>/per_instance_details.json
// ({instance_id: {cost, api_calls, resolved}}; beside a results.json it is
// read with it, for its costs):
//
//   - Instances: the union of every list in results.json, the keys of
//     per_instance_details.json, the instance folders under
//     <submission>/logs/ and the instance ids of all_preds.jsonl; and, when
//     the catalog (--tasks) lists tasks of the benchmark, those: the
//     split's instances, so the rows have SWE-bench's denominator even
//     when the logs were removed (results.json lists only resolved,
//     no_generation and no_logs; older ones also generated, with_logs,
//     applied, no_apply, install_fail, reset_failed, test_errored,
//     test_timeout). Without such a catalog, when the submission sits in
//     evaluation/<split>/ and fewer instances are known than that split
//     holds (lite 300, verified and bash-only 500, test 2294), a warning
//     names the shortfall: those instances have no row, so a resolved rate
//     over the rows would be too high.
//   - agent: the submission folder's name (e.g. 20240620_sweagent_claude3.5sonnet),
//     the leaderboard's name for it; model: tags.model of metadata.yaml,
//     else model_name_or_path of all_preds.jsonl.
//   - run_id: agent/instance_id; task_id: instance_id; task_family: the
//     repository (astropy__astropy-12907 → astropy/astropy); benchmark:
//     swe-bench-<split> for evaluation/lite|verified|…, swe-bench-verified
//     for bash-only (the Verified board's bash-only entries), swe-bench for
//     evaluation/test or an unknown split.
//   - outcome (sweOutcome): the lists decide resolved, no_generation and
//     no_logs; the instance's report.json and logs refine the rest.
//   - score and score_binarized: 1 if resolved else 0, for every instance,
//     so the mean is SWE-bench's resolved rate.
//   - cost_usd: per_instance_details.json's cost; files_edited,
//     lines_added, lines_deleted: from logs/<instance>/patch.diff, else the
//     prediction's model_patch.
//
// Tokens and times are not in these files and stay null.
func (l *loader) readSWEExperiments(p string, data []byte, st *InputStats) {
	var lists map[string]json.RawMessage
	var details map[string]sweDetail
	var detailsRaw map[string]json.RawMessage // the entries as written (extras)
	sub, detailsPath := filepath.Dir(filepath.Dir(p)), ""
	if isSWEDetailsJSON(p) {
		sub, detailsPath = filepath.Dir(p), p
	} else {
		if err := json.Unmarshal(data, &lists); err != nil {
			l.fileErr(p, &Error{File: p, Msg: "not a SWE-bench results.json (want an object of instance id lists): " + err.Error()})
			return
		}
		if dp := filepath.Join(sub, "per_instance_details.json"); isFileFS(l.opt.FS, dp) {
			detailsPath = dp // read with results.json: its costs are kept
		}
	}
	if detailsPath != "" {
		b := data
		if detailsPath != p {
			var err error
			if b, err = readFileFS(l.opt.FS, detailsPath); err != nil {
				l.fileErr(detailsPath, err)
				return
			}
		}
		if err := json.Unmarshal(b, &details); err != nil {
			l.fileErr(detailsPath, &Error{File: detailsPath, Msg: "not a SWE-bench per_instance_details.json (want {instance_id: {resolved, cost, api_calls}}): " + err.Error()})
			return
		}
		_ = json.Unmarshal(b, &detailsRaw) // decodes: details did
	}
	agent := filepath.Base(sub)
	if abs, err := filepath.Abs(sub); err == nil && (agent == "." || agent == "/" || agent == "") {
		agent = filepath.Base(abs)
	}
	classOf := map[string]string{}
	listsOf := map[string][]string{}
	var ids []string
	add := func(id string) {
		if _, ok := classOf[id]; !ok {
			classOf[id] = ""
			ids = append(ids, id)
		}
	}
	// Precedence when an id is in several lists: the most specific class
	// wins (resolved, then the failure classes, then no_generation).
	rank := map[string]int{"resolved": 9, "no_generation": 8, "no_logs": 7, "no_apply": 6, "test_timeout": 5,
		"test_errored": 4, "install_fail": 3, "reset_failed": 3, "applied": 2}
	keys := make([]string, 0, len(lists))
	for k := range lists {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		var v []string
		if err := json.Unmarshal(lists[k], &v); err != nil {
			l.fileErr(p, &Error{File: p, Field: k, Msg: "want a list of instance ids: " + err.Error()})
			return
		}
		for _, id := range v {
			if id == "" {
				l.fileErr(p, &Error{File: p, Field: k, Msg: "empty instance id"})
				return
			}
			add(id)
			if l := listsOf[id]; len(l) == 0 || l[len(l)-1] != k {
				listsOf[id] = append(l, k)
			}
			if r, ok := rank[k]; ok && r > rank[classOf[id]] {
				classOf[id] = k
			}
		}
	}
	detailIDs := make([]string, 0, len(details))
	for id := range details {
		detailIDs = append(detailIDs, id)
	}
	sort.Strings(detailIDs)
	for _, id := range detailIDs {
		d := details[id]
		if d.Resolved == nil {
			l.fileErr(detailsPath, &Error{File: detailsPath, Field: id, Msg: "missing resolved (want true or false)"})
			return
		}
		_, listed := classOf[id]
		add(id)
		switch {
		case lists == nil && *d.Resolved:
			classOf[id] = "resolved"
		case lists != nil && *d.Resolved != (classOf[id] == "resolved"):
			l.warn(detailsPath, "%s: resolved=%v, but results.json lists it under %q (listed: %v); results.json decides", id, *d.Resolved, classOf[id], listed)
		}
	}
	// Predictions: model and patches.
	model := ""
	preds := map[string][]byte{}
	predsPath := filepath.Join(sub, "all_preds.jsonl")
	if b, err := readFileFS(l.opt.FS, predsPath); err == nil {
		sc := bufio.NewScanner(bytes.NewReader(b))
		sc.Buffer(nil, maxLine)
		n := 0
		for sc.Scan() {
			n++
			line := bytes.TrimSpace(sc.Bytes())
			if len(line) == 0 {
				continue
			}
			var pr struct {
				InstanceID string  `json:"instance_id"`
				Model      string  `json:"model_name_or_path"`
				Patch      *string `json:"model_patch"`
			}
			if err := json.Unmarshal(line, &pr); err != nil || pr.InstanceID == "" {
				msg := "want a prediction {instance_id, model_name_or_path, model_patch}"
				if err != nil {
					msg += ": " + err.Error()
				}
				l.fileErr(predsPath, &Error{File: predsPath, Line: n, Field: "instance_id", Msg: msg})
				return
			}
			if model == "" {
				model = pr.Model
			}
			add(pr.InstanceID)
			if pr.Patch != nil {
				preds[pr.InstanceID] = []byte(*pr.Patch)
			} else {
				preds[pr.InstanceID] = nil
			}
		}
		if err := sc.Err(); err != nil {
			l.fileErr(predsPath, err)
			return
		}
	}
	logs := filepath.Join(sub, "logs")
	if entries, err := readDirFS(l.opt.FS, logs); err == nil {
		for _, e := range entries {
			if e.IsDir() && !strings.HasPrefix(e.Name(), ".") {
				add(e.Name())
			}
		}
	}
	split := sweSplitFromPath(sub)
	if bench := sweBenchmark(split); l.cat.HasBenchmark(bench) {
		// The catalog (--tasks) lists the split's instances: each is a row.
		for _, t := range l.cat.Tasks(bench) {
			add(t.TaskID)
		}
	} else {
		l.checkSWESplit(p, split, len(ids))
	}
	if m := sweMetadataModel(l.opt.FS, sub); m != "" {
		model = m
	}
	sort.Strings(ids)
	for _, id := range ids {
		in := sweInstance{id: id, class: classOf[id], lists: listsOf[id]}
		if d, ok := detailsRaw[id]; ok {
			in.detail = d
		}
		if d := filepath.Join(logs, id); isDirFS(l.opt.FS, d) {
			in.logDir = d
		}
		if pp, ok := preds[id]; ok {
			in.patch, in.patchOK = pp, true
		}
		run := Run{RunID: agent + "/" + id, Agent: agent, SourceFile: p, SourceLine: 1}
		if model != "" {
			run.Model = Some(model)
		}
		if d, ok := details[id]; ok && d.Cost != nil {
			run.CostUSD = Some(*d.Cost)
		}
		l.addSWERun(p, st, &run, in, split)
	}
}

// sweMetadataModel returns tags.model of a submission's metadata.yaml (or
// metadata.yml): the model name the leaderboard shows ("a, b" for a list),
// or "".
func sweMetadataModel(fsys fs.FS, sub string) string {
	for _, name := range []string{"metadata.yaml", "metadata.yml"} {
		b, err := readFileFS(fsys, filepath.Join(sub, name))
		if err != nil {
			continue
		}
		var meta struct {
			Tags struct {
				Model any `yaml:"model"`
			} `yaml:"tags"`
		}
		if yaml.Unmarshal(b, &meta) != nil {
			return ""
		}
		switch m := meta.Tags.Model.(type) {
		case string:
			return m
		case []any:
			var names []string
			for _, x := range m {
				if s, ok := x.(string); ok && s != "" {
					names = append(names, s)
				}
			}
			return strings.Join(names, ", ")
		}
		return ""
	}
	return ""
}

// sweSplitFromPath returns the split of a submission folder in the
// experiments layout (evaluation/<split>/<submission>), or "".
func sweSplitFromPath(sub string) string {
	abs, err := filepath.Abs(sub)
	if err != nil {
		abs = sub
	}
	parent := filepath.Dir(abs)
	if filepath.Base(filepath.Dir(parent)) == "evaluation" {
		return filepath.Base(parent)
	}
	return ""
}

func (l *loader) checkSWESplit(p, split string, n int) {
	if want, ok := sweBenchSplitSize[split]; ok && n < want {
		l.warn(p, "SWE-bench %s has %d instances, the folder names %d: the other %d have no row (a resolved rate over these rows is too high)", split, want, n, want-n)
	}
}

func sweBenchmark(split string) string {
	switch split {
	case "", "test", "full":
		return "swe-bench"
	case "bash-only":
		return "swe-bench-verified" // the Verified board's bash-only entries: the same 500 instances
	}
	return "swe-bench-" + strings.ToLower(split)
}

func isFileFS(fsys fs.FS, p string) bool {
	fi, err := statFS(fsys, p)
	return err == nil && fi.Mode().IsRegular()
}

// sweDetail is one entry of per_instance_details.json.
type sweDetail struct {
	Cost     *float64 `json:"cost"`
	APICalls *float64 `json:"api_calls"`
	Resolved *bool    `json:"resolved"`
}

func isDirFS(fsys fs.FS, p string) bool {
	fi, err := statFS(fsys, p)
	return err == nil && fi.IsDir()
}

// readSWERunReport maps a harness run report (<model>.<run_id>.json) to
// runs, one per instance of the dataset the run was given:
//
//   - Instances: incomplete_ids ∪ empty_patch_ids ∪ resolved_ids ∪
//     unresolved_ids ∪ error_ids (with completed_ids), which make up the
//     dataset (reporting.py puts every instance in exactly one of
//     incomplete, empty patch, resolved, unresolved, error). When
//     total_instances is larger a warning names the shortfall (ids the
//     report does not list have no row).
//   - run_id and model: the logs/run_evaluation/<run_id>/<model>/ folder
//     beside the report whose "<model>.<run_id>.json" is the report's file
//     name ("/" in a model is "__" on disk and becomes "/" again); without
//     the logs, the file name split at its last "." (run_id after it).
//   - agent and model: model_name_or_path; run_id: <run_id>/<model>/<instance_id>;
//     benchmark from <run_id>/run.json's dataset (v5) when it names Lite or
//     Verified, else swe-bench.
//   - outcome: sweOutcome; score as for the experiments layout.
func (l *loader) readSWERunReport(p string, data []byte, st *InputStats) {
	var rep sweRunReport
	if err := json.Unmarshal(data, &rep); err != nil {
		l.fileErr(p, &Error{File: p, Msg: "not a SWE-bench run report: " + err.Error()})
		return
	}
	dir := filepath.Dir(p)
	base := strings.TrimSuffix(filepath.Base(p), ".json")
	runID, modelDir := "", ""
	evalDir := filepath.Join(dir, "logs", "run_evaluation")
	if runs, err := readDirFS(l.opt.FS, evalDir); err == nil {
		for _, r := range runs {
			if !r.IsDir() {
				continue
			}
			models, _ := readDirFS(l.opt.FS, filepath.Join(evalDir, r.Name()))
			for _, m := range models {
				if m.IsDir() && m.Name()+"."+r.Name() == base {
					runID, modelDir = r.Name(), m.Name()
				}
			}
		}
	}
	if runID == "" {
		i := strings.LastIndexByte(base, '.')
		if i <= 0 || i == len(base)-1 {
			l.fileErr(p, &Error{File: p, Msg: "cannot tell the model and run id: want the file name <model>.<run_id>.json (or logs/run_evaluation/<run_id>/<model>/ beside it)"})
			return
		}
		modelDir, runID = base[:i], base[i+1:]
	}
	model := strings.ReplaceAll(modelDir, "__", "/")
	benchmark := "swe-bench"
	if b, err := readFileFS(l.opt.FS, filepath.Join(evalDir, runID, "run.json")); err == nil {
		var meta struct {
			Dataset string `json:"dataset"`
		}
		if json.Unmarshal(b, &meta) == nil {
			d := strings.ToLower(meta.Dataset)
			switch {
			case strings.Contains(d, "lite"):
				benchmark = "swe-bench-lite"
			case strings.Contains(d, "verified"):
				benchmark = "swe-bench-verified"
			}
		}
	}
	classOf := map[string]string{}
	var ids []string
	for _, c := range []struct {
		class string
		ids   []string
	}{
		{"incomplete", rep.IncompleteIDs}, {"empty_patch", rep.EmptyPatchIDs}, {"unresolved", rep.UnresolvedIDs},
		{"error", rep.ErrorIDs}, {"resolved", rep.ResolvedIDs},
	} {
		for _, id := range c.ids {
			if prev, dup := classOf[id]; dup {
				l.fileErr(p, &Error{File: p, Field: c.class + "_ids", Msg: fmt.Sprintf("instance %s is also in %s_ids: a run report puts each instance in one class", id, prev)})
				return
			}
			classOf[id] = c.class
			ids = append(ids, id)
		}
	}
	for _, id := range rep.CompletedIDs {
		if _, ok := classOf[id]; !ok {
			l.fileErr(p, &Error{File: p, Field: "completed_ids", Msg: fmt.Sprintf("instance %s is completed but neither resolved, unresolved nor error", id)})
			return
		}
	}
	if rep.TotalInstances != nil && len(ids) < *rep.TotalInstances {
		l.warn(p, "total_instances is %d, the report lists %d: the other %d have no row (a resolved rate over these rows is too high)", *rep.TotalInstances, len(ids), *rep.TotalInstances-len(ids))
	}
	sort.Strings(ids)
	for _, id := range ids {
		in := sweInstance{id: id, class: classOf[id], lists: []string{classOf[id] + "_ids"}}
		if d := filepath.Join(evalDir, runID, modelDir, id); isDirFS(l.opt.FS, d) {
			in.logDir = d
		}
		run := Run{RunID: runID + "/" + modelDir + "/" + id, Agent: model, Model: Some(model), SourceFile: p, SourceLine: 1}
		split := ""
		if benchmark != "swe-bench" {
			split = strings.TrimPrefix(benchmark, "swe-bench-")
		}
		l.addSWERun(p, st, &run, in, split)
	}
}

// sweOutcome maps an instance to rdeval's outcome and error_type. With the
// instance's report.json (rep, nil when absent) and its logs (test_output.txt,
// run_instance.log: logText):
//
//	resolved                        → success
//	no_generation (experiments)     → no_patch, "no generation"
//	incomplete (no prediction)      → no_patch, "no prediction"
//	empty_patch, an empty prediction without logs, or patch_is_None /
//	no patch_exists in report.json  → no_patch, "empty patch"
//	no_logs (experiments)           → exec_error, "no logs"
//	no_apply, or the log says ">>>>> Patch Apply Failed"
//	                                → patch_failed
//	test_timeout, or the log says "Test timed out" / ">>>>> Tests Timed Out"
//	                                → timeout
//	report.json with tests graded (patch_successfully_applied) but not resolved,
//	unresolved in a run report, or applied (older results.json) but not
//	resolved                        → wrong_result
//	anything else (error, test_errored, install_fail, reset_failed, no
//	parseable test output)          → exec_error, with the class as error_type
//	not resolved, and no list, report or log says more (a submission whose
//	logs were removed; an instance known only from the catalog)
//	                                → outcome null, final_success false
//
// Every one of them counts in the denominator; only resolved is a success.
func sweOutcome(in sweInstance, rep *sweInstanceReport, logText []byte) (outcome, errType string) {
	applyFail := bytes.Contains(logText, []byte(">>>>> Patch Apply Failed"))
	timedOut := bytes.Contains(logText, []byte("Test timed out")) || bytes.Contains(logText, []byte(">>>>> Tests Timed Out")) ||
		bytes.Contains(logText, []byte("Timeout error: "))
	switch in.class {
	case "resolved":
		return "success", ""
	case "no_generation":
		return "no_patch", "no generation"
	case "incomplete":
		return "no_patch", "no prediction"
	case "empty_patch":
		return "no_patch", "empty patch"
	case "no_logs":
		return "exec_error", "no logs"
	case "no_apply":
		return "patch_failed", "patch failed"
	case "test_timeout":
		return "timeout", "Execution Timeout"
	case "applied": // older results.json: applied and tested, not resolved
		return "wrong_result", ""
	}
	if rep != nil && (rep.PatchIsNone || !rep.PatchExists) {
		return "no_patch", "empty patch"
	}
	switch {
	case applyFail:
		return "patch_failed", "patch failed"
	case timedOut:
		return "timeout", "Execution Timeout"
	case rep != nil && rep.PatchSuccessfullyApplied:
		return "wrong_result", ""
	case in.class == "unresolved" && rep == nil:
		return "wrong_result", ""
	case rep != nil:
		return "exec_error", "no test results"
	case in.class == "" && in.logDir == "":
		return "", "" // unresolved, why unknown: no list, report or log says
	case in.class == "", in.class == "error":
		return "exec_error", "evaluation error"
	}
	return "exec_error", in.class
}

// addSWERun fills in an instance's run from its logs and adds it.
func (l *loader) addSWERun(p string, st *InputStats, run *Run, in sweInstance, split string) {
	st.RowsRead++
	run.TaskID = in.id
	run.Benchmark = sweBenchmark(split)
	run.Kind = "agent"
	if repo, ok := sweRepo(in.id); ok {
		run.TaskFamily = Some(repo)
	}
	var rep *sweInstanceReport
	var repRaw json.RawMessage
	var logText []byte
	if in.logDir != "" {
		rp := filepath.Join(in.logDir, "report.json")
		if b, err := readFileFS(l.opt.FS, rp); err == nil {
			var m map[string]sweInstanceReport
			if len(bytes.TrimSpace(b)) > 0 { // reporting.py: an empty report.json is an error
				if err := json.Unmarshal(b, &m); err != nil {
					l.reject(st, &Error{File: rp, Msg: "not a SWE-bench instance report ({instance_id: {resolved, …}}): " + err.Error()}, b)
					return
				}
				r, ok := m[in.id]
				if !ok {
					l.reject(st, &Error{File: rp, Field: in.id, Msg: "the report does not hold its instance"}, b)
					return
				}
				rep = &r
				var raw map[string]json.RawMessage
				_ = json.Unmarshal(b, &raw) // decodes: m did
				repRaw = raw[in.id]
				if r.Resolved != (in.class == "resolved") {
					class := in.class
					if class == "" {
						class = "no list (unresolved)"
					}
					l.warn(rp, "resolved=%v, but the evaluation's lists put %s under %s; the lists decide", r.Resolved, in.id, class)
				}
			}
		}
		for _, name := range []string{"test_output.txt", "run_instance.log"} {
			if b, err := readFileFS(l.opt.FS, filepath.Join(in.logDir, name)); err == nil {
				logText = append(logText, b...)
			}
		}
		if b, err := readFileFS(l.opt.FS, filepath.Join(in.logDir, "patch.diff")); err == nil {
			in.patch, in.patchOK = b, true
		}
	}
	if in.class == "" && rep == nil && in.patchOK && len(bytes.TrimSpace(in.patch)) == 0 {
		in.class = "empty_patch" // an empty prediction is never run (reporting.py)
	}
	if in.class == "" && rep == nil && in.logDir != "" {
		in.class = "error"
	}
	if in.class == "" && rep != nil {
		in.class = "unresolved"
	}
	outcome, errType := sweOutcome(in, rep, logText)
	if outcome != "" {
		run.Outcome = Some(outcome)
	} else {
		run.FinalSuccess = Some(false)
	}
	if errType != "" {
		run.ErrorType = Some(errType)
	}
	if outcome == "success" {
		run.Score, run.ScoreBinarized = Some(1.0), Some(int8(1))
	} else {
		run.Score, run.ScoreBinarized = Some(0.0), Some(int8(0))
	}
	if in.patchOK {
		files, add, del := patchStats(in.patch)
		run.FilesEdited, run.LinesAdded, run.LinesDeleted = files, Some(add), Some(del)
	}
	run.Extras = sweExtras(in, repRaw)
	if err := l.finishRun(run, ReaderSWEBench); err != nil {
		l.reject(st, lineError(&source{path: p, line: 1}, 1, err), nil)
		return
	}
	l.addRun(run, st)
}

// sweExtras is an instance's extras (extras.go): "lists", the source's
// lists that name it (results.json's, in their sorted order; a run
// report's class, e.g. "unresolved_ids"); "report", its report.json entry
// as written (tests_status, infra_failure, …); "details", its
// per_instance_details.json entry less cost (a column). Null when there
// is none of them.
func sweExtras(in sweInstance, report json.RawMessage) Opt[string] {
	m := map[string]any{}
	if len(in.lists) > 0 {
		l := make([]any, len(in.lists))
		for i, s := range in.lists {
			l[i] = s
		}
		m["lists"] = l
	}
	for key, raw := range map[string]json.RawMessage{"report": report, "details": in.detail} {
		if len(raw) == 0 {
			continue
		}
		if o, err := extrasObject(raw); err == nil { // the readers decoded it already
			if key == "details" {
				delete(o, "cost")
			}
			if len(o) > 0 {
				m[key] = o
			}
		}
	}
	return extrasText(m)
}

// sweRepo returns the repository of a SWE-bench instance id
// (owner__repo-123 → owner/repo).
func sweRepo(id string) (string, bool) {
	owner, rest, ok := strings.Cut(id, "__")
	if !ok || owner == "" {
		return "", false
	}
	i := strings.LastIndexByte(rest, '-')
	if i <= 0 {
		return "", false
	}
	return owner + "/" + rest[:i], true
}

// patchStats returns the files a unified diff touches (new paths, sorted;
// a deletion by its old path) and the lines it adds and deletes, counted
// within each hunk by its header's line counts (@@ -a,b +c,d @@), so a
// deleted line that reads "-- x" is not taken for a header. An empty patch
// touches no file ([]string{}, not nil).
func patchStats(b []byte) ([]string, int64, int64) {
	files := map[string]bool{}
	var add, del int64
	var oldLeft, newLeft int64
	var oldPath string
	for _, raw := range bytes.Split(b, []byte("\n")) {
		line := strings.TrimSuffix(string(raw), "\r")
		if oldLeft > 0 || newLeft > 0 {
			switch {
			case strings.HasPrefix(line, "+"):
				add++
				newLeft--
			case strings.HasPrefix(line, "-"):
				del++
				oldLeft--
			case strings.HasPrefix(line, "\\"): // \ No newline at end of file
			default: // context (a blank line is an empty context line)
				oldLeft--
				newLeft--
			}
			continue
		}
		switch {
		case strings.HasPrefix(line, "--- "):
			oldPath = diffPath(line[4:])
		case strings.HasPrefix(line, "+++ "):
			if np := diffPath(line[4:]); np != "" {
				files[np] = true
			} else if oldPath != "" {
				files[oldPath] = true // deleted file
			}
		case strings.HasPrefix(line, "@@ "):
			oldLeft, newLeft = hunkCounts(line)
		}
	}
	out := make([]string, 0, len(files))
	for f := range files {
		out = append(out, f)
	}
	sort.Strings(out)
	return out, add, del
}

// hunkCounts returns the old and new line counts of a hunk header
// "@@ -a[,b] +c[,d] @@" (a missing count is 1).
func hunkCounts(h string) (int64, int64) {
	f := strings.Fields(h)
	if len(f) < 3 {
		return 0, 0
	}
	count := func(s string) int64 {
		_, c, ok := strings.Cut(s[1:], ",")
		if !ok {
			return 1
		}
		var n int64
		for _, d := range c {
			if d < '0' || d > '9' {
				return 0
			}
			n = n*10 + int64(d-'0')
		}
		return n
	}
	return count(f[1]), count(f[2])
}

// diffPath returns the path of a ---/+++ header ("a/x.py" → "x.py"), ""
// for /dev/null.
func diffPath(s string) string {
	if i := strings.IndexByte(s, '\t'); i >= 0 {
		s = s[:i]
	}
	s = strings.TrimSpace(s)
	if s == "/dev/null" {
		return ""
	}
	if strings.HasPrefix(s, "a/") || strings.HasPrefix(s, "b/") {
		s = s[2:]
	}
	return path.Clean(s)
}

// readHarnessJSON reads the JSON documents of the execution harnesses
// (SWE-bench results and run reports, MLE-bench grading reports) when s is
// one (by name and first bytes, or Options.Reader), and reports whether it
// did.
func (l *loader) readHarnessJSON(s *source, st *InputStats) bool {
	p := s.path
	head := s.peek(64 << 10)
	var forced string
	switch l.opt.Reader {
	case "":
	case ReaderSWEBench, ReaderMLEBench:
		forced = l.opt.Reader
	default:
		return false
	}
	if forced == "" && looksSWEPredictions(head) {
		// The harness's --predictions_path: not runs (an unevaluated
		// prediction has no outcome); its evaluation is.
		st.Reader = ReaderSWEBench
		l.warn(p, "SWE-bench predictions (instance_id, model_patch), not runs: skipped; ingest their evaluation (results/results.json, or the run report <model>.<run_id>.json with logs/run_evaluation/)")
		return true
	}
	isSWE := isSWEResultsJSON(p) || isSWEDetailsJSON(p) || looksSWERunReport(head)
	isMLE := looksMLEGradingReport(p, head)
	if forced == "" && !isSWE && !isMLE {
		return false
	}
	data, err := io.ReadAll(io.LimitReader(s.br, maxLine))
	if err != nil {
		l.fileErr(p, s.readErr(err))
		return true
	}
	switch {
	case forced == ReaderMLEBench || (forced == "" && isMLE):
		st.Reader = ReaderMLEBench
		l.readMLEBench(p, data, st)
	case forced == ReaderSWEBench && !isSWE:
		st.Reader = ReaderSWEBench
		l.fileErr(p, &Error{File: p, Msg: "not a SWE-bench results/results.json nor a run report (total_instances, resolved_ids)"})
	default:
		l.readSWEBench(p, data, st)
	}
	return true
}
