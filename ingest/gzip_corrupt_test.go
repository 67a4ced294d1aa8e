package ingest

import (
	"archive/zip"
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"os"
	"strings"
	"testing"
)

// gzipRuns is n METR run lines with ids prefix0…, all of task
// hcast_gz/1 (not in a catalog, so its human reference comes from the
// runs' human_score, which is human).
func gzipRuns(prefix string, n int, human float64) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, `{"run_id":"%s%d","task_id":"hcast_gz/1","alias":"A","score":0.5,"time_limit":1800,"started_at":1734070031112,"completed_at":1734071923976,"human_minutes":60,"human_score":%g}`+"\n", prefix, i, human)
	}
	return b.String()
}

// gzipOf returns data gzip-compressed, then damaged by hurt.
func gzipOf(data string, hurt func([]byte) []byte) []byte {
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	zw.Write([]byte(data))
	zw.Close()
	return hurt(b.Bytes())
}

// TestIssue26CorruptGzipKeepsNothing: a .gz whose trailer's CRC-32 or
// length does not match, or that is cut short, contributes no record, not
// the records read before the check failed (which were kept before): the
// input is rejected as a whole (its manifest entry holds the error, it is
// an input entry in rejected.jsonl, and the summary counts it as an
// input). The runs of the good files before and after it are all there,
// including one after it whose run id the bad file also had, and the
// human reference the bad file set is taken back. Serial and parallel
// parse, rows and the write-only load's columns.
func TestIssue26CorruptGzipKeepsNothing(t *testing.T) {
	good := gzipRuns("a", 5, 0.25) // human reference 0.25
	bad := gzipRuns("b", 300, 0.75)
	after := gzipRuns("b", 3, 0.25) // b0…b2: run ids the bad file also has
	hurts := map[string]func([]byte) []byte{
		"crc":       func(b []byte) []byte { b[len(b)-8] ^= 0xff; return b },
		"length":    func(b []byte) []byte { b[len(b)-1] ^= 0x01; return b },
		"truncated": func(b []byte) []byte { return b[:len(b)*2/3] },
	}
	for name, hurt := range hurts {
		for _, parallel := range []bool{false, true} {
			for _, writeOnly := range []bool{false, true} {
				t.Run(fmt.Sprintf("%s/parallel=%v/writeonly=%v", name, parallel, writeOnly), func(t *testing.T) {
					if parallel {
						withParallel(t, 2, 0, 4<<10)
					}
					dir := t.TempDir()
					paths := []string{
						writeFile(t, dir, "1-good.jsonl", good),
						writeFile(t, dir, "2-bad.jsonl.gz", string(gzipOf(bad, hurt))),
						writeGzip(t, dir, "3-after.jsonl.gz", after),
					}
					ds, err := Load(paths, Options{WriteOnly: writeOnly})
					if err != nil {
						t.Fatal(err)
					}
					if n := ds.NumRuns(); n != 8 {
						t.Errorf("%d runs, want 8 (5 before the bad file, 3 after)", n)
					}
					ie, _ := ds.Err().(*InputErrors)
					if ie == nil || len(ie.Errs) != 1 || ie.Summary() != "1 input rejected as a whole" || !strings.Contains(ie.Errs[0].Error(), "2-bad.jsonl.gz:") {
						t.Fatalf("errors: %v", ds.Err())
					}
					var st InputStats
					for _, in := range ds.Inputs {
						if in.Path == paths[1] {
							st = in
						}
					}
					if st.Error == "" || st.RowsKept != 0 || st.RowsRead == 0 {
						t.Errorf("bad input's stats: %+v", st)
					}
					if len(ds.Rejected) != 1 || !ds.Rejected[0].Input {
						t.Errorf("rejected: %+v", ds.Rejected)
					}
					for _, task := range ds.Tasks {
						if task.TaskID == "hcast_gz/1" && task.HumanReference != Some(0.25) {
							t.Errorf("human reference %v, want 0.25 (the bad file's 0.75 taken back)", task.HumanReference)
						}
					}
					m, err := WriteDataset(t.TempDir(), ds, WriteOptions{SkipBad: true, Version: "test"})
					if err != nil {
						t.Fatal(err)
					}
					if m.InputsRejected != 1 || m.RowsRejected != 0 || m.Outputs[0].Rows != 8 {
						t.Errorf("manifest: %d inputs and %d rows rejected, %d runs written", m.InputsRejected, m.RowsRejected, m.Outputs[0].Rows)
					}
				})
			}
		}
	}
}

// TestIssue26CorruptGzipOtherReaders: the same for a score log in JSON
// Lines, and for readers that stop before the end of the stream (an
// Inspect .json log is read up to its closing brace), whose trailer is
// now read too.
func TestIssue26CorruptGzipOtherReaders(t *testing.T) {
	crc := func(b []byte) []byte { b[len(b)-8] ^= 0xff; return b }
	for name, text := range map[string]string{
		"scores.jsonl.gz": `{"run_id":"r1","elapsed_s":1,"score":0.5}` + "\n" + `{"run_id":"r1","elapsed_s":2,"score":0.75}` + "\n",
		"log.json.gz":     synthJSON("success", synthScores),
	} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			p := writeFile(t, dir, name, string(gzipOf(text, crc)))
			ds, err := Load([]string{p}, Options{Benchmark: "demo"})
			if err != nil {
				t.Fatal(err)
			}
			if ds.NumRuns() != 0 || len(ds.Scores) != 0 {
				t.Errorf("%d runs and %d score-log rows kept from a corrupt stream", ds.NumRuns(), len(ds.Scores))
			}
			ie, _ := ds.Err().(*InputErrors)
			if ie == nil || ie.Summary() != "1 input rejected as a whole" || !strings.Contains(ie.Errs[0].Error(), "corrupt gzip stream") {
				t.Errorf("errors: %v", ds.Err())
			} else if strings.HasSuffix(name, ".json.gz") && ie.Errs[0].Line != 0 {
				t.Errorf("a JSON document's error names line %d", ie.Errs[0].Line)
			}
			// Sound, the same file is read whole.
			p = writeGzip(t, dir, "ok-"+name, text)
			ds, _ = Load([]string{p}, Options{Benchmark: "demo"})
			if ds.Err() != nil || ds.NumRuns()+len(ds.Scores) == 0 {
				t.Errorf("sound file: %v, %d runs, %d score-log rows", ds.Err(), ds.NumRuns(), len(ds.Scores))
			}
		})
	}
}

