package ingest

import (
	"bytes"
	"time"
	"unsafe"

	"github.com/rdeval/rdeval/ingest/internal/jsonline"
)

// Fast setters for JSON Lines run records. The common members of a run
// record (ids, names, numbers, millisecond timestamps) are stored straight
// into their field of the Run, at its offset, without building a cell and
// calling the column's setter (runColumns) through two closures. A fast
// setter handles only values its column's setter would accept, and stores
// exactly what that setter would store (an escaped string decoded, and
// interned where the column's strings are); anything else (a wrong type,
// an empty id, an escaped run id, an out-of-range number, an ISO
// timestamp) it declines, and the setter takes the value as before, with
// the same error when there is one. TestFastSettersMatchSetters checks every column
// against its setter on valid and invalid values.
//
// METR ×20 (63 MB): 0.470 → 0.455 s wall, 0.850 → 0.805 s CPU, medians of
// 12 alternating runs (docs/performance.md, "Fast setters").

// fastKind says how a fast setter stores a JSON value.
type fastKind uint8

const (
	fastNone     fastKind = iota
	fastID                // string field, non-empty string (cell.id; numbers go to the setter)
	fastStr               // string field (cell.str)
	fastOptStr            // Opt[string] (optStr)
	fastOptFloat          // Opt[float64] from a number (optFloat)
	fastOptInt            // Opt[int64] from an integer number (optInt)
	fastOptTime           // Opt[time.Time] from milliseconds since the epoch (optTime)
	fastOptBin            // Opt[int8] 0/1 from a boolean or 0/1 (score_binarized)
)

// fastField is a column's fast setter: its kind and the field's offset in
// a Run.
type fastField struct {
	kind fastKind
	off  uintptr
}

// fastRunFields lists the canonical runs columns that have a fast setter.
// Each must match the column's entry in runColumns (same field, same
// conversion): TestFastSettersMatchSetters.
var fastRunFields = map[string]fastField{
	"run_id":              {fastID, unsafe.Offsetof(Run{}.RunID)},
	"task_id":             {fastID, unsafe.Offsetof(Run{}.TaskID)},
	"agent":               {fastStr, unsafe.Offsetof(Run{}.Agent)},
	"task_family":         {fastOptStr, unsafe.Offsetof(Run{}.TaskFamily)},
	"model":               {fastOptStr, unsafe.Offsetof(Run{}.Model)},
	"scaffold":            {fastOptStr, unsafe.Offsetof(Run{}.Scaffold)},
	"task_version":        {fastOptStr, unsafe.Offsetof(Run{}.TaskVersion)},
	"hint_level":          {fastOptStr, unsafe.Offsetof(Run{}.HintLevel)},
	"error_type":          {fastOptStr, unsafe.Offsetof(Run{}.ErrorType)},
	"time_limit_s":        {fastOptInt, unsafe.Offsetof(Run{}.TimeLimitS)},
	"trial":               {fastOptInt, unsafe.Offsetof(Run{}.Trial)},
	"seed":                {fastOptInt, unsafe.Offsetof(Run{}.Seed)},
	"lines_added":         {fastOptInt, unsafe.Offsetof(Run{}.LinesAdded)},
	"lines_deleted":       {fastOptInt, unsafe.Offsetof(Run{}.LinesDeleted)},
	"started_at":          {fastOptTime, unsafe.Offsetof(Run{}.StartedAt)},
	"completed_at":        {fastOptTime, unsafe.Offsetof(Run{}.CompletedAt)},
	"duration_s":          {fastOptFloat, unsafe.Offsetof(Run{}.DurationS)},
	"raw_score":           {fastOptFloat, unsafe.Offsetof(Run{}.RawScore)},
	"score":               {fastOptFloat, unsafe.Offsetof(Run{}.Score)},
	"human_minutes":       {fastOptFloat, unsafe.Offsetof(Run{}.HumanMinutes)},
	"result_value":        {fastOptFloat, unsafe.Offsetof(Run{}.ResultValue)},
	"file_recall":         {fastOptFloat, unsafe.Offsetof(Run{}.FileRecall)},
	"tokens":              {fastOptFloat, unsafe.Offsetof(Run{}.Tokens)},
	"cost_usd":            {fastOptFloat, unsafe.Offsetof(Run{}.CostUSD)},
	"equal_task_weight":   {fastOptFloat, unsafe.Offsetof(Run{}.EqualTaskWeight)},
	"invsqrt_task_weight": {fastOptFloat, unsafe.Offsetof(Run{}.InvsqrtTaskWeight)},
	"weight":              {fastOptFloat, unsafe.Offsetof(Run{}.Weight)},
	"score_binarized":     {fastOptBin, unsafe.Offsetof(Run{}.ScoreBinarized)},
}

