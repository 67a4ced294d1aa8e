package cmdtest

import (
	"os"
	"testing"
)

// METRRuns is the path of METR's public all_runs.jsonl at commit in
// ../shared/anchors (eval-analysis-public), relative to a package folder
// under cmd/rdeval/internal.
func METRRuns(commit string) string {
	return "../../../../../shared/anchors/eval-analysis-public/" + commit + "/data/external/all_runs.jsonl"
}

// SkipWithoutMETR skips t when the shared anchors are absent.
func SkipWithoutMETR(t testing.TB) {
	t.Helper()
	if _, err := os.Stat(METRRuns("3a947ac7069ecb6e1fd0064cc0205e5eb9dcba0f")); err != nil {
		t.Skip("shared anchors absent (../shared/anchors/eval-analysis-public): METR public data checks skipped")
	}
}
