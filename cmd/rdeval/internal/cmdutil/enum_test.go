package cmdutil

import (
	"strings"
	"testing"

	"github.com/spf13/cobra"
)

// TestEnumVar: the default, a value it takes, and one it refuses naming
// the flag and the values.
func TestEnumVar(t *testing.T) {
	var mode string
	cmd := &cobra.Command{}
	EnumVar(cmd, &mode, "mode", "ratio", "usage", "ratio", "percentiles", "lines")
	if mode != "ratio" || cmd.Flags().Lookup("mode").DefValue != "ratio" {
		t.Fatalf("default %q", mode)
	}
	if err := cmd.Flags().Parse([]string{"--mode", "lines"}); err != nil || mode != "lines" {
		t.Fatalf("lines: %v, %q", err, mode)
	}
	err := cmd.Flags().Parse([]string{"--mode", "odd"})
	if err == nil || !strings.Contains(err.Error(), `"odd" for "--mode" flag: want ratio, percentiles or lines`) || mode != "lines" {
		t.Errorf("odd: %v, %q", err, mode)
	}
}
