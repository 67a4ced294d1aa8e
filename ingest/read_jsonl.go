package ingest

import (
	"bytes"
	"errors"
	"io"
	"math"
	"sort"
	"strings"

	"github.com/rdeval/rdeval/ingest/internal/jsonline"
)

// rowSpec tells a row reader how to map source keys to columns.
type rowSpec struct {
	keys        map[string]string // source key → canonical column
	passthrough bool              // accept canonical column names not in keys
	ignored     map[string]bool   // known keys that are read but not kept
}

func (l *loader) runSpec(reader string) rowSpec {
	switch reader {
	case ReaderMETR:
		return rowSpec{keys: metrKeys, ignored: metrIgnored}
	case ReaderRExBenchRuns:
		return rowSpec{keys: rexKeys, passthrough: true}
	}
	keys := map[string]string{}
	for canon, src := range l.opt.Map {
		keys[src] = canon
	}
	return rowSpec{keys: keys, passthrough: true}
}

// lookup returns the canonical column for a source key, or "".
func (sp *rowSpec) lookup(k []byte) string {
	if c, ok := sp.keys[string(k)]; ok {
		return c
	}
	if sp.passthrough {
		if _, ok := runColumns[string(k)]; ok {
			return string(k)
		}
	}
	return ""
}

func (l *loader) readJSONL(s *source, st *InputStats, first []byte, reader string) {
	if reader == ReaderScoreLogJSONL {
		l.readScoreJSONL(s, st, first)
		return
	}
	if reader == ReaderScoreLogCSV || reader == ReaderRExBenchTable {
		l.fileErr(s.path, &Error{File: s.path, Msg: "reader " + reader + " reads CSV, but this file is JSON Lines"})
		return
	}
	if l.useParallel(s) {
		l.readJSONLParallel(s, st, first, reader)
		return
	}
	l.growRuns(s, len(first))
	rp := l.newRunLineParser(s.path, reader, &l.interner)
	line, lineNo := first, s.line
	for {
		if len(bytes.TrimSpace(line)) > 0 {
			st.RowsRead++
			if err := rp.parse(line, lineNo); err != nil {
				l.reject(st, lineErrorAt(s.path, lineNo, lineNo == s.line && !s.lastNL, err), line)
			} else {
				if rp.hasHuman {
					l.setHumanRef(rp.r.TaskID, rp.human)
				}
				l.addRun(rp.r, st)
			}
		}
		var err error
		line, err = s.readLine()
		if err == io.EOF {
			break
		}
		if err != nil {
			l.fileErr(s.path, err)
			break
		}
		lineNo = s.line
	}
	l.warnUnknown(s.path, rp.unknown)
}

// runLineParser turns one JSON Lines record into a Run. It touches no
// loader state but its options (read-only), so parse workers each own one.
type runLineParser struct {
	l       *loader
	path    string
	reader  string
	spec    rowSpec
	p       jsonline.Parser
	in      *interner
	unknown map[string]int // names of unknown members (the counts mean nothing)
	fn      func(k []byte, v jsonline.Value) error

	// keys caches the resolution of the member keys of the previous line
	// by position: lines of one file list their keys in the same order,
	// so a byte comparison usually replaces two map lookups.
	keys   []keySlot
	member int    // index of the member being read
	seen   uint64 // keySlot.bit of each key read in this line
	bits   map[string]uint64

	// Set by parse. r is where parse writes the run: own, or (parallel
	// read) the worker's result slot, which spares copying each 600-byte Run.
	r          *Run
	own        Run
	lineNo     int
	unescaped  []byte // fastSet's buffer for decoding escaped strings
	idArena    []byte // fastSet's run ids are carved from it (idString)
	humanScore cell
	hasHuman   bool
	human      float64
}

func (l *loader) newRunLineParser(path, reader string, in *interner) *runLineParser {
	rp := &runLineParser{l: l, path: path, reader: reader, spec: l.runSpec(reader), in: in, unknown: map[string]int{}}
	rp.r = &rp.own
	rp.fn = func(k []byte, v jsonline.Value) error {
		ks := rp.slot(k)
		if ks.bit != 0 {
			if rp.seen&ks.bit != 0 {
				// Which of the two values is meant is a guess (encoding/json
				// and Python keep the last, some readers the first).
				return &Error{File: rp.path, Line: rp.lineNo, Field: string(k), Msg: "duplicate key in one object: which value is meant is a guess; keep one"}
			}
			rp.seen |= ks.bit
		}
		if ks.set == nil {
			if ks.human {
				rp.humanScore = jsonCell(v)
			} else if !ks.ignored && !ks.noted {
				// Only the names are reported: note each once per slot
				// rather than hashing it on every line.
				rp.unknown[ks.key]++
				ks.noted = true
			}
			return nil
		}
		if v.Kind == jsonline.Null {
			return nil
		}
		if ks.fast.kind != fastNone && rp.fastSet(ks, v) {
			return nil
		}
		c := jsonCell(v)
		if ks.intern {
			c.in = &ks.in
		}
		if err := ks.set(rp.r, c); err != nil {
			return &Error{File: rp.path, Line: rp.lineNo, Field: string(k), Msg: err.Error()}
		}
		return nil
	}
	return rp
}