// TestIssue26EvalMemberChecksum: in an Inspect .eval each member carries
// its own CRC-32, which archive/zip checks at the member's end, before the
// reader parses it (readZipEntry reads a member whole). A sample whose
// bytes fail it (deflate or zstd) is that one sample rejected, the others
// kept; a header that fails it rejects the input. No record is read from
// bytes that failed a check.
func TestIssue26EvalMemberChecksum(t *testing.T) {
	sample := func(id int) string {
		return fmt.Sprintf(`{"id": %d, "epoch": 1, "scores": {"a": {"value": 0.5}}}`, id)
	}
	members := [][2]string{{"header.json", zipHeader}, {"samples/1_epoch_1.json", sample(1)}, {"samples/2_epoch_1.json", sample(2)}, {"samples/3_epoch_1.json", sample(3)}}
	data := evalZip(t, members, nil)
	// flipCRC changes the CRC-32 that member name declares, in its local
	// header and in the central directory.
	flipCRC := func(name string) []byte {
		b := bytes.Clone(data)
		zr, err := zip.NewReader(bytes.NewReader(b), int64(len(b)))
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range zr.File {
			if f.Name != name {
				continue
			}
			var crc [4]byte
			for i := range 4 {
				crc[i] = byte(f.CRC32 >> (8 * i))
			}
			n := bytes.Count(b, crc[:])
			if n != 2 {
				t.Fatalf("%s: CRC found %d times", name, n)
			}
			b = bytes.ReplaceAll(b, crc[:], []byte{crc[0] ^ 0xff, crc[1], crc[2], crc[3]})
		}
		return b
	}
	l, st := readEvalBytes(t, flipCRC("samples/2_epoch_1.json"))
	if len(l.ds.Runs) != 2 || st.RowsRejected != 1 || len(l.ds.Errors) != 1 || l.ds.Errors[0].Input || !strings.Contains(l.ds.Errors[0].Error(), "CRC-32") {
		t.Errorf("bad sample CRC: %d runs, %d rejected, errors %v", len(l.ds.Runs), st.RowsRejected, l.ds.Errors)
	}
	l, _ = readEvalBytes(t, flipCRC("header.json"))
	if len(l.ds.Runs) != 0 || len(l.ds.Errors) != 1 || !l.ds.Errors[0].Input {
		t.Errorf("bad header CRC: %d runs, errors %v", len(l.ds.Runs), l.ds.Errors)
	}
	// A sample member cut short inside a zip that is whole (its declared
	// compressed size is the cut one: the stream ends early), deflate and
	// zstd (the real zstd log: 10 samples).
	l, st = readEvalBytes(t, cutMember(t, data, "samples/2_epoch_1.json"))
	if len(l.ds.Runs) != 2 || st.RowsRejected != 1 || l.ds.Errors[0].Input {
		t.Errorf("cut deflate sample: %d runs, %d rejected, errors %v", len(l.ds.Runs), st.RowsRejected, l.ds.Errors)
	}
	zst, err := os.ReadFile(zstdFixture)
	if err != nil {
		t.Fatal(err)
	}
	zr, err := zip.NewReader(bytes.NewReader(zst), int64(len(zst)))
	if err != nil {
		t.Fatal(err)
	}
	var name string
	for _, f := range zr.File {
		if strings.HasPrefix(f.Name, "samples/") && f.Method == zipMethodZstd {
			name = f.Name
			break
		}
	}
	l, st = readEvalBytes(t, cutMember(t, zst, name))
	if len(l.ds.Runs) != 9 || st.RowsRejected != 1 || len(l.ds.Errors) != 1 || l.ds.Errors[0].Input {
		t.Errorf("cut zstd sample %s: %d runs, %d rejected, errors %v", name, len(l.ds.Runs), st.RowsRejected, l.ds.Errors)
	}
}

// cutMember copies the zip data, with member name's compressed bytes cut
// in half (and its header saying so).
func cutMember(t *testing.T, data []byte, name string) []byte {
	t.Helper()
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	zw := zip.NewWriter(&out)
	found := false
	for _, f := range zr.File {
		r, err := f.OpenRaw()
		if err != nil {
			t.Fatal(err)
		}
		comp, err := io.ReadAll(r)
		if err != nil {
			t.Fatal(err)
		}
		h := f.FileHeader
		if f.Name == name {
			comp, found = comp[:len(comp)/2], true
		}
		h.CompressedSize64 = uint64(len(comp))
		w, err := zw.CreateRaw(&h)
		if err != nil {
			t.Fatal(err)
		}
		w.Write(comp)
	}
	if err := zw.Close(); err != nil || !found {
		t.Fatalf("cutting %q: %v (found %v)", name, err, found)
	}
	return out.Bytes()
}
