package formula

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
)

// Table is the data: column name → values as text. A value that is empty
// or "NA" (or "NaN", "null") is missing. Order lists the columns for error
// messages (sorted names when nil).
type Table struct {
	Columns map[string][]string
	Order   []string
}

// Missing reports whether a text value is missing.
func Missing(v string) bool {
	switch strings.TrimSpace(v) {
	case "", "NA", "NaN", "nan", "null", "NULL":
		return true
	}
	return false
}

// IsNumeric is the default numeric test: every non-missing value parses
// as a float (and there is at least one).
func IsNumeric(_ string, values []string) bool {
	n := 0
	for _, v := range values {
		if Missing(v) {
			continue
		}
		if _, err := strconv.ParseFloat(strings.TrimSpace(v), 64); err != nil {
			return false
		}
		n++
	}
	return n > 0
}

// Options control Build.
type Options struct {
	// Numeric decides whether a column is numeric; nil means IsNumeric.
	// Other columns are categorical (factors).
	Numeric func(name string, values []string) bool
	// Require lists further columns (weights, cluster ids) that must be
	// non-missing for a row to be used, as R's model frame drops them.
	Require []string
}

// Design is a model frame turned into a model matrix.
type Design struct {
	Y        []float64
	X        [][]float64 // rows × columns
	Names    []string    // column names as R's model.matrix gives them
	Response string      // the response's label
	Rows     []int       // for each row of X, its row in the table
	Dropped  int         // table rows left out for a missing value
	// Intercept reports whether column 0 is "(Intercept)".
	Intercept bool
	// Offset is the sum of the formula's offset() terms per row (nil when
	// there is none), as model.offset(model.frame(fit)).
	Offset []float64
	// Factors gives each categorical variable's levels (first = reference).
	Factors  map[string][]string
	Warnings []error
}

// ColumnError is a formula naming a column the table does not have.
type ColumnError struct {
	Name string
	Have []string
}

func (e *ColumnError) Error() string {
	return fmt.Sprintf("column %q not found; columns are: %s", e.Name, strings.Join(e.Have, ", "))
}

// variable is an evaluated formula variable: numeric values or a factor.
type variable struct {
	num    []float64 // NaN = missing
	factor []int     // level index, -1 = missing
	levels []string
}

func (v *variable) isFactor() bool { return v.levels != nil }

func (v *variable) missing(i int) bool {
	if v.isFactor() {
		return v.factor[i] < 0
	}
	return math.IsNaN(v.num[i])
}