// useFastSetters turns the fast setters on (tests turn them off to compare).
var useFastSetters = true

// fastSet stores v (not null) into member ks of rp.r when ks's fast setter
// takes it, and reports whether it did.
func (rp *runLineParser) fastSet(ks *keySlot, v jsonline.Value) bool {
	p := unsafe.Add(unsafe.Pointer(rp.r), ks.fast.off)
	switch ks.fast.kind {
	case fastID, fastStr, fastOptStr:
		raw := v.Raw
		if v.Kind != jsonline.String || len(raw) < 2 {
			return false // not a string: the setter refuses it
		}
		body := raw[1 : len(raw)-1]
		if bytes.IndexByte(raw, '\\') >= 0 {
			// Escaped (METR writes task ids as "ai_rd_x\/main"): decoded
			// into a scratch buffer and interned, so that the runs of a
			// task share one string, as unescaped values do. Run ids are
			// not interned (each is unique): their setter decodes them.
			if !ks.intern {
				return false
			}
			var err error
			if rp.unescaped, err = v.AppendStr(rp.unescaped[:0]); err != nil {
				return false
			}
			body = rp.unescaped
		}
		if ks.fast.kind == fastID && len(body) == 0 {
			return false // the setter's "empty id" error
		}
		var s string
		if ks.intern {
			s = ks.in.intern(body)
		} else {
			s = rp.idString(body)
		}
		switch ks.fast.kind {
		case fastOptStr:
			*(*Opt[string])(p) = Some(s)
		default:
			*(*string)(p) = s
		}
		return true
	case fastOptFloat, fastOptTime:
		if v.Kind != jsonline.Number {
			return false
		}
		f, err := v.Float()
		if err != nil {
			return false
		}
		if ks.fast.kind == fastOptFloat {
			*(*Opt[float64])(p) = Some(f)
		} else {
			if !millisInRange(f) {
				return false // the setter's error
			}
			*(*Opt[time.Time])(p) = Some(millisTime(f))
		}
		return true
	case fastOptInt:
		if v.Kind != jsonline.Number {
			return false
		}
		i, err := v.Int()
		if err != nil {
			return false
		}
		*(*Opt[int64])(p) = Some(i)
		return true
	case fastOptBin:
		one, ok := jsonBool(v)
		if !ok {
			return false
		}
		b := Some(int8(0))
		if one {
			b.V = 1
		}
		*(*Opt[int8])(p) = b
		return true
	}
	return false
}

// idArenaBytes is the size of the blocks run ids are carved from.
const idArenaBytes = hugeMin

// idString returns b as a string carved from the parser's arena of run
// ids (unique to each run, so not interned): one allocation per 4 MiB
// block, advised as huge pages, instead of one per run (METR ×100's
// 706,000 ids took 1 % of the ingest's CPU in mallocgc, and 17 MB of small
// pages). A block is kept while any of its ids is.
func (rp *runLineParser) idString(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	if len(b) > cap(rp.idArena)-len(rp.idArena) {
		if len(b) > idArenaBytes/64 {
			return string(b) // a long id: not worth a block's tail
		}
		rp.idArena = memPool.Allocate(idArenaBytes)[:0]
	}
	start := len(rp.idArena)
	rp.idArena = append(rp.idArena, b...)
	return unsafe.String(&rp.idArena[start], len(b))
}
