package ingest

// Reader for Inspect evaluation logs (UK AI Security Institute's inspect_ai).
//
// Inspect writes a log per evaluation in one of two formats:
//
//   - .eval (ReaderInspectEval): a zip archive holding header.json (version,
//     status, eval, plan, results, stats, error), one
//     samples/<id>_epoch_<n>.json per sample and epoch, summaries.json,
//     reductions.json and _journal/…. The header is read first (from
//     _journal/start.json, with a warning, when an unfinished log has no
//     header.json), then the samples one at a time, in (id, epoch) order;
//     the archive is never read into memory as a whole.
//   - .json (ReaderInspectJSON): one JSON document {version, status, eval,
//     plan, results, stats, samples: […], reductions}. It is walked with
//     json.Decoder tokens; each element of samples[] is decoded on its own.
//
// Log versions 1 to 3 are read (the fields used here are the same in all
// three; 2 and 3 are verified against real logs); a later version is read
// as version 3 with a warning; a log without a version is a file error.
//
// # Mapping to the runs table
//
// One run per (log, sample id, epoch):
//
//   - run_id = eval.eval_id (else eval.task_id, else eval.run_id) + "/" +
//     sample id + "/" + epoch. eval.run_id is not unique per log: every
//     task of one eval() call and every model of an `inspect eval-set`
//     share it. eval_id is unique per log (newer logs); task_id, in older
//     logs, is unique per task and model of a run, and is kept by an
//     eval-set retry of the same task. The same log written twice (e.g. as
//     .eval and .json) thus gives the same run ids, and Load's duplicate
//     handling applies.
//   - benchmark = "inspect", unless Options.Benchmark is set.
//   - task_id = eval.task + "/" + sample id (Options.TaskIDFrom "sample":
//     the sample id; "task": the task name); task_family = eval.task;
//     task_version = eval.task_version. (Choosing another rule, a
//     --task-id-from option, is future work.)
//   - model = eval.model; scaffold = the solver chain, the names of
//     plan.steps[].solver joined by " > " (else eval.solver);
//     agent = model + " / " + scaffold (the model alone when there is no
//     plan). trial = the epoch.
//   - score and raw_score = the value of one scorer in sample.scores
//     (inspectScorer): Options.Scorer ("scorer", or "scorer.key" for a key
//     of a dict value), else Inspect's first, results.scores[0] (with its
//     name as the key when its scorer's value is a dict), else the task's
//     first scorer (eval.scorers), else the first by name; a warning names
//     the one used when there are several. Values: numbers as is, booleans
//     1/0, the letters C/I/P/N as 1/0/0.5/0 as Inspect's value_to_float
//     does, "yes"/"true" 1, "no"/"false" 0, numeric strings parsed. NaN is
//     a missing score (null, counted in a warning). A dict (with no key
//     chosen) or list value, ±Infinity or other text leaves the score null
//     with a warning (Inspect would map it to 0). A sample without scores
//     has a null score.
//   - sample.error → outcome "exec_error" (so final_success and
//     exec_success false) and error_type = the first line of the error
//     message (cut at 200 bytes). sample.limit → error_type
//     "limit: <type>" (when there is no error); the outcome stays null, as a
//     sample that hit a limit is still scored. Otherwise outcome,
//     final_success and exec_success stay null: whether a score counts as a
//     success is the task's business.
//   - tokens = the sum over sample.model_usage of total_tokens (else
//     input_tokens + output_tokens); null when there is no usage.
//   - started_at / completed_at = sample.started_at / completed_at (newer
//     logs), else the timestamps of the sample's first and last events, else
//     started_at = eval.created. duration_s = sample.total_time (wall time),
//     else working_time, else completed_at − started_at.
//   - source_file = the log's path; source_line = the sample's 1-based
//     position in the log (a log has no lines).
//
// # Score log
//
// Each intermediate score event ("event": "score" with "intermediate":
// true, in sample.events or, in older logs, sample.transcript.events)
// becomes a score_log row: run_id as above, elapsed_s = the event's
// working_start when present (working time, waits excluded), else its
// timestamp minus the sample's first event's timestamp; scored_at = the
// timestamp; raw_score = the value converted as above (events whose value
// cannot be converted are skipped, with a warning); message = the score's
// explanation. Final score events (intermediate false or absent) are not
// copied: they are the run's score.
//
// NaN, Infinity and -Infinity, which Inspect writes for non-finite numbers,
// are read where a number may stand (see read_inspect_nan.go): as a
// missing number. .eval members may be deflate or zstd (Inspect ≥ 0.3.206)
// and are bounded in size (read_inspect_zip.go). In a folder, logs.json and
// eval-set.json manifests are skipped with a warning.
//
// # Bad input
//
// A zip that cannot be opened, a header that cannot be parsed, or JSON that
// ends early (the byte offset is named) is a file error; samples read
// before the damage are kept. A sample that cannot be parsed is rejected on
// its own. A log with no samples, and a log whose status is not "success"
// (cancelled, error, started), is a warning.

