//go:build linux

package execute

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// startSlurm starts a single-node Slurm (munged, slurmctld, slurmd in the
// foreground, by PID) with its configuration, state and logs in a
// temporary folder, exports SLURM_CONF, and stops everything when the
// test ends. It skips the test, saying why, where the daemons cannot
// start (not root, packages missing, ports taken).
func startSlurm(t *testing.T) {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("a real Slurm needs root to start munged, slurmctld and slurmd")
	}
	for _, b := range []string{"munged", "slurmctld", "slurmd", "sbatch", "squeue", "scontrol"} {
		if _, err := exec.LookPath(b); err != nil {
			t.Skipf("%s not installed (apt-get install slurmctld slurmd slurm-client munge)", b)
		}
	}
	if _, err := os.Stat("/etc/munge/munge.key"); err != nil {
		t.Skipf("no munge key: %v", err)
	}
	host, err := os.Hostname()
	if err != nil {
		t.Skip(err)
	}
	dir := t.TempDir()
	u, err := user.Lookup("munge")
	if err != nil {
		t.Skipf("no munge user: %v", err)
	}
	uid, _ := strconv.Atoi(u.Uid)
	gid, _ := strconv.Atoi(u.Gid)
	// munged's own folder, owned by munge, under the sticky /tmp.
	mdir, err := os.MkdirTemp("", "rdeval-munge-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(mdir) })
	os.Chmod(mdir, 0o755)
	os.Chown(mdir, uid, gid)
	sock := filepath.Join(mdir, "munge.socket")
	munge := exec.Command("munged", "--foreground", "--socket", sock,
		"--pid-file", filepath.Join(mdir, "munged.pid"), "--log-file", filepath.Join(mdir, "munged.log"),
		"--seed-file", filepath.Join(mdir, "munged.seed"))
	// Started as munge, killed with the test process whatever ends it.
	munge.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}, Pdeathsig: syscall.SIGKILL}
	var mlog strings.Builder
	munge.Stderr = &mlog
	if err := munge.Start(); err != nil {
		t.Skipf("munged does not start: %v", err)
	}
	t.Cleanup(func() { munge.Process.Kill(); munge.Wait() })
	for i := 0; ; i++ {
		if _, err := os.Stat(sock); err == nil {
			break
		}
		if i > 100 {
			b, _ := os.ReadFile(filepath.Join(mdir, "munged.log"))
			t.Skipf("munged did not create its socket in 5 s: %s %s", mlog.String(), b)
		}
		time.Sleep(50 * time.Millisecond)
	}
	conf := filepath.Join(dir, "slurm.conf")
	os.MkdirAll(filepath.Join(dir, "state"), 0o755)
	os.MkdirAll(filepath.Join(dir, "spool"), 0o755)
	cfg := fmt.Sprintf(`ClusterName=rdevaltest
SlurmctldHost=%[1]s
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=%[2]s
CredType=cred/munge
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SchedulerType=sched/builtin
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
MpiDefault=none
ReturnToService=2
StateSaveLocation=%[3]s/state
SlurmdSpoolDir=%[3]s/spool
SlurmctldPidFile=%[3]s/slurmctld.pid
SlurmdPidFile=%[3]s/slurmd.pid
SlurmctldLogFile=%[3]s/slurmctld.log
SlurmdLogFile=%[3]s/slurmd.log
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
NodeName=%[1]s CPUs=1 RealMemory=512 State=UNKNOWN
PartitionName=test Nodes=%[1]s Default=YES MaxTime=INFINITE State=UP
`, host, sock, dir)
	if err := os.WriteFile(conf, []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("SLURM_CONF", conf)
	start := func(name string) *exec.Cmd {
		c := exec.Command(name, "-D", "-f", conf)
		c.Env = append(os.Environ(), "SLURM_CONF="+conf)
		c.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
		if err := c.Start(); err != nil {
			t.Skipf("%s does not start: %v", name, err)
		}
		t.Cleanup(func() { c.Process.Kill(); c.Wait() })
		return c
	}
	ctld := start("slurmctld")
	time.Sleep(500 * time.Millisecond)
	start("slurmd")
	logs := func() string {
		a, _ := os.ReadFile(filepath.Join(dir, "slurmctld.log"))
		b, _ := os.ReadFile(filepath.Join(dir, "slurmd.log"))
		return string(a) + "\n--- slurmd:\n" + string(b)
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		out, _ := exec.CommandContext(ctx, "sinfo", "--noheader", "--format", "%t").Output()
		cancel()
		if s := strings.TrimSpace(string(out)); s == "idle" {
			break
		}
		if ctld.ProcessState != nil || time.Now().After(deadline) {
			t.Skipf("single-node Slurm did not come up in 30 s; logs:\n%s", logs())
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// TestSlurmReal runs a batch through a real single-node Slurm: a success,
// a non-zero exit and a timeout (--time is in minutes, so the timeout is
// checked by scontrol's TIMEOUT only when the spec's timeout is ≥ 1 min,
// which this test does not wait for: it checks success and exit codes).
func TestSlurmReal(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: no real Slurm")
	}
	// It starts munged, slurmctld and slurmd as root on Slurm's fixed ports
	// (as issue #7 asks; .ci/run installs the packages) and skips, saying
	// why, where they cannot start. RDEVAL_NO_SLURM=1 skips it on a
	// developer's machine that has Slurm installed for other uses.
	if os.Getenv("RDEVAL_NO_SLURM") == "1" {
		t.Skip("skipping the real-Slurm test: RDEVAL_NO_SLURM=1")
	}
	startSlurm(t)
	old, oldGather := slurmPoll, slurmGather
	slurmPoll, slurmGather = 200*time.Millisecond, 500*time.Millisecond
	defer func() { slurmPoll, slurmGather = old, oldGather }()
	spec := bashTask(t, `if [ "$RDEVAL_SEED" = 2 ]; then exit 3; fi; echo "host $(hostname) job $SLURM_JOB_ID"; echo RESULT: 0`, "")
	b, _ := os.ReadFile(spec)
	os.WriteFile(spec, []byte(strings.Replace(string(b), "seeds: [1]", "seeds: [1, 2]", 1)), 0o644)
	dir := writePatches(t, map[string]string{"p.diff": patchCorrect})
	out := t.TempDir()
	// --jobs 2: both runs start together and go into one two-element array.
	sum, _ := runBatch(t, spec, []string{dir}, out, func(o *Options) { o.Backend, o.Jobs = BackendSlurm, 2 })
	r1, r2 := sum.Results[0], sum.Results[1]
	arrays, _ := filepath.Glob(filepath.Join(out, "runs", "*", "rdeval-array-*.sbatch"))
	two := false
	for _, a := range arrays {
		b, _ := os.ReadFile(a)
		two = two || strings.Contains(string(b), "#SBATCH --array=0-1\n")
	}
	if !two {
		t.Errorf("the two runs were not one two-element job array: %v", arrays)
	}
	stdout, _ := os.ReadFile(filepath.Join(out, "runs", r1.RunID, "stdout.log"))
	t.Logf("seed 1: %s (%s), stdout %q; seed 2: %s (%s)", r1.Outcome, r1.Reason, stdout, r2.Outcome, r2.Reason)
	if r1.Outcome != OutcomeSuccess || !strings.Contains(string(stdout), "job ") {
		t.Errorf("seed 1: %+v", r1)
	}
	if r2.Outcome != OutcomeExecError || r2.ExitCode == nil || *r2.ExitCode != 3 {
		t.Errorf("seed 2: %+v", r2)
	}
}
