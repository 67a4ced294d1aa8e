package iostreams

import (
	"errors"
	"strings"
	"testing"
)

func TestQuiet(t *testing.T) {
	s, _, errOut := Test()
	s.Warnf("%d runs left out", 3)
	s.Warn(errors.New("fit did not converge"))
	s.Notef("n=%d", 1)
	s.Infof("wrote %s", "x")
	want := "warning: 3 runs left out\nwarning: fit did not converge\nnote: n=1\nwrote x\n"
	if got := errOut.String(); got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	errOut.Reset()
	s.Quiet = true
	s.Warnf("x")
	s.Notef("y")
	s.Infof("z")
	if errOut.Len() != 0 {
		t.Errorf("quiet printed %q", errOut.String())
	}
}

// TestTerminalSafe: what a terminal acts on is escaped as in a Go string
// literal; TerminalSafeText keeps line breaks; other text is unchanged.
func TestTerminalSafe(t *testing.T) {
	for _, c := range []struct{ in, safe, text string }{
		{"plain agent-1 ü 日本", "plain agent-1 ü 日本", "plain agent-1 ü 日本"},
		{"\x1b[2J\x1b[31mred", `\x1b[2J\x1b[31mred`, `\x1b[2J\x1b[31mred`},
		{"a\rb\tc\nd", `a\rb\tc\nd`, "a\\rb\\tc\nd"},
		{"evil\u202egnp.exe \u2066x\u2069", `evil\u202egnp.exe \u2066x\u2069`, `evil\u202egnp.exe \u2066x\u2069`},
		{"del\x7f c1\u0085 bad\xff\xfe", `del\x7f c1\x85 bad\xff\xfe`, `del\x7f c1\x85 bad\xff\xfe`},
		{`back\slash`, `back\slash`, `back\slash`},
		{"", "", ""},
	} {
		if got := TerminalSafe(c.in); got != c.safe {
			t.Errorf("TerminalSafe(%q) = %q, want %q", c.in, got, c.safe)
		}
		if got := TerminalSafeText(c.in); got != c.text {
			t.Errorf("TerminalSafeText(%q) = %q, want %q", c.in, got, c.text)
		}
	}
}

// TestMessagesOnTerminal: warnings, notes, info and error lines quoting
// the input are escaped when ErrOut is a terminal (a fake one here), and
// written as they are to a pipe; errors are printed under Quiet too.
func TestMessagesOnTerminal(t *testing.T) {
	const agent = "\x1b]0;pwned\x07\x1b[2Kagent\u202e"
	const want = `\x1b]0;pwned\x07\x1b[2Kagent\u202e`
	print := func(s *IO) {
		s.Warnf("agent %s has 1 run", agent)
		s.Warn(errors.New("fit of " + agent + " did not converge"))
		s.Notef("run id %s", agent)
		s.Infof("read %s", agent)
		s.Errorf("in.jsonl:3: field %q: want number, got %s\nin.jsonl:4: %s", "agent", agent, agent)
	}
	term, _, errTerm := TestErrTerminal()
	print(term)
	wantTerm := "warning: agent " + want + " has 1 run\nwarning: fit of " + want + " did not converge\nnote: run id " + want + "\nread " + want +
		"\nin.jsonl:3: field \"agent\": want number, got " + want + "\nin.jsonl:4: " + want + "\n"
	if got := errTerm.String(); got != wantTerm {
		t.Errorf("terminal got\n%q\nwant\n%q", got, wantTerm)
	}
	pipe, _, errPipe := Test()
	print(pipe)
	if got := errPipe.String(); got != strings.ReplaceAll(wantTerm, want, agent) {
		t.Errorf("pipe got %q", got)
	}
	errTerm.Reset()
	term.Quiet = true
	print(term)
	if got := errTerm.String(); got != "in.jsonl:3: field \"agent\": want number, got "+want+"\nin.jsonl:4: "+want+"\n" {
		t.Errorf("quiet: %q", got)
	}
	if got := TextFor(errTerm, agent); got != want {
		t.Errorf("TextFor(terminal) = %q", got)
	}
	if got := TextFor(errPipe, agent); got != agent {
		t.Errorf("TextFor(pipe) = %q", got)
	}
}
