package auditcmd

import (
	"bytes"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/rdeval/rdeval/analysis/formula"
	"github.com/rdeval/rdeval/cmd/rdeval/internal/cmdutil"
	"github.com/rdeval/rdeval/cmd/rdeval/internal/study"
	"github.com/rdeval/rdeval/ingest"
	"go.yaml.in/yaml/v3"
)

// File is a parsed claims file.
type File struct {
	Data   []string          `yaml:"data"`
	Where  map[string]string `yaml:"where"`
	Claims []Claim           `yaml:"-"`
	dir    string
}

// Claim is one statement, the statistic that backs it and what it must satisfy.
type Claim struct {
	ID     string `yaml:"id"`
	Text   string `yaml:"text"`
	Stat   Stat   `yaml:"stat"`
	Expect Expect `yaml:"expect"`
}

// Stat is the statistic of a claim; which fields apply depends on Kind.
type Stat struct {
	Kind           string            `yaml:"kind"`
	Where          map[string]string `yaml:"where"`
	K              int               `yaml:"k"`
	A              string            `yaml:"a"`
	B              string            `yaml:"b"`
	Budget         string            `yaml:"budget"`
	Measure        string            `yaml:"measure"`
	HumanRunLength string            `yaml:"human_run_length"`
	Framework      string            `yaml:"framework"`
	Model          string            `yaml:"model"`
	HintLevel      string            `yaml:"hint_level"`
	Agent          string            `yaml:"agent"`
	Formula        string            `yaml:"formula"`
	Family         string            `yaml:"family"`
	Cluster        string            `yaml:"cluster"`
	Term           string            `yaml:"term"`
	NAGQ           int               `yaml:"nagq"`

	budget, humanLen time.Duration
}

// Expect is what the recomputed value must satisfy; every condition given must hold.
type Expect struct {
	Value  *float64 `yaml:"value"`
	RelTol *float64 `yaml:"rel_tol"`
	AbsTol *float64 `yaml:"abs_tol"`
	InCI   bool     `yaml:"in_ci"`
	Min    *float64 `yaml:"min"`
	Max    *float64 `yaml:"max"`
}

// allowed are the stat fields each kind accepts.
var allowed = map[string][]string{
	"scoreatk": {"kind", "where", "k"},
	"compare":  {"kind", "where", "a", "b", "budget", "measure", "human_run_length"},
	"success":  {"kind", "where", "framework", "model", "hint_level", "measure"},
	"rates":    {"kind", "where", "agent", "human_run_length"},
	"regress":  {"kind", "where", "formula", "family", "cluster", "term", "measure", "nagq"},
}

func kinds() string {
	ks := make([]string, 0, len(allowed))
	for k := range allowed {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return strings.Join(ks, ", ")
}

// strict decodes n into out with unknown fields rejected.
func strict(n *yaml.Node, out any) error {
	b, err := yaml.Marshal(n)
	if err != nil {
		return err
	}
	dec := yaml.NewDecoder(bytes.NewReader(b))
	dec.KnownFields(true)
	return dec.Decode(out)
}

// Load reads and validates a claims file; every error is a *cmdutil.UsageError.
func Load(path string) (*File, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, cmdutil.Usagef("claims file: %v", err)
	}
	var raw struct {
		Data   []string          `yaml:"data"`
		Where  map[string]string `yaml:"where"`
		Claims []yaml.Node       `yaml:"claims"`
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&raw); err != nil {
		return nil, cmdutil.Usagef("claims file %s: %v", path, err)
	}
	f := &File{Data: raw.Data, Where: raw.Where, dir: filepath.Dir(path)}
	if err := checkWhere(raw.Where); err != nil {
		return nil, cmdutil.Usagef("claims file %s: where: %v", path, err)
	}
	if len(raw.Claims) == 0 {
		return nil, cmdutil.Usagef("claims file %s: no claims", path)
	}
	seen := map[string]bool{}
	for i := range raw.Claims {
		n := &raw.Claims[i]
		id := fmt.Sprintf("#%d", i+1)
		if v := cmdutil.NodeKey(n, "id"); v != nil && v.Value != "" {
			id = v.Value
		}
		c, err := parseClaim(n)
		if err != nil {
			return nil, cmdutil.Usagef("claims file %s: claim %s: %v", path, id, err)
		}
		if seen[c.ID] {
			return nil, cmdutil.Usagef("claims file %s: claim %s: duplicate id", path, c.ID)
		}
		seen[c.ID] = true
		f.Claims = append(f.Claims, c)
	}
	return f, nil
}

func parseClaim(n *yaml.Node) (Claim, error) {
	var c struct {
		ID     string    `yaml:"id"`
		Text   string    `yaml:"text"`
		Stat   yaml.Node `yaml:"stat"`
		Expect yaml.Node `yaml:"expect"`
	}
	if err := strict(n, &c); err != nil {
		return Claim{}, err
	}
	cl := Claim{ID: c.ID, Text: c.Text}
	if c.ID == "" {
		return cl, fmt.Errorf("no id")
	}
	if c.Stat.Kind != yaml.MappingNode {
		return cl, fmt.Errorf("no stat mapping")
	}
	kind := ""
	if k := cmdutil.NodeKey(&c.Stat, "kind"); k != nil {
		kind = k.Value
	}
	keys, ok := allowed[kind]
	if !ok {
		return cl, fmt.Errorf("stat kind %q: want one of %s", kind, kinds())
	}
	for i := 0; i < len(c.Stat.Content); i += 2 {
		k := c.Stat.Content[i].Value
		found := false
		for _, a := range keys {
			found = found || a == k
		}
		if !found {
			return cl, fmt.Errorf("line %d: stat field %q is not one of %s's fields (%s)", c.Stat.Content[i].Line, k, kind, strings.Join(keys, ", "))
		}
	}
	if err := strict(&c.Stat, &cl.Stat); err != nil {
		return cl, fmt.Errorf("stat: %v", err)
	}
	if c.Expect.Kind != yaml.MappingNode {
		return cl, fmt.Errorf("no expect mapping")
	}
	if err := strict(&c.Expect, &cl.Expect); err != nil {
		return cl, fmt.Errorf("expect: %v", err)
	}
	return cl, validate(&cl)
}

