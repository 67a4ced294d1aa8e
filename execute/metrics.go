package execute

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"strings"
)

// Outcomes of a run: exactly one per run.
const (
	OutcomeSuccess     = "success"
	OutcomeWrongResult = "wrong_result"
	OutcomeExecError   = "exec_error"
	OutcomeTimeout     = "timeout"
	OutcomeNoPatch     = "no_patch"
	OutcomePatchFailed = "patch_failed"
)

// maxMetricFile is the largest JSON or CSV metrics file read.
const maxMetricFile = 64 << 20

// extractMetrics reads every metric of the spec from a finished run:
// stdout is the run's stdout.log, work the work tree. It returns the
// values found and an error message per metric not found.
func extractMetrics(s *Spec, stdoutPath string, work workTree) (map[string]float64, map[string]string) {
	vals := map[string]float64{}
	errs := map[string]string{}
	var stdout []byte
	var stdoutErr error
	loaded := false
	for _, name := range sortedKeys(s.Metrics) {
		e := s.Metrics[name]
		var v float64
		var err error
		switch {
		case e.StdoutRegex != "":
			if !loaded {
				stdout, stdoutErr = os.ReadFile(stdoutPath)
				loaded = true
			}
			if stdoutErr != nil {
				err = stdoutErr
			} else {
				v, err = fromRegex(e, stdout)
			}
		case e.JSONFile != "":
			v, err = fromJSON(e, work)
		case e.CSVFile != "":
			v, err = fromCSV(e, work)
		}
		if err == nil && !finite(v) {
			err = fmt.Errorf("value %v is not a finite number", v)
		}
		if err != nil {
			errs[name] = err.Error()
			continue
		}
		vals[name] = v
	}
	return vals, errs
}

func fromRegex(e Extractor, stdout []byte) (float64, error) {
	ms := e.re.FindAllSubmatch(stdout, -1)
	if len(ms) == 0 {
		return 0, fmt.Errorf("stdout has no match for %q", e.StdoutRegex)
	}
	m := ms[len(ms)-1]
	s := m[0]
	if len(m) > 1 {
		s = m[1]
	}
	return parseNumber(string(s))
}

func parseNumber(s string) (float64, error) {
	v, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	if err != nil {
		return 0, fmt.Errorf("%q is not a number", s)
	}
	return v, nil
}

// readWorkFile reads a regular file inside the work tree, confined to it.
func readWorkFile(work workTree, rel string) ([]byte, error) {
	f, err := work.open(rel)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s: not a regular file (%s)", rel, fi.Mode().Type())
	}
	b, err := io.ReadAll(io.LimitReader(f, maxMetricFile+1))
	if err != nil {
		return nil, err
	}
	if len(b) > maxMetricFile {
		return nil, fmt.Errorf("%s: larger than %d bytes", rel, maxMetricFile)
	}
	return b, nil
}

func fromJSON(e Extractor, work workTree) (float64, error) {
	b, err := readWorkFile(work, e.JSONFile)
	if err != nil {
		return 0, err
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return 0, fmt.Errorf("%s: %v", e.JSONFile, err)
	}
	for _, k := range strings.Split(e.Path, ".") {
		switch x := v.(type) {
		case map[string]any:
			var ok bool
			if v, ok = x[k]; !ok {
				return 0, fmt.Errorf("%s: no key %q on path %s", e.JSONFile, k, e.Path)
			}
		case []any:
			i, err := strconv.Atoi(k)
			if i < 0 {
				i += len(x)
			}
			if err != nil || i < 0 || i >= len(x) {
				return 0, fmt.Errorf("%s: no index %q on path %s", e.JSONFile, k, e.Path)
			}
			v = x[i]
		default:
			return 0, fmt.Errorf("%s: path %s goes through a scalar at %q", e.JSONFile, e.Path, k)
		}
	}
	switch x := v.(type) {
	case json.Number:
		return parseNumber(x.String())
	case string:
		return parseNumber(x)
	}
	return 0, fmt.Errorf("%s: %s is not a number", e.JSONFile, e.Path)
}

func fromCSV(e Extractor, work workTree) (float64, error) {
	b, err := readWorkFile(work, e.CSVFile)
	if err != nil {
		return 0, err
	}
	r := csv.NewReader(bytes.NewReader(b))
	r.FieldsPerRecord = -1
	rows, err := r.ReadAll()
	if err != nil {
		return 0, fmt.Errorf("%s: %v", e.CSVFile, err)
	}
	if len(rows) < 2 {
		return 0, fmt.Errorf("%s: no data rows", e.CSVFile)
	}
	col := -1
	for i, h := range rows[0] {
		if strings.TrimSpace(h) == e.Column {
			col = i
			break
		}
	}
	if col < 0 {
		return 0, fmt.Errorf("%s: no column %q", e.CSVFile, e.Column)
	}
	data := rows[1:]
	i := *e.Row
	if i < 0 {
		i += len(data)
	}
	if i < 0 || i >= len(data) {
		return 0, fmt.Errorf("%s: no row %d (%d data rows)", e.CSVFile, *e.Row, len(data))
	}
	if col >= len(data[i]) {
		return 0, fmt.Errorf("%s: row %d has no column %q", e.CSVFile, *e.Row, e.Column)
	}
	return parseNumber(data[i][col])
}

// Judge applies the success criterion to metric values: it returns
// success or wrong_result, and a reason for wrong_result. A missing value
// is wrong_result here; the runner turns missing metrics into exec_error
// before judging.
func (s *Success) Judge(vals map[string]float64) (outcome, reason string) {
	var fails []string
	check := func(name string, lo, hi float64) {
		v, ok := vals[name]
		if !ok || math.IsNaN(v) || v < lo || v > hi {
			if !ok {
				fails = append(fails, name+" missing")
				return
			}
			fails = append(fails, fmt.Sprintf("%s = %v not in [%v, %v]", name, v, lo, hi))
		}
	}
	for _, name := range sortedKeys(s.Exact) {
		t := s.Exact[name]
		check(name, t.Value-t.Tol, t.Value+t.Tol)
	}
	for _, name := range sortedKeys(s.Range) {
		t := s.Range[name]
		m := 2.0
		if t.M != nil {
			m = *t.M
		}
		check(name, t.Mean-float64(m*t.SD), t.Mean+float64(m*t.SD))
	}
	for _, t := range s.All {
		check(t.Metric, t.Value-t.Tol, t.Value+t.Tol)
	}
	if len(fails) > 0 {
		return OutcomeWrongResult, strings.Join(fails, "; ")
	}
	return OutcomeSuccess, ""
}