// keySlot is how one member key is read.
type keySlot struct {
	key     string
	set     runSetter // nil: not a column
	fast    fastField // the column's fast setter (read_jsonl_fast.go); kind fastNone: none
	intern  bool      // intern its strings (not run ids: each is unique)
	human   bool      // METR's human_score
	ignored bool      // a known key that is not kept
	noted   bool      // an unknown key already put in runLineParser.unknown
	bit     uint64    // the key's bit in runLineParser.seen (keyBit); 0: not tracked
	// in interns the member's strings: the parser's table, with the
	// member's own last value, which the next line's usually repeats
	// (runs of one task, agent and model are consecutive), sparing a
	// map lookup per string.
	in interner
}

// slot resolves key k of member rp.member, from the cache when the
// previous line had the same key at that position.
func (rp *runLineParser) slot(k []byte) *keySlot {
	i := rp.member
	rp.member++
	if i < len(rp.keys) && rp.keys[i].key == string(k) {
		return &rp.keys[i]
	}
	ks := keySlot{key: string(k)}
	if canon := rp.spec.lookup(k); canon != "" {
		ks.set, ks.intern = runColumns[canon], canon != "run_id" && canon != "extras"
		ks.bit = rp.keyBit(ks.key)
		if useFastSetters {
			ks.fast = fastRunFields[canon]
		}
		if ks.intern {
			if rp.in.interned == nil {
				rp.in.interned = map[string]string{}
			}
			ks.in.interned = rp.in.interned
		}
	} else if rp.reader == ReaderMETR && ks.key == "human_score" {
		ks.human = true
		ks.bit = rp.keyBit(ks.key)
	} else {
		ks.ignored = rp.spec.ignored[ks.key]
	}
	if i < len(rp.keys) {
		rp.keys[i] = ks
		return &rp.keys[i]
	}
	if i < 256 {
		rp.keys = append(rp.keys, ks)
		return &rp.keys[len(rp.keys)-1]
	}
	return &ks
}

// keyBit returns the bit of runLineParser.seen for a source key that is
// read (a column, or METR's human_score), which finds the key repeated in
// one line. Keys are tracked by name, not column: METR's
// dollar_equivalent and generation_cost both fill cost_usd, and a line may
// have both. The first 64 keys of a file are tracked; later ones get 0.
func (rp *runLineParser) keyBit(k string) uint64 {
	if b, ok := rp.bits[k]; ok {
		return b
	}
	if rp.bits == nil {
		rp.bits = map[string]uint64{}
	}
	var b uint64
	if n := len(rp.bits); n < 64 {
		b = 1 << n
	}
	rp.bits[k] = b
	return b
}

// parse reads line (line number lineNo) into rp.r and checks it; on
// success rp.hasHuman and rp.human give METR's human_score, if any.
func (rp *runLineParser) parse(line []byte, lineNo int) error {
	*rp.r = Run{SourceFile: rp.path, SourceLine: int64(lineNo)}
	rp.lineNo = lineNo
	rp.member = 0
	rp.seen = 0
	rp.humanScore = cell{}
	rp.hasHuman = false
	err := rp.p.ParseObject(line, rp.fn)
	if err == nil {
		err = rp.l.finishRun(rp.r, rp.reader)
	}
	if err != nil {
		return err
	}
	if !rp.humanScore.null() && rp.humanScore.isJSON {
		if f, err := rp.humanScore.float(); err == nil {
			rp.hasHuman, rp.human = true, f
		}
	}
	rp.humanScore = cell{} // its Raw aliases line
	return nil
}

// lineError positions err at line lineNo of s; a JSON syntax error keeps
// its column, and a last line without a newline is flagged as truncated.
func lineError(s *source, lineNo int, err error) *Error {
	return lineErrorAt(s.path, lineNo, lineNo == s.line && !s.lastNL, err)
}

// lineErrorAt is lineError for line lineNo of path; lastNoNL says that
// this line is the file's last and has no newline.
func lineErrorAt(path string, lineNo int, lastNoNL bool, err error) *Error {
	var e *Error
	if errors.As(err, &e) {
		if e.File == "" {
			e.File, e.Line = path, lineNo
		}
		return e
	}
	var se *jsonline.SyntaxError
	if errors.As(err, &se) {
		msg := se.Msg
		if lastNoNL && strings.Contains(msg, "unexpected end") && !strings.Contains(msg, "truncated") {
			msg += " (last line has no newline: truncated file?)"
		}
		return &Error{File: path, Line: lineNo, Col: se.Offset + 1, Msg: msg}
	}
	return &Error{File: path, Line: lineNo, Msg: err.Error()}
}

