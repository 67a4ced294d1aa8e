package execute

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
)

// pool hands out disjoint sets of slots (GPUs, CPUs) to concurrent runs:
// acquire blocks until n slots are free and takes the lowest ones, so the
// assignment is deterministic for a given order of requests.
type pool struct {
	mu    sync.Mutex
	free  []bool // by slot position
	avail int
	wake  chan struct{} // closed and replaced on every release
}

func newPool(n int) *pool {
	p := &pool{free: make([]bool, n), avail: n, wake: make(chan struct{})}
	for i := range p.free {
		p.free[i] = true
	}
	return p
}

// acquire takes n free slots, waiting for them; it fails at once when the
// pool has fewer than n slots in all, and when ctx ends.
func (p *pool) acquire(ctx context.Context, n int) ([]int, error) {
	if n == 0 {
		return nil, nil
	}
	if n > len(p.free) {
		return nil, fmt.Errorf("needs %d, only %d exist", n, len(p.free))
	}
	for {
		p.mu.Lock()
		if p.avail >= n {
			var got []int
			for i, f := range p.free {
				if f && len(got) < n {
					p.free[i] = false
					got = append(got, i)
				}
			}
			p.avail -= n
			p.mu.Unlock()
			return got, nil
		}
		wake := p.wake
		p.mu.Unlock()
		select {
		case <-wake:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
}

// release returns slots taken by acquire.
func (p *pool) release(slots []int) {
	if len(slots) == 0 {
		return
	}
	p.mu.Lock()
	for _, i := range slots {
		if p.free[i] {
			panic("execute: slot released twice")
		}
		p.free[i] = true
	}
	p.avail += len(slots)
	close(p.wake)
	p.wake = make(chan struct{})
	p.mu.Unlock()
}

// allowedCPUs reads the CPUs this process may run on from the
// Cpus_allowed_list line of /proc/self/status ("0-3,8,10-11").
func allowedCPUs(statusPath string) ([]int, error) {
	b, err := os.ReadFile(statusPath)
	if err != nil {
		return nil, err
	}
	for l := range strings.SplitSeq(string(b), "\n") {
		k, v, ok := strings.Cut(l, ":")
		if !ok || strings.TrimSpace(k) != "Cpus_allowed_list" {
			continue
		}
		return parseCPUList(strings.TrimSpace(v))
	}
	return nil, fmt.Errorf("%s: no Cpus_allowed_list line", statusPath)
}

// parseCPUList parses a Linux CPU list such as "0-3,8,10-11".
func parseCPUList(s string) ([]int, error) {
	var out []int
	for part := range strings.SplitSeq(s, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		lo, hi, isRange := strings.Cut(part, "-")
		a, err1 := strconv.Atoi(lo)
		b := a
		var err2 error
		if isRange {
			b, err2 = strconv.Atoi(hi)
		}
		if err1 != nil || err2 != nil || a < 0 || b < a || b-a > 1<<16 {
			return nil, fmt.Errorf("CPU list %q: bad element %q", s, part)
		}
		for c := a; c <= b; c++ {
			out = append(out, c)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("CPU list %q is empty", s)
	}
	return out, nil
}
