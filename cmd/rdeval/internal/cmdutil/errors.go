// Package cmdutil holds what every rdeval command shares: exit codes, usage
// errors, output-format flags and input loading.
package cmdutil

import (
	"fmt"

	"github.com/spf13/cobra"
)

// Exit codes.
const (
	ExitOK       = 0
	ExitFailure  = 1 // the command ran and failed
	ExitBadInput = 2 // usage error or invalid input data: fix the command or the data
)

// UsageError is a wrong flag or argument; it exits with ExitBadInput.
type UsageError struct{ Err error }

func (e *UsageError) Error() string { return e.Err.Error() }
func (e *UsageError) Unwrap() error { return e.Err }

// Usagef returns a *UsageError.
func Usagef(format string, args ...any) error {
	return &UsageError{Err: fmt.Errorf(format, args...)}
}

// FlagError is the cobra flag-error function of rdeval: a bad flag (e.g.
// a value EnumVar refuses) is a *UsageError, with where to read the usage.
func FlagError(c *cobra.Command, err error) error {
	return &UsageError{Err: fmt.Errorf("%w\nRun '%s --help' for usage.", err, c.CommandPath())}
}

// BadInputError is invalid input data (the bad records were already
// printed); it exits with ExitBadInput.
type BadInputError struct{ Err error }

func (e *BadInputError) Error() string { return e.Err.Error() }
func (e *BadInputError) Unwrap() error { return e.Err }