// Build evaluates the formula on the table: variables are evaluated on all
// rows (so scale() uses every non-missing value of its argument, as in R's
// model.frame), rows with a missing value in any variable or required
// column are dropped (na.omit), factors are coded by treatment contrasts
// with the first level in sorted order as reference, and a factor whose
// margin is absent from the model (e.g. f:x without f, or f with no
// intercept) is coded by indicators of all its levels, as R does.
func Build(f *Formula, t Table, opt Options) (*Design, error) {
	if opt.Numeric == nil {
		opt.Numeric = IsNumeric
	}
	have := t.Order
	if have == nil {
		for c := range t.Columns {
			have = append(have, c)
		}
		sort.Strings(have)
	}
	nrow := -1
	for _, c := range append(f.Columns(), opt.Require...) {
		vals, ok := t.Columns[c]
		if !ok {
			return nil, &ColumnError{c, have}
		}
		if nrow >= 0 && len(vals) != nrow {
			return nil, fmt.Errorf("column %q has %d values, others %d", c, len(vals), nrow)
		}
		nrow = len(vals)
	}
	d := &Design{Response: f.Response.Label(), Intercept: f.Intercept, Factors: map[string][]string{}}
	ev := &evaluator{t: t, opt: opt, n: nrow}
	y, err := ev.eval(f.Response, true)
	if err != nil {
		return nil, err
	}
	if y.isFactor() {
		return nil, fmt.Errorf("response %s is not numeric (values such as %q); want numbers (0/1 for binomial) or true/false", d.Response, y.levels[0])
	}
	vars := map[string]*variable{}
	var labels []string
	for _, term := range f.Terms {
		for _, e := range term {
			l := e.Label()
			if vars[l] != nil {
				continue
			}
			v, err := ev.eval(e, false)
			if err != nil {
				return nil, err
			}
			vars[l] = v
			labels = append(labels, l)
		}
	}
	var offs []*variable
	for _, o := range f.Offsets {
		v, err := ev.numeric(o, "offset()")
		if err != nil {
			return nil, err
		}
		offs = append(offs, v)
	}
	// Complete cases.
	for i := 0; i < nrow; i++ {
		ok := !math.IsNaN(y.num[i])
		for _, v := range offs {
			if math.IsNaN(v.num[i]) {
				ok = false
			}
		}
		for _, l := range labels {
			if vars[l].missing(i) {
				ok = false
			}
		}
		for _, c := range opt.Require {
			if Missing(t.Columns[c][i]) {
				ok = false
			}
		}
		if ok {
			d.Rows = append(d.Rows, i)
		} else {
			d.Dropped++
		}
	}
	if len(d.Rows) == 0 {
		return nil, fmt.Errorf("no complete rows: every row has a missing value in a column the model uses")
	}
	if len(offs) > 0 {
		d.Offset = make([]float64, len(d.Rows))
		for r, i := range d.Rows {
			for _, v := range offs {
				d.Offset[r] += v.num[i]
			}
		}
	}
	// Factor levels: those present in the rows used (R drops unused levels
	// in model.frame with drop.unused.levels = TRUE for character columns).
	for _, l := range labels {
		v := vars[l]
		if !v.isFactor() {
			continue
		}
		used := make([]bool, len(v.levels))
		for _, i := range d.Rows {
			used[v.factor[i]] = true
		}
		var lev []string
		remap := make([]int, len(v.levels))
		for j, u := range used {
			remap[j] = -1
			if u {
				remap[j] = len(lev)
				lev = append(lev, v.levels[j])
			}
		}
		nv := &variable{factor: make([]int, len(v.factor)), levels: lev}
		for i, x := range v.factor {
			if x >= 0 {
				nv.factor[i] = remap[x]
			} else {
				nv.factor[i] = -1
			}
		}
		vars[l] = nv
		d.Factors[l] = lev
		if len(lev) == 1 {
			d.Warnings = append(d.Warnings, fmt.Errorf("factor %s has one level (%s) in the rows used: its columns are collinear with the intercept", l, lev[0]))
		}
	}
	// Columns, term by term.
	present := map[string]bool{"": f.Intercept}
	for _, term := range f.Terms {
		present[termKey(term)] = true
	}
	type colGen struct {
		name string
		val  func(i int) float64
	}
	var cols []colGen
	if f.Intercept {
		cols = append(cols, colGen{"(Intercept)", func(int) float64 { return 1 }})
	}
	for _, term := range f.Terms {
		// Each variable contributes a list of (suffix name, value) parts.
		type part struct {
			name string
			val  func(i int) float64
		}
		var lists [][]part
		for k, e := range term {
			v := vars[e.Label()]
			l := e.Label()
			if !v.isFactor() {
				lists = append(lists, []part{{l, func(i int) float64 { return v.num[i] }}})
				continue
			}
			rest := append(append(Term{}, term[:k]...), term[k+1:]...)
			first := 1
			if !present[termKey(rest)] {
				first = 0 // indicators for every level
			}
			var ps []part
			for j := first; j < len(v.levels); j++ {
				j := j
				ps = append(ps, part{l + v.levels[j], func(i int) float64 {
					if v.factor[i] == j {
						return 1
					}
					return 0
				}})
			}
			lists = append(lists, ps)
		}
		// First variable varies fastest, as in model.matrix.
		idx := make([]int, len(lists))
		for {
			names := make([]string, len(lists))
			fs := make([]func(int) float64, len(lists))
			empty := false
			for k, ps := range lists {
				if len(ps) == 0 {
					empty = true
					break
				}
				names[k] = ps[idx[k]].name
				fs[k] = ps[idx[k]].val
			}
			if empty {
				break
			}
			cols = append(cols, colGen{strings.Join(names, ":"), func(i int) float64 {
				p := 1.0
				for _, g := range fs {
					p *= g(i)
				}
				return p
			}})
			k := 0
			for k < len(lists) {
				idx[k]++
				if idx[k] < len(lists[k]) {
					break
				}
				idx[k] = 0
				k++
			}
			if k == len(lists) {
				break
			}
		}
	}
	d.Names = make([]string, len(cols))
	for j, c := range cols {
		d.Names[j] = c.name
	}
	d.X = make([][]float64, len(d.Rows))
	d.Y = make([]float64, len(d.Rows))
	for r, i := range d.Rows {
		row := make([]float64, len(cols))
		for j, c := range cols {
			row[j] = c.val(i)
		}
		d.X[r] = row
		d.Y[r] = y.num[i]
	}
	for j, c := range cols {
		if c.name == "(Intercept)" {
			continue
		}
		constant := true
		for r := 1; r < len(d.X); r++ {
			if d.X[r][j] != d.X[0][j] {
				constant = false
				break
			}
		}
		if constant {
			d.Warnings = append(d.Warnings, fmt.Errorf("column %s is constant (%g) in the rows used", c.name, d.X[0][j]))
		}
	}
	return d, nil
}

func termKey(t Term) string {
	ls := make([]string, len(t))
	for i, e := range t {
		ls[i] = e.Label()
	}
	sort.Strings(ls)
	return strings.Join(ls, ":")
}

type evaluator struct {
	t   Table
	opt Options
	n   int
}

