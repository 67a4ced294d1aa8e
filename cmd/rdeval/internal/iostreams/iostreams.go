// Package iostreams carries a command's standard streams, so that commands
// write only to what they are given and tests can pass buffers.
package iostreams

import (
	"bytes"
	"fmt"
	"io"
	"os"
)

// IO is the set of streams a command uses.
type IO struct {
	In     io.Reader
	Out    io.Writer
	ErrOut io.Writer
	// ErrTTY reports whether ErrOut is a terminal: progress is shown only then.
	ErrTTY bool
	// Quiet drops notes, warnings and progress (--quiet): what Warnf,
	// Notef and Infof print. Errors (Errorf) stay.
	Quiet bool
	// Args is the command line as run, "rdeval" first, and Version
	// rdeval's version: output that records how it was made (a LaTeX
	// table's comment line) cites them.
	Args    []string
	Version string
}

// What Warnf, Notef, Infof and Errorf print often quotes the input (a run
// id, an agent name, a line of a file): when ErrOut is a terminal
// (IsTerminal) each message goes through TerminalSafeText first, so that
// the input cannot move the cursor, clear the screen or reverse the text
// after it. A pipe or a file gets the bytes as they are.

// Warnf prints "warning: " and the message on ErrOut, unless Quiet.
func (s *IO) Warnf(format string, a ...any) { s.printf("warning: ", format, a...) }

// Warn prints each warning value as Warnf("%v", w) does.
func (s *IO) Warn(ws ...error) {
	for _, w := range ws {
		s.Warnf("%v", w)
	}
}

// Notef prints "note: " and the message on ErrOut, unless Quiet.
func (s *IO) Notef(format string, a ...any) { s.printf("note: ", format, a...) }

// Infof prints an informational line as it is on ErrOut (the files read
// and written, progress), unless Quiet.
func (s *IO) Infof(format string, a ...any) { s.printf("", format, a...) }

// Errorf prints the message on ErrOut whether or not Quiet is set: an
// error, or the list of bad records before one.
func (s *IO) Errorf(format string, a ...any) { s.println(fmt.Sprintf(format, a...)) }

func (s *IO) printf(prefix, format string, a ...any) {
	if s.Quiet {
		return
	}
	s.println(prefix + fmt.Sprintf(format, a...))
}

// println writes msg and a newline on ErrOut, escaped on a terminal.
func (s *IO) println(msg string) {
	io.WriteString(s.ErrOut, TextFor(s.ErrOut, msg)+"\n")
}

// System returns the process's streams.
func System() *IO {
	return &IO{In: os.Stdin, Out: os.Stdout, ErrOut: os.Stderr, ErrTTY: isTerminal(os.Stderr)}
}

// Test returns streams backed by buffers, with no terminal.
func Test() (io *IO, out, errOut *bytes.Buffer) {
	out, errOut = &bytes.Buffer{}, &bytes.Buffer{}
	return &IO{In: &bytes.Buffer{}, Out: out, ErrOut: errOut}, out, errOut
}

func isTerminal(f *os.File) bool {
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

// IsTerminal reports whether w is a terminal: an *os.File on a character
// device, or a writer that says so (TerminalBuffer, for tests). Output
// meant for a person (aligned tables) escapes what the input could use
// to control the terminal only then.
func IsTerminal(w io.Writer) bool {
	switch x := w.(type) {
	case *os.File:
		return isTerminal(x)
	case interface{ Terminal() bool }:
		return x.Terminal()
	}
	return false
}

// TerminalBuffer is a bytes.Buffer that IsTerminal takes for a terminal:
// tests of what a command prints on one.
type TerminalBuffer struct{ bytes.Buffer }

// NewTerminalBuffer returns an empty TerminalBuffer.
func NewTerminalBuffer() *TerminalBuffer { return &TerminalBuffer{} }

// Terminal reports true.
func (*TerminalBuffer) Terminal() bool { return true }

// TestErrTerminal is Test with ErrOut a terminal (a TerminalBuffer).
func TestErrTerminal() (io *IO, out *bytes.Buffer, errOut *TerminalBuffer) {
	out, errOut = &bytes.Buffer{}, NewTerminalBuffer()
	return &IO{In: &bytes.Buffer{}, Out: out, ErrOut: errOut}, out, errOut
}

// TestTerminal is Test with Out a terminal (a TerminalBuffer).
func TestTerminal() (io *IO, out *TerminalBuffer, errOut *bytes.Buffer) {
	out, errOut = NewTerminalBuffer(), &bytes.Buffer{}
	return &IO{In: &bytes.Buffer{}, Out: out, ErrOut: errOut}, out, errOut
}
