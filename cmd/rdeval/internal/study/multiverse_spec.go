package study

import (
	"bytes"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/rdeval/rdeval/analysis"
	"github.com/rdeval/rdeval/analysis/formula"
	"github.com/rdeval/rdeval/cmd/rdeval/internal/cmdutil"
	"github.com/rdeval/rdeval/ingest"
	"go.yaml.in/yaml/v3"
)

// demoInput, as a data entry, is the embedded synthetic demo study.
const demoInput = "@demo"

// Choice keys.
const (
	keyData           = "data"
	keyFloor          = "floor"
	keyCap            = "cap"
	keyTritonRule     = "triton_rule"
	keyHumanReference = "human_reference"
	keyOutlier        = "outlier"
	keyShort          = "short"
	keyWeighting      = "weighting"
	keyRegularization = "regularization"
	keySuccess        = "success"
	keyBootstrap      = "bootstrap"
)

// choiceOrder is the order of choices in the output.
var choiceOrder = []string{keyData, keyFloor, keyCap, keyTritonRule, keyHumanReference, keyOutlier, keyShort, keyWeighting, keyRegularization, keySuccess, keyBootstrap}

// normalizationKeys need scores re-normalized.
var normalizationKeys = map[string]bool{keyFloor: true, keyCap: true, keyTritonRule: true, keyHumanReference: true}

// choiceApplies lists the choices each statistic accepts.
var choiceApplies = map[string][]string{
	"scoreatk": {keyData, keyFloor, keyCap, keyTritonRule, keyHumanReference, keyOutlier, keyShort, keyBootstrap},
	"compare":  {keyData, keyFloor, keyCap, keyTritonRule, keyHumanReference, keyOutlier, keyBootstrap},
	"regress":  {keyData, keyFloor, keyCap, keyTritonRule, keyHumanReference, keyOutlier},
	"horizon":  {keyData, keyOutlier, keyWeighting, keyRegularization, keySuccess, keyBootstrap},
}

// whyNotChoice explains a choice that a statistic does not take.
func whyNotChoice(kind, key string) string {
	switch {
	case key == keyBootstrap:
		return "regress has no bootstrap (Wald or CR1 interval)"
	case key == keyShort && kind == "compare":
		return "compare works out k from the budget and leaves out tasks with fewer than k runs; it has no truncation"
	case key == keyShort:
		return "only score@k has a k > n policy"
	case (key == keyWeighting || key == keyRegularization || key == keySuccess) && kind != "horizon":
		return "it is a choice of the time-horizon fit only"
	case normalizationKeys[key] && kind == "horizon":
		return "the horizon fit reads success (score_binarized from the input, or the score clipped to [0, 1]), which normalization choices do not recompute"
	}
	return "it does not apply to this statistic"
}

// MultiverseSpec is a parsed multiverse spec (LoadMultiverseSpec).
type MultiverseSpec struct {
	Path    string
	Data    []string // default inputs (resolved against the spec's folder)
	Where   map[string]string
	Stat    Spec
	Choices []MultiverseChoice // in choiceOrder
}

// multiverseKinds are the stat kinds a spec may have (audit's success
// and rates have no choices to vary).
var multiverseKinds = []string{"compare", "horizon", "regress", "scoreatk"}

// MultiverseChoice is one analyst choice; its first value is the default.
type MultiverseChoice struct {
	Key    string
	Labels []string
	values []choiceValue
}

// choiceValue is one parsed choice value.
type choiceValue struct {
	Label  string
	Inputs []string // data
	Num    float64  // floor, cap (0 = none), regularization, outlier threshold
	None   bool     // floor: none
	Word   string   // triton_rule, human_reference, short, weighting, success, outlier (none|cap|exclude)
}

