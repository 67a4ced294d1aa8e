package figconfig

import (
	"sort"
	"strings"

	"github.com/rdeval/rdeval/ingest"
)

// ErrorTypeCounts counts the error types of RExBench runs per agent, the
// data of the error-types bars (RExBench Fig. 10): the maxTypes most
// frequent types (ties by name) keep their own category and the rest are
// summed as "other". groups are the agents (" + " broken onto lines),
// sorted; counts[g][c] is agent g's runs of category cats[c]. ok is false
// when no RExBench run has an error type.
func ErrorTypeCounts(runs []ingest.Run, maxTypes int) (groups, cats []string, counts [][]float64, ok bool) {
	byAgent := map[string]map[string]float64{}
	total := map[string]float64{}
	for _, r := range runs {
		if r.Benchmark != "rexbench" || !r.ErrorType.Valid {
			continue
		}
		a := strings.ReplaceAll(r.Agent, " + ", "\n")
		if byAgent[a] == nil {
			byAgent[a] = map[string]float64{}
		}
		byAgent[a][r.ErrorType.V]++
		total[r.ErrorType.V]++
	}
	if len(total) == 0 {
		return nil, nil, nil, false
	}
	cats = sortedKeys(total)
	sort.SliceStable(cats, func(i, j int) bool { return total[cats[i]] > total[cats[j]] })
	other := map[string]bool{}
	if len(cats) > maxTypes {
		for _, x := range cats[maxTypes:] {
			other[x] = true
		}
		cats = append(cats[:maxTypes:maxTypes], "other")
	}
	groups = sortedKeys(byAgent)
	for _, a := range groups {
		row := make([]float64, len(cats))
		for cat, n := range byAgent[a] {
			i := len(cats) - 1
			if !other[cat] {
				for j, x := range cats {
					if x == cat {
						i = j
					}
				}
			}
			row[i] += n
		}
		counts = append(counts, row)
	}
	return groups, cats, counts, true
}
