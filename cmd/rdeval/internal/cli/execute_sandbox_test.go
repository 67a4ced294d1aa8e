//go:build linux

package cli

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/rdeval/rdeval/cmd/rdeval/internal/cmdtest"
	"github.com/rdeval/rdeval/cmd/rdeval/internal/iostreams"
)

// pathWithout is a PATH folder with links to the tools execute's tests
// need, and not to those in drop.
func pathWithout(t *testing.T, drop ...string) string {
	t.Helper()
	bin := t.TempDir()
	skip := map[string]bool{}
	for _, d := range drop {
		skip[d] = true
	}
	for _, tool := range []string{"bash", "sh", "python3", "git", "patch", "unshare", "setpriv", "mount", "taskset", "renice", "true", "id", "cat", "env", "bwrap"} {
		if skip[tool] {
			continue
		}
		if p, err := exec.LookPath(tool); err == nil {
			os.Symlink(p, filepath.Join(bin, tool))
		}
	}
	return bin
}

// TestExecuteFailsClosed: without bubblewrap, rdeval execute runs nothing
// and says what to install; --unsafe-no-sandbox runs anyway and says so on
// stderr even with --quiet; the removed --no-sandbox says what replaced it.
func TestExecuteFailsClosed(t *testing.T) {
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("python3 not installed: the toy experiment needs it")
	}
	specPath, _ := cmdtest.TaskRepo(t, map[string]string{"experiment.py": e2eExperiment, "model.py": e2eModel}, e2eSpec,
		map[string]string{"p/correct.diff": e2ePatch("+    return 0.8125\n")})
	patches := filepath.Join(filepath.Dir(specPath), "p")
	t.Setenv("PATH", pathWithout(t, "bwrap"))

	rd := filepath.Join(t.TempDir(), "rd")
	code, _, stderr := run(t, "execute", "run", "--task", specPath, "--patches", patches, "--out", rd, "-q")
	if code != 1 || !strings.Contains(stderr, "apt-get install bubblewrap") || !strings.Contains(stderr, "--unsafe-no-sandbox") {
		t.Errorf("no bwrap: exit %d, stderr %q; want 1 naming bubblewrap and the opt-in", code, stderr)
	}
	if m, _ := filepath.Glob(filepath.Join(rd, "runs", "*", "result.json")); len(m) > 0 {
		t.Errorf("runs were made without a sandbox: %v", m)
	}

	code, _, stderr = run(t, "execute", "run", "--task", specPath, "--patches", patches, "--out", rd, "--no-sandbox")
	if code != 2 || !strings.Contains(stderr, "--unsafe-no-sandbox") {
		t.Errorf("--no-sandbox: exit %d, stderr %q; want a usage error naming --unsafe-no-sandbox", code, stderr)
	}

	code, _, stderr = run(t, "execute", "run", "--task", specPath, "--patches", patches, "--out", rd, "--unsafe-no-sandbox", "-q")
	if code != 0 || !strings.Contains(stderr, "UNCONFINED") {
		t.Errorf("--unsafe-no-sandbox -q: exit %d, stderr %q; want 0 and the UNCONFINED notice", code, stderr)
	}
}

// TestExecuteSIGTERM: SIGTERM during a batch stops it cleanly: exit 1, no
// panic, the sandboxes killed, and a resume finishes the batch.
func TestExecuteSIGTERM(t *testing.T) {
	if args := os.Getenv("RDEVAL_CLI_CHILD"); args != "" {
		os.Exit(Main(strings.Split(args, "\x1f"), iostreams.System()))
	}
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("python3 not installed: the toy experiment needs it")
	}
	marker := "sleep 7." + strconv.FormatInt(time.Now().UnixNano()%1e9, 10) // the run's command line
	specPath, _ := cmdtest.TaskRepo(t, map[string]string{"experiment.py": e2eExperiment, "model.py": e2eModel}, e2eSpec,
		map[string]string{"p/slow.diff": e2ePatch("+    import os; os.system('" + marker + "')\n+    return 0.8125\n")})
	rd := filepath.Join(t.TempDir(), "rd")
	args := []string{"execute", "run", "--task", specPath, "--patches", filepath.Join(filepath.Dir(specPath), "p"), "--out", rd}
	if !sandboxWorks() {
		args = append(args, "--unsafe-no-sandbox")
	}
	exe, _ := os.Executable()
	cmd := exec.Command(exe, "-test.run=^TestExecuteSIGTERM$")
	cmd.Env = append(os.Environ(), "RDEVAL_CLI_CHILD="+strings.Join(args, "\x1f"))
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// Wait until the run's command is running, then stop the driver.
	deadline := time.Now().Add(30 * time.Second)
	for !strings.Contains(procs(), marker) && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
	}
	cmd.Process.Signal(syscall.SIGTERM)
	err := cmd.Wait()
	code := cmd.ProcessState.ExitCode()
	if code != 1 || strings.Contains(stderr.String(), "panic") {
		t.Errorf("SIGTERM: exit %d (%v), stderr:\n%s\nwant exit 1 and no panic", code, err, stderr.String())
	}
	time.Sleep(200 * time.Millisecond)
	if p := procs(); strings.Contains(p, marker) {
		t.Errorf("the run's processes outlived the driver")
	}
	if m, _ := filepath.Glob(filepath.Join(rd, "runs", "*", "result.json")); len(m) > 0 {
		t.Errorf("an interrupted run wrote a result: %v", m)
	}
}

func sandboxWorks() bool {
	_, err := exec.LookPath("bwrap")
	return err == nil
}

// procs is every process's command line, joined.
func procs() string {
	var b strings.Builder
	ps, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	for _, p := range ps {
		if c, err := os.ReadFile(p); err == nil {
			b.WriteString(strings.ReplaceAll(string(c), "\x00", " "))
			b.WriteByte('\n')
		}
	}
	return b.String()
}