// LoadMultiverseSpec reads and validates a multiverse spec (YAML: data,
// where, stat, choices); every error is a *cmdutil.UsageError naming the
// file (and the key and line where there is one).
func LoadMultiverseSpec(path string) (*MultiverseSpec, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, cmdutil.Usagef("spec: %v", err)
	}
	fail := func(format string, args ...any) error {
		return cmdutil.Usagef("spec %s: %s", path, fmt.Sprintf(format, args...))
	}
	var raw struct {
		Data    []string          `yaml:"data"`
		Where   map[string]string `yaml:"where"`
		Stat    yaml.Node         `yaml:"stat"`
		Choices yaml.Node         `yaml:"choices"`
	}
	dec := yaml.NewDecoder(bytes.NewReader(b))
	dec.KnownFields(true)
	if err := dec.Decode(&raw); err != nil {
		return nil, fail("%v", err)
	}
	dir := filepath.Dir(path)
	sp := &MultiverseSpec{Path: path, Where: raw.Where}
	for _, d := range raw.Data {
		sp.Data = append(sp.Data, resolveSpecPath(dir, d))
	}
	for k := range raw.Where {
		if !ingest.IsRunColumn(k) {
			return nil, fail("where: %q is not a runs column", k)
		}
	}
	if raw.Stat.Kind != yaml.MappingNode {
		return nil, fail("no stat: mapping (kind: scoreatk, compare, horizon or regress)")
	}
	if sp.Stat, err = DecodeSpec(&raw.Stat, multiverseKinds); err != nil {
		return nil, fail("%v", err)
	}
	if err := validateMultiverseStat(&sp.Stat); err != nil {
		return nil, fail("line %d: stat: %v", raw.Stat.Line, err)
	}
	kind := sp.Stat.Kind
	if raw.Choices.Kind != yaml.MappingNode && raw.Choices.Kind != 0 {
		return nil, fail("line %d: choices: want a mapping KEY: [VALUE, …]", raw.Choices.Line)
	}
	byKey := map[string]MultiverseChoice{}
	for i := 0; i+1 < len(raw.Choices.Content); i += 2 {
		kn, vn := raw.Choices.Content[i], raw.Choices.Content[i+1]
		key := kn.Value
		known := false
		for _, k := range choiceOrder {
			known = known || k == key
		}
		if !known {
			return nil, fail("line %d: choices: unknown key %q (known: %s)", kn.Line, key, strings.Join(choiceOrder, ", "))
		}
		ok := false
		for _, k := range choiceApplies[kind] {
			ok = ok || k == key
		}
		if !ok {
			return nil, fail("line %d: choices.%s is not supported for stat kind %s: %s (this kind takes: %s)", kn.Line, key, kind, whyNotChoice(kind, key), strings.Join(choiceApplies[kind], ", "))
		}
		if _, dup := byKey[key]; dup {
			return nil, fail("line %d: choices.%s given twice", kn.Line, key)
		}
		if vn.Kind != yaml.SequenceNode || len(vn.Content) == 0 {
			return nil, fail("line %d: choices.%s: want a non-empty list of values (the first is the default)", kn.Line, key)
		}
		c := MultiverseChoice{Key: key}
		seen := map[string]bool{}
		for _, item := range vn.Content {
			if item.Kind != yaml.ScalarNode {
				return nil, fail("line %d: choices.%s: each value must be a scalar", item.Line, key)
			}
			v, err := parseChoiceValue(key, item.Value, dir)
			if err != nil {
				return nil, fail("line %d: choices.%s: %v", item.Line, key, err)
			}
			if seen[v.Label] {
				return nil, fail("line %d: choices.%s: value %q given twice", item.Line, key, v.Label)
			}
			seen[v.Label] = true
			c.Labels = append(c.Labels, v.Label)
			c.values = append(c.values, v)
		}
		if key == keyBootstrap && kind != "horizon" {
			for _, v := range c.values {
				if v.Word == "families" {
					return nil, fail("line %d: choices.bootstrap: families is not supported for stat kind %s: score@k data carry no task families (use runs, tasks or hierarchical)", kn.Line, kind)
				}
			}
		}
		if key == keyOutlier && kind == "horizon" {
			for _, v := range c.values {
				if v.Word == "cap" {
					return nil, fail("line %d: choices.outlier: cap:X is not supported for stat kind horizon: success is 0/1 or clipped to [0, 1], so capping scores changes nothing or only the binarization; use none or exclude:X", kn.Line)
				}
			}
		}
		byKey[key] = c
	}
	for _, k := range choiceOrder {
		if c, ok := byKey[k]; ok {
			sp.Choices = append(sp.Choices, c)
		}
	}
	return sp, nil
}