func (l *loader) warnUnknown(path string, unknown map[string]int) {
	if len(unknown) == 0 {
		return
	}
	names := make([]string, 0, len(unknown))
	for k := range unknown {
		names = append(names, k)
	}
	sort.Strings(names)
	l.warn(path, "ignored unknown fields: %s (map them with --map COLUMN=FIELD)", strings.Join(names, ", "))
}

// scoreColumnBits is scoreColumns with a bit for each column, with which
// readScoreJSONL finds a column set twice in one line.
var scoreColumnBits = func() map[string]struct {
	set scoreSetter
	bit uint64
} {
	names := make([]string, 0, len(scoreColumns))
	for n := range scoreColumns {
		names = append(names, n)
	}
	sort.Strings(names)
	m := make(map[string]struct {
		set scoreSetter
		bit uint64
	}, len(names))
	for i, n := range names {
		c := m[n]
		c.set = scoreColumns[n]
		if i < 64 {
			c.bit = 1 << i
		}
		m[n] = c
	}
	return m
}()

func (l *loader) readScoreJSONL(s *source, st *InputStats, first []byte) {
	unknown := map[string]int{}
	l.growScores(s, len(first))
	// A file whose first record has no run_id is one run's log (METR
	// task-protected-scoring writes runs/<id>/score.log so): its run id is
	// --run-id or the folder name. Otherwise every record needs its run_id.
	perRun := true
	jsonline.ParseObject(first, func(k []byte, _ jsonline.Value) error {
		if string(k) == "run_id" || string(k) == "runId" {
			perRun = false
		}
		return nil
	})
	defaultRunID := ""
	if perRun {
		defaultRunID = l.runIDFromPath(s.path)
	}
	var p jsonline.Parser
	line, lineNo := first, s.line
	var e ScoreEntry // reused, as r in readJSONL
	var seen uint64  // scoreColumnBits of the columns set in the line read
	for {
		if len(bytes.TrimSpace(line)) > 0 {
			st.RowsRead++
			e = ScoreEntry{RawScore: math.NaN()}
			seen = 0
			err := p.ParseObject(line, func(k []byte, v jsonline.Value) error {
				name := string(k)
				if a, ok := scoreAliases[name]; ok {
					name = a
				}
				col, ok := scoreColumnBits[name]
				if !ok {
					unknown[string(k)]++
					return nil
				}
				if v.Kind == jsonline.Null {
					return nil
				}
				// A column given twice (a key repeated, or two of its
				// aliases) with values: which one is meant is a guess.
				if seen&col.bit != 0 {
					return &Error{File: s.path, Line: lineNo, Field: string(k), Msg: "duplicate key in one object (or two names of one column): which value is meant is a guess; keep one"}
				}
				seen |= col.bit
				set := col.set
				c := jsonCell(v)
				c.in = &l.interner
				if err := set(&e, c); err != nil {
					return &Error{File: s.path, Line: lineNo, Field: string(k), Msg: err.Error()}
				}
				return nil
			})
			if err == nil && e.RunID == "" && perRun {
				if defaultRunID == "" {
					err = &Error{Field: "run_id", Msg: "no run id: put the log in a folder named for its run, or pass --run-id"}
				}
				e.RunID = defaultRunID
			}
			if err == nil {
				err = checkScoreEntry(&e)
			}
			if err != nil {
				l.reject(st, lineError(s, lineNo, err), line)
			} else {
				st.RowsKept++
				l.ds.Scores = append(l.ds.Scores, e)
			}
		}
		var err error
		line, err = s.readLine()
		if err == io.EOF {
			break
		}
		if err != nil {
			l.fileErr(s.path, err)
			break
		}
		lineNo = s.line
	}
	l.warnUnknown(s.path, unknown)
}

func checkScoreEntry(e *ScoreEntry) error {
	if e.RunID == "" {
		return &Error{Field: "run_id", Msg: "missing required field"}
	}
	if !e.ElapsedS.Valid && !e.ScoredAt.Valid {
		return &Error{Field: "elapsed_s", Msg: "missing: want elapsed_s (seconds), elapsedTime (ms) or a timestamp"}
	}
	if e.ElapsedS.Valid && e.ElapsedS.V < 0 {
		return &Error{Field: "elapsed_s", Msg: "negative elapsed time"}
	}
	if math.IsInf(e.RawScore, 0) {
		return &Error{Field: "score", Msg: "infinite score"}
	}
	return nil
}
