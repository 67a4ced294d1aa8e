// Package formula parses a subset of R's model formulas and builds design
// matrices from a table of text columns, naming the columns as R's
// model.matrix does.
//
// Supported (R semantics):
//
//	y ~ x1 + x2          main effects
//	y ~ x1:x2            interaction
//	y ~ x1 * x2          x1 + x2 + x1:x2 (a*b*c: every sub-interaction)
//	y ~ (a + b):c        a:c + b:c
//	y ~ x - 1, y ~ 0 + x no intercept; "+ 1" keeps it; "- x" removes a term
//	I(expr)              arithmetic: + - * / ^, unary minus, numbers, columns
//	log(x), exp(x), sqrt(x), scale(x)
//	(1 | g)              random intercept: parsed and returned in Random
//	offset(x)            a known term of the linear predictor (coefficient 1):
//	                     returned in Offsets, summed by Build into Design.Offset
//
// Terms are ordered as R's terms.formula does (by interaction order, then
// by appearance), and the variables inside an interaction by their first
// appearance in the formula, so x2:x1 after x1 + x2 is labelled x1:x2.
package formula

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"unicode"
)

// Formula is a parsed model formula.
type Formula struct {
	Text      string
	Response  Expr   // the left-hand side
	Terms     []Term // fixed-effect terms, without the intercept, in R's order
	Intercept bool
	Random    []RandomTerm
	// Offsets are the arguments of offset() terms, e.g. log(exposure) for
	// offset(log(exposure)).
	Offsets []Expr
}

// Term is one fixed-effect term: the variables it multiplies (one for a
// main effect), in their order of first appearance in the formula.
type Term []Expr

// Label is the term's R label, e.g. "x1:x2".
func (t Term) Label() string {
	parts := make([]string, len(t))
	for i, e := range t {
		parts[i] = e.Label()
	}
	return strings.Join(parts, ":")
}

// RandomTerm is a random-effects term (expr | group), e.g. (1 | model).
type RandomTerm struct {
	Expr  string // the left of the bar as written, e.g. "1"
	Group string // the grouping column
}

// Label is the term as R prints it, e.g. "1 | model".
func (r RandomTerm) Label() string { return r.Expr + " | " + r.Group }

// Expr is a variable expression: a column, a number, a function call or
// (inside I()) arithmetic.
type Expr interface {
	// Label is the expression as R deparses it: x, log(x), I(x^2), I(a * b).
	Label() string
	// Columns appends the columns the expression reads.
	Columns(dst []string) []string
}

// Col is a column reference.
type Col struct{ Name string }

// Num is a number literal.
type Num struct {
	V    float64
	Text string
}

// Call is fn(arg): fn one of I, log, exp, sqrt, scale.
type Call struct {
	Fn  string
	Arg Expr
}

// Binary is l op r inside I(): op one of + - * / ^.
type Binary struct {
	Op   byte
	L, R Expr
}

// Neg is -x inside I().
type Neg struct{ X Expr }

// Paren is (x) inside I().
type Paren struct{ X Expr }

func (c Col) Label() string                    { return c.Name }
func (c Col) Columns(dst []string) []string    { return append(dst, c.Name) }
func (n Num) Label() string                    { return n.Text }
func (n Num) Columns(dst []string) []string    { return dst }
func (c Call) Label() string                   { return c.Fn + "(" + c.Arg.Label() + ")" }
func (c Call) Columns(dst []string) []string   { return c.Arg.Columns(dst) }
func (n Neg) Label() string                    { return "-" + n.X.Label() }
func (n Neg) Columns(dst []string) []string    { return n.X.Columns(dst) }
func (p Paren) Label() string                  { return "(" + p.X.Label() + ")" }
func (p Paren) Columns(dst []string) []string  { return p.X.Columns(dst) }
func (b Binary) Columns(dst []string) []string { return b.R.Columns(b.L.Columns(dst)) }

// Label deparses as R does: spaces around + - * /, none around ^.
func (b Binary) Label() string {
	if b.Op == '^' {
		return b.L.Label() + "^" + b.R.Label()
	}
	return b.L.Label() + " " + string(b.Op) + " " + b.R.Label()
}

// SyntaxError is a malformed formula; Pos is the 0-based byte offset.
type SyntaxError struct {
	Formula string
	Pos     int
	Msg     string
}

func (e *SyntaxError) Error() string {
	return fmt.Sprintf("formula %q: position %d: %s\n  %s\n  %s^", e.Formula, e.Pos+1, e.Msg, e.Formula, strings.Repeat(" ", e.Pos))
}

// Functions allowed on variables.
var funcs = map[string]bool{"I": true, "log": true, "exp": true, "sqrt": true, "scale": true, "offset": true}

type token struct {
	kind byte // 'i' ident, 'n' number, 'e' end, or the operator character
	text string
	pos  int
}

