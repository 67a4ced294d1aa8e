package execute

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestRealGPU is the check for a machine with real NVIDIA GPUs, run by
// execute/testdata/gpu-check.sh (RDEVAL_GPU_CHECK=1); it is skipped
// elsewhere. It needs no network, git or Go toolchain (the repository is
// built with go-git), only the driver, nvidia-smi and, for the isolation
// checks, bubblewrap. Each check prints one PASS/FAIL/SKIP line.
func TestRealGPU(t *testing.T) {
	if os.Getenv("RDEVAL_GPU_CHECK") != "1" {
		t.Skip("set RDEVAL_GPU_CHECK=1 on a machine with NVIDIA GPUs (see execute/testdata/gpu-check.sh)")
	}
	report := func(ok bool, format string, a ...any) {
		status := "PASS"
		if !ok {
			status = "FAIL"
			t.Fail()
		}
		fmt.Printf("%s %s\n", status, fmt.Sprintf(format, a...))
	}
	// RDEVAL_GPU_CHECK_DEV points at stand-in device nodes for a dry run of
	// this check on a machine without GPUs (with a fake nvidia-smi on PATH).
	host := GPUHost{DevDir: os.Getenv("RDEVAL_GPU_CHECK_DEV")}
	gpus, err := DiscoverGPUs(context.Background(), host)
	report(err == nil && len(gpus) > 0, "discover: %d GPUs via nvidia-smi (%v)", len(gpus), err)
	if len(gpus) == 0 {
		return
	}
	for _, g := range gpus {
		_, statErr := os.Stat(filepath.Join(host.devDir(), fmt.Sprintf("nvidia%d", g.Minor)))
		report(statErr == nil, "GPU %d %s %s: %d MiB, bus %s, /dev/nvidia%d (%v)", g.Index, g.Name, g.UUID, g.MemoryTotalMiB, g.BusID, g.Minor, statErr)
	}
	sb, err := DetectSandbox(false)
	if err != nil {
		fmt.Printf("SKIP sandbox: %v; the isolation checks below run without one\n", err)
		sb = SandboxNone
	} else {
		fmt.Printf("INFO sandbox: %s, uid %d\n", sb, os.Geteuid())
	}
	script := `echo "CVD=$CUDA_VISIBLE_DEVICES"
echo "DEV=$(cd /dev && ls -d nvidia* 2>/dev/null | sort | tr '\n' ' ')"
echo "SMI=$(nvidia-smi --query-gpu=uuid --format=csv,noheader 2>&1 | tr '\n' ' ')"
if python3 -c 'import torch' 2>/dev/null; then
  python3 -c 'import torch; print("TORCH=%d" % torch.cuda.device_count()); x = torch.ones(1024, device="cuda"); print("TORCHSUM=%d" % int(x.sum().item()))' 2>&1 | tail -2
fi
echo "RESULT: 0"`
	spec := toyTask(t, fmt.Sprintf(`id: gpucheck
repo: repo
base_commit: main
run: %q
timeout: 120s
gpus: 1
seeds: [1]
metrics:
  result: {stdout_regex: 'RESULT: ([0-9]+)'}
success:
  exact: {result: 0}
`, script))
	s, err := LoadSpec(spec)
	if err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	dir := writePatches(t, map[string]string{"p.diff": patchCorrect})
	sum, err := Run(context.Background(), Options{Spec: s, Patches: []string{dir}, Out: out, Sandbox: sb, GPUs: gpus[:1], GPUHost: host})
	if err != nil {
		report(false, "run a gpus: 1 task: %v", err)
		return
	}
	r := sum.Results[0]
	b, _ := os.ReadFile(filepath.Join(out, "runs", r.RunID, "stdout.log"))
	e, _ := os.ReadFile(filepath.Join(out, "runs", r.RunID, "stderr.log"))
	fmt.Printf("INFO run stdout:\n%s\nINFO run stderr:\n%s\n", b, e)
	report(r.Outcome == OutcomeSuccess, "gpus: 1 run in sandbox %s: outcome %s %s", sb, r.Outcome, r.Reason)
	report(len(r.GPUs) == 1 && r.GPUs[0].UUID == gpus[0].UUID, "result.json records GPU %v", r.GPUs)
	lines := map[string]string{}
	for l := range strings.SplitSeq(string(b), "\n") {
		if k, v, ok := strings.Cut(l, "="); ok {
			lines[k] = strings.TrimSpace(v)
		}
	}
	report(lines["CVD"] == gpus[0].UUID, "CUDA_VISIBLE_DEVICES inside = %q, want %s", lines["CVD"], gpus[0].UUID)
	if sb == SandboxBwrap {
		want := fmt.Sprintf("nvidia%d", gpus[0].Minor)
		dev := strings.Fields(lines["DEV"])
		others := false
		for _, d := range dev {
			var n int
			if _, err := fmt.Sscanf(d, "nvidia%d", &n); err == nil && d == fmt.Sprintf("nvidia%d", n) && d != want {
				others = true
			}
		}
		report(strings.Contains(" "+lines["DEV"]+" ", " "+want+" ") && !others, "/dev inside has %s and no other GPU node: %q", want, lines["DEV"])
		report(strings.Contains(lines["SMI"], gpus[0].UUID), "nvidia-smi inside the sandbox sees %s: %q", gpus[0].UUID, lines["SMI"])
		for _, g := range gpus[1:] {
			report(!strings.Contains(lines["SMI"], g.UUID), "nvidia-smi inside does not see the unassigned GPU %s", g.UUID)
		}
	} else {
		fmt.Println("SKIP device-node isolation: needs bubblewrap")
	}
	if v, ok := lines["TORCH"]; ok {
		report(v == "1" && lines["TORCHSUM"] == "1024", "torch inside: device_count %s, sum %s", v, lines["TORCHSUM"])
	} else {
		fmt.Println("SKIP torch: not installed")
	}
	// A CPU task sees no GPU at all.
	s.GPUs = 0
	out0 := t.TempDir()
	sum, err = Run(context.Background(), Options{Spec: s, Patches: []string{dir}, Out: out0, Sandbox: sb})
	if err != nil {
		report(false, "gpus: 0 run: %v", err)
		return
	}
	r = sum.Results[0]
	b, _ = os.ReadFile(filepath.Join(out0, "runs", r.RunID, "stdout.log"))
	report(strings.Contains(string(b), "CVD=\n"), "gpus: 0 run: CUDA_VISIBLE_DEVICES empty")
	if sb == SandboxBwrap {
		report(strings.Contains(string(b), "DEV=\n"), "gpus: 0 run under bwrap: no /dev/nvidia* at all (%q)", b)
	}
	if _, err := exec.LookPath("bwrap"); err != nil {
		fmt.Println("INFO install bubblewrap (apt-get install bubblewrap) for the device-node checks")
	}
}