func checkWhere(w map[string]string) error {
	for k := range w {
		if !ingest.IsRunColumn(k) {
			return fmt.Errorf("%q is not a runs column", k)
		}
	}
	return nil
}

func validate(c *Claim) error {
	s := &c.Stat
	if err := checkWhere(s.Where); err != nil {
		return fmt.Errorf("stat where: %v", err)
	}
	switch s.Kind {
	case "scoreatk":
		if s.K < 1 {
			return fmt.Errorf("scoreatk needs k ≥ 1")
		}
	case "compare":
		d, m, err := study.CheckCompareSpec(s.A, s.B, s.Budget, s.Measure)
		if err != nil {
			return err
		}
		s.budget = d
		s.Measure = m
	case "regress":
		if s.Formula == "" || s.Term == "" {
			return fmt.Errorf("regress needs formula and term (a coefficient name as rdeval regress prints it)")
		}
		f, err := formula.Parse(s.Formula)
		if err != nil {
			return fmt.Errorf("regress formula: %v", err)
		}
		for _, r := range f.Random {
			if r.Expr != "1" {
				return fmt.Errorf("regress formula: random term (%s): only random intercepts (1 | group) are supported", r.Label())
			}
		}
		if len(f.Random) > 0 && s.Cluster != "" {
			return fmt.Errorf("regress: cluster with random intercepts: the random intercept already models the grouping; drop cluster")
		}
		if s.NAGQ < 0 || s.NAGQ > 100 || (s.NAGQ > 1 && len(f.Random) != 1) {
			return fmt.Errorf("regress nagq %d: want 1 (Laplace) to 100 quadrature points, and more than 1 only with a single (1 | group) term (as lme4)", s.NAGQ)
		}
		if s.NAGQ == 0 {
			s.NAGQ = 1
		}
		if s.Family, err = study.CheckFamily(s.Family); err != nil {
			return fmt.Errorf("regress %v", err)
		}
		if s.Measure == "" {
			s.Measure = "estimate"
		}
		if s.Measure != "estimate" && s.Measure != "p" {
			return fmt.Errorf("regress measure %q: want estimate (with its Wald CI) or p", s.Measure)
		}
	case "success":
		if s.Framework == "" || s.Model == "" || s.HintLevel == "" {
			return fmt.Errorf("success needs framework, model and hint_level")
		}
		if s.Measure == "" {
			s.Measure = "final_success"
		}
		if s.Measure != "final_success" && s.Measure != "execution_success" && s.Measure != "file_recall" {
			return fmt.Errorf("success measure %q: want final_success, execution_success or file_recall", s.Measure)
		}
	case "rates":
		if s.Agent == "" && len(s.Where) == 0 {
			return fmt.Errorf("rates needs agent (or where)")
		}
	}
	h, err := study.ParseHumanRunLength(s.HumanRunLength)
	if err != nil {
		return err
	}
	s.humanLen = h
	e := &c.Expect
	if e.Value == nil && e.Min == nil && e.Max == nil {
		return fmt.Errorf("expect needs value (with rel_tol, abs_tol or in_ci), min or max")
	}
	if e.Value != nil && e.RelTol == nil && e.AbsTol == nil && !e.InCI {
		return fmt.Errorf("expect value needs rel_tol, abs_tol or in_ci: true")
	}
	if e.Value == nil && (e.RelTol != nil || e.AbsTol != nil || e.InCI) {
		return fmt.Errorf("expect rel_tol, abs_tol and in_ci need a value")
	}
	for _, t := range []*float64{e.RelTol, e.AbsTol} {
		if t != nil && !(*t >= 0) {
			return fmt.Errorf("expect tolerances must be ≥ 0")
		}
	}
	for _, x := range []*float64{e.Value, e.Min, e.Max} {
		if x != nil && (math.IsNaN(*x) || math.IsInf(*x, 0)) {
			return fmt.Errorf("expect values must be finite")
		}
	}
	return nil
}

// String describes the expectation, e.g. "4 ±25%".
func (e Expect) String() string {
	var parts []string
	if e.Value != nil {
		v := fmtNum(*e.Value)
		if e.RelTol != nil {
			parts = append(parts, fmt.Sprintf("%s ±%s%%", v, fmtNum(*e.RelTol*100)))
		}
		if e.AbsTol != nil {
			parts = append(parts, fmt.Sprintf("%s ±%s", v, fmtNum(*e.AbsTol)))
		}
		if e.InCI {
			parts = append(parts, v+" in CI")
		}
	}
	if e.Min != nil {
		parts = append(parts, "≥ "+fmtNum(*e.Min))
	}
	if e.Max != nil {
		parts = append(parts, "≤ "+fmtNum(*e.Max))
	}
	return strings.Join(parts, ", ")
}