// eval evaluates e on every row. asResponse maps a true/false column to 1/0.
func (ev *evaluator) eval(e Expr, asResponse bool) (*variable, error) {
	switch x := e.(type) {
	case Col:
		vals := ev.t.Columns[x.Name]
		if ev.opt.Numeric(x.Name, vals) {
			v := &variable{num: make([]float64, len(vals))}
			for i, s := range vals {
				if Missing(s) {
					v.num[i] = math.NaN()
					continue
				}
				f, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
				if err != nil {
					return nil, fmt.Errorf("column %s row %d: %q is not a number", x.Name, i+1, s)
				}
				v.num[i] = f
			}
			return v, nil
		}
		if asResponse {
			if v, ok := boolColumn(vals); ok {
				return v, nil
			}
		}
		set := map[string]bool{}
		for _, s := range vals {
			if !Missing(s) {
				set[s] = true
			}
		}
		v := &variable{factor: make([]int, len(vals))}
		for s := range set {
			v.levels = append(v.levels, s)
		}
		sort.Strings(v.levels)
		if len(v.levels) == 0 {
			return nil, fmt.Errorf("column %s has no values", x.Name)
		}
		idx := map[string]int{}
		for j, l := range v.levels {
			idx[l] = j
		}
		for i, s := range vals {
			if Missing(s) {
				v.factor[i] = -1
			} else {
				v.factor[i] = idx[s]
			}
		}
		return v, nil
	case Num:
		v := &variable{num: make([]float64, ev.n)}
		for i := range v.num {
			v.num[i] = x.V
		}
		return v, nil
	case Paren:
		return ev.eval(x.X, asResponse)
	case Neg:
		a, err := ev.numeric(x.X, "-")
		if err != nil {
			return nil, err
		}
		return mapNum(a, func(f float64) float64 { return -f }), nil
	case Binary:
		a, err := ev.numeric(x.L, string(x.Op))
		if err != nil {
			return nil, err
		}
		b, err := ev.numeric(x.R, string(x.Op))
		if err != nil {
			return nil, err
		}
		v := &variable{num: make([]float64, ev.n)}
		for i := range v.num {
			p, q := a.num[i], b.num[i]
			switch x.Op {
			case '+':
				v.num[i] = p + q
			case '-':
				v.num[i] = p - q
			case '*':
				v.num[i] = p * q
			case '/':
				v.num[i] = p / q
			case '^':
				v.num[i] = math.Pow(p, q)
			}
			if math.IsInf(v.num[i], 0) {
				return nil, fmt.Errorf("%s: not finite at row %d", x.Label(), i+1)
			}
		}
		return v, nil
	case Call:
		if x.Fn == "I" {
			return ev.eval(x.Arg, asResponse)
		}
		a, err := ev.numeric(x.Arg, x.Fn+"()")
		if err != nil {
			return nil, err
		}
		switch x.Fn {
		case "log", "sqrt":
			for i, f := range a.num {
				if f < 0 || x.Fn == "log" && f == 0 {
					return nil, fmt.Errorf("%s: argument %g at row %d is out of the domain", x.Label(), f, i+1)
				}
			}
			if x.Fn == "log" {
				return mapNum(a, math.Log), nil
			}
			return mapNum(a, math.Sqrt), nil
		case "exp":
			return mapNum(a, math.Exp), nil
		case "offset":
			return a, nil
		case "scale":
			// R: centre by the mean, divide by the sd (n − 1), over the
			// non-missing values.
			var s, n float64
			for _, f := range a.num {
				if !math.IsNaN(f) {
					s += f
					n++
				}
			}
			m := s / n
			var ss float64
			for _, f := range a.num {
				if !math.IsNaN(f) {
					ss += float64((f - m) * (f - m))
				}
			}
			sd := math.Sqrt(ss / (n - 1))
			if !(sd > 0) {
				return nil, fmt.Errorf("%s: the column is constant (sd 0), it cannot be standardized", x.Label())
			}
			return mapNum(a, func(f float64) float64 { return (f - m) / sd }), nil
		}
	}
	return nil, fmt.Errorf("cannot evaluate %s", e.Label())
}

func (ev *evaluator) numeric(e Expr, op string) (*variable, error) {
	v, err := ev.eval(e, false)
	if err != nil {
		return nil, err
	}
	if v.isFactor() {
		return nil, fmt.Errorf("%s: %s is categorical (values such as %q), arithmetic needs a numeric column", op, e.Label(), v.levels[0])
	}
	return v, nil
}

func mapNum(a *variable, f func(float64) float64) *variable {
	v := &variable{num: make([]float64, len(a.num))}
	for i, x := range a.num {
		v.num[i] = f(x)
	}
	return v
}

// boolColumn maps true/false (any case) to 1/0.
func boolColumn(vals []string) (*variable, bool) {
	v := &variable{num: make([]float64, len(vals))}
	for i, s := range vals {
		switch strings.ToLower(strings.TrimSpace(s)) {
		case "true":
			v.num[i] = 1
		case "false":
			v.num[i] = 0
		default:
			if !Missing(s) {
				return nil, false
			}
			v.num[i] = math.NaN()
		}
	}
	return v, true
}
