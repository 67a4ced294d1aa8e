//go:build linux

package execute

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// The hostile-patch suite (issue 21): one agent patch per attack, each
// asserting that nothing crossed the sandbox. The patches replace the task
// repository's run.sh, which the spec runs; what the attack saw is written
// to report.txt in the work tree and kept (keep: [report.txt]).
//
// Every path the attacks aim at lies outside /tmp: the sandbox gives /tmp a
// private tmpfs, so a secret under /tmp would prove nothing. The test's
// folders are made under $HOME (as a root driver's are, typically /root).

// hostileBase is a fresh folder outside /tmp for one test: under $HOME,
// else under the package folder.
func hostileBase(t *testing.T) string {
	t.Helper()
	parent, err := os.UserHomeDir()
	if err != nil || strings.HasPrefix(parent, os.TempDir()) || parent == "/" {
		parent, _ = os.Getwd()
	}
	dir, err := os.MkdirTemp(parent, ".rdeval-hostile-")
	if err != nil {
		t.Skipf("cannot make a test folder outside %s: %v", os.TempDir(), err)
	}
	t.Cleanup(func() {
		filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
			if err == nil && d.IsDir() {
				os.Chmod(p, 0o755)
			}
			return nil
		})
		os.RemoveAll(dir)
	})
	return dir
}

// needBwrap skips unless bubblewrap confines commands here.
func needBwrap(t *testing.T) {
	t.Helper()
	sb, err := DetectSandbox(false)
	if err != nil || sb != SandboxBwrap {
		t.Skipf("skipping: the hostile-patch suite needs a working bubblewrap sandbox (apt-get install bubblewrap): %v", err)
	}
}

const hostileRunSh = "echo start\n"

