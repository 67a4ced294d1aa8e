package ingest

import (
	"archive/zip"
	"bytes"
	"compress/flate"
	"hash/crc32"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"testing/fstest"
)

// zstdFixture is a real Inspect log (inspect_ai tests/scorer/logs,
// popularity, 10 samples, deflate) repacked with zstd members by
// testdata/inspect/mkzstd.go; see testdata/inspect/SOURCE.md.
const (
	zstdFixture  = "testdata/inspect/popularity_zstd.eval"
	zstdOriginal = "scorer/logs/2025-02-11T15-18-04-05-00_popularity_mj7khqpMM4GBCfVQozKgzB.eval"
)

// TestInspectZstd reads an .eval whose members are zstd-compressed (zip
// method 93, Inspect's default since 0.3.206; before the fix: "zip:
// unsupported compression algorithm"), several frames per member. The
// scores are those testdata/reference/inspect_counts.py computed from the
// deflate original (the members' bytes are the same), and, when ../shared
// is present, the dataset equals the original's.
func TestInspectZstd(t *testing.T) {
	l, st := readInspectFile(t, zstdFixture)
	for _, e := range l.ds.Errors {
		t.Errorf("unexpected error: %v", e)
	}
	want := inspectReference(t)[zstdOriginal]
	if len(want) != 10 || len(l.ds.Runs) != len(want) || st.RowsKept != len(want) {
		t.Fatalf("%d runs (kept %d), want %d (reference rows)", len(l.ds.Runs), st.RowsKept, len(want))
	}
	for _, r := range l.ds.Runs {
		sid, ep := splitRunID(t, r.RunID)
		if got, w := scoreText(r), want[inspectKey{sid, ep}]; got != w {
			t.Errorf("run %s: score %q, want %q", r.RunID, got, w)
		}
	}

	orig := filepath.Join(anchorsDir(t), "inspect_ai", "tests", filepath.FromSlash(zstdOriginal))
	if _, err := os.Stat(orig); err != nil {
		t.Logf("not compared with the deflate original: %v", err)
		return
	}
	lo, _ := readInspectFile(t, orig)
	if len(lo.ds.Runs) != len(l.ds.Runs) {
		t.Fatalf("original: %d runs, zstd: %d", len(lo.ds.Runs), len(l.ds.Runs))
	}
	for i := range l.ds.Runs {
		a, b := l.ds.Runs[i], lo.ds.Runs[i]
		a.SourceFile, b.SourceFile = "", ""
		if !reflect.DeepEqual(a, b) {
			t.Errorf("run %d differs:\nzstd     %+v\noriginal %+v", i, a, b)
		}
	}
	if !reflect.DeepEqual(l.ds.Scores, lo.ds.Scores) {
		t.Errorf("score logs differ")
	}
}

// deflateMember returns data deflated, raw (for zip.Writer.CreateRaw).
func deflateMember(t testing.TB, data []byte) []byte {
	var b bytes.Buffer
	w, _ := flate.NewWriter(&b, flate.BestCompression)
	w.Write(data)
	w.Close()
	return b.Bytes()
}