func lex(s string) ([]token, error) {
	var out []token
	i := 0
	for i < len(s) {
		c := s[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n':
			i++
		case strings.IndexByte("~+-*/^:|()", c) >= 0:
			out = append(out, token{kind: c, text: string(c), pos: i})
			i++
		case c == '`':
			j := strings.IndexByte(s[i+1:], '`')
			if j < 0 {
				return nil, &SyntaxError{s, i, "unterminated backquoted name"}
			}
			out = append(out, token{kind: 'i', text: s[i+1 : i+1+j], pos: i})
			i += j + 2
		case c >= '0' && c <= '9' || c == '.' && i+1 < len(s) && s[i+1] >= '0' && s[i+1] <= '9':
			j := i
			for j < len(s) && (s[j] >= '0' && s[j] <= '9' || s[j] == '.' || s[j] == 'e' || s[j] == 'E' ||
				(s[j] == '-' || s[j] == '+') && j > i && (s[j-1] == 'e' || s[j-1] == 'E')) {
				j++
			}
			if _, err := strconv.ParseFloat(s[i:j], 64); err != nil {
				return nil, &SyntaxError{s, i, fmt.Sprintf("bad number %q", s[i:j])}
			}
			out = append(out, token{kind: 'n', text: s[i:j], pos: i})
			i = j
		case c == '_' || c == '.' || unicode.IsLetter(rune(c)):
			j := i
			for j < len(s) && (s[j] == '_' || s[j] == '.' || s[j] >= '0' && s[j] <= '9' || unicode.IsLetter(rune(s[j]))) {
				j++
			}
			out = append(out, token{kind: 'i', text: s[i:j], pos: i})
			i = j
		default:
			return nil, &SyntaxError{s, i, fmt.Sprintf("unexpected character %q", c)}
		}
	}
	return append(out, token{kind: 'e', pos: len(s)}), nil
}

type parser struct {
	src   string
	toks  []token
	i     int
	order map[string]int // variable label → first appearance
	rand  []RandomTerm
}

func (p *parser) peek() token { return p.toks[p.i] }
func (p *parser) next() token { t := p.toks[p.i]; p.i++; return t }
func (p *parser) errf(pos int, format string, args ...any) error {
	return &SyntaxError{p.src, pos, fmt.Sprintf(format, args...)}
}

// termSet is the formula algebra's value: a list of terms (sets of
// variable labels) plus intercept changes.
type termSet struct {
	terms [][]string // each sorted by first appearance
	vars  map[string]Expr
	icpt  int // 0 unchanged, 1 add, -1 remove
}

// Parse parses an R formula "response ~ terms".
func Parse(s string) (*Formula, error) {
	toks, err := lex(s)
	if err != nil {
		return nil, err
	}
	p := &parser{src: s, toks: toks, order: map[string]int{}}
	f := &Formula{Text: s, Intercept: true}
	if p.peek().kind == '~' {
		return nil, p.errf(0, "missing response: want \"y ~ x1 + x2\"")
	}
	f.Response, err = p.arith()
	if err != nil {
		return nil, err
	}
	if t := p.next(); t.kind != '~' {
		return nil, p.errf(t.pos, "want \"~\" after the response")
	}
	if p.peek().kind == 'e' {
		return nil, p.errf(p.peek().pos, "missing right-hand side after \"~\"")
	}
	vars := map[string]Expr{}
	type signed struct {
		ts  termSet
		neg bool
	}
	var parts []signed
	neg := false
	if p.peek().kind == '-' {
		p.next()
		neg = true
	}
	for {
		ts, err := p.product(vars)
		if err != nil {
			return nil, err
		}
		parts = append(parts, signed{ts, neg})
		t := p.next()
		if t.kind == 'e' {
			break
		}
		if t.kind != '+' && t.kind != '-' {
			if t.kind == ')' {
				return nil, p.errf(t.pos, "unmatched \")\"")
			}
			return nil, p.errf(t.pos, "want \"+\", \"-\", \"*\" or \":\" between terms, got %q", t.text)
		}
		neg = t.kind == '-'
	}
	var terms [][]string
	seen := map[string]int{}
	for _, sp := range parts {
		if sp.ts.icpt != 0 {
			if sp.neg {
				f.Intercept = sp.ts.icpt < 0
			} else {
				f.Intercept = sp.ts.icpt > 0
			}
		}
		for _, t := range sp.ts.terms {
			key := strings.Join(t, ":")
			if sp.neg {
				if j, ok := seen[key]; ok {
					terms[j] = nil
					delete(seen, key)
				}
				continue
			}
			if _, ok := seen[key]; !ok {
				seen[key] = len(terms)
				terms = append(terms, t)
			}
		}
	}
	var kept [][]string
	for _, t := range terms {
		if t != nil {
			kept = append(kept, t)
		}
	}
	sort.SliceStable(kept, func(a, b int) bool { return len(kept[a]) < len(kept[b]) })
	for _, t := range kept {
		term := make(Term, len(t))
		for i, v := range t {
			term[i] = vars[v]
			if c, ok := vars[v].(Call); ok && c.Fn == "offset" {
				if len(t) > 1 {
					return nil, &SyntaxError{s, 0, fmt.Sprintf("offset() inside the interaction %s: an offset is a term of its own", strings.Join(t, ":"))}
				}
				f.Offsets = append(f.Offsets, c.Arg)
				term = nil
			}
		}
		if term != nil {
			f.Terms = append(f.Terms, term)
		}
	}
	f.Random = p.rand
	return f, nil
}