import (
	"archive/zip"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"path"
	"sort"
	"strconv"
	"strings"
	"time"
)

const (
	ReaderInspectEval = "inspect-eval" // Inspect .eval logs (zip)
	ReaderInspectJSON = "inspect-json" // Inspect .json logs (one document)
)

// inspectMaxVersion is the newest Inspect log version this reader knows.
const inspectMaxVersion = 3

type inspectHeader struct {
	Version *int        `json:"version"`
	Status  string      `json:"status"`
	Eval    *inspectEvl `json:"eval"`
	Plan    struct {
		Steps []struct {
			Solver string `json:"solver"`
		} `json:"steps"`
	} `json:"plan"`
	Results *inspectResults `json:"results"`
	Error   *inspectErr     `json:"error"`
}

// inspectResults is the part of results read: the scores in the order
// Inspect reports them (the first is the task's main score). name is a
// key of a dict-valued scorer's value when scorer returns a dict.
type inspectResults struct {
	Scores []struct {
		Name   string `json:"name"`
		Scorer string `json:"scorer"`
	} `json:"scores"`
}

type inspectEvl struct {
	RunID       string          `json:"run_id"`
	EvalID      string          `json:"eval_id"`
	TaskID      string          `json:"task_id"`
	Task        string          `json:"task"`
	TaskVersion json.RawMessage `json:"task_version"`
	Model       string          `json:"model"`
	Solver      string          `json:"solver"`
	Created     string          `json:"created"`
	Scorers     []struct {
		Name string `json:"name"`
	} `json:"scorers"`
}

type inspectErr struct {
	Message string `json:"message"`
}

type inspectScore struct {
	Value       json.RawMessage `json:"value"`
	Explanation json.RawMessage `json:"explanation"`
}

type inspectEvent struct {
	Timestamp    string        `json:"timestamp"`
	Event        string        `json:"event"`
	WorkingStart inspectNum    `json:"working_start"`
	Intermediate *bool         `json:"intermediate"`
	Score        *inspectScore `json:"score"`
}

type inspectUsage struct {
	InputTokens  inspectNum `json:"input_tokens"`
	OutputTokens inspectNum `json:"output_tokens"`
	TotalTokens  inspectNum `json:"total_tokens"`
}

type inspectSample struct {
	ID          json.RawMessage          `json:"id"`
	Epoch       int                      `json:"epoch"`
	Scores      map[string]*inspectScore `json:"scores"`
	Error       *inspectErr              `json:"error"`
	Limit       *struct{ Type string }   `json:"limit"`
	ModelUsage  map[string]inspectUsage  `json:"model_usage"`
	StartedAt   string                   `json:"started_at"`
	CompletedAt string                   `json:"completed_at"`
	TotalTime   inspectNum               `json:"total_time"`
	WorkingTime inspectNum               `json:"working_time"`
	Events      []inspectEvent           `json:"events"`
	Metadata    json.RawMessage          `json:"metadata"`
	Transcript  *struct {
		Events []inspectEvent `json:"events"`
	} `json:"transcript"`
}

// inspectLog is the per-file state shared by the samples of one log.
type inspectLog struct {
	path     string
	hdr      inspectHeader
	base     string // run id prefix
	scaffold string
	agent    string
	created  Opt[time.Time]
	taskVer  Opt[string]

	nSamples    int
	scorerNote  bool // said which scorer is used, or that it is missing
	nanValues   int  // sample scores that are NaN (missing)
	choicesSeen int  // samples checked for several score choices
	badValues   int  // sample scores that could not be converted
	badEvents   int  // intermediate score events that could not be converted
	firstBadVal string
}

