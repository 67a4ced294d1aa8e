package execute

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// fakeSMIOutput is what nvidia-smi prints for GPUQuery on a box with three
// GPUs (the third's name holds a comma, its memory is not reported).
const fakeSMIOutput = `0, GPU-11111111-1111-1111-1111-111111111111, NVIDIA H100 80GB HBM3, 81559, 3
1, GPU-22222222-2222-2222-2222-222222222222, NVIDIA H100 80GB HBM3, 81559, 40000, 00000000:3B:00.0

2, GPU-33333333-3333-3333-3333-333333333333, Tesla V100, PCIe, [N/A], [N/A], 00000000:AF:00.0
`

// fakeNvidiaSMI writes an nvidia-smi script that checks it was asked the
// query rdeval uses and prints out; it returns the script's folder.
func fakeNvidiaSMI(t *testing.T, out string, exit int) string {
	t.Helper()
	dir := t.TempDir()
	script := fmt.Sprintf(`#!/bin/sh
if [ "$*" != %q ]; then echo "unexpected arguments: $*" >&2; exit 9; fi
cat <<'EOF'
%sEOF
exit %d
`, strings.Join(GPUQuery, " "), out, exit)
	if err := os.WriteFile(filepath.Join(dir, "nvidia-smi"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

func TestParseGPUList(t *testing.T) {
	t.Parallel()
	gpus, err := ParseGPUList([]byte(fakeSMIOutput))
	if err != nil {
		t.Fatal(err)
	}
	want := []GPU{
		{Index: 0, UUID: "GPU-11111111-1111-1111-1111-111111111111", Name: "NVIDIA H100 80GB HBM3", MemoryTotalMiB: 81559, MemoryUsedMiB: 3},
		{Index: 1, UUID: "GPU-22222222-2222-2222-2222-222222222222", Name: "NVIDIA H100 80GB HBM3", MemoryTotalMiB: 81559, MemoryUsedMiB: 40000, BusID: "00000000:3B:00.0"},
		{Index: 2, UUID: "GPU-33333333-3333-3333-3333-333333333333", Name: "Tesla V100, PCIe", MemoryTotalMiB: -1, MemoryUsedMiB: -1, BusID: "00000000:AF:00.0"},
	}
	if !slices.Equal(gpus, want) {
		t.Fatalf("got  %+v\nwant %+v", gpus, want)
	}
	for _, tc := range []struct{ in, want string }{
		{"0, GPU-1, A100\n", "line 1"},
		{"0, GPU-1, A100, 1, 2\nx, GPU-2, A100, 1, 2\n", `line 2 "x, GPU-2, A100, 1, 2": index "x"`},
		{"0, 1234, A100, 1, 2\n", `uuid "1234"`},
		{"0, GPU-1, A100, lots, 2\n", `memory "lots"`},
		{"0, GPU-1, A100, 1, 2\n0, GPU-2, A100, 1, 2\n", "listed twice"},
	} {
		if _, err := ParseGPUList([]byte(tc.in)); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: err = %v, want %q", tc.in, err, tc.want)
		}
	}
	if g, err := ParseGPUList(nil); err != nil || len(g) != 0 {
		t.Errorf("no GPUs: %v %v", g, err)
	}
}

func TestDiscoverGPUs(t *testing.T) {
	t.Parallel()
	smi := filepath.Join(fakeNvidiaSMI(t, fakeSMIOutput, 0), "nvidia-smi")
	proc := t.TempDir()
	// The driver says GPU 1 (bus 3B) is /dev/nvidia5; GPU 2's folder is
	// missing, so its minor falls back to its index.
	os.MkdirAll(filepath.Join(proc, "0000:3b:00.0"), 0o755)
	os.WriteFile(filepath.Join(proc, "0000:3b:00.0", "information"), []byte("Model: \t\t NVIDIA H100\nIRQ:   \t\t 42\nDevice Minor: \t 5\nBus Location: \t 0000:3b:00.0\n"), 0o644)
	gpus, err := DiscoverGPUs(context.Background(), GPUHost{NvidiaSMI: smi, ProcGPUs: proc})
	if err != nil {
		t.Fatal(err)
	}
	if len(gpus) != 3 || gpus[0].Minor != 0 || gpus[1].Minor != 5 || gpus[2].Minor != 2 {
		t.Fatalf("%+v", gpus)
	}
	failing := filepath.Join(fakeNvidiaSMI(t, "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver\n", 9), "nvidia-smi")
	if _, err := DiscoverGPUs(context.Background(), GPUHost{NvidiaSMI: failing}); err == nil || !strings.Contains(err.Error(), "exit status 9") {
		t.Errorf("failing nvidia-smi: %v", err)
	}
}

// TestDiscoverGPUsPath finds nvidia-smi on PATH, and says clearly when it
// is not there (not parallel: it sets PATH).
func TestDiscoverGPUsPath(t *testing.T) {
	t.Setenv("PATH", fakeNvidiaSMI(t, fakeSMIOutput, 0)+":"+os.Getenv("PATH"))
	gpus, err := DiscoverGPUs(context.Background(), GPUHost{})
	if err != nil || len(gpus) != 3 {
		t.Fatalf("%v %v", gpus, err)
	}
	t.Setenv("PATH", t.TempDir())
	if _, err := DiscoverGPUs(context.Background(), GPUHost{}); !errors.Is(err, ErrNoNvidiaSMI) || !strings.Contains(err.Error(), "nvidia-smi is not on PATH") {
		t.Errorf("no nvidia-smi: %v", err)
	}
}

func TestSelectGPUs(t *testing.T) {
	t.Parallel()
	found, _ := ParseGPUList([]byte(fakeSMIOutput))
	for _, tc := range []struct {
		flag string
		want []int
		err  string
	}{
		{"auto", []int{0, 1, 2}, ""},
		{"all", []int{0, 1, 2}, ""},
		{"none", nil, ""},
		{"2,0", []int{0, 2}, ""},
		{"GPU-22222222-2222-2222-2222-222222222222", []int{1}, ""},
		{"0,3", nil, `no GPU "3" (nvidia-smi lists 0, 1, 2)`},
		{"1,1", nil, "listed twice"},
	} {
		got, err := SelectGPUs(tc.flag, found)
		var idx []int
		for _, g := range got {
			idx = append(idx, g.Index)
		}
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%s: err = %v, want %q", tc.flag, err, tc.err)
			}
			continue
		}
		if err != nil || !slices.Equal(idx, tc.want) {
			t.Errorf("%s: %v %v, want %v", tc.flag, idx, err, tc.want)
		}
	}
}