// product := inter ('*' inter)*
func (p *parser) product(vars map[string]Expr) (termSet, error) {
	a, err := p.inter(vars)
	if err != nil {
		return a, err
	}
	for p.peek().kind == '*' {
		t := p.next()
		b, err := p.inter(vars)
		if err != nil {
			return b, err
		}
		if a.icpt != 0 || b.icpt != 0 {
			return a, p.errf(t.pos, "\"*\" with 0 or 1 is not supported")
		}
		a = termSet{terms: append(append(append([][]string{}, a.terms...), b.terms...), p.cross(a.terms, b.terms)...)}
	}
	return a, nil
}

// inter := atom (':' atom)*
func (p *parser) inter(vars map[string]Expr) (termSet, error) {
	a, err := p.atom(vars)
	if err != nil {
		return a, err
	}
	for p.peek().kind == ':' {
		t := p.next()
		b, err := p.atom(vars)
		if err != nil {
			return b, err
		}
		if a.icpt != 0 || b.icpt != 0 {
			return a, p.errf(t.pos, "\":\" with 0 or 1 is not supported")
		}
		a = termSet{terms: p.cross(a.terms, b.terms)}
	}
	return a, nil
}

// cross returns every union a ∪ b, variables in first-appearance order.
func (p *parser) cross(as, bs [][]string) [][]string {
	var out [][]string
	for _, a := range as {
		for _, b := range bs {
			set := map[string]bool{}
			var t []string
			for _, v := range append(append([]string{}, a...), b...) {
				if !set[v] {
					set[v] = true
					t = append(t, v)
				}
			}
			sort.SliceStable(t, func(i, j int) bool { return p.order[t[i]] < p.order[t[j]] })
			out = append(out, t)
		}
	}
	return out
}

// atom := number | '(' sum ')' | '(' expr '|' group ')' | variable
func (p *parser) atom(vars map[string]Expr) (termSet, error) {
	t := p.peek()
	switch t.kind {
	case 'n':
		p.next()
		switch t.text {
		case "0":
			return termSet{icpt: -1}, nil
		case "1":
			return termSet{icpt: 1}, nil
		}
		return termSet{}, p.errf(t.pos, "number %s in a formula: only 0 and 1 (the intercept) are allowed; use I() for arithmetic", t.text)
	case '(':
		p.next()
		// A bar before the matching parenthesis makes it a random term.
		depth, bar := 0, -1
		for j := p.i; j < len(p.toks); j++ {
			k := p.toks[j].kind
			if k == '(' {
				depth++
			} else if k == ')' {
				if depth == 0 {
					break
				}
				depth--
			} else if k == '|' && depth == 0 {
				bar = j
				break
			}
		}
		if bar >= 0 {
			start := p.toks[p.i].pos
			lhs := strings.TrimSpace(p.src[start:p.toks[bar].pos])
			if lhs == "" {
				return termSet{}, p.errf(p.toks[bar].pos, "want an expression before \"|\", e.g. (1 | group)")
			}
			p.i = bar + 1
			g := p.next()
			if g.kind != 'i' {
				return termSet{}, p.errf(g.pos, "want a grouping column after \"|\"")
			}
			if c := p.next(); c.kind != ')' {
				return termSet{}, p.errf(c.pos, "want \")\" after the grouping column %s", g.text)
			}
			p.rand = append(p.rand, RandomTerm{Expr: lhs, Group: g.text})
			return termSet{}, nil
		}
		var acc termSet
		for {
			ts, err := p.product(vars)
			if err != nil {
				return ts, err
			}
			acc.terms = append(acc.terms, ts.terms...)
			if ts.icpt != 0 {
				acc.icpt = ts.icpt
			}
			n := p.next()
			if n.kind == ')' {
				return acc, nil
			}
			if n.kind != '+' {
				return acc, p.errf(n.pos, "want \"+\" or \")\" inside parentheses, got %q", n.text)
			}
		}
	case 'i':
		e, err := p.variable()
		if err != nil {
			return termSet{}, err
		}
		l := e.Label()
		if _, ok := p.order[l]; !ok {
			p.order[l] = len(p.order)
		}
		vars[l] = e
		return termSet{terms: [][]string{{l}}}, nil
	case 'e':
		return termSet{}, p.errf(t.pos, "formula ends where a term was expected")
	}
	return termSet{}, p.errf(t.pos, "unexpected %q where a term was expected", t.text)
}

