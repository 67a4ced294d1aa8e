package study

import (
	"strings"
	"testing"
	"time"

	"go.yaml.in/yaml/v3"
)

func decode(t *testing.T, text string, kinds ...string) (Spec, error) {
	t.Helper()
	var n yaml.Node
	if err := yaml.Unmarshal([]byte(text), &n); err != nil {
		t.Fatal(err)
	}
	return DecodeSpec(n.Content[0], kinds)
}

// TestDecodeSpec: one field table for every caller; a field its kind does
// not take, or a kind the caller does not, is an error naming the line.
func TestDecodeSpec(t *testing.T) {
	all := []string{"compare", "horizon", "rates", "regress", "scoreatk", "success"}
	for _, c := range []struct{ text, want string }{
		{"kind: scoreatk\nk: 4\nbudget: 2h\n", `line 3: stat field "budget" is not one of scoreatk's fields (kind, where, k)`},
		{"kind: horizon\nagent: a\nnagq: 2\n", `line 3: stat field "nagq"`},
		{"kind: power\n", `line 1: stat kind "power": want one of compare, horizon`},
		{"kind: scoreatk\nk: x\n", "stat: yaml: unmarshal errors"},
	} {
		if _, err := decode(t, c.text, all...); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: %v, want %q", c.text, err, c.want)
		}
	}
	if _, err := decode(t, "kind: rates\nagent: a\n", "compare", "scoreatk"); err == nil || !strings.Contains(err.Error(), "want one of compare, scoreatk") {
		t.Errorf("kind the caller does not take: %v", err)
	}
	s, err := decode(t, "kind: compare\na: agent=x\nb: agent=human\nbudget: 2h\nwhere: {benchmark: re-bench}\n", all...)
	if err != nil || s.A != "agent=x" || s.Where["benchmark"] != "re-bench" {
		t.Fatalf("%+v %v", s, err)
	}
}

// TestSpecValidate: the defaults and the checks of each kind.
func TestSpecValidate(t *testing.T) {
	s := Spec{Kind: "compare", A: "agent=x", B: "agent=human", Budget: "2h"}
	if err := s.Validate(); err != nil || s.Measure != "ratio" || s.BudgetLen != 2*time.Hour || s.HumanLen != DefaultHumanRunLength {
		t.Errorf("compare defaults: %+v %v", s, err)
	}
	h := Spec{Kind: "horizon", Agent: "a"}
	if err := h.Validate(); err != nil || h.Quantile != 0.5 {
		t.Errorf("horizon defaults: %+v %v", h, err)
	}
	r := Spec{Kind: "regress", Formula: "y ~ x", Term: "x"}
	if err := r.Validate(); err != nil || r.Measure != "estimate" || r.NAGQ != 1 || r.Family == "" {
		t.Errorf("regress defaults: %+v %v", r, err)
	}
	for _, c := range []struct {
		s    Spec
		want string
	}{
		{Spec{Kind: "scoreatk"}, "k ≥ 1"},
		{Spec{Kind: "scoreatk", K: 1, Where: map[string]string{"agnt": "a"}}, `where: "agnt" is not a runs column`},
		{Spec{Kind: "compare", A: "agent=x", B: "agent=y", Budget: "soon"}, `compare budget "soon"`},
		{Spec{Kind: "compare", A: "agent=x", B: "agent=y", Budget: "1h", Measure: "odds"}, `compare measure "odds": want ratio or diff`},
		{Spec{Kind: "compare", A: "agent=x", B: "agent=y", Budget: "1h", HumanRunLength: "-1h"}, `human_run_length "-1h"`},
		{Spec{Kind: "success", Framework: "f", Model: "m"}, "framework, model and hint_level"},
		{Spec{Kind: "success", Framework: "f", Model: "m", HintLevel: "h", Measure: "p"}, "want final_success, execution_success or file_recall"},
		{Spec{Kind: "regress", Formula: "y ~ x + (x | g)", Term: "x"}, "only random intercepts"},
		{Spec{Kind: "regress", Formula: "y ~ x", Term: "x", NAGQ: 5}, "regress nagq 5"},
		{Spec{Kind: "horizon", Agent: "a", Quantile: 1.5}, "horizon quantile 1.5"},
		{Spec{Kind: "rates"}, "rates needs agent"},
	} {
		if err := c.s.Validate(); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %v, want %q", c.s, err, c.want)
		}
	}
}
