package study

import (
	"fmt"
	"time"
)

// CheckCompareSpec validates a compare statistic as claims files (audit) and
// multiverse specs give it: groups A and B (COLUMN=VALUE[;COLUMN=VALUE…]),
// a positive budget (a Go duration such as 2h) and the measure, ratio (the
// default, returned for "") or diff.
func CheckCompareSpec(a, b, budget, measure string) (time.Duration, string, error) {
	if a == "" || b == "" {
		return 0, "", fmt.Errorf("compare needs a and b (COLUMN=VALUE[;COLUMN=VALUE…])")
	}
	for _, g := range []string{a, b} {
		if _, err := ParseGroup(g); err != nil {
			return 0, "", err
		}
	}
	d, err := time.ParseDuration(budget)
	if err != nil || d <= 0 {
		return 0, "", fmt.Errorf("compare budget %q: want a positive duration, e.g. 2h", budget)
	}
	if measure == "" {
		measure = "ratio"
	}
	if measure != "ratio" && measure != "diff" {
		return 0, "", fmt.Errorf("compare measure %q: want ratio or diff", measure)
	}
	return d, measure, nil
}

// DefaultHumanRunLength is how long a human run without a time limit is
// taken to last when a compare statistic reads it at a budget (RE-Bench's
// human runs are 8 hours).
const DefaultHumanRunLength = 8 * time.Hour

// ParseHumanRunLength reads a claims file's or multiverse spec's
// human_run_length: "" gives DefaultHumanRunLength, anything else must be a
// positive Go duration such as 8h.
func ParseHumanRunLength(s string) (time.Duration, error) {
	if s == "" {
		return DefaultHumanRunLength, nil
	}
	d, err := time.ParseDuration(s)
	if err != nil || d <= 0 {
		return 0, fmt.Errorf("human_run_length %q: want a positive duration, e.g. 8h", s)
	}
	return d, nil
}