// variable := ident | fn '(' arith ')'
func (p *parser) variable() (Expr, error) {
	t := p.next()
	if p.peek().kind != '(' {
		return Col{t.text}, nil
	}
	if !funcs[t.text] {
		return nil, p.errf(t.pos, "unknown function %s (want I, log, exp, sqrt, scale or offset)", t.text)
	}
	p.next()
	arg, err := p.arith()
	if err != nil {
		return nil, err
	}
	if c := p.next(); c.kind != ')' {
		return nil, p.errf(c.pos, "want \")\" to close %s(", t.text)
	}
	if t.text != "I" {
		if _, ok := arg.(Num); ok {
			return nil, p.errf(t.pos, "%s() of a number", t.text)
		}
	}
	return Call{t.text, arg}, nil
}

// arith parses arithmetic (used inside I() and for the response):
// sum := prod (('+'|'-') prod)*; prod := unary (('*'|'/') unary)*;
// unary := '-' unary | pow; pow := primary ('^' unary)?
func (p *parser) arith() (Expr, error) {
	l, err := p.aprod()
	if err != nil {
		return nil, err
	}
	for k := p.peek().kind; k == '+' || k == '-'; k = p.peek().kind {
		p.next()
		r, err := p.aprod()
		if err != nil {
			return nil, err
		}
		l = Binary{k, l, r}
	}
	return l, nil
}

func (p *parser) aprod() (Expr, error) {
	l, err := p.unary()
	if err != nil {
		return nil, err
	}
	for k := p.peek().kind; k == '*' || k == '/'; k = p.peek().kind {
		p.next()
		r, err := p.unary()
		if err != nil {
			return nil, err
		}
		l = Binary{k, l, r}
	}
	return l, nil
}

func (p *parser) unary() (Expr, error) {
	if p.peek().kind == '-' {
		p.next()
		x, err := p.unary()
		if err != nil {
			return nil, err
		}
		return Neg{x}, nil
	}
	x, err := p.primary()
	if err != nil {
		return nil, err
	}
	if p.peek().kind == '^' {
		p.next()
		r, err := p.unary()
		if err != nil {
			return nil, err
		}
		return Binary{'^', x, r}, nil
	}
	return x, nil
}

func (p *parser) primary() (Expr, error) {
	t := p.peek()
	switch t.kind {
	case 'n':
		p.next()
		v, _ := strconv.ParseFloat(t.text, 64)
		return Num{v, t.text}, nil
	case 'i':
		return p.variable()
	case '(':
		p.next()
		x, err := p.arith()
		if err != nil {
			return nil, err
		}
		if c := p.next(); c.kind != ')' {
			return nil, p.errf(c.pos, "want \")\"")
		}
		return Paren{x}, nil
	case 'e':
		return nil, p.errf(t.pos, "formula ends where an expression was expected")
	}
	return nil, p.errf(t.pos, "unexpected %q where a column, number or function was expected", t.text)
}

// Columns returns the table columns the formula reads (response, fixed
// terms, random-effect grouping columns), each once, in order.
func (f *Formula) Columns() []string {
	var all []string
	all = f.Response.Columns(all)
	for _, t := range f.Terms {
		for _, e := range t {
			all = e.Columns(all)
		}
	}
	for _, o := range f.Offsets {
		all = o.Columns(all)
	}
	for _, r := range f.Random {
		all = append(all, r.Group)
	}
	seen := map[string]bool{}
	var out []string
	for _, c := range all {
		if !seen[c] {
			seen[c] = true
			out = append(out, c)
		}
	}
	return out
}

// Standardize wraps every reference to the named columns on the
// right-hand side in scale(), as if the formula had said scale(x). A
// column already inside scale() is left alone.
func (f *Formula) Standardize(cols map[string]bool) {
	var wrap func(e Expr) Expr
	wrap = func(e Expr) Expr {
		switch x := e.(type) {
		case Col:
			if cols[x.Name] {
				return Call{"scale", x}
			}
		case Call:
			if x.Fn == "scale" {
				return x
			}
			return Call{x.Fn, wrap(x.Arg)}
		case Binary:
			return Binary{x.Op, wrap(x.L), wrap(x.R)}
		case Neg:
			return Neg{wrap(x.X)}
		case Paren:
			return Paren{wrap(x.X)}
		}
		return e
	}
	for _, t := range f.Terms {
		for i := range t {
			t[i] = wrap(t[i])
		}
	}
}
