package formula

import (
	"errors"
	"reflect"
	"strings"
	"testing"
)

func TestParseLabels(t *testing.T) {
	for _, tc := range []struct {
		f     string
		terms []string
		icpt  bool
	}{
		{"y ~ x1 + x2", []string{"x1", "x2"}, true},
		{"y ~ x1 * f", []string{"x1", "f", "x1:f"}, true},
		{"y ~ a*b*c", []string{"a", "b", "c", "a:b", "a:c", "b:c", "a:b:c"}, true},
		{"y ~ x1:x2 + x1", []string{"x1", "x1:x2"}, true},
		{"y ~ x1 + x2 + x2:x1", []string{"x1", "x2", "x1:x2"}, true},
		{"y ~ x - 1", []string{"x"}, false},
		{"y ~ 0 + x", []string{"x"}, false},
		{"y ~ (a + b):c", []string{"a:c", "b:c"}, true},
		{"y ~ a*b - a:b", []string{"a", "b"}, true},
		{"y ~ I(x^2) + log(x) + scale(gold_lines) + I(a * b)", []string{"I(x^2)", "log(x)", "scale(gold_lines)", "I(a * b)"}, true},
		{"y ~ x + (1 | model)", []string{"x"}, true},
	} {
		f, err := Parse(tc.f)
		if err != nil {
			t.Errorf("%s: %v", tc.f, err)
			continue
		}
		var got []string
		for _, term := range f.Terms {
			got = append(got, term.Label())
		}
		if !reflect.DeepEqual(got, tc.terms) || f.Intercept != tc.icpt {
			t.Errorf("%s: terms %q intercept %v, want %q %v", tc.f, got, f.Intercept, tc.terms, tc.icpt)
		}
	}
	f, _ := Parse("y ~ x + (1 | model)")
	if len(f.Random) != 1 || f.Random[0].Group != "model" || f.Random[0].Expr != "1" {
		t.Errorf("random: %+v", f.Random)
	}
}

func TestParseErrors(t *testing.T) {
	for _, tc := range []struct{ f, want string }{
		{"y ~ x1 +", "position 9"},
		{"~ x", "missing response"},
		{"y x", "position 3: want \"~\""},
		{"y ~ x + 2", "only 0 and 1"},
		{"y ~ foo(x)", "unknown function foo"},
		{"y ~ (x", "position 7"},
		{"y ~ x $ z", "unexpected character"},
	} {
		_, err := Parse(tc.f)
		var se *SyntaxError
		if err == nil || !errors.As(err, &se) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: %v, want %q", tc.f, err, tc.want)
		}
	}
}

func TestBuild(t *testing.T) {
	tab := Table{Columns: map[string][]string{
		"y": {"1", "0", "true", "1", "0", "1"},
		"x": {"1", "2", "3", "4", "5", "NA"},
		"f": {"b", "a", "c", "a", "b", "c"},
	}}
	// "true" makes y non-numeric: a true/false response must be all booleans.
	if _, err := Build(mustParse(t, "y ~ x"), tab, Options{}); err == nil {
		t.Errorf("mixed response accepted")
	}
	tab.Columns["y"][2] = "0"
	d, err := Build(mustParse(t, "y ~ x:f"), tab, Options{})
	if err != nil {
		t.Fatal(err)
	}
	// f's margin x is absent: indicators of every level, as R.
	if want := []string{"(Intercept)", "x:fa", "x:fb", "x:fc"}; !reflect.DeepEqual(d.Names, want) || d.Dropped != 1 || len(d.X) != 5 {
		t.Errorf("names %v dropped %d", d.Names, d.Dropped)
	}
	d, err = Build(mustParse(t, "y ~ x*f"), tab, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"(Intercept)", "x", "fb", "fc", "x:fb", "x:fc"}; !reflect.DeepEqual(d.Names, want) {
		t.Errorf("names %v", d.Names)
	}
	if want := []float64{1, 1, 1, 0, 1, 0}; !reflect.DeepEqual(d.X[0], want) {
		t.Errorf("row 0 %v", d.X[0])
	}
	d, err = Build(mustParse(t, "y ~ f - 1"), tab, Options{})
	if err != nil || !reflect.DeepEqual(d.Names, []string{"fa", "fb", "fc"}) {
		t.Errorf("f - 1: %v %v", d, err)
	}
	_, err = Build(mustParse(t, "y ~ x + foo"), tab, Options{})
	if err == nil || err.Error() != `column "foo" not found; columns are: f, x, y` {
		t.Errorf("missing column: %v", err)
	}
	tab.Columns["c"] = []string{"2", "2", "2", "2", "2", "2"}
	d, err = Build(mustParse(t, "y ~ x + c"), tab, Options{})
	if err != nil || len(d.Warnings) != 1 || !strings.Contains(d.Warnings[0].Error(), "column c is constant") {
		t.Errorf("constant: %v %v", d, err)
	}
	if _, err := Build(mustParse(t, "y ~ scale(c)"), tab, Options{}); err == nil {
		t.Errorf("scale of a constant accepted")
	}
}

func mustParse(t *testing.T, s string) *Formula {
	t.Helper()
	f, err := Parse(s)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// TestOffset: offset(x) terms leave the fixed terms, are summed per row by
// Build (log() applied first), and drop rows where they are missing, as
// model.offset(model.frame(y ~ x + offset(log(e)) + offset(o))) in R.
func TestOffset(t *testing.T) {
	f, err := Parse("y ~ x + offset(log(e)) + offset(o)")
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Terms) != 1 || f.Terms[0].Label() != "x" || len(f.Offsets) != 2 {
		t.Fatalf("terms %v offsets %v", f.Terms, f.Offsets)
	}
	if got := f.Columns(); !reflect.DeepEqual(got, []string{"y", "x", "e", "o"}) {
		t.Errorf("columns %v", got)
	}
	tab := Table{Columns: map[string][]string{
		"y": {"1", "0", "1", "0"}, "x": {"1", "2", "3", "4"}, "e": {"1", "2.718281828459045", "NA", "1"}, "o": {"0.5", "1", "1", "-1"},
	}}
	d, err := Build(f, tab, Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := []float64{0.5, 2, -1}
	if !reflect.DeepEqual(d.Rows, []int{0, 1, 3}) || len(d.Offset) != 3 {
		t.Fatalf("rows %v offset %v", d.Rows, d.Offset)
	}
	for i, w := range want {
		if d := d.Offset[i] - w; d > 1e-15 || d < -1e-15 {
			t.Errorf("offset[%d] = %v, want %v", i, w+d, w)
		}
	}
	if !reflect.DeepEqual(d.Names, []string{"(Intercept)", "x"}) {
		t.Errorf("names %v", d.Names)
	}
	if _, err := Parse("y ~ x:offset(o)"); err == nil || !strings.Contains(err.Error(), "offset() inside") {
		t.Errorf("offset in an interaction: %v", err)
	}
	d, err = Build(mustParse(t, "y ~ x"), tab, Options{})
	if err != nil || d.Offset != nil {
		t.Errorf("no offset: %v %v", d.Offset, err)
	}
}
