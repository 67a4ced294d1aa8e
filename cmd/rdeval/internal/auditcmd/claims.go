package auditcmd

import (
	"bytes"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"

	"github.com/rdeval/rdeval/cmd/rdeval/internal/cmdutil"
	"github.com/rdeval/rdeval/cmd/rdeval/internal/study"
	"github.com/rdeval/rdeval/ingest"
	"go.yaml.in/yaml/v3"
)

// file is a parsed claims file.
type file struct {
	Data   []string          `yaml:"data"`
	Where  map[string]string `yaml:"where"`
	Claims []claim           `yaml:"-"`
	dir    string
}

// claim is one statement, the statistic that backs it and what it must satisfy.
type claim struct {
	ID     string     `yaml:"id"`
	Text   string     `yaml:"text"`
	Stat   study.Spec `yaml:"stat"`
	Expect expect     `yaml:"expect"`
}

// expect is what the recomputed value must satisfy; every condition given must hold.
type expect struct {
	Value  *float64 `yaml:"value"`
	RelTol *float64 `yaml:"rel_tol"`
	AbsTol *float64 `yaml:"abs_tol"`
	InCI   bool     `yaml:"in_ci"`
	Min    *float64 `yaml:"min"`
	Max    *float64 `yaml:"max"`
}

// kinds are the stat kinds a claim may have.
var kinds = []string{"compare", "horizon", "rates", "regress", "scoreatk", "success"}

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

// load reads and validates a claims file; every error is a *cmdutil.UsageError.
func load(path string) (*file, error) {
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
	f := &file{Data: raw.Data, Where: raw.Where, dir: filepath.Dir(path)}
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

func parseClaim(n *yaml.Node) (claim, error) {
	var c struct {
		ID     string    `yaml:"id"`
		Text   string    `yaml:"text"`
		Stat   yaml.Node `yaml:"stat"`
		Expect yaml.Node `yaml:"expect"`
	}
	if err := strict(n, &c); err != nil {
		return claim{}, err
	}
	cl := claim{ID: c.ID, Text: c.Text}
	if c.ID == "" {
		return cl, fmt.Errorf("no id")
	}
	if c.Stat.Kind != yaml.MappingNode {
		return cl, fmt.Errorf("no stat mapping")
	}
	var err error
	if cl.Stat, err = study.DecodeSpec(&c.Stat, kinds); err != nil {
		return cl, err
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

func validate(c *claim) error {
	if err := c.Stat.Validate(); err != nil {
		return err
	}
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
func (e expect) String() string {
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
