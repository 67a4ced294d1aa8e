package regresscmd

// Pieces for commands that compute a regression statistic from a spec
// (audit claims, multiverse specs, study configs).

import (
	"fmt"
	"math"
	"strings"

	"github.com/rdeval/rdeval/analysis"
)

// CheckFamily validates a GLM family as claims files (audit), multiverse
// specs and study configs give it: "" means binomial; otherwise binomial or
// gaussian.
func CheckFamily(family string) (string, error) {
	if family == "" {
		return string(analysis.Binomial), nil
	}
	if family != string(analysis.Binomial) && family != string(analysis.Gaussian) {
		return "", fmt.Errorf("family %q: want binomial or gaussian", family)
	}
	return family, nil
}

// Coefficient returns a reader of the numeric fields ("estimate", "se",
// "ci_low", "ci_high", "p", …) of the coefficient named term, as Result
// prints it; a missing or non-numeric field reads as NaN. A term the model
// does not have is an error listing the terms it has.
func (r *Result) Coefficient(term string) (func(field string) float64, error) {
	var terms []string
	for _, c := range r.Coefficients {
		name, _ := c["term"].(string)
		if name != term {
			terms = append(terms, name)
			continue
		}
		return func(field string) float64 {
			if v, ok := c[field].(float64); ok {
				return v
			}
			return math.NaN()
		}, nil
	}
	return nil, fmt.Errorf("the model has no term %q (its terms: %s)", term, strings.Join(terms, ", "))
}