// readInspectEval reads an Inspect .eval (zip) log at path: header.json,
// then samples/<id>_epoch_<n>.json one at a time.
func (l *loader) readInspectEval(p string, st *InputStats) {
	st.Reader = ReaderInspectEval
	var zr *zip.Reader
	if l.opt.FS != nil {
		f, err := l.opt.FS.Open(p)
		if err != nil {
			l.fileErr(p, err)
			return
		}
		defer f.Close()
		fi, err := f.Stat()
		ra, ok := f.(io.ReaderAt)
		if err != nil || !ok {
			l.fileErr(p, &Error{File: p, Msg: "an Inspect .eval log must be read from a file that supports random access"})
			return
		}
		if zr, err = zip.NewReader(ra, fi.Size()); err != nil {
			l.fileErr(p, inspectZipErr(p, err))
			return
		}
	} else {
		rc, err := zip.OpenReader(p)
		if err != nil {
			l.fileErr(p, inspectZipErr(p, err))
			return
		}
		defer rc.Close()
		zr = &rc.Reader
	}
	registerEvalDecompressors(zr)

	var header, start *zip.File
	type entry struct {
		f     *zip.File
		id    string
		epoch int
	}
	var samples []entry
	for _, f := range zr.File {
		switch {
		case f.Name == "header.json":
			header = f
		case f.Name == "_journal/start.json":
			start = f
		case strings.HasPrefix(f.Name, "samples/") && strings.HasSuffix(f.Name, ".json"):
			id, ep := inspectSampleName(f.Name)
			samples = append(samples, entry{f, id, ep})
		}
	}
	hf := header
	if hf == nil {
		if start == nil {
			l.fileErr(p, &Error{File: p, Msg: "zip archive without header.json or _journal/start.json: not an Inspect .eval log"})
			return
		}
		hf = start
		l.warn(p, "no header.json (an unfinished or crashed evaluation?): eval and plan read from _journal/start.json")
	}
	raw, err := readZipEntry(hf)
	if err != nil {
		l.fileErr(p, &Error{File: p, Field: hf.Name, Msg: "cannot read: " + err.Error()})
		return
	}
	lg := &inspectLog{path: p}
	if err := json.Unmarshal(rewriteNaN(raw), &lg.hdr); err != nil {
		l.fileErr(p, &Error{File: p, Field: hf.Name, Msg: "not a valid Inspect log header: " + err.Error()})
		return
	}
	if header == nil && lg.hdr.Status == "" {
		lg.hdr.Status = "started"
	}
	if !l.inspectHeaderOK(lg) {
		return
	}
	sort.SliceStable(samples, func(i, j int) bool {
		a, b := samples[i], samples[j]
		if a.id != b.id {
			return lessSampleID(a.id, b.id)
		}
		return a.epoch < b.epoch
	})
	for _, e := range samples {
		st.RowsRead++
		lg.nSamples++
		raw, err := readZipEntry(e.f)
		if err != nil {
			l.reject(st, &Error{File: p, Field: e.f.Name, Msg: "cannot read sample: " + err.Error()}, nil)
			continue
		}
		l.inspectSample(lg, e.f.Name, raw, e.epoch, st)
	}
	l.inspectFinish(lg)
}

func inspectZipErr(p string, err error) *Error {
	return &Error{File: p, Msg: "not a readable zip archive (a corrupt or truncated Inspect .eval log?): " + err.Error()}
}

// inspectSampleName parses samples/<id>_epoch_<n>.json.
func inspectSampleName(name string) (string, int) {
	base := strings.TrimSuffix(path.Base(name), ".json")
	i := strings.LastIndex(base, "_epoch_")
	if i < 0 {
		return base, 0
	}
	n, _ := strconv.Atoi(base[i+len("_epoch_"):])
	return base[:i], n
}

// lessSampleID orders numeric ids numerically, before other ids.
func lessSampleID(a, b string) bool {
	x, errA := strconv.ParseInt(a, 10, 64)
	y, errB := strconv.ParseInt(b, 10, 64)
	switch {
	case errA == nil && errB == nil:
		return x < y
	case errA == nil:
		return true
	case errB == nil:
		return false
	}
	return a < b
}

