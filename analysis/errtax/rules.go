package errtax

import (
	"bytes"
	_ "embed"
	"errors"
	"fmt"
	"io"
	"regexp"
	"regexp/syntax"
	"strings"
	"sync"

	"go.yaml.in/yaml/v3"
)

// Kind says what a rule's pattern is matched against.
type Kind string

const (
	// KindTraceback rules classify the exception that ends a Python
	// traceback. The pattern is matched against "Name: message", where Name
	// is the last dotted component of the exception's name
	// ("torch.cuda.OutOfMemoryError" → "OutOfMemoryError"), or "Name" alone
	// when the exception has no message.
	KindTraceback Kind = "traceback"
	// KindLine rules are matched against every line of a log (without its
	// line ending).
	KindLine Kind = "line"
)

// Group names of the built-in taxonomy. Groups in user rules are free-form
// except that GroupNone is reserved and GroupTimeout ranks first.
const (
	GroupPython         = "python"          // Python built-in exceptions (paper: Python Errors)
	GroupPythonLibrary  = "python_library"  // library exceptions (paper: Python Library Errors)
	GroupPythonOther    = "python_other"    // paper: Other Python Errors
	GroupBash           = "bash"            // shell and harness errors (paper: Bash Errors)
	GroupTimeout        = "timeout"         // paper: Execution Timeout
	GroupPythonUnlisted = "python_unlisted" // a traceback no rule names: type is the exception's name
	GroupNone           = "none"            // no error found
)

// TypeNone is the type of a run without an explicit error.
const TypeNone = "none"

// PaperGroup returns the error_group label that the RExBench paper's Tables
// 9 and 10 (and ../shared/anchors/.../error_counts.csv) use for a built-in
// group, and false for groups the paper does not have.
func PaperGroup(group string) (string, bool) {
	s, ok := map[string]string{
		GroupPython:        "Python Errors",
		GroupPythonLibrary: "Python Library Errors",
		GroupPythonOther:   "Other Python Errors",
		GroupBash:          "Bash Errors",
		GroupTimeout:       "Execution Timeout",
	}[group]
	return s, ok
}

// Rule maps what a log shows to an error group and type.
type Rule struct {
	Group   string // e.g. "python"
	Type    string // e.g. "ValueError"
	Pattern string // RE2 regular expression (Go regexp syntax)
	Kind    Kind   // KindTraceback or KindLine
	// Defer marks a wrapper exception (KindTraceback only), such as
	// subprocess.CalledProcessError raised by a launcher: when an earlier
	// traceback that is not a wrapper appears in the run, that one is the
	// primary error instead.
	Defer bool
}

// Rules is a compiled, ordered list of rules. The zero value has no rules.
// A Rules value is immutable and safe for concurrent use; each run needs its
// own Classifier.
type Rules struct {
	c *compiled
}

type compiled struct {
	list []Rule
	re   []*regexp.Regexp
	// Line rules: lineIdx in order; lits[i] is the prefilter of rule
	// lineIdx[i] (nil: always tried).
	lineIdx   []int
	always    []bool // per position in lineIdx: no prefilter, tried on every line
	anyAlways bool
	m         *matcher
	tbIdx     []int // traceback rules in order
}

// headerID is the matcher id of the traceback header literal.
const headerID = -1

var tracebackHeader = []byte("Traceback (most recent call last):")

// NewRules validates and compiles rules, in order. An error names the rule
// by its 1-based position.
func NewRules(rules []Rule) (Rules, error) {
	return newRules(rules, nil)
}

func newRules(rules []Rule, lines []int) (Rules, error) {
	c := &compiled{list: append([]Rule(nil), rules...)}
	where := func(i int) string {
		if lines != nil {
			return fmt.Sprintf("rule %d (line %d)", i+1, lines[i])
		}
		return fmt.Sprintf("rule %d", i+1)
	}
	var lits []string
	var ids []int32
	for i, r := range c.list {
		switch {
		case strings.TrimSpace(r.Group) == "":
			return Rules{}, fmt.Errorf("%s: group is empty", where(i))
		case r.Group == GroupNone:
			return Rules{}, fmt.Errorf("%s: group %q is reserved for runs without an error", where(i), GroupNone)
		case strings.TrimSpace(r.Type) == "":
			return Rules{}, fmt.Errorf("%s: type is empty", where(i))
		case r.Pattern == "":
			return Rules{}, fmt.Errorf("%s: pattern is empty", where(i))
		case r.Kind != KindTraceback && r.Kind != KindLine:
			return Rules{}, fmt.Errorf("%s: kind %q: want traceback or line", where(i), r.Kind)
		case r.Defer && r.Kind != KindTraceback:
			return Rules{}, fmt.Errorf("%s: defer applies to kind traceback only", where(i))
		}
		re, err := regexp.Compile(r.Pattern)
		if err != nil {
			return Rules{}, fmt.Errorf("%s: pattern %q: %v", where(i), r.Pattern, err)
		}
		c.re = append(c.re, re)
		if r.Kind == KindTraceback {
			c.tbIdx = append(c.tbIdx, i)
			continue
		}
		pos := len(c.lineIdx)
		c.lineIdx = append(c.lineIdx, i)
		c.always = append(c.always, false)
		var req []string
		if tree, err := syntax.Parse(r.Pattern, syntax.Perl); err == nil {
			req = requiredLiterals(tree.Simplify())
		}
		for _, l := range req {
			if l == "" {
				req = nil
				break
			}
		}
		if req == nil {
			c.always[pos], c.anyAlways = true, true
			continue
		}
		for _, l := range req {
			lits = append(lits, l)
			ids = append(ids, int32(pos))
		}
	}
	lits = append(lits, lowerASCII(string(tracebackHeader)))
	ids = append(ids, headerID)
	c.m = newMatcher(lits, ids)
	return Rules{c: c}, nil
}