// hostileTask writes a task repository (run.sh, other.txt) and a spec under
// base; extra is appended to the spec (metrics, keep). It returns the spec
// path.
func hostileTask(t *testing.T, base, extra string) string {
	t.Helper()
	repo := filepath.Join(base, "task", "repo")
	os.MkdirAll(repo, 0o755)
	for name, data := range map[string]string{"run.sh": hostileRunSh, "other.txt": "original\nline2\nline3\nline4\nline5\n",
		"a.txt": "1\n2\n3\n4\n5\n6\n7\n8\n"} {
		if err := os.WriteFile(filepath.Join(repo, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	commitAll(t, repo, "hostile task")
	spec := `id: hostile
repo: ./repo
base_commit: main
run: bash run.sh
timeout: 60s
seeds: [1]
success:
  exact: {done: 1}
metrics:
  done: {stdout_regex: 'DONE ([0-9]+)'}
` + extra
	path := filepath.Join(base, "task", "hostile.yaml")
	if err := os.WriteFile(path, []byte(spec), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// runShPatch is a patch replacing run.sh's one line with script.
func runShPatch(script string) string {
	lines := strings.Split(strings.TrimRight(script, "\n"), "\n")
	var b strings.Builder
	fmt.Fprintf(&b, "diff --git a/run.sh b/run.sh\n--- a/run.sh\n+++ b/run.sh\n@@ -1 +1,%d @@\n-echo start\n", len(lines))
	for _, l := range lines {
		b.WriteString("+" + l + "\n")
	}
	return b.String()
}

// runHostile runs one patch under the bwrap sandbox and returns its result
// and run folder.
func runHostile(t *testing.T, base, spec, patch string, mod func(*Options)) (*Result, string) {
	t.Helper()
	pdir := filepath.Join(base, "patches")
	os.MkdirAll(pdir, 0o755)
	if err := os.WriteFile(filepath.Join(pdir, "attack.diff"), []byte(patch), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := LoadSpec(spec)
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(base, "out")
	opts := Options{Spec: s, Patches: []string{filepath.Join(pdir, "attack.diff")}, Out: out, Sandbox: SandboxBwrap}
	if mod != nil {
		mod(&opts)
	}
	sum, err := Run(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	r := sum.Results[0]
	return r, filepath.Join(out, "runs", r.RunID)
}

// report reads the attack's kept report.txt.
func report(t *testing.T, runDir string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(runDir, "keep", "report.txt"))
	if err != nil {
		t.Fatalf("the attack's report was not kept: %v", err)
	}
	return string(b)
}

// TestHostileSecrets: agent code reads neither the driver's $HOME, nor
// /etc/shadow, nor other agents' patches, nor the task spec with its gold
// values.
func TestHostileSecrets(t *testing.T) {
	needBwrap(t)
	base := hostileBase(t)
	secret := "SECRET-" + filepath.Base(base)
	home := filepath.Join(base, "home")
	os.MkdirAll(filepath.Join(home, ".ssh"), 0o700)
	os.WriteFile(filepath.Join(home, ".ssh", "id_ed25519"), []byte(secret+"\n"), 0o600)
	t.Setenv("HOME", home)
	other := filepath.Join(base, "other-agent")
	os.MkdirAll(other, 0o755)
	os.WriteFile(filepath.Join(other, "theirs.diff"), []byte(secret+"-patch\n"), 0o644)
	spec := hostileTask(t, base, "keep: [report.txt]\n# gold: "+secret+"-gold\n")
	attack := fmt.Sprintf(`exec > report.txt 2>&1
echo "id: $(id)"
cat "$HOME/.ssh/id_ed25519"; cat %[1]s/home/.ssh/id_ed25519; ls -la %[1]s %[1]s/home "$HOME"
cat /etc/shadow /etc/gshadow
cat %[1]s/other-agent/theirs.diff %[1]s/task/hostile.yaml
ls -la /root /home /run /var/run
timeout 5 grep -rs %[2]q /etc /opt /var /srv /mnt /root /home 2>/dev/null | head
echo DONE 1 >> /dev/null
`, base, "SECRET-")
	r, runDir := runHostile(t, base, spec, runShPatch(attack), nil)
	rep := report(t, runDir)
	if strings.Contains(rep, secret) {
		t.Errorf("agent code read a host secret (outcome %s):\n%s", r.Outcome, rep)
	}
	if b, err := os.ReadFile("/etc/shadow"); err == nil {
		first, _, _ := strings.Cut(string(b), "\n")
		if first != "" && strings.Contains(rep, first) {
			t.Errorf("agent code read /etc/shadow:\n%s", rep)
		}
	}
	if os.Geteuid() == 0 && !strings.Contains(rep, "uid=65534") {
		t.Errorf("a root driver's agent code should run as uid 65534; report:\n%s", rep)
	}
}

// TestHostileUnixSocket: agent code reaches no host service through a
// pathname unix socket (a docker or dbus socket would be reached the same
// way), whether the socket is in a folder the driver's user owns or in
// /run.
func TestHostileUnixSocket(t *testing.T) {
	needBwrap(t)
	base := hostileBase(t)
	socks := []string{filepath.Join(base, "host.sock")}
	if os.Geteuid() == 0 {
		socks = append(socks, filepath.Join("/run", filepath.Base(base)+".sock"))
	}
	connected := make(chan string, 10)
	for _, p := range socks {
		l, err := net.Listen("unix", p)
		if err != nil {
			t.Fatal(err)
		}
		os.Chmod(p, 0o777)
		t.Cleanup(func() { l.Close(); os.Remove(p) })
		go func() {
			for {
				c, err := l.Accept()
				if err != nil {
					return
				}
				connected <- p
				c.Close()
			}
		}()
	}
	spec := hostileTask(t, base, "keep: [report.txt]\n")
	var tries strings.Builder
	for _, p := range socks {
		fmt.Fprintf(&tries, "python3 -c 'import socket; s=socket.socket(socket.AF_UNIX); s.connect(%q); print(\"connected\")' || echo refused\n", p)
	}
	_, runDir := runHostile(t, base, spec, runShPatch("exec > report.txt 2>&1\n"+tries.String()), nil)
	select {
	case p := <-connected:
		t.Errorf("agent code connected to the host socket %s:\n%s", p, report(t, runDir))
	case <-time.After(200 * time.Millisecond):
	}
	if rep := report(t, runDir); strings.Contains(rep, "connected") {
		t.Errorf("agent code reports a connection:\n%s", rep)
	}
}

// TestHostileSetuidAndGit: a kept work tree holds no setuid or setgid
// program and no .git folder the run planted (core.fsmonitor would run a
// command at the next git status there).
func TestHostileSetuidAndGit(t *testing.T) {
	needBwrap(t)
	base := hostileBase(t)
	spec := hostileTask(t, base, "keep: [report.txt]\n")
	attack := `exec > report.txt 2>&1
cp /bin/sh suid; chmod 4755 suid; cp /bin/sh sgid; chmod 2755 sgid
mkdir -p sub; cp /bin/sh sub/deep; chmod 6755 sub/deep
stat -c '%u %a %n' suid sgid sub/deep
mkdir -p .git sub/.git
printf '[core]\n\tfsmonitor = touch /tmp/pwned-fsmonitor\n' > .git/config
cp .git/config sub/.git/config
echo 'gitdir: /tmp/elsewhere' > sub/nested.git; mkdir -p x; echo 'gitdir: ..' > x/.git
`
	r, runDir := runHostile(t, base, spec, runShPatch(attack), func(o *Options) { o.KeepWork = true })
	t.Logf("outcome %s; report:\n%s", r.Outcome, report(t, runDir))
	found := 0
	for _, tree := range []string{filepath.Join(runDir, "work"), filepath.Join(runDir, "upper")} {
		filepath.WalkDir(tree, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return nil
			}
			found++
			fi, err := d.Info()
			if err != nil {
				return nil
			}
			if fi.Mode()&(fs.ModeSetuid|fs.ModeSetgid) != 0 {
				t.Errorf("kept work tree has a setuid/setgid file: %s (%v)", p, fi.Mode())
			}
			if d.Name() == ".git" {
				t.Errorf("kept work tree has a .git the run planted: %s", p)
			}
			return nil
		})
	}
	if found == 0 {
		t.Fatal("no kept work tree found")
	}
}

// TestHostileFIFOMetric: a FIFO as the metric file (or a keep file) does
// not hang the driver.
func TestHostileFIFOMetric(t *testing.T) {
	needBwrap(t)
	base := hostileBase(t)
	spec := hostileTask(t, base, "  score: {json_file: out.json, path: score}\nkeep: [out.json, link.json]\n")
	// The spec ends with its metrics: map, so the extractor above joins it.
	attack := "mkfifo out.json\nln -s /etc/passwd link.json\necho DONE 1\n"
	done := make(chan *Result, 1)
	go func() {
		r, _ := runHostile(t, base, spec, runShPatch(attack), nil)
		done <- r
	}()
	select {
	case r := <-done:
		if r.Outcome != OutcomeExecError || !strings.Contains(r.MetricErrors["score"], "not a regular file") {
			t.Errorf("FIFO metric: outcome %s, metric errors %v; want exec_error, not a regular file", r.Outcome, r.MetricErrors)
		}
		if len(r.Kept) != 0 {
			t.Errorf("kept %v; want nothing (a FIFO and a symlink)", r.Kept)
		}
	case <-time.After(90 * time.Second):
		t.Fatal("the driver hangs on a FIFO metric file")
	}
}

// TestHostileSparseKeep: a sparse 4 GiB keep file is not copied.
func TestHostileSparseKeep(t *testing.T) {
	needBwrap(t)
	base := hostileBase(t)
	spec := hostileTask(t, base, "keep: [big.bin, small.txt]\n")
	attack := "truncate -s 4G big.bin\necho ok > small.txt\necho DONE 1\n"
	start := time.Now()
	r, runDir := runHostile(t, base, spec, runShPatch(attack), nil)
	if fi, err := os.Stat(filepath.Join(runDir, "keep", "big.bin")); err == nil {
		t.Errorf("a 4 GiB sparse keep file was copied (%d bytes)", fi.Size())
	}
	if strings.Join(r.Kept, ",") != "small.txt" {
		t.Errorf("kept %v; want [small.txt]", r.Kept)
	}
	if !strings.Contains(strings.Join(r.KeepErrors, "; "), "big.bin") {
		t.Errorf("keep errors %q do not say why big.bin was not kept", r.KeepErrors)
	}
	t.Logf("run took %v", time.Since(start))
}

// TestHostileOversizedPatch: a patch over MaxPatchBytes is refused from
// its size alone: never read into memory nor copied into the run folder.
func TestHostileOversizedPatch(t *testing.T) {
	needBwrap(t)
	base := hostileBase(t)
	spec := hostileTask(t, base, "")
	pdir := filepath.Join(base, "patches")
	os.MkdirAll(pdir, 0o755)
	big := filepath.Join(pdir, "big.diff")
	f, err := os.Create(big)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(runShPatch("echo DONE 1"))
	f.Truncate(1 << 30) // sparse: 1 GiB that takes no disk
	f.Close()
	s, err := LoadSpec(spec)
	if err != nil {
		t.Fatal(err)
	}
	var before, after syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &before)
	sum, err := Run(context.Background(), Options{Spec: s, Patches: []string{big}, Out: filepath.Join(base, "out"), Sandbox: SandboxBwrap})
	syscall.Getrusage(syscall.RUSAGE_SELF, &after)
	if err != nil {
		t.Fatal(err)
	}
	r := sum.Results[0]
	if r.Outcome != OutcomePatchFailed || !strings.Contains(r.Reason, "larger than") {
		t.Errorf("1 GiB patch: outcome %s (%s); want patch_failed, larger than", r.Outcome, r.Reason)
	}
	if fi, err := os.Stat(filepath.Join(base, "out", "runs", r.RunID, "patch.diff")); err == nil && fi.Size() > MaxPatchBytes {
		t.Errorf("the oversized patch was copied into the run folder (%d bytes)", fi.Size())
	}
	if grew := after.Maxrss - before.Maxrss; grew > 256<<10 { // KiB
		t.Errorf("peak RSS grew by %d MiB reading an oversized patch", grew>>10)
	}
}

// TestHostileHiddenContextDiff: a context-diff section after a unified
// hunk, which vetting does not see, is not applied by a fallback applier.
func TestHostileHiddenContextDiff(t *testing.T) {
	needBwrap(t)
	if _, err := exec.LookPath("patch"); err != nil {
		t.Skip("GNU patch not installed")
	}
	base := hostileBase(t)
	spec := hostileTask(t, base, "")
	// The unified hunk's first context line is wrong, so go-gitdiff and git
	// apply reject it and GNU patch applies it with fuzz; the context diff
	// after it changes other.txt, which the patch does not declare.
	patch := "diff --git a/a.txt b/a.txt\n--- a/a.txt\n+++ b/a.txt\n@@ -2,3 +2,3 @@\n X\n-3\n+three\n 4\n" +
		"*** a/other.txt\n--- b/other.txt\n***************\n*** 1,3 ****\n! original\n  line2\n  line3\n--- 1,3 ----\n! pwned\n  line2\n  line3\n"
	r, _ := runHostile(t, base, spec, patch, func(o *Options) { o.KeepWork = true })
	t.Logf("outcome %s, apply %q: %s", r.Outcome, r.ApplyMethod, r.Reason)
	for _, f := range r.FilesEdited {
		if f == "other.txt" {
			return // vetting saw it: declared, not hidden
		}
	}
	runDir := filepath.Join(base, "out", "runs", r.RunID)
	for _, p := range []string{filepath.Join(runDir, "work", "other.txt"), filepath.Join(runDir, "upper", "other.txt")} {
		if b, err := os.ReadFile(p); err == nil && strings.Contains(string(b), "pwned") {
			t.Errorf("a hidden context-diff section was applied to other.txt (files_edited %v, method %s)", r.FilesEdited, r.ApplyMethod)
		}
	}
}

// TestHostileTerminalInjection: agent code cannot push keystrokes into the
// terminal rdeval was started from (TIOCSTI). The driver runs under
// script(1), which gives it a pseudo-terminal; after the driver, a shell
// reads a line from that terminal and runs it, as an interactive shell
// would.
func TestHostileTerminalInjection(t *testing.T) {
	if os.Getenv("RDEVAL_HOSTILE_DRIVER") != "" {
		hostileDriver()
		return
	}
	needBwrap(t)
	if _, err := exec.LookPath("script"); err != nil {
		t.Skip("script(1) not installed (util-linux)")
	}
	base := hostileBase(t)
	marker := filepath.Join(base, "pwned")
	spec := hostileTask(t, base, "keep: [report.txt]\n")
	attack := fmt.Sprintf(`exec > report.txt 2>&1
python3 - <<'EOF'
import fcntl, termios, os
for name in ["/dev/tty", "/proc/self/fd/0", "/proc/self/fd/1", "/proc/self/fd/2"]:
    try:
        fd = os.open(name, os.O_RDWR)
        for ch in "touch %s\n":
            fcntl.ioctl(fd, termios.TIOCSTI, ch)
        print("injected via", name)
    except OSError as e:
        print("no injection via", name, e)
EOF
`, marker)
	pdir := filepath.Join(base, "patches")
	os.MkdirAll(pdir, 0o755)
	os.WriteFile(filepath.Join(pdir, "attack.diff"), []byte(runShPatch(attack)), 0o644)
	cfg, _ := json.Marshal(map[string]string{"spec": spec, "patch": filepath.Join(pdir, "attack.diff"), "out": filepath.Join(base, "out")})
	exe, _ := os.Executable()
	inner := fmt.Sprintf("%q -test.run='^TestHostileTerminalInjection$'; read -t 3 line && eval \"$line\"; true", exe)
	cmd := exec.Command("script", "-qec", inner, "/dev/null")
	cmd.Env = append(os.Environ(), "RDEVAL_HOSTILE_DRIVER="+string(cfg))
	stdin, _ := cmd.StdinPipe() // open, never written: script must not see EOF
	defer stdin.Close()
	out, err := cmd.CombinedOutput()
	t.Logf("script: %v\n%s", err, out)
	if _, err := os.Stat(marker); err == nil {
		t.Errorf("agent code injected a command into the driver's terminal (%s exists)", marker)
	}
	matches, _ := filepath.Glob(filepath.Join(base, "out", "runs", "*", "keep", "report.txt"))
	if len(matches) != 1 {
		t.Fatalf("no report kept: %v", matches)
	}
	rep, _ := os.ReadFile(matches[0])
	if strings.Contains(string(rep), "injected via") {
		t.Errorf("TIOCSTI succeeded inside the sandbox:\n%s", rep)
	}
}

// hostileDriver is the driver TestHostileTerminalInjection runs under
// script(1).
func hostileDriver() {
	var cfg map[string]string
	json.Unmarshal([]byte(os.Getenv("RDEVAL_HOSTILE_DRIVER")), &cfg)
	s, err := LoadSpec(cfg["spec"])
	if err == nil {
		_, err = Run(context.Background(), Options{Spec: s, Patches: []string{cfg["patch"]}, Out: cfg["out"], Sandbox: SandboxBwrap})
	}
	if err != nil {
		fmt.Println("driver:", err)
	}
}

// TestNoBwrapFailsClosed: without bubblewrap on PATH there is no sandbox,
// even for a root driver with unshare(1): DetectSandbox names what is
// missing and how to install it.
func TestNoBwrapFailsClosed(t *testing.T) {
	bin := t.TempDir()
	for _, tool := range []string{"unshare", "bash", "sh", "true", "setpriv"} {
		if p, err := exec.LookPath(tool); err == nil {
			os.Symlink(p, filepath.Join(bin, tool))
		}
	}
	t.Setenv("PATH", bin)
	sb, err := DetectSandbox(false)
	if !errors.Is(err, ErrNoSandbox) {
		t.Fatalf("no bwrap on PATH: DetectSandbox = %q, %v; want ErrNoSandbox", sb, err)
	}
	for _, want := range []string{"bubblewrap", "apt-get install bubblewrap", UnconfinedFlag} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not mention %q", err, want)
		}
	}
}

// TestDockerWithoutDaemon: a container engine that cannot run containers
// stops the batch with an error and writes no result, so that a resume
// runs the run again instead of skipping it as done.
func TestDockerWithoutDaemon(t *testing.T) {
	bin := t.TempDir()
	fake := "#!/bin/sh\necho 'Cannot connect to the Docker daemon at unix:///var/run/docker.sock. Is the docker daemon running?' >&2\n" +
		"case \"$1\" in run) exit 125;; *) exit 1;; esac\n"
	os.WriteFile(filepath.Join(bin, "docker"), []byte(fake), 0o755)
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	base := t.TempDir()
	spec := hostileTask(t, base, "image: debian:stable\n")
	s, err := LoadSpec(spec)
	if err != nil {
		t.Fatal(err)
	}
	pdir := filepath.Join(base, "patches")
	os.MkdirAll(pdir, 0o755)
	os.WriteFile(filepath.Join(pdir, "p.diff"), []byte(runShPatch("echo DONE 1")), 0o644)
	out := filepath.Join(base, "out")
	_, err = Run(context.Background(), Options{Spec: s, Patches: []string{pdir}, Out: out, Backend: BackendDocker})
	if err == nil || !strings.Contains(err.Error(), "docker") {
		t.Fatalf("docker without a daemon: err = %v; want an error naming docker", err)
	}
	if m, _ := filepath.Glob(filepath.Join(out, "runs", "*", "result.json")); len(m) > 0 {
		t.Errorf("an infrastructure failure wrote results: %v", m)
	}
}

// TestResumeUnderOtherSandboxRefused: a run folder made under one sandbox
// is not resumed under another.
func TestResumeUnderOtherSandboxRefused(t *testing.T) {
	needBwrap(t)
	base := hostileBase(t)
	spec := hostileTask(t, base, "")
	runHostile(t, base, spec, runShPatch("echo DONE 1"), nil)
	s, _ := LoadSpec(spec)
	_, err := Run(context.Background(), Options{Spec: s, Patches: []string{filepath.Join(base, "patches")}, Out: filepath.Join(base, "out"), Sandbox: SandboxNone})
	if err == nil || !strings.Contains(err.Error(), "sandbox") {
		t.Fatalf("resume under another sandbox: err = %v; want a refusal naming the sandbox", err)
	}
}

// TestSummaryCountsUnfinished: a batch stopped early has nil results for
// the runs it did not reach; Counts skips them.
func TestSummaryCountsUnfinished(t *testing.T) {
	s := &Summary{Results: []*Result{{Outcome: OutcomeSuccess}, nil}}
	if c := s.Counts(); c[OutcomeSuccess] != 1 || len(c) != 1 {
		t.Errorf("Counts = %v", c)
	}
}

// TestSpecMounts: mounts: takes absolute host folders other than /, and a
// declared folder is the one host folder outside the system's that agent
// code sees, read-only.
func TestSpecMounts(t *testing.T) {
	for _, bad := range []string{"data", "/", "../x"} {
		if _, err := ParseSpec([]byte("id: t\nrepo: r\nbase_commit: main\nrun: 'true'\nseeds: [1]\nmetrics:\n  m: {stdout_regex: x}\nsuccess:\n  exact: {m: 1}\nmounts: ["+bad+"]\n"), "/"); err == nil || !strings.Contains(err.Error(), "mounts") {
			t.Errorf("mounts [%s]: err %v; want an error naming mounts", bad, err)
		}
	}
	needBwrap(t)
	base := hostileBase(t)
	data := filepath.Join(base, "dataset")
	os.MkdirAll(data, 0o755)
	os.WriteFile(filepath.Join(data, "train.txt"), []byte("DATA-OK\n"), 0o644)
	spec := hostileTask(t, base, "keep: [report.txt]\nmounts: ["+data+"]\n")
	attack := fmt.Sprintf("exec > report.txt 2>&1\ncat %[1]s/train.txt\necho x > %[1]s/new.txt && echo wrote\nls %[2]s\n", data, base)
	_, runDir := runHostile(t, base, spec, runShPatch(attack), nil)
	rep := report(t, runDir)
	if !strings.Contains(rep, "DATA-OK") || strings.Contains(rep, "\nwrote") {
		t.Errorf("mounted folder: want it readable and not writable; report:\n%s", rep)
	}
	if strings.Contains(rep, "other-agent") || strings.Contains(rep, "patches") {
		t.Errorf("the mount's parent folder is visible:\n%s", rep)
	}
}

// TestSlurmScriptNoStage: a Slurm job's command line is built for the
// node (bwrap as the job's user): it stages nothing on the driver's
// machine, so no staging folder is left behind per command.
func TestSlurmScriptNoStage(t *testing.T) {
	before, _ := filepath.Glob(filepath.Join(os.TempDir(), "rdeval-stage-*"))
	c := &command{Sandbox: SandboxBwrap, Backend: BackendSlurm, Script: "true", Dir: t.TempDir(), Name: "x",
		Stdout: "/dev/null", Stderr: "/dev/null", Deadline: time.Now().Add(time.Minute)}
	script, err := c.slurmScript(0)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(script, "rdeval-stage") || strings.Contains(script, "setpriv") {
		t.Errorf("the Slurm script stages on the driver's machine:\n%s", script)
	}
	if after, _ := filepath.Glob(filepath.Join(os.TempDir(), "rdeval-stage-*")); len(after) > len(before) {
		t.Errorf("staging folders left behind: %v", after)
	}
}