// readInspectJSON reads an Inspect .json log from r, streaming samples[]
// with json.Decoder tokens.
func (l *loader) readInspectJSON(p string, r io.Reader, st *InputStats) {
	st.Reader = ReaderInspectJSON
	nr := newNaNReader(r)
	dec := json.NewDecoder(nr)
	lg := &inspectLog{path: p}
	jsonErr := func(err error) {
		if errors.Is(err, io.EOF) {
			err = io.ErrUnexpectedEOF
		}
		// The offset is the file's: NaN/Infinity rewrites are taken out.
		off := nr.rw.inputOffset(dec.InputOffset())
		l.fileErr(p, &Error{File: p, Msg: fmt.Sprintf("invalid JSON at byte %d (a truncated Inspect .json log?): %v", off, err)})
	}
	tok, err := dec.Token()
	if err != nil {
		jsonErr(err)
		return
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		l.fileErr(p, &Error{File: p, Msg: "not an Inspect .json log: want a JSON object"})
		return
	}
	headerOK := false             // inspectHeaderOK passed
	var pending []json.RawMessage // samples met before eval (unusual key order)
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			jsonErr(err)
			return
		}
		key, _ := tok.(string)
		if key == "samples" && lg.hdr.Eval != nil {
			if !headerOK {
				if !l.inspectHeaderOK(lg) {
					return
				}
				headerOK = true
			}
			tok, err := dec.Token()
			if err != nil {
				jsonErr(err)
				return
			}
			if tok == nil {
				continue
			}
			if d, ok := tok.(json.Delim); !ok || d != '[' {
				l.fileErr(p, &Error{File: p, Field: "samples", Msg: fmt.Sprintf("want an array, got %v", tok)})
				return
			}
			for dec.More() {
				var raw json.RawMessage
				if err := dec.Decode(&raw); err != nil {
					jsonErr(err)
					l.inspectFinish(lg)
					return
				}
				st.RowsRead++
				lg.nSamples++
				l.inspectSample(lg, fmt.Sprintf("samples[%d]", lg.nSamples-1), raw, 0, st)
			}
			if _, err := dec.Token(); err != nil {
				jsonErr(err)
				l.inspectFinish(lg)
				return
			}
			continue
		}
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			jsonErr(err)
			return
		}
		var err2 error
		switch key {
		case "version":
			err2 = json.Unmarshal(raw, &lg.hdr.Version)
		case "status":
			err2 = json.Unmarshal(raw, &lg.hdr.Status)
		case "eval":
			err2 = json.Unmarshal(raw, &lg.hdr.Eval)
		case "plan":
			err2 = json.Unmarshal(raw, &lg.hdr.Plan)
		case "error":
			err2 = json.Unmarshal(raw, &lg.hdr.Error)
		case "results":
			err2 = json.Unmarshal(raw, &lg.hdr.Results)
		case "samples":
			err2 = json.Unmarshal(raw, &pending)
		}
		if err2 != nil {
			l.fileErr(p, &Error{File: p, Field: key, Msg: "not a valid Inspect log: " + err2.Error()})
			return
		}
	}
	if _, err := dec.Token(); err != nil {
		jsonErr(err)
		return
	}
	if !headerOK && !l.inspectHeaderOK(lg) {
		return
	}
	for _, raw := range pending {
		st.RowsRead++
		lg.nSamples++
		l.inspectSample(lg, fmt.Sprintf("samples[%d]", lg.nSamples-1), raw, 0, st)
	}
	l.inspectFinish(lg)
}

// looksInspectJSON reports whether the first bytes of a file (up to 64
// KiB) look like an Inspect .json log: an object whose first key is
// "version" (a number), followed by "status" or "eval".
func looksInspectJSON(head []byte) bool {
	if len(head) > 64<<10 {
		head = head[:64<<10]
	}
	head = bytes.TrimPrefix(head, []byte("\xef\xbb\xbf"))
	dec := json.NewDecoder(bytes.NewReader(rewriteNaN(head)))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return false
	}
	for i := 0; i < 8; i++ {
		tok, err := dec.Token()
		if err != nil {
			return false
		}
		key, ok := tok.(string)
		if !ok {
			return false
		}
		if i == 0 {
			if key != "version" {
				return false
			}
			v, err := dec.Token()
			if _, isNum := v.(float64); err != nil || !isNum {
				return false
			}
			continue
		}
		if key == "status" || key == "eval" {
			return true
		}
		var skip json.RawMessage
		if dec.Decode(&skip) != nil {
			return false
		}
	}
	return false
}

