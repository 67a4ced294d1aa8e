package cli

import (
	"archive/zip"
	"bytes"
	"fmt"
	"hash/crc32"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/klauspost/compress/zstd"

	"github.com/rdeval/rdeval/cmd/rdeval/internal/iostreams"
)

// Zip bombs (issue 26): small Inspect .eval archives whose members inflate
// to gigabytes. They are generated here rather than committed: the
// compressed data are zstd frames (zip method 93, as Inspect 0.3.206 and
// later write) of 16 MiB of spaces each, repeated, so a 2 GiB member takes
// about 230 KB. The header and the good sample follow Inspect's log schema
// (inspect_ai src/inspect_ai/log/_log.py, EvalLog version 2); they are not
// real logs.

// bombHeader is the header of a bomb log; %[1]s names its eval_id and
// task_id (each bomb is its own task, so no retry note).
const bombHeader = `{"version": 2, "status": "success", "eval": {"eval_id": "%[1]sEval", "run_id": "bombRun1", "task_id": "%[1]sTask", "task": "bomb", "model": "mockllm/model", "created": "2026-04-20T10:00:00+00:00"}, "plan": {"steps": [{"solver": "generate"}]}}`

const bombSample = `{"id": 1, "epoch": 1, "scores": {"match": {"value": "C"}}}`

// bombMember is one archive member: data, or mib MiB of spaces (a
// multiple of 16) when data is nil; declare, when non-zero, is the
// inflated size the archive claims instead of the true one.
type bombMember struct {
	name    string
	data    []byte
	mib     int
	declare uint64
}

var zipBombs = map[string][]bombMember{
	// A sample that declares, and inflates to, 2 GiB.
	"zipbomb_sample.eval": {{name: "header.json", data: fmt.Appendf(nil, bombHeader, "bombSample")}, {name: "samples/1_epoch_1.json", data: []byte(bombSample)}, {name: "samples/2_epoch_1.json", mib: 2048}},
	// header.json declares, and inflates to, 3 GiB.
	"zipbomb_header.eval": {{name: "header.json", mib: 3072}, {name: "samples/1_epoch_1.json", data: []byte(bombSample)}},
	// A sample that declares 1 KiB and inflates to 2 GiB.
	"zipbomb_lying.eval": {{name: "header.json", data: fmt.Appendf(nil, bombHeader, "bombLying")}, {name: "samples/1_epoch_1.json", data: []byte(bombSample)}, {name: "samples/2_epoch_1.json", mib: 2048, declare: 1024}},
}

func writeZipBomb(t testing.TB, path string, members []bombMember) {
	t.Helper()
	enc, err := zstd.NewWriter(nil, zstd.WithEncoderConcurrency(1))
	if err != nil {
		t.Fatal(err)
	}
	chunk := bytes.Repeat([]byte(" "), 16<<20)
	frame := enc.EncodeAll(chunk, nil)
	var out bytes.Buffer
	zw := zip.NewWriter(&out)
	for _, m := range members {
		var comp []byte
		var size uint64
		crc := crc32.NewIEEE()
		if m.data != nil {
			comp = enc.EncodeAll(m.data, nil)
			size = uint64(len(m.data))
			crc.Write(m.data)
		} else {
			for range m.mib / 16 {
				comp = append(comp, frame...)
				crc.Write(chunk)
			}
			size = uint64(m.mib) << 20
		}
		if m.declare != 0 {
			size = m.declare
		}
		w, err := zw.CreateRaw(&zip.FileHeader{Name: m.name, Method: 93, Modified: time.Date(2026, 4, 20, 10, 0, 0, 0, time.UTC),
			CRC32: crc.Sum32(), CompressedSize64: uint64(len(comp)), UncompressedSize64: size})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.Write(comp); err != nil {
			t.Fatal(err)
		}
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, out.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

// bombPeakMiB bounds the peak resident memory of `rdeval ingest` on a
// bomb. The bombs inflate to 2 and 3 GiB; before the limits they took 2.1
// to 4.2 GB (issue 26).
const bombPeakMiB = 200

// TestZipBomb runs `rdeval ingest` on each bomb, and on a folder of all
// three, in a child process (this test binary, -test.run
// TestZipBombChild), and checks the exit code and stderr against
// testdata/bad/<case>.golden, that nothing was written, and the child's
// peak resident memory (getrusage through wait4).
func TestZipBomb(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("skipping: peak memory is read as Linux reports it (ru_maxrss in KiB)")
	}
	corpus, err := filepath.Abs(badDir)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name  string // golden file stem
		input string // file or folder passed to ingest
		files []string
	}{
		{"zipbomb_sample", "zipbomb_sample.eval", []string{"zipbomb_sample.eval"}},
		{"zipbomb_header", "zipbomb_header.eval", []string{"zipbomb_header.eval"}},
		{"zipbomb_lying", "zipbomb_lying.eval", []string{"zipbomb_lying.eval"}},
		{"zipbomb_folder", "bombs", []string{"bombs/zipbomb_header.eval", "bombs/zipbomb_lying.eval", "bombs/zipbomb_sample.eval"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			for _, f := range tc.files {
				p := filepath.Join(dir, f)
				os.MkdirAll(filepath.Dir(p), 0o755)
				writeZipBomb(t, p, zipBombs[filepath.Base(f)])
			}
			args := []string{"ingest", tc.input, "-o", "out"}
			cmd := exec.Command(os.Args[0], "-test.run=^TestZipBombChild$", "-test.count=1")
			cmd.Dir = dir
			cmd.Env = append(os.Environ(), "RDEVAL_ZIPBOMB_ARGS="+strings.Join(args, "\x1f"))
			var stdout, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			err := cmd.Run()
			code := cmd.ProcessState.ExitCode()
			if err != nil && code < 0 {
				t.Fatalf("child: %v\n%s", err, stderr.String())
			}
			got := fmt.Sprintf("$ rdeval %s\nexit %d\n%s", strings.Join(args, " "), code, stderr.String())
			checkGolden(t, filepath.Join(corpus, tc.name+".golden"), got)
			if code != 2 {
				t.Errorf("exit %d, want 2", code)
			}
			if entries, _ := os.ReadDir(filepath.Join(dir, "out")); len(entries) > 0 {
				t.Errorf("refused ingest left output: %v", entries)
			}
			peak := cmd.ProcessState.SysUsage().(*syscall.Rusage).Maxrss >> 10 // KiB → MiB
			t.Logf("peak resident memory %d MiB", peak)
			if peak > bombPeakMiB {
				t.Errorf("peak resident memory %d MiB, want at most %d MiB", peak, bombPeakMiB)
			}
		})
	}
}

// TestZipBombChild is TestZipBomb's child: it runs rdeval with the
// arguments in RDEVAL_ZIPBOMB_ARGS, prints stderr and exits with its code.
func TestZipBombChild(t *testing.T) {
	a := os.Getenv("RDEVAL_ZIPBOMB_ARGS")
	if a == "" {
		t.Skip("run by TestZipBomb")
	}
	io, _, stderr := iostreams.Test()
	code := Main(strings.Split(a, "\x1f"), io)
	os.Stderr.WriteString(stderr.String())
	os.Exit(code)
}
