package cmdutil

import (
	"sort"
	"strings"
	"time"
)

// ParseBudgets reads --budgets: durations (30m, 2h) as seconds.
func ParseBudgets(s []string) ([]float64, error) {
	var out []float64
	for _, b := range s {
		d, err := time.ParseDuration(strings.TrimSpace(b))
		if err != nil || d <= 0 {
			return nil, Usagef("--budgets %q: want durations like 30m, 2h, 32h", b)
		}
		out = append(out, d.Seconds())
	}
	return out, nil
}

// ParseGrid reads --grid: durations (5m, 1h) as seconds, sorted.
func ParseGrid(s []string) ([]float64, error) {
	var out []float64
	for _, g := range s {
		d, err := time.ParseDuration(strings.TrimSpace(g))
		if err != nil || d <= 0 {
			return nil, Usagef("--grid %q: want durations like 5m, 1h", g)
		}
		out = append(out, d.Seconds())
	}
	sort.Float64s(out)
	return out, nil
}
