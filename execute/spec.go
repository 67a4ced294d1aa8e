package execute

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"go.yaml.in/yaml/v3"
)

// Spec is a task specification: where the task's repository is, how to run
// its experiment, how to read the numbers it prints and how to judge them.
// LoadSpec reads one from YAML; docs/execute.md documents every field.
type Spec struct {
	// File is the YAML file the spec was read from ("" when parsed from
	// bytes without a file).
	File string
	// ID names the task; it is part of every run id, so it may hold only
	// letters, digits, '.', '_' and '-'.
	ID string
	// Repo is the task repository (a work tree with its .git, or a bare
	// mirror), made absolute relative to the YAML file's folder.
	Repo string
	// BaseCommit is a commit id, branch or tag in Repo.
	BaseCommit string
	// Setup is an optional command run before Run, in the same sandbox.
	Setup string
	// Run is the experiment command, run with bash -c in the work tree.
	Run string
	// Env holds extra environment variables for Setup and Run.
	Env map[string]string
	// Timeout bounds Setup and Run together.
	Timeout time.Duration
	// GPUs is the number of GPUs each run needs.
	GPUs int
	// CPUs, when > 0, pins each run to that many CPUs of its own.
	CPUs int
	// MemoryBytes, when > 0, bounds each run's resident memory (and, for
	// CPU tasks, each process's address space); see Limits.
	MemoryBytes int64
	// PIDs bounds each run's processes plus threads (DefaultPIDs when the
	// spec sets none).
	PIDs int
	// Image is the container image of the docker and podman backends.
	Image string
	// Seeds are the seeds each patch is run with, as $RDEVAL_SEED.
	Seeds []int64
	// Metrics are the extractors by metric name.
	Metrics map[string]Extractor
	// Keep are file globs, relative to the work tree, copied into the run
	// folder after the run.
	Keep []string
	// Mounts are host folders the task needs besides the system's programs
	// and libraries (a toolchain in /opt, a data set), bound read-only into
	// the bwrap sandbox at the same path; nothing else of the host is
	// visible there (docs/execute.md, "Threat model").
	Mounts []string
	// Success is the gold criterion.
	Success Success
}

// Extractor reads one number from a run's outputs. Exactly one of
// StdoutRegex, JSONFile and CSVFile is set.
type Extractor struct {
	// StdoutRegex is a Go regular expression matched against stdout; the
	// last match wins and its first group (the whole match if it has no
	// group) is the value.
	StdoutRegex string `yaml:"stdout_regex"`
	// JSONFile is a JSON file relative to the work tree; Path is a dotted
	// path into it (object keys and array indexes, e.g. a.b.0).
	JSONFile string `yaml:"json_file"`
	Path     string `yaml:"path"`
	// CSVFile is a CSV file with a header line, relative to the work tree;
	// Row is a data row index (negative counts from the end, -1 the last)
	// and Column a header name.
	CSVFile string `yaml:"csv_file"`
	Row     *int   `yaml:"row"`
	Column  string `yaml:"column"`

	re *regexp.Regexp
}

// Success is the gold criterion: exactly one of Exact, Range and All.
type Success struct {
	// Exact maps metrics to target values: a number, or {value, tol} for
	// an absolute tolerance.
	Exact map[string]ExactTarget `yaml:"exact"`
	// Range maps metrics to gold mean and sd: the value must lie within
	// mean ± m·sd (m = 2 by default).
	Range map[string]RangeTarget `yaml:"range"`
	// All lists metrics that must each be within tol of value.
	All []AllTarget `yaml:"all"`
}

// ExactTarget is an exact target with an optional absolute tolerance.
type ExactTarget struct {
	Value float64
	Tol   float64
}

// RangeTarget is a gold range: mean ± M·SD. A target that gives neither
// mean nor sd ({} or {m: 3}) is Calibrated: LoadSpec takes its mean, sd
// (and m, unless given) from the spec's .gold.yaml file (see GoldFile).
type RangeTarget struct {
	Mean float64  `yaml:"mean"`
	SD   float64  `yaml:"sd"`
	M    *float64 `yaml:"m"`
	// Calibrated is set while mean and sd are still to come from the
	// calibration file.
	Calibrated bool `yaml:"-"`
	// From is the calibration file mean and sd came from ("" when inline).
	From string `yaml:"-"`
}