// inspectHeaderOK checks the header and fills the per-log values; false
// means a file error was recorded.
func (l *loader) inspectHeaderOK(lg *inspectLog) bool {
	h, p := &lg.hdr, lg.path
	switch {
	case h.Version == nil:
		l.fileErr(p, &Error{File: p, Field: "version", Msg: "missing: not an Inspect log, or a pre-release log format this reader does not know"})
		return false
	case *h.Version < 1:
		l.fileErr(p, &Error{File: p, Field: "version", Msg: fmt.Sprintf("Inspect log version %d is not supported (want 1 to %d)", *h.Version, inspectMaxVersion)})
		return false
	case *h.Version > inspectMaxVersion:
		l.warn(p, "Inspect log version %d is newer than this reader knows (1 to %d); read as version %d", *h.Version, inspectMaxVersion, inspectMaxVersion)
	}
	if h.Eval == nil {
		l.fileErr(p, &Error{File: p, Field: "eval", Msg: "missing: not an Inspect log"})
		return false
	}
	ev := h.Eval
	lg.base = firstNonEmpty(ev.EvalID, ev.TaskID, ev.RunID)
	if lg.base == "" {
		l.fileErr(p, &Error{File: p, Field: "eval.eval_id", Msg: "missing (and no task_id or run_id): cannot name the runs"})
		return false
	}
	// An eval-set retry of a failed task keeps its task_id and gets a new
	// eval_id (inspect_ai _eval/evalset.py): both logs stay in the folder.
	if ev.TaskID != "" && ev.EvalID != "" {
		k := ev.TaskID + "\x00" + ev.Model
		if prev, ok := l.inspectTasks[k]; !ok {
			if l.inspectTasks == nil {
				l.inspectTasks = map[string][2]string{}
			}
			l.inspectTasks[k] = [2]string{p, ev.EvalID}
		} else if prev[1] != ev.EvalID {
			l.warn(p, "the same task and model as %s (task_id %s, model %s) under another eval_id (an eval-set retry?): both logs are read, so a sample in both counts twice; remove the log you do not want", prev[0], ev.TaskID, ev.Model)
		}
	}
	var chain []string
	for _, s := range h.Plan.Steps {
		if s.Solver != "" {
			chain = append(chain, s.Solver)
		}
	}
	lg.scaffold = strings.Join(chain, " > ")
	if lg.scaffold == "" {
		lg.scaffold = ev.Solver
	}
	switch {
	case ev.Model != "" && lg.scaffold != "":
		lg.agent = ev.Model + " / " + lg.scaffold
	case ev.Model != "":
		lg.agent = ev.Model
	default:
		lg.agent = lg.scaffold
	}
	if t, ok := inspectTime(ev.Created); ok {
		lg.created = Some(t)
	}
	if v := jsonScalarString(ev.TaskVersion); v != "" {
		lg.taskVer = Some(v)
	}
	return true
}

func firstNonEmpty(s ...string) string {
	for _, x := range s {
		if x != "" {
			return x
		}
	}
	return ""
}

// jsonScalarString renders a JSON string or number as text ("" otherwise).
func jsonScalarString(raw json.RawMessage) string {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return ""
	}
	if raw[0] == '"' {
		var s string
		if json.Unmarshal(raw, &s) == nil {
			return s
		}
		return ""
	}
	if raw[0] == '-' || (raw[0] >= '0' && raw[0] <= '9') {
		return string(raw)
	}
	return ""
}

func inspectTime(s string) (time.Time, bool) {
	if s == "" {
		return time.Time{}, false
	}
	t, ok := parseISOTimeBytes([]byte(s))
	if !ok {
		return time.Time{}, false
	}
	return t.UTC().Truncate(time.Microsecond), true
}

// inspectValueMap is inspectValue with text values looked up in m first
// (--score-map), so a benchmark's own letters can be given numbers.
func inspectValueMap(raw json.RawMessage, m map[string]float64) (float64, bool, bool) {
	if len(m) > 0 {
		var str string
		if t := bytes.TrimSpace(raw); len(t) > 0 && t[0] == '"' && json.Unmarshal(t, &str) == nil {
			if v, ok := m[str]; ok {
				return v, true, false
			}
		}
	}
	return inspectValue(raw)
}

// inspectValue converts a score value as Inspect's value_to_float does.
// ok is false for null (no value) and for values that cannot be converted
// (bad is then true).
//
// NaN (the token, as Inspect writes it, or the text "nan") is a missing
// value: f is NaN and ok and bad are false. ±Infinity cannot be converted.
func inspectValue(raw json.RawMessage) (f float64, ok, bad bool) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return 0, false, false
	}
	if v, isSentinel := sentinelValue(raw); isSentinel {
		if math.IsNaN(v) {
			return v, false, false
		}
		return 0, false, true
	}
	switch raw[0] {
	case 't':
		return 1, string(raw) == "true", string(raw) != "true"
	case 'f':
		return 0, string(raw) == "false", string(raw) != "false"
	case '"':
		var s string
		if json.Unmarshal(raw, &s) != nil {
			return 0, false, true
		}
		switch s {
		case "C":
			return 1, true, false
		case "I", "N":
			return 0, true, false
		case "P":
			return 0.5, true, false
		}
		switch strings.ToLower(strings.TrimSpace(s)) {
		case "yes", "true":
			return 1, true, false
		case "no", "false":
			return 0, true, false
		}
		v, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
		switch {
		case err != nil || math.IsInf(v, 0):
			return 0, false, true
		case math.IsNaN(v):
			return v, false, false
		}
		return v, true, false
	case '{', '[':
		return 0, false, true
	}
	v, err := strconv.ParseFloat(string(raw), 64)
	if err != nil {
		return 0, false, true
	}
	return v, true, false
}