// fakeDev makes a folder with stand-ins for NVIDIA device nodes (regular
// files: bwrap binds them like nodes, and the tests can see which ones a
// sandbox got).
func fakeDev(t *testing.T, names ...string) string {
	t.Helper()
	dir := t.TempDir()
	for _, n := range names {
		if err := os.WriteFile(filepath.Join(dir, n), []byte(n+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// bwrap binds the nodes as uid 65534 under a root driver (as it finds
	// /dev's): it must reach them.
	for d := dir; d != os.TempDir() && d != "/"; d = filepath.Dir(d) {
		os.Chmod(d, 0o755)
	}
	return dir
}

func TestGPUDeviceBinds(t *testing.T) {
	t.Parallel()
	dev := fakeDev(t, "nvidia0", "nvidia1", "nvidia5", "nvidiactl", "nvidia-uvm", "nvidia-modeset")
	h := GPUHost{DevDir: dev}
	got := gpuDeviceBinds(h, []GPU{{Index: 1, Minor: 5}})
	want := []string{dev + "/nvidia5", dev + "/nvidiactl", dev + "/nvidia-uvm", dev + "/nvidia-modeset"}
	if !slices.Equal(got, want) {
		t.Errorf("got %v, want %v (nvidia-uvm-tools is absent, so not bound)", got, want)
	}
	if got := gpuDeviceBinds(h, nil); got != nil {
		t.Errorf("no GPUs: %v", got)
	}
	args := strings.Join(bwrapConfig{Work: "/w", Devices: got}.args(), " ")
	if !strings.Contains(args, "--dev /dev --dev-bind "+dev+"/nvidia5 /dev/nvidia5 --dev-bind "+dev+"/nvidiactl /dev/nvidiactl") {
		t.Errorf("bwrap args: %s", args)
	}
	if strings.Contains(args, "nvidia0") || strings.Contains(args, "nvidia1 ") {
		t.Errorf("another GPU's node is bound: %s", args)
	}
	env := strings.Join(gpuEnv([]GPU{{UUID: "GPU-a"}, {UUID: "GPU-b"}}), " ")
	if env != "CUDA_VISIBLE_DEVICES=GPU-a,GPU-b NVIDIA_VISIBLE_DEVICES=GPU-a,GPU-b CUDA_DEVICE_ORDER=PCI_BUS_ID" {
		t.Errorf("env: %s", env)
	}
	if env := strings.Join(gpuEnv(nil), " "); env != "CUDA_VISIBLE_DEVICES= NVIDIA_VISIBLE_DEVICES=void CUDA_DEVICE_ORDER=PCI_BUS_ID" {
		t.Errorf("env without GPUs: %s", env)
	}
}

// gpuTask is a task needing n GPUs per run whose command prints what the
// run sees: its CUDA_VISIBLE_DEVICES, the NVIDIA nodes in its /dev, and
// the time around a sleep (to check that runs sharing a GPU never overlap).
func gpuTask(t *testing.T, n int, seeds string) string {
	return toyTask(t, fmt.Sprintf(`id: gpu
repo: repo
base_commit: main
run: |
  echo "START $(date +%%s.%%N)"
  echo "CVD=$CUDA_VISIBLE_DEVICES NVD=$NVIDIA_VISIBLE_DEVICES"
  echo "DEV=$(cd /dev && ls -d nvidia* 2>/dev/null | sort | tr '\n' ' ')"
  sleep 0.4
  echo "END $(date +%%s.%%N)"
  echo "RESULT: 0"
timeout: 20s
gpus: %d
seeds: %s
metrics:
  result: {stdout_regex: 'RESULT: ([0-9]+)'}
success:
  exact: {result: 0}
`, n, seeds))
}

type gpuRunView struct {
	r          *Result
	cvd, dev   string
	start, end float64
}

func readGPURuns(t *testing.T, out string, sum *Summary) []gpuRunView {
	t.Helper()
	var v []gpuRunView
	num := regexp.MustCompile(`(START|END) ([0-9.]+)`)
	for _, r := range sum.Results {
		if r.Outcome != OutcomeSuccess {
			t.Fatalf("%s: %s %s", r.RunID, r.Outcome, r.Reason)
		}
		b, err := os.ReadFile(filepath.Join(out, "runs", r.RunID, "stdout.log"))
		if err != nil {
			t.Fatal(err)
		}
		g := gpuRunView{r: r}
		for l := range strings.SplitSeq(string(b), "\n") {
			if c, ok := strings.CutPrefix(l, "CVD="); ok {
				g.cvd = c
			}
			if d, ok := strings.CutPrefix(l, "DEV="); ok {
				g.dev = strings.TrimSpace(d)
			}
			if m := num.FindStringSubmatch(l); m != nil {
				f, _ := strconv.ParseFloat(m[2], 64)
				if m[1] == "START" {
					g.start = f
				} else {
					g.end = f
				}
			}
		}
		v = append(v, g)
	}
	return v
}

// TestGPUScheduling runs a 1-GPU task on 6 seeds with --jobs 3 over three
// fake GPUs, and a 2-GPU task with --jobs 3 over the same three: every run
// gets its GPUs alone (runs sharing a GPU never overlap in time), sees
// their UUIDs in CUDA_VISIBLE_DEVICES, and under bwrap sees only their
// device nodes plus the shared ones.
func TestGPUScheduling(t *testing.T) {
	t.Parallel()
	found, _ := ParseGPUList([]byte(fakeSMIOutput))
	found[1].Minor = 5 // /dev/nvidia5, as a driver may number it
	dev := fakeDev(t, "nvidia0", "nvidia5", "nvidia2", "nvidiactl", "nvidia-uvm")
	sb := testSandbox(t)
	for _, n := range []int{1, 2} {
		spec := gpuTask(t, n, "[1, 2, 3, 4, 5, 6]")
		out := t.TempDir()
		dir := writePatches(t, map[string]string{"p.diff": patchCorrect})
		start := time.Now()
		sum, _ := runBatch(t, spec, []string{dir}, out, func(o *Options) {
			o.Sandbox, o.Jobs, o.GPUs, o.GPUHost = sb, 3, found, GPUHost{DevDir: dev}
		})
		t.Logf("gpus: %d, 6 runs, --jobs 3: %v", n, time.Since(start))
		runs := readGPURuns(t, out, sum)
		for _, g := range runs {
			if len(g.r.GPUs) != n {
				t.Fatalf("%s: assigned %v", g.r.RunID, g.r.GPUs)
			}
			var uuids, nodes []string
			for _, gpu := range g.r.GPUs {
				uuids = append(uuids, gpu.UUID)
				nodes = append(nodes, "nvidia"+strconv.Itoa(gpu.Minor))
			}
			if want := strings.Join(uuids, ","); g.cvd != want+" NVD="+want {
				t.Errorf("%s: saw %q, assigned %s", g.r.RunID, g.cvd, want)
			}
			if sb == SandboxBwrap {
				want := append(nodes, "nvidia-uvm", "nvidiactl")
				slices.Sort(want)
				// Sorted here, not by the run's sort(1): its order follows
				// the host's locale (en_US puts nvidia-uvm last).
				got := strings.Fields(g.dev)
				slices.Sort(got)
				if !slices.Equal(got, want) {
					t.Errorf("%s: /dev has %q, want %q", g.r.RunID, g.dev, strings.Join(want, " "))
				}
			}
		}
		overlapped := false
		for i, a := range runs {
			for _, b := range runs[i+1:] {
				if a.start < b.end && b.start < a.end {
					overlapped = true
					for _, ga := range a.r.GPUs {
						for _, gb := range b.r.GPUs {
							if ga.UUID == gb.UUID {
								t.Errorf("%s and %s used %s at the same time", a.r.RunID, b.r.RunID, ga.UUID)
							}
						}
					}
				}
			}
		}
		if n == 1 && !overlapped {
			t.Errorf("gpus: 1 with 3 GPUs and --jobs 3: no two runs overlapped, so the test checked nothing")
		}
	}
}

func TestGPUTaskTooBig(t *testing.T) {
	t.Parallel()
	found, _ := ParseGPUList([]byte(fakeSMIOutput))
	s, err := LoadSpec(gpuTask(t, 4, "[1]"))
	if err != nil {
		t.Fatal(err)
	}
	_, err = Run(context.Background(), Options{Spec: s, Patches: []string{s.File}, Out: t.TempDir(), Sandbox: SandboxNone, GPUs: found})
	if err == nil || !strings.Contains(err.Error(), "needs 4 GPUs per run but only 3 are available") {
		t.Fatalf("err = %v", err)
	}
	// bwrap without any device node for the GPUs refuses up front.
	s, _ = LoadSpec(gpuTask(t, 1, "[1]"))
	_, err = Run(context.Background(), Options{Spec: s, Patches: []string{s.File}, Out: t.TempDir(), Sandbox: SandboxBwrap, GPUs: found, GPUHost: GPUHost{DevDir: t.TempDir()}})
	if err == nil || !strings.Contains(err.Error(), "no /dev/nvidia* device nodes") {
		t.Fatalf("err = %v", err)
	}
}

func TestPool(t *testing.T) {
	t.Parallel()
	p := newPool(3)
	ctx := context.Background()
	a, _ := p.acquire(ctx, 2)
	if !slices.Equal(a, []int{0, 1}) {
		t.Fatal(a)
	}
	if _, err := p.acquire(ctx, 4); err == nil {
		t.Fatal("4 of 3")
	}
	got := make(chan []int)
	go func() { b, _ := p.acquire(ctx, 2); got <- b }()
	select {
	case b := <-got:
		t.Fatalf("got %v while only 1 was free", b)
	case <-time.After(50 * time.Millisecond):
	}
	p.release(a)
	if b := <-got; !slices.Equal(b, []int{0, 1}) {
		t.Fatal(b)
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := p.acquire(cctx, 3); err == nil {
		t.Fatal("acquire after cancel")
	}
	if l, err := parseCPUList("0-2,5, 7-8"); err != nil || !slices.Equal(l, []int{0, 1, 2, 5, 7, 8}) {
		t.Errorf("%v %v", l, err)
	}
	if _, err := parseCPUList("3-1"); err == nil {
		t.Error("3-1 accepted")
	}
}