// UnmarshalYAML reads {mean, sd, m}: both mean and sd, or neither (then
// the target is calibrated); unknown keys are errors.
func (t *RangeTarget) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind != yaml.MappingNode {
		return fmt.Errorf("line %d: range target: want {mean: M, sd: S, m: 2}, or {} to use the calibrated range", n.Line)
	}
	var haveMean, haveSD bool
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		var err error
		switch k.Value {
		case "mean":
			haveMean, err = true, v.Decode(&t.Mean)
		case "sd":
			haveSD, err = true, v.Decode(&t.SD)
		case "m":
			var m float64
			err = v.Decode(&m)
			t.M = &m
		default:
			return fmt.Errorf("line %d: unknown field %q (want mean, sd, m)", k.Line, k.Value)
		}
		if err != nil {
			return err
		}
	}
	if haveMean != haveSD {
		return fmt.Errorf("line %d: range target: give both mean and sd, or neither to use the calibrated range (rdeval execute gold)", n.Line)
	}
	t.Calibrated = !haveMean
	return nil
}

// AllTarget is one metric of an `all` criterion.
type AllTarget struct {
	Metric string  `yaml:"metric"`
	Value  float64 `yaml:"value"`
	Tol    float64 `yaml:"tol"`
}

// UnmarshalYAML reads a number or a {value, tol} mapping, rejecting
// unknown keys (a custom unmarshaller does not inherit KnownFields).
func (t *ExactTarget) UnmarshalYAML(n *yaml.Node) error {
	switch n.Kind {
	case yaml.ScalarNode:
		return n.Decode(&t.Value)
	case yaml.MappingNode:
		seen := false
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			switch k.Value {
			case "value":
				seen = true
				if err := v.Decode(&t.Value); err != nil {
					return err
				}
			case "tol":
				if err := v.Decode(&t.Tol); err != nil {
					return err
				}
			default:
				return fmt.Errorf("line %d: unknown field %q (want value, tol)", k.Line, k.Value)
			}
		}
		if !seen {
			return fmt.Errorf("line %d: exact target without value", n.Line)
		}
		return nil
	}
	return fmt.Errorf("line %d: exact target: want a number or {value: N, tol: T}", n.Line)
}

// rawSpec is the YAML form of Spec.
type rawSpec struct {
	ID         string               `yaml:"id"`
	Repo       string               `yaml:"repo"`
	BaseCommit string               `yaml:"base_commit"`
	Setup      string               `yaml:"setup"`
	Run        string               `yaml:"run"`
	Env        map[string]string    `yaml:"env"`
	Timeout    yaml.Node            `yaml:"timeout"`
	GPUs       int                  `yaml:"gpus"`
	CPUs       int                  `yaml:"cpus"`
	Memory     string               `yaml:"memory"`
	PIDs       *int                 `yaml:"pids"`
	Image      string               `yaml:"image"`
	Seeds      []int64              `yaml:"seeds"`
	Metrics    map[string]Extractor `yaml:"metrics"`
	Keep       []string             `yaml:"keep"`
	Mounts     []string             `yaml:"mounts"`
	Success    Success              `yaml:"success"`
}

// SpecError reports an invalid task spec.
type SpecError struct {
	File string
	Msg  string
}

func (e *SpecError) Error() string {
	if e.File == "" {
		return "task spec: " + e.Msg
	}
	return "task spec " + e.File + ": " + e.Msg
}