func resolveSpecPath(dir, p string) string {
	if p == demoInput || filepath.IsAbs(p) {
		return p
	}
	return filepath.Join(dir, p)
}

// parseChoiceValue parses one value of choice key.
func parseChoiceValue(key, s, dir string) (choiceValue, error) {
	s = strings.TrimSpace(s)
	v := choiceValue{Label: s}
	num := func() (float64, error) {
		x, err := strconv.ParseFloat(s, 64)
		if err != nil || math.IsNaN(x) || math.IsInf(x, 0) {
			return 0, fmt.Errorf("%q is not a number", s)
		}
		return x, nil
	}
	var err error
	switch key {
	case keyData:
		if l, rest, ok := strings.Cut(s, "="); ok && l != "" && !strings.ContainsAny(l, "/\\,") {
			v.Label, s = strings.TrimSpace(l), rest
		}
		for _, p := range strings.Split(s, ",") {
			if p = strings.TrimSpace(p); p != "" {
				v.Inputs = append(v.Inputs, resolveSpecPath(dir, p))
			}
		}
		if len(v.Inputs) == 0 {
			return v, fmt.Errorf("empty data value")
		}
	case keyFloor:
		if s == "none" {
			v.None = true
			return v, nil
		}
		v.Num, err = num()
	case keyCap:
		if s == "none" {
			return v, nil
		}
		if v.Num, err = num(); err == nil && v.Num <= 0 {
			err = fmt.Errorf("%q: want a positive cap or none", s)
		}
	case keyTritonRule:
		_, err = analysis.ParseRule(s)
		v.Word = s
	case keyHumanReference:
		v.Word, err = s, oneOf(s, "want reference (the task's y_ref) or human (the task's human_reference, METR's human_score)", "reference", "human")
	case keyOutlier:
		w, x, hasX := strings.Cut(s, ":")
		v.Word = w
		switch {
		case w == "none" && !hasX:
		case (w == "cap" || w == "exclude") && hasX:
			var e error
			v.Num, e = strconv.ParseFloat(x, 64)
			if e != nil || !(v.Num > 0) || math.IsInf(v.Num, 0) {
				err = fmt.Errorf("%q: want a positive threshold after %s:", s, w)
			}
		default:
			err = fmt.Errorf("%q: want none, cap:X (cap normalized scores at X) or exclude:X (leave out runs scoring above X)", s)
		}
	case keyShort:
		v.Word, err = s, oneOf(s, "want drop or truncate", "drop", "truncate")
	case keyWeighting:
		v.Word, err = s, oneOf(s, "want invsqrt or equal", "invsqrt", "equal")
	case keyRegularization:
		if v.Num, err = num(); err == nil && !(v.Num > 0) {
			err = fmt.Errorf("%q: want a positive regularization (sklearn's 1/C)", s)
		}
	case keyBootstrap:
		_, err = analysis.ParseBootUnit(s)
		v.Word = s
	case keySuccess:
		v.Word, err = s, oneOf(s, "want score_binarized or score", "score_binarized", "score")
	}
	return v, err
}

// oneOf is nil when s is one of words, and otherwise the error
// "<s quoted>: want".
func oneOf(s, want string, words ...string) error {
	if slices.Contains(words, s) {
		return nil
	}
	return fmt.Errorf("%q: %s", s, want)
}

// validateMultiverseStat is Spec.Validate, and regress without (1 | group)
// terms: a multiverse varies fixed-effect GLMs only.
func validateMultiverseStat(s *Spec) error {
	if err := s.Validate(); err != nil {
		return err
	}
	if s.Kind == "regress" {
		if f, _ := formula.Parse(s.Formula); len(f.Random) > 0 {
			return fmt.Errorf("regress takes fixed-effect GLMs only (no (1 | group) terms)")
		}
	}
	return nil
}