// List returns a copy of the rules, in order.
func (rs Rules) List() []Rule {
	if rs.c == nil {
		return nil
	}
	return append([]Rule(nil), rs.c.list...)
}

// Len returns the number of rules.
func (rs Rules) Len() int {
	if rs.c == nil {
		return 0
	}
	return len(rs.c.list)
}

// Combine returns the rules of sets, in order: rules of earlier sets are
// tried first.
func Combine(sets ...Rules) Rules {
	var all []Rule
	for _, s := range sets {
		all = append(all, s.List()...)
	}
	rs, err := NewRules(all)
	if err != nil {
		panic("errtax: Combine of valid rules failed: " + err.Error())
	}
	return rs
}

//go:embed default_rules.yaml
var defaultRulesYAML []byte

// defaultRules parses default_rules.yaml on first use, not at program
// start (it took about 3 ms of every rdeval command's start-up).
var defaultRules = sync.OnceValue(func() Rules {
	rs, err := LoadRules(bytes.NewReader(defaultRulesYAML))
	if err != nil {
		panic("errtax: default_rules.yaml: " + err.Error())
	}
	return rs
})

// DefaultRules returns the built-in rules (default_rules.yaml): the RExBench
// explicit-error taxonomy of arXiv 2506.22598v3 Tables 9 and 10.
func DefaultRules() Rules { return defaultRules() }

// DefaultRulesYAML returns the text of the built-in rules file, a starting
// point for a user rules file.
func DefaultRulesYAML() []byte { return append([]byte(nil), defaultRulesYAML...) }

var ruleFields = []string{"group", "type", "pattern", "kind", "defer"}

// LoadRules reads a rules file (YAML; the format is in the package
// documentation). A field that is not one of group, type, pattern, kind and
// defer, a missing field, an unknown kind or a bad regular expression is an
// error naming the rule (1-based) and its line.
func LoadRules(r io.Reader) (Rules, error) {
	var doc yaml.Node
	if err := yaml.NewDecoder(r).Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			return Rules{}, errors.New("rules: empty file: want a list of rules")
		}
		return Rules{}, fmt.Errorf("rules: %v", err)
	}
	root := &doc
	if root.Kind == yaml.DocumentNode && len(root.Content) == 1 {
		root = root.Content[0]
	}
	if root.Kind != yaml.SequenceNode {
		return Rules{}, fmt.Errorf("rules: line %d: want a list of rules ({group, type, pattern, kind})", root.Line)
	}
	var rules []Rule
	var lines []int
	for i, n := range root.Content {
		if n.Kind != yaml.MappingNode {
			return Rules{}, fmt.Errorf("rule %d (line %d): want a mapping {group, type, pattern, kind}", i+1, n.Line)
		}
		var r Rule
		seen := map[string]bool{}
		for j := 0; j+1 < len(n.Content); j += 2 {
			k, v := n.Content[j], n.Content[j+1]
			if seen[k.Value] {
				return Rules{}, fmt.Errorf("rule %d (line %d): field %q given twice", i+1, k.Line, k.Value)
			}
			seen[k.Value] = true
			if k.Value == "defer" {
				if err := v.Decode(&r.Defer); err != nil {
					return Rules{}, fmt.Errorf("rule %d (line %d): defer: want true or false", i+1, v.Line)
				}
				continue
			}
			if v.Kind != yaml.ScalarNode {
				return Rules{}, fmt.Errorf("rule %d (line %d): field %q: want a string", i+1, v.Line, k.Value)
			}
			switch k.Value {
			case "group":
				r.Group = v.Value
			case "type":
				r.Type = v.Value
			case "pattern":
				r.Pattern = v.Value
			case "kind":
				r.Kind = Kind(v.Value)
			default:
				return Rules{}, fmt.Errorf("rule %d (line %d): unknown field %q (want %s)", i+1, k.Line, k.Value, strings.Join(ruleFields, ", "))
			}
		}
		for _, f := range ruleFields[:4] {
			if !seen[f] {
				return Rules{}, fmt.Errorf("rule %d (line %d): missing field %q", i+1, n.Line, f)
			}
		}
		rules = append(rules, r)
		lines = append(lines, n.Line)
	}
	return newRules(rules, lines)
}
