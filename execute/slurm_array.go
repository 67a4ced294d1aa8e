package execute

import (
	"context"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"
)

// slurmGather is how long the first command of a job array waits for
// others with the same resources before the array is submitted; commands
// that start within it become elements of one `sbatch --array` job.
var slurmGather = 2 * time.Second

// slurmMaxArray caps the elements of one array (Slurm's MaxArraySize is
// 1001 by default).
const slurmMaxArray = 1000

// slurmElem is one command of an array: its script (slurmScript, which
// also holds the run's own #SBATCH lines as a record) run from its folder
// with its logs.
type slurmElem struct {
	script, dir, stdout, stderr string
	minutes                     int
}

// slurmGroup is one array being gathered, then submitted.
type slurmGroup struct {
	header string // the shared resource lines (#SBATCH --cpus-per-task …)
	elems  []slurmElem
	once   sync.Once
	ready  chan struct{} // closed once submitted (jobID or err set)
	jobID  string
	err    error
}

// slurmBatcher gathers the commands of a batch into job arrays, one per
// set of resources (cpus, memory, GPUs): issue #7's "each run as an element
// of a job array".
type slurmBatcher struct {
	mu   sync.Mutex
	open map[string]*slurmGroup
	n    int // arrays submitted, for the scripts' names
}

var slurmArrays = &slurmBatcher{open: map[string]*slurmGroup{}}

// add puts e into the open array for header (opening one if needed) and
// returns it with e's index; the array is submitted slurmGather after its
// first element, or at once when full.
func (b *slurmBatcher) add(header string, e slurmElem) (*slurmGroup, int) {
	b.mu.Lock()
	defer b.mu.Unlock()
	g := b.open[header]
	if g == nil {
		g = &slurmGroup{header: header, ready: make(chan struct{})}
		b.open[header] = g
		time.AfterFunc(slurmGather, func() { b.submit(g) })
	}
	g.elems = append(g.elems, e)
	idx := len(g.elems) - 1
	if len(g.elems) == slurmMaxArray {
		delete(b.open, header)
		go b.submit(g)
	}
	return g, idx
}

// submit writes the array's script next to its first element's and runs
// `sbatch --parsable --array=0-(n-1)` on it, once.
func (b *slurmBatcher) submit(g *slurmGroup) {
	g.once.Do(func() {
		defer close(g.ready)
		b.mu.Lock()
		if b.open[g.header] == g {
			delete(b.open, g.header)
		}
		b.n++
		n := b.n
		b.mu.Unlock()
		script := arrayScript(g)
		path := filepath.Join(filepath.Dir(g.elems[0].stdout), fmt.Sprintf("rdeval-array-%d-%d.sbatch", os.Getpid(), n))
		if err := os.WriteFile(path, []byte(script), 0o644); err != nil {
			g.err = err
			return
		}
		out, err := exec.Command("sbatch", "--parsable", path).Output()
		if err != nil {
			g.err = fmt.Errorf("sbatch %s: %v%s", path, err, stderrOf(err))
			return
		}
		id, _, _ := strings.Cut(strings.TrimSpace(string(out)), ";")
		if _, err := strconv.Atoi(id); err != nil {
			g.err = fmt.Errorf("sbatch printed %q, not a job id", out)
			return
		}
		g.jobID = id
	})
}

// arrayScript is the array job: the shared resources, the longest time
// limit of its elements, Slurm's own messages in slurm-%A_%a.out beside
// the script, and a dispatcher that runs element $SLURM_ARRAY_TASK_ID's
// script from its folder with its logs.
func arrayScript(g *slurmGroup) string {
	var b strings.Builder
	b.WriteString("#!/bin/bash\n")
	minutes := 1
	for _, e := range g.elems {
		minutes = max(minutes, e.minutes)
	}
	dir := filepath.Dir(g.elems[0].stdout)
	fmt.Fprintf(&b, "#SBATCH --job-name=rdeval-array\n#SBATCH --array=0-%d\n", len(g.elems)-1)
	fmt.Fprintf(&b, "#SBATCH --output=%s\n", filepath.Join(dir, "slurm-%A_%a.out"))
	fmt.Fprintf(&b, "#SBATCH --chdir=%s\n#SBATCH --time=%d\n", dir, minutes)
	b.WriteString(g.header)
	b.WriteString("case \"$SLURM_ARRAY_TASK_ID\" in\n")
	for i, e := range g.elems {
		fmt.Fprintf(&b, "%d) cd %s && exec bash %s > %s 2> %s ;;\n", i, shellQuote(e.dir), shellQuote(e.script), shellQuote(e.stdout), shellQuote(e.stderr))
	}
	b.WriteString("esac\necho \"rdeval: no array element $SLURM_ARRAY_TASK_ID\" >&2\nexit 99\n")
	return b.String()
}

// slurmHeader is the resource part of c's job (shared by an array's
// elements): --export=NONE, one task, --cpus-per-task, --mem, --gres.
func (c *command) slurmHeader(gpus int) string {
	var b strings.Builder
	b.WriteString("#SBATCH --export=NONE\n#SBATCH --ntasks=1\n")
	fmt.Fprintf(&b, "#SBATCH --cpus-per-task=%d\n", max(len(c.CPUs), c.SlurmCPUs, 1))
	if c.Limits.MemoryBytes > 0 {
		fmt.Fprintf(&b, "#SBATCH --mem=%dM\n", (c.Limits.MemoryBytes+(1<<20)-1)>>20)
	}
	if gpus > 0 {
		fmt.Fprintf(&b, "#SBATCH --gres=gpu:%d\n", gpus)
	}
	return b.String()
}

// slurmMinutes is c's time limit in whole minutes (at least 1).
func (c *command) slurmMinutes() int {
	return max(1, int(math.Ceil(time.Until(c.Deadline).Minutes())))
}

// submitSlurm adds c (its script written at path) to a job array and
// returns its element's job id, JOBID_INDEX, once the array is submitted.
func (c *command) submitSlurm(ctx context.Context, path string) (string, error) {
	g, idx := slurmArrays.add(c.slurmHeader(c.SlurmGPUs), slurmElem{script: path, dir: c.Dir, stdout: c.Stdout, stderr: c.Stderr, minutes: c.slurmMinutes()})
	select {
	case <-g.ready:
	case <-ctx.Done():
		// The array is submitted all the same; the caller scancels the element.
		<-g.ready
	}
	if g.err != nil {
		return "", g.err
	}
	return fmt.Sprintf("%s_%d", g.jobID, idx), nil
}