// inspectExtras is a sample's extras (extras.go): {"metadata": the
// sample's metadata} when it is a non-empty object, else null. Its NaN
// sentinels become null.
func inspectExtras(metadata json.RawMessage) Opt[string] {
	if len(metadata) == 0 || metadata[0] != '{' {
		return Opt[string]{}
	}
	m, err := extrasObject(metadata)
	if err != nil || len(m) == 0 { // decoded already with the sample
		return Opt[string]{}
	}
	return extrasText(map[string]any{"metadata": m})
}

// inspectSample turns one sample into a run (and score-log rows). where
// names the sample in messages; fileEpoch is the epoch from the member's
// name (0 if none).
func (l *loader) inspectSample(lg *inspectLog, where string, raw []byte, fileEpoch int, st *InputStats) {
	p := lg.path
	var s inspectSample
	if err := json.Unmarshal(rewriteNaN(raw), &s); err != nil {
		l.reject(st, &Error{File: p, Field: where, Msg: "not a valid Inspect sample: " + err.Error()}, raw)
		return
	}
	sid := jsonScalarString(s.ID)
	if sid == "" {
		l.reject(st, &Error{File: p, Field: where + ".id", Msg: "missing sample id (want a string or number)"}, raw)
		return
	}
	epoch := s.Epoch
	if epoch == 0 {
		epoch = max(fileEpoch, 1)
	}
	ev := lg.hdr.Eval
	run := Run{
		RunID:       lg.base + "/" + sid + "/" + strconv.Itoa(epoch),
		Benchmark:   "inspect",
		TaskID:      ev.Task + "/" + sid,
		Agent:       lg.agent,
		Trial:       Some(int64(epoch)),
		TaskVersion: lg.taskVer,
		SourceFile:  p,
		SourceLine:  int64(lg.nSamples),
	}
	if ev.Task == "" {
		run.TaskID = sid
	} else {
		run.TaskFamily = Some(ev.Task)
		switch l.opt.TaskIDFrom {
		case "sample":
			run.TaskID = sid
		case "task":
			run.TaskID = ev.Task
		}
	}
	if ev.Model != "" {
		run.Model = Some(ev.Model)
	}
	if lg.scaffold != "" {
		run.Scaffold = Some(lg.scaffold)
	}

	// Score: Options.Scorer, else Inspect's first scorer (inspectScorer).
	if len(s.Scores) > 0 {
		sc, key := l.inspectScorer(lg, s.Scores)
		if v := s.Scores[sc]; v != nil {
			val := v.Value
			if key != "" {
				val = nil
				var m map[string]json.RawMessage
				if json.Unmarshal(v.Value, &m) == nil {
					val = m[key]
				}
			}
			switch f, ok, bad := inspectValueMap(val, l.opt.ScoreMap); {
			case ok:
				run.Score, run.RawScore = Some(f), Some(f)
			case bad:
				lg.badValues++
				if lg.firstBadVal == "" {
					lg.firstBadVal = truncate(string(val), 60)
				}
			case math.IsNaN(f):
				lg.nanValues++
			}
		}
	}

	// Outcome and error type.
	if s.Error != nil {
		run.Outcome = Some("exec_error")
		msg := strings.TrimSpace(s.Error.Message)
		if i := strings.IndexByte(msg, '\n'); i >= 0 {
			msg = strings.TrimSpace(msg[:i])
		}
		if msg == "" {
			msg = "error"
		}
		run.ErrorType = Some(truncateUTF8(msg, 200))
	} else if s.Limit != nil && s.Limit.Type != "" {
		run.ErrorType = Some("limit: " + s.Limit.Type)
	}

	// Tokens.
	if len(s.ModelUsage) > 0 {
		var tot float64
		have := false
		for _, u := range s.ModelUsage {
			switch {
			case u.TotalTokens.Valid:
				tot += u.TotalTokens.V
				have = true
			case u.InputTokens.Valid || u.OutputTokens.Valid:
				if u.InputTokens.Valid {
					tot += u.InputTokens.V
				}
				if u.OutputTokens.Valid {
					tot += u.OutputTokens.V
				}
				have = true
			}
		}
		if have {
			run.Tokens = Some(tot)
		}
	}

	// Times.
	events := s.Events
	if len(events) == 0 && s.Transcript != nil {
		events = s.Transcript.Events
	}
	var first, last Opt[time.Time]
	for i := range events {
		if t, ok := inspectTime(events[i].Timestamp); ok {
			if !first.Valid {
				first = Some(t)
			}
			last = Some(t)
		}
	}
	if t, ok := inspectTime(s.StartedAt); ok {
		run.StartedAt = Some(t)
		if t, ok := inspectTime(s.CompletedAt); ok {
			run.CompletedAt = Some(t)
		}
	} else if first.Valid {
		run.StartedAt, run.CompletedAt = first, last
	} else {
		run.StartedAt = lg.created
	}
	switch {
	case s.TotalTime.Valid:
		run.DurationS = Some(s.TotalTime.V)
	case s.WorkingTime.Valid:
		run.DurationS = Some(s.WorkingTime.V)
	}

	run.Extras = inspectExtras(s.Metadata)
	if err := l.finishRun(&run, ReaderInspectEval); err != nil {
		var e *Error
		if !errors.As(err, &e) {
			e = &Error{Msg: err.Error()}
		}
		e.File = p
		e.Field = where + ": " + e.Field
		l.reject(st, e, raw)
		return
	}
	l.addRun(&run, st)

	// Intermediate scores → score log.
	for i := range events {
		e := &events[i]
		if e.Event != "score" || e.Intermediate == nil || !*e.Intermediate || e.Score == nil {
			continue
		}
		f, ok, _ := inspectValue(e.Score.Value)
		if !ok {
			lg.badEvents++
			continue
		}
		se := ScoreEntry{RunID: run.RunID, RawScore: f}
		t, tok := inspectTime(e.Timestamp)
		if tok {
			se.ScoredAt = Some(t)
		}
		switch {
		case e.WorkingStart.Valid:
			se.ElapsedS = Some(e.WorkingStart.V)
		case tok && first.Valid:
			se.ElapsedS = Some(t.Sub(first.V).Seconds())
		}
		if m := jsonScalarString(e.Score.Explanation); m != "" {
			se.Message = Some(m)
		}
		l.ds.Scores = append(l.ds.Scores, se)
		st.RowsKept++
	}
}