// evalZip builds an .eval in memory: members in order, deflated, each
// declaring size[name] when given (else its true size).
func evalZip(t testing.TB, members [][2]string, size map[string]uint64) []byte {
	t.Helper()
	var out bytes.Buffer
	zw := zip.NewWriter(&out)
	for _, m := range members {
		data := []byte(m[1])
		n := uint64(len(data))
		if s, ok := size[m[0]]; ok {
			n = s
		}
		comp := deflateMember(t, data)
		w, err := zw.CreateRaw(&zip.FileHeader{Name: m[0], Method: zip.Deflate, CRC32: crc32.ChecksumIEEE(data),
			CompressedSize64: uint64(len(comp)), UncompressedSize64: n})
		if err != nil {
			t.Fatal(err)
		}
		w.Write(comp)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return out.Bytes()
}

func readEvalBytes(t testing.TB, data []byte) (*loader, InputStats) {
	l := newLoader(Options{FS: fstest.MapFS{"x.eval": {Data: data}}})
	l.cat = BuiltinCatalog()
	st := InputStats{Path: "x.eval"}
	l.readInspectEval("x.eval", &st)
	return l, st
}

const zipHeader = `{"version": 2, "status": "success", "eval": {"eval_id": "E1", "run_id": "R1", "task_id": "T1", "task": "t", "model": "m/x", "created": "2025-01-02T03:04:05+00:00"}}`

// TestInspectZipLimits: members that declare more than the 256 MiB cap,
// inflate past what they declare, or fall short of it are refused with a
// message naming the member, and the other samples are read. Deflate here
// (TestZipBomb in cmd/rdeval/internal/cli has zstd bombs of 2 and 3 GiB).
func TestInspectZipLimits(t *testing.T) {
	good := `{"id": 1, "epoch": 1, "scores": {"s": {"value": 1}}}`
	big := `{"id": 2, "epoch": 1, "scores": {"s": {"value": 1}}, "pad": "` + strings.Repeat(" ", 1<<20) + `"}`
	for _, tc := range []struct {
		name    string
		size    map[string]uint64
		member  string
		wantErr string
	}{
		{"declares over the cap", map[string]uint64{"samples/2_epoch_1.json": inspectEntryCap + 1}, "samples/2_epoch_1.json", "over the 256 MiB limit for one member"},
		{"inflates past its size", map[string]uint64{"samples/2_epoch_1.json": 1000}, "samples/2_epoch_1.json", "inflates to more than the 1000 bytes it declares"},
		{"falls short of its size", map[string]uint64{"samples/2_epoch_1.json": 2 << 20}, "samples/2_epoch_1.json", "fewer bytes than the 2097152 it declares"},
		{"header over the cap", map[string]uint64{"header.json": 1 << 40}, "header.json", "over the 256 MiB limit"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			data := evalZip(t, [][2]string{{"header.json", zipHeader}, {"samples/1_epoch_1.json", good}, {"samples/2_epoch_1.json", big}}, tc.size)
			l, _ := readEvalBytes(t, data)
			if len(l.ds.Errors) != 1 || !strings.Contains(l.ds.Errors[0].Error(), tc.wantErr) || !strings.Contains(l.ds.Errors[0].Error(), tc.member) {
				t.Fatalf("errors %v, want one naming %s: %q", l.ds.Errors, tc.member, tc.wantErr)
			}
			if tc.member != "header.json" && len(l.ds.Runs) != 1 {
				t.Errorf("%d runs, want 1 (the good sample)", len(l.ds.Runs))
			}
			if n := inflateBudget.inUse(); n != 0 {
				t.Errorf("inflate budget holds %d bytes after the read", n)
			}
		})
	}
	// The true sizes read.
	l, _ := readEvalBytes(t, evalZip(t, [][2]string{{"header.json", zipHeader}, {"samples/1_epoch_1.json", good}, {"samples/2_epoch_1.json", big}}, nil))
	if len(l.ds.Errors) != 0 || len(l.ds.Runs) != 2 {
		t.Errorf("honest archive: errors %v, %d runs", l.ds.Errors, len(l.ds.Runs))
	}
}

// TestByteBudget: acquire blocks while the budget is spent and resumes on
// release; a request over the budget takes the whole budget.
func TestByteBudget(t *testing.T) {
	b := newByteBudget(100)
	b.acquire(60)
	done := make(chan struct{})
	go func() { b.acquire(50); close(done) }()
	select {
	case <-done:
		t.Fatal("acquire(50) with 40 free did not wait")
	default:
	}
	b.release(60)
	<-done
	if b.inUse() != 50 {
		t.Errorf("in use %d, want 50", b.inUse())
	}
	b.release(50)
	b.acquire(1000) // capped at 100
	if b.inUse() != 100 {
		t.Errorf("in use %d, want 100", b.inUse())
	}
	b.release(1000)
	if b.inUse() != 0 {
		t.Errorf("in use %d, want 0", b.inUse())
	}
}

// FuzzReadEval feeds arbitrary bytes to the .eval reader: it must not
// panic, must account for every sample it reads, must leave the inflate
// budget free, and must give the same result twice. Seeds: the zstd
// fixture, a small deflate log, and one whose sample lies about its size.
func FuzzReadEval(f *testing.F) {
	if data, err := os.ReadFile(zstdFixture); err == nil {
		f.Add(data)
	}
	good := `{"id": 1, "epoch": 1, "scores": {"s": {"value": "C"}}, "events": [{"event": "score", "intermediate": true, "timestamp": "2025-01-02T03:04:06+00:00", "score": {"value": 0.5}}]}`
	f.Add(evalZip(f, [][2]string{{"header.json", zipHeader}, {"samples/1_epoch_1.json", good}}, nil))
	f.Add(evalZip(f, [][2]string{{"header.json", zipHeader}, {"samples/1_epoch_1.json", good}}, map[string]uint64{"samples/1_epoch_1.json": 10}))
	f.Add([]byte("PK\x03\x04"))
	defer func(c uint64) { inspectEntryCap = c }(inspectEntryCap)
	inspectEntryCap = 4 << 20
	f.Fuzz(func(t *testing.T, data []byte) {
		l, st := readEvalBytes(t, data)
		if n := inflateBudget.inUse(); n != 0 {
			t.Fatalf("inflate budget holds %d bytes after the read", n)
		}
		if st.RowsRejected > st.RowsRead || len(l.ds.Runs) > st.RowsRead {
			t.Fatalf("read %d, rejected %d, runs %d", st.RowsRead, st.RowsRejected, len(l.ds.Runs))
		}
		for _, r := range l.ds.Runs {
			if r.RunID == "" || r.SourceFile != "x.eval" {
				t.Fatalf("run %+v", r)
			}
		}
		l2, _ := readEvalBytes(t, data)
		if len(l2.ds.Runs) != len(l.ds.Runs) || len(l2.ds.Errors) != len(l.ds.Errors) {
			t.Fatalf("second read differs: %d runs %d errors, then %d runs %d errors", len(l.ds.Runs), len(l.ds.Errors), len(l2.ds.Runs), len(l2.ds.Errors))
		}
	})
}