var (
	// Compiled at first use, not when any rdeval command starts.
	taskIDRe     = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$`) })
	envNameRe    = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`) })
	yamlTypeRe   = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`field (\S+) not found in type \S+`) })
	yamlPrefixRe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^yaml: (unmarshal errors:\n\s*)?`) })
)

// LoadSpec reads and validates the task spec in the YAML file path.
func LoadSpec(path string) (*Spec, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, &SpecError{File: path, Msg: err.Error()}
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, &SpecError{File: path, Msg: err.Error()}
	}
	s, err := ParseSpec(data, filepath.Dir(abs))
	if err != nil {
		var se *SpecError
		if errors.As(err, &se) {
			se.File = path
		}
		return nil, err
	}
	s.File = path
	if err := s.fillCalibrated(path); err != nil {
		return nil, &SpecError{File: path, Msg: err.Error()}
	}
	return s, nil
}

// ParseSpec parses and validates a task spec; relative repo paths are
// taken relative to baseDir. Unknown fields are errors naming the field
// and its line.
func ParseSpec(data []byte, baseDir string) (*Spec, error) {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	var raw rawSpec
	if err := dec.Decode(&raw); err != nil {
		msg := err.Error()
		if err.Error() == "EOF" {
			msg = "empty file"
		}
		msg = yamlPrefixRe().ReplaceAllString(msg, "")
		msg = yamlTypeRe().ReplaceAllString(msg, "unknown field $1")
		msg = strings.ReplaceAll(msg, "\n  ", "; ")
		return nil, &SpecError{Msg: msg}
	}
	fail := func(format string, args ...any) (*Spec, error) {
		return nil, &SpecError{Msg: fmt.Sprintf(format, args...)}
	}
	s := &Spec{ID: raw.ID, BaseCommit: raw.BaseCommit, Setup: raw.Setup, Run: raw.Run,
		Env: raw.Env, GPUs: raw.GPUs, Seeds: raw.Seeds, Metrics: raw.Metrics, Keep: raw.Keep, Success: raw.Success}
	for _, m := range raw.Mounts {
		c := filepath.Clean(m)
		if !filepath.IsAbs(m) || c == "/" || strings.ContainsAny(m, "\x00\n") {
			return fail("mounts %q: want an absolute host folder other than /", m)
		}
		s.Mounts = append(s.Mounts, c)
	}
	switch {
	case raw.ID == "":
		return fail("id is required")
	case !taskIDRe().MatchString(raw.ID):
		return fail("id %q: use letters, digits, '.', '_' and '-' only (at most 128)", raw.ID)
	case raw.Repo == "":
		return fail("repo is required")
	case raw.BaseCommit == "":
		return fail("base_commit is required")
	case strings.TrimSpace(raw.Run) == "":
		return fail("run is required")
	case raw.GPUs < 0:
		return fail("gpus %d: want 0 or more", raw.GPUs)
	case raw.CPUs < 0:
		return fail("cpus %d: want 0 (no pinning) or more", raw.CPUs)
	case raw.PIDs != nil && (*raw.PIDs < 16 || *raw.PIDs > 1<<22):
		return fail("pids %d: want 16 to 4194304 processes and threads", *raw.PIDs)
	case len(raw.Seeds) == 0:
		return fail("seeds is required (a list, e.g. [1])")
	case len(raw.Metrics) == 0:
		return fail("metrics is required")
	}
	s.CPUs, s.PIDs, s.Image = raw.CPUs, DefaultPIDs, raw.Image
	if raw.PIDs != nil {
		s.PIDs = *raw.PIDs
	}
	if raw.Memory != "" {
		m, err := ParseMemory(raw.Memory)
		if err != nil {
			return fail("%v", err)
		}
		if m < 16<<20 {
			return fail("memory %q: want at least 16M", raw.Memory)
		}
		s.MemoryBytes = m
	}
	s.Repo = raw.Repo
	if !filepath.IsAbs(s.Repo) {
		s.Repo = filepath.Join(baseDir, s.Repo)
	}
	seen := map[int64]bool{}
	for _, sd := range raw.Seeds {
		if seen[sd] {
			return fail("seeds: %d is listed twice", sd)
		}
		seen[sd] = true
	}
	for k := range raw.Env {
		if !envNameRe().MatchString(k) || strings.HasPrefix(k, "RDEVAL_") {
			return fail("env %q: want a variable name not starting with RDEVAL_", k)
		}
		if k == "CUDA_VISIBLE_DEVICES" || k == "NVIDIA_VISIBLE_DEVICES" {
			return fail("env %q: rdeval sets it to the GPUs assigned to each run (gpus: N)", k)
		}
	}
	if raw.Timeout.Kind == 0 {
		return fail("timeout is required (e.g. 20s, 2h)")
	}
	d, err := parseTimeout(raw.Timeout.Value)
	if err != nil || raw.Timeout.Kind != yaml.ScalarNode {
		return fail("line %d: timeout %q: want a duration such as 90s, 20m or 12h", raw.Timeout.Line, raw.Timeout.Value)
	}
	s.Timeout = d
	for _, name := range sortedKeys(s.Metrics) {
		e := s.Metrics[name]
		n := 0
		if e.StdoutRegex != "" {
			n++
			re, err := regexp.Compile(e.StdoutRegex)
			if err != nil {
				return fail("metrics.%s.stdout_regex: %v", name, err)
			}
			if re.NumSubexp() > 1 {
				return fail("metrics.%s.stdout_regex: at most one group, the number", name)
			}
			e.re = re
		}
		if e.JSONFile != "" {
			n++
			if e.Path == "" {
				return fail("metrics.%s: json_file needs path (e.g. a.b)", name)
			}
			if err := vetRelPath(e.JSONFile); err != nil {
				return fail("metrics.%s.json_file: %v", name, err)
			}
		}
		if e.CSVFile != "" {
			n++
			if e.Column == "" || e.Row == nil {
				return fail("metrics.%s: csv_file needs row and column", name)
			}
			if err := vetRelPath(e.CSVFile); err != nil {
				return fail("metrics.%s.csv_file: %v", name, err)
			}
		}
		if n != 1 {
			return fail("metrics.%s: want exactly one of stdout_regex, json_file+path, csv_file+row+column", name)
		}
		if e.JSONFile == "" && e.Path != "" || e.CSVFile == "" && (e.Row != nil || e.Column != "") {
			return fail("metrics.%s: path goes with json_file, row and column with csv_file", name)
		}
		s.Metrics[name] = e
	}
	for _, g := range s.Keep {
		if err := vetRelPath(g); err != nil {
			return fail("keep %q: %v", g, err)
		}
		if _, err := filepath.Match(g, ""); err != nil {
			return fail("keep %q: %v", g, err)
		}
	}
	if err := s.Success.validate(s.Metrics); err != nil {
		return fail("success: %v", err)
	}
	return s, nil
}

func parseTimeout(v string) (time.Duration, error) {
	if f, err := strconv.ParseFloat(v, 64); err == nil {
		if f <= 0 || f > 1e7 {
			return 0, errors.New("out of range")
		}
		return time.Duration(f * float64(time.Second)), nil
	}
	d, err := time.ParseDuration(v)
	if err != nil || d <= 0 {
		return 0, errors.New("bad duration")
	}
	return d, nil
}

func (s *Success) validate(metrics map[string]Extractor) error {
	forms := 0
	if s.Exact != nil {
		forms++
	}
	if s.Range != nil {
		forms++
	}
	if s.All != nil {
		forms++
	}
	if forms != 1 {
		return errors.New("want exactly one of exact, range, all")
	}
	check := func(m string) error {
		if _, ok := metrics[m]; !ok {
			return fmt.Errorf("metric %q is not defined under metrics", m)
		}
		return nil
	}
	for m, t := range s.Exact {
		if err := check(m); err != nil {
			return err
		}
		if !finite(t.Value) || t.Tol < 0 || !finite(t.Tol) {
			return fmt.Errorf("exact.%s: want a finite value and tol ≥ 0", m)
		}
	}
	for m, t := range s.Range {
		if err := check(m); err != nil {
			return err
		}
		if t.Calibrated {
			if t.M != nil && (!finite(*t.M) || *t.M <= 0) {
				return fmt.Errorf("range.%s: want m > 0", m)
			}
			continue
		}
		if t.M == nil {
			two := 2.0
			t.M = &two
			s.Range[m] = t
		}
		if !finite(t.Mean) || !finite(t.SD) || t.SD < 0 || !finite(*t.M) || *t.M <= 0 {
			return fmt.Errorf("range.%s: want finite mean, sd ≥ 0 and m > 0", m)
		}
	}
	if s.All != nil && len(s.All) == 0 {
		return errors.New("all: empty list")
	}
	for i, t := range s.All {
		if t.Metric == "" {
			return fmt.Errorf("all[%d]: metric is required", i)
		}
		if err := check(t.Metric); err != nil {
			return err
		}
		if !finite(t.Value) || t.Tol < 0 || !finite(t.Tol) {
			return fmt.Errorf("all[%d]: want a finite value and tol ≥ 0", i)
		}
	}
	if len(s.Exact) == 0 && len(s.Range) == 0 && len(s.All) == 0 {
		return errors.New("no metric to judge")
	}
	return nil
}

func finite(f float64) bool { return !math.IsNaN(f) && !math.IsInf(f, 0) }

// vetRelPath accepts a slash-separated path inside the work tree.
func vetRelPath(p string) error {
	if p == "" || strings.HasPrefix(p, "/") || strings.ContainsRune(p, 0) || strings.Contains(p, `\`) {
		return errors.New("want a relative path inside the work tree")
	}
	for e := range strings.SplitSeq(p, "/") {
		if e == ".." || isDotGit(e) {
			return errors.New("want a relative path inside the work tree (no .., no .git)")
		}
	}
	return nil
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