func truncateUTF8(s string, n int) string {
	if len(s) <= n {
		return s
	}
	s = strings.ToValidUTF8(s[:n], "")
	return s + "…"
}

// inspectFinish warns about the log as a whole.
func (l *loader) inspectFinish(lg *inspectLog) {
	p, h := lg.path, &lg.hdr
	if lg.nanValues > 0 {
		l.warn(p, "%d samples have a NaN score (a missing score): their score is null", lg.nanValues)
	}
	if lg.badValues > 0 {
		l.warn(p, "%d samples have a score value that is not a number, boolean or letter (e.g. %s): their score is null", lg.badValues, lg.firstBadVal)
	}
	if lg.badEvents > 0 {
		l.warn(p, "%d intermediate score events have a value that is not a number, boolean or letter: skipped", lg.badEvents)
	}
	status := h.Status
	if status == "" {
		status = "unknown"
	}
	var why string
	switch status {
	case "success":
	case "cancelled":
		why = "log status cancelled (the evaluation was interrupted)"
	case "error":
		why = "log status error"
		if h.Error != nil && h.Error.Message != "" {
			msg := h.Error.Message
			if i := strings.IndexByte(msg, '\n'); i >= 0 {
				msg = msg[:i]
			}
			why += " (" + truncateUTF8(strings.TrimSpace(msg), 200) + ")"
		}
	case "started":
		why = "log status started (the evaluation is still running, or died)"
	default:
		why = "log status " + strconv.Quote(status)
	}
	switch {
	case lg.nSamples == 0 && why != "":
		l.warn(p, "%s: no samples", why)
	case lg.nSamples == 0:
		l.warn(p, "log holds no samples")
	case why != "":
		l.warn(p, "%s: %d samples read; the evaluation may be incomplete", why, lg.nSamples)
	}
}

