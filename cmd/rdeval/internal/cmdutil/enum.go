package cmdutil

import (
	"fmt"
	"slices"
	"strings"

	"github.com/spf13/cobra"
)

// enum is a string flag that takes only one of its values.
type enum struct {
	p      *string
	values []string
}

func (e *enum) String() string { return *e.p }
func (e *enum) Type() string   { return "string" }

func (e *enum) Set(s string) error {
	if !slices.Contains(e.values, s) {
		return fmt.Errorf("want %s", OrList(e.values))
	}
	*e.p = s
	return nil
}

// EnumVar registers a string flag (default def) that takes only one of
// values: any other is a usage error naming the flag and the values, when
// the flags are parsed.
func EnumVar(cmd *cobra.Command, p *string, name, def, usage string, values ...string) {
	*p = def
	cmd.Flags().Var(&enum{p, values}, name, usage)
}

// OrList is "a", "a or b", "a, b or c".
func OrList(ws []string) string {
	if len(ws) == 1 {
		return ws[0]
	}
	return strings.Join(ws[:len(ws)-1], ", ") + " or " + ws[len(ws)-1]
}
