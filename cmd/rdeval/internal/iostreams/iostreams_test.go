package iostreams

import (
	"errors"
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