// inspectScorer chooses the score of a sample: the scorer, and the key
// within its value when that value is a dict ("" otherwise).
//
// With Options.Scorer: that scorer; else, for "scorer.key", that key of
// that scorer's dict value; else a name that results.scores lists (a key
// of a dict-valued scorer, as Inspect reports each key as a score). Without
// it, Inspect's own first score: results.scores[0] (its scorer, with its
// name as the key when the value is a dict holding it); else the first of
// eval.scorers (the task's scorers in the log's order) present in the
// sample; else (an unfinished log of an older version) the first by name.
// The first sample with several choices says on stderr which one is used.
func (l *loader) inspectScorer(lg *inspectLog, scores map[string]*inspectScore) (scorer, key string) {
	p, h := lg.path, &lg.hdr
	type resScore struct{ Name, Scorer string }
	var res []resScore
	if h.Results != nil {
		for _, r := range h.Results.Scores {
			sc := r.Scorer
			if sc == "" {
				sc = r.Name
			}
			res = append(res, resScore{r.Name, sc})
		}
	}
	keysOf := func(sc string) []string {
		v := scores[sc]
		if v == nil {
			return nil
		}
		var m map[string]json.RawMessage
		if t := bytes.TrimSpace(v.Value); len(t) == 0 || t[0] != '{' || json.Unmarshal(t, &m) != nil {
			return nil
		}
		return sortedKeys(m)
	}
	hasKey := func(sc, k string) bool {
		for _, x := range keysOf(sc) {
			if x == k {
				return true
			}
		}
		return false
	}
	choices := func() []string {
		var c []string
		for _, sc := range sortedKeys(scores) {
			if ks := keysOf(sc); len(ks) > 0 {
				for _, k := range ks {
					c = append(c, sc+"."+k)
				}
			} else {
				c = append(c, sc)
			}
		}
		return c
	}

	if want := l.opt.Scorer; want != "" {
		if _, ok := scores[want]; ok {
			if ks := keysOf(want); len(ks) > 0 && !lg.scorerNote {
				lg.scorerNote = true
				l.warn(p, "scorer %s has a dict value (keys %s): scores are null; name a key with --scorer %s.%s", want, strings.Join(ks, ", "), want, ks[0])
			}
			return want, ""
		}
		for i := 0; i < len(want); i++ {
			if want[i] == '.' && hasKey(want[:i], want[i+1:]) {
				return want[:i], want[i+1:]
			}
		}
		for _, r := range res {
			if r.Name == want && hasKey(r.Scorer, want) {
				return r.Scorer, want
			}
		}
		if !lg.scorerNote {
			lg.scorerNote = true
			l.warn(p, "no scorer %q in the samples (they have %s): scores are null", want, strings.Join(choices(), ", "))
		}
		return want, ""
	}

	var why string
	switch {
	case len(res) > 0 && scores[res[0].Scorer] != nil:
		scorer, why = res[0].Scorer, "the first in the log's results"
		if hasKey(scorer, res[0].Name) {
			key = res[0].Name
		}
	case len(res) > 0 && scores[res[0].Name] != nil:
		scorer, why = res[0].Name, "the first in the log's results"
	default:
		for _, sc := range h.Eval.Scorers {
			if scores[sc.Name] != nil {
				scorer, why = sc.Name, "the task's first scorer"
				break
			}
		}
		if scorer == "" {
			scorer, why = sortedKeys(scores)[0], "the first by name: the log lists no results or scorers"
		}
	}
	if lg.scorerNote || lg.choicesSeen >= 8 {
		return scorer, key
	}
	// The first samples are checked for several choices (a sample may lack
	// a scorer another has); later ones are not, to keep the read cheap.
	lg.choicesSeen++
	if c := choices(); len(c) > 1 {
		lg.scorerNote = true
		name := scorer
		if key != "" {
			name += "." + key
		}
		l.warn(p, "samples have %d scores (%s); score is from %s, %s (choose with --scorer)", len(c), strings.Join(c, ", "), name, why)
	}
	return scorer, key
}

// ReaderInspectManifest names, in InputStats, an Inspect log folder's
// manifest (logs.json, eval-set.json), which is skipped with a warning: it
// repeats the logs' headers (logs.json, written by
// inspect_ai.log.write_log_dir_manifest) or lists an eval set's tasks
// (eval-set.json, written by eval_set); the runs come from the logs. It is
// not a reader Options.Reader can name.
const ReaderInspectManifest = "inspect-manifest"

func isInspectManifestName(name string) bool {
	return name == "logs.json" || name == "eval-set.json"
}

// looksInspectManifest reports whether head starts a JSON object: a
// logs.json (log file name → header) or eval-set.json ({eval_set_id,
// tasks}). Other files of those names are read as any other input.
func looksInspectManifest(head []byte) bool {
	head = bytes.TrimPrefix(head, []byte("\xef\xbb\xbf"))
	dec := json.NewDecoder(bytes.NewReader(rewriteNaN(head)))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return false
	}
	tok, err := dec.Token()
	if err != nil {
		return false
	}
	if tok == json.Delim('}') {
		return true // an empty logs.json
	}
	key, _ := tok.(string)
	return key == "eval_set_id" || key == "tasks" || strings.HasSuffix(key, ".eval") || strings.HasSuffix(key, ".json")
}

func inspectManifestNote(name string) string {
	if name == "eval-set.json" {
		return "an Inspect eval-set manifest (the set's tasks and models): skipped; the runs are read from the logs in the folder"
	}
	return "an Inspect log-folder manifest (the headers of the folder's logs): skipped; the runs are read from the logs themselves"
}
