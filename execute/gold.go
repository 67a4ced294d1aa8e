package execute

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"go.yaml.in/yaml/v3"
)

// GoldCalibration is the file `rdeval execute gold` writes next to a task
// spec (T.yaml → T.gold.yaml): the gold patch's metric values over seeds,
// summarised as the success range mean ± m·sd that LoadSpec fills into the
// spec's `range` targets that give no mean and sd.
type GoldCalibration struct {
	TaskID string `yaml:"task_id"`
	// TaskFileSHA256 is the spec file's sha256 when it was calibrated.
	TaskFileSHA256  string  `yaml:"task_file_sha256"`
	GoldPatch       string  `yaml:"gold_patch"`
	GoldPatchSHA256 string  `yaml:"gold_patch_sha256"`
	BaseCommit      string  `yaml:"base_commit"`
	Seeds           []int64 `yaml:"seeds,flow"`
	RunDir          string  `yaml:"run_dir"`
	RdevalVersion   string  `yaml:"rdeval_version"`
	CalibratedAt    string  `yaml:"calibrated_at"`
	// Range has one entry per metric of the task.
	Range map[string]GoldRange `yaml:"range"`
}

// GoldRange is one metric's calibration: the sample mean and standard
// deviation (n − 1 denominator, R's mean() and sd()) of the gold values
// over N seeds, and the multiplier M of the success range mean ± M·SD.
type GoldRange struct {
	Mean   float64   `yaml:"mean"`
	SD     float64   `yaml:"sd"`
	M      float64   `yaml:"m"`
	N      int       `yaml:"n"`
	Values []float64 `yaml:"values,flow"`
}

// GoldFile is the calibration file of the task spec at specPath: the same
// name with .gold.yaml in place of its extension.
func GoldFile(specPath string) string {
	ext := filepath.Ext(specPath)
	return strings.TrimSuffix(specPath, ext) + ".gold.yaml"
}

// MeanSD returns the sample mean and standard deviation of xs:
//
//	mean = Σx/n,  sd = sqrt(Σ(x − mean)² / (n − 1))
//
// as R's mean(x) and sd(x) (numpy: x.mean(), x.std(ddof=1)). It needs
// n ≥ 2.
func MeanSD(xs []float64) (mean, sd float64, err error) {
	n := len(xs)
	if n < 2 {
		return 0, 0, fmt.Errorf("need at least 2 values for a standard deviation, have %d", n)
	}
	for _, x := range xs {
		mean += x
	}
	mean /= float64(n)
	var ss float64
	for _, x := range xs {
		ss += float64((x - mean) * (x - mean))
	}
	return mean, math.Sqrt(ss / float64(n-1)), nil
}

// Calibrate summarises gold results per metric. Every result must be a
// run that exited 0 with all metrics found (outcome success in a gold
// batch); otherwise it says which runs failed and why.
func Calibrate(s *Spec, results []*Result, m float64) (map[string]GoldRange, error) {
	if !(m > 0) || math.IsInf(m, 0) {
		return nil, fmt.Errorf("m %v: want a positive number", m)
	}
	var failed []string
	for _, r := range results {
		if r.Outcome != OutcomeSuccess {
			failed = append(failed, fmt.Sprintf("%s: %s (%s)", r.RunID, r.Outcome, oneLine(r.Reason, 200)))
		}
	}
	if len(failed) > 0 {
		return nil, fmt.Errorf("%d of %d gold runs failed, so nothing is calibrated:\n  %s", len(failed), len(results), strings.Join(failed, "\n  "))
	}
	// Results in seed order, so values are listed deterministically.
	sorted := append([]*Result(nil), results...)
	sort.SliceStable(sorted, func(i, j int) bool {
		if sorted[i].Seed != sorted[j].Seed {
			return sorted[i].Seed < sorted[j].Seed
		}
		return sorted[i].Repeat < sorted[j].Repeat
	})
	out := map[string]GoldRange{}
	for _, name := range sortedKeys(s.Metrics) {
		var xs []float64
		for _, r := range sorted {
			v, ok := r.Metrics[name]
			if !ok {
				return nil, fmt.Errorf("%s: metric %s missing", r.RunID, name)
			}
			xs = append(xs, v)
		}
		mean, sd, err := MeanSD(xs)
		if err != nil {
			return nil, fmt.Errorf("metric %s: %v (use --seeds 2 or more)", name, err)
		}
		out[name] = GoldRange{Mean: mean, SD: sd, M: m, N: len(xs), Values: xs}
	}
	return out, nil
}

// WriteGold writes the calibration file atomically (temporary file in the
// same folder, fsync, rename), with a comment saying what wrote it. The
// task spec itself is never rewritten.
func WriteGold(path string, g *GoldCalibration) error {
	var buf bytes.Buffer
	fmt.Fprintf(&buf, "# Calibrated success ranges of task %s, written by `rdeval execute gold`.\n", g.TaskID)
	buf.WriteString("# rdeval reads this file for range targets of the task spec that give no mean and sd.\n")
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(2)
	if err := enc.Encode(g); err != nil {
		return err
	}
	if err := enc.Close(); err != nil {
		return err
	}
	return writeFileAtomic(path, buf.Bytes())
}

// ReadGold reads a calibration file strictly.
func ReadGold(path string) (*GoldCalibration, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	dec := yaml.NewDecoder(bytes.NewReader(b))
	dec.KnownFields(true)
	var g GoldCalibration
	if err := dec.Decode(&g); err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	return &g, nil
}

// fillCalibrated fills the range targets without mean and sd from the
// spec's calibration file; targets it cannot fill stay listed by
// Spec.Uncalibrated.
func (s *Spec) fillCalibrated(specPath string) error {
	if len(s.Uncalibrated()) == 0 {
		return nil
	}
	path := GoldFile(specPath)
	g, err := ReadGold(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	if g.TaskID != s.ID {
		return fmt.Errorf("%s calibrates task %q, not %q", path, g.TaskID, s.ID)
	}
	for name, t := range s.Success.Range {
		if !t.Calibrated {
			continue
		}
		gr, ok := g.Range[name]
		if !ok {
			continue
		}
		if !finite(gr.Mean) || !finite(gr.SD) || gr.SD < 0 || !(gr.M > 0) {
			return fmt.Errorf("%s: range.%s: want finite mean, sd ≥ 0 and m > 0", path, name)
		}
		t.Mean, t.SD, t.Calibrated, t.From = gr.Mean, gr.SD, false, path
		if t.M == nil {
			m := gr.M
			t.M = &m
		}
		s.Success.Range[name] = t
	}
	return nil
}

// Uncalibrated lists the range targets that still have no mean and sd
// (neither in the spec nor in its .gold.yaml file).
func (s *Spec) Uncalibrated() []string {
	var out []string
	for _, name := range sortedKeys(s.Success.Range) {
		if s.Success.Range[name].Calibrated {
			out = append(out, name)
		}
	}
	return out
}
