package errtax

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"strings"
	"unicode/utf8"
)

// MaxLineBytes is the longest line matched in full: the rest of a longer
// line is skipped (not an error), so memory stays bounded.
const MaxLineBytes = 1 << 20

// MaxEvidenceRunes bounds Label.Evidence.
const MaxEvidenceRunes = 200

// maxPrefix bounds the prefix before a traceback header ("[rank0]: ")
// that is stripped from the lines of its block.
const maxPrefix = 256

// maxJunk is how many lines that are neither frames nor an exception line
// (interleaved output, blank lines) a traceback block tolerates before it
// is abandoned.
const maxJunk = 3

// Label is the primary explicit error of a run.
type Label struct {
	Group string // a rule's group, GroupPythonUnlisted or GroupNone
	Type  string // a rule's type, the exception's name (GroupPythonUnlisted) or TypeNone
	File  string // the name given to Classifier.Scan of the log with the evidence; "" for none
	Line  int    // 1-based line of the evidence in File; 0 for none
	// Evidence is the line that decided the label (the exception line of a
	// traceback, or the line a line rule matched), trimmed, valid UTF-8, at
	// most MaxEvidenceRunes runes; "" for none.
	Evidence string
	// Exception is the exception's name as printed ("torch.cuda.OutOfMemoryError")
	// for labels from a traceback, else "".
	Exception string
	Kind      Kind // KindTraceback or KindLine; "" for none
}

// None reports whether the label says no explicit error was found.
func (l Label) None() bool { return l.Group == GroupNone }

// Classifier finds the primary explicit error of one run from its logs.
// Feed it each log of the run with Scan, then call Result. It keeps only a
// few labels and the state of the traceback being read, so memory does not
// grow with the size of the logs.
//
// Precedence, whatever the order of the lines:
//
//  1. Execution Timeout: the first line (in Scan order) that a line rule
//     of group "timeout" matches. Once one is found the rest is not read.
//  2. The last Python traceback of the run: the exception that ends the
//     last "Traceback (most recent call last):" block (so with chained
//     exceptions, the last of the chain). A traceback whose rule has Defer
//     (a launcher's CalledProcessError, torchrun's ChildFailedError) yields
//     to the last non-deferring traceback before it, when there is one.
//     Exceptions that no rule names get group GroupPythonUnlisted and their
//     own name as type.
//  3. The first line that any other line rule matches (bash errors, and
//     python's "can't open file" message).
//
// Rules of the same kind are tried in order; the first that matches a
// line (or an exception) decides its type.
type Classifier struct {
	c     *compiled
	stamp []uint64
	seq   uint64

	timeout *Label
	line    *Label
	lastTB  *Label // last traceback
	lastTBW bool   // lastTB came from a Defer rule
	plainTB *Label // last traceback not from a Defer rule

	// Traceback block being read.
	file       string
	inBlock    bool
	headerless bool // started at a `  File "x", line N` line (SyntaxError without header)
	prefix     []byte
	junk       int
	long       []byte
}

// NewClassifier returns a Classifier for one run.
func (rs Rules) NewClassifier() *Classifier {
	c := rs.c
	if c == nil {
		c, _ = emptyCompiled()
	}
	return &Classifier{c: c, stamp: make([]uint64, len(c.lineIdx))}
}

func emptyCompiled() (*compiled, error) {
	rs, err := NewRules(nil)
	return rs.c, err
}

// Classify returns the label of a run whose only log is r; file names it in
// the label.
func (rs Rules) Classify(file string, r io.Reader) (Label, error) {
	c := rs.NewClassifier()
	if err := c.Scan(file, r); err != nil {
		return Label{}, err
	}
	return c.Result(), nil
}

// Scan reads one log of the run, line by line (LF or CRLF line endings; a
// final line without a line ending counts; a lone CR also ends a line, see
// feedSegments). file names the log in labels.
// It returns only read errors.
func (c *Classifier) Scan(file string, r io.Reader) error {
	if c.timeout != nil {
		return nil
	}
	c.file, c.inBlock = file, false
	br := bufio.NewReaderSize(r, 64<<10)
	n := 0
	inLong := false
	for {
		frag, err := br.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			if !inLong {
				c.long = c.long[:0]
				inLong = true
			}
			c.long = appendBounded(c.long, frag)
			continue
		}
		line := frag
		if inLong {
			c.long = appendBounded(c.long, frag)
			line, inLong = c.long, false
		}
		if err != nil && !errors.Is(err, io.EOF) {
			return err
		}
		if len(line) == 0 && err != nil {
			return nil
		}
		n++
		line = bytes.TrimSuffix(line, []byte{'\n'})
		line = bytes.TrimSuffix(line, []byte{'\r'})
		if n == 1 {
			line = bytes.TrimPrefix(line, []byte("\xef\xbb\xbf"))
		}
		c.feedSegments(n, line)
		if c.timeout != nil || err != nil {
			return nil
		}
	}
}

// feedSegments feeds line n split at each lone CR: progress bars (pytest,
// tqdm) redraw with CR, so what a terminal shows as separate lines shares
// one LF line in the log. Every segment keeps the number n of its LF line
// (what grep -n and sed -n count); empty segments are skipped.
func (c *Classifier) feedSegments(n int, line []byte) {
	for {
		i := bytes.IndexByte(line, '\r')
		if i < 0 {
			c.feed(n, line)
			return
		}
		if i > 0 {
			c.feed(n, line[:i])
			if c.timeout != nil {
				return
			}
		}
		line = line[i+1:]
		if len(line) == 0 {
			return
		}
	}
}

func appendBounded(dst, src []byte) []byte {
	if room := MaxLineBytes - len(dst); room < len(src) {
		if room <= 0 {
			return dst
		}
		src = src[:room]
	}
	return append(dst, src...)
}

// feed processes line n of the current log.
func (c *Classifier) feed(n int, line []byte) {
	c.seq++
	header, hit := c.c.m.scan(line, c.stamp, c.seq)
	switch {
	case header && c.startHeader(line):
	case c.inBlock:
		c.blockLine(n, line)
	case len(line) > 0 && (line[0] == ' ' || line[0] == '\t') && isSyntaxFrame(line):
		c.inBlock, c.headerless, c.prefix, c.junk = true, true, c.prefix[:0], 0
	}
	if !hit && !c.c.anyAlways {
		return
	}
	for pos, i := range c.c.lineIdx {
		r := &c.c.list[i]
		if r.Group == GroupTimeout {
			if c.timeout != nil {
				continue
			}
		} else if c.line != nil {
			continue
		}
		if c.stamp[pos] != c.seq && !c.c.always[pos] {
			continue
		}
		if !c.c.re[i].Match(line) {
			continue
		}
		l := &Label{Group: r.Group, Type: r.Type, File: c.file, Line: n, Evidence: evidence(line), Kind: KindLine}
		if r.Group == GroupTimeout {
			c.timeout = l
			return
		}
		c.line = l
	}
}

// startHeader starts a traceback block if line holds the header (the
// matcher is case-insensitive, so check).
func (c *Classifier) startHeader(line []byte) bool {
	i := bytes.Index(line, tracebackHeader)
	if i < 0 {
		return false
	}
	c.inBlock, c.headerless, c.junk = true, false, 0
	c.prefix = c.prefix[:0]
	if i <= maxPrefix {
		c.prefix = append(c.prefix, line[:i]...)
	}
	return true
}

// isSyntaxFrame reports whether line is `  File "x", line N` with no
// function name: how Python starts the report of a SyntaxError in the
// script it was asked to run, which has no traceback header.
func isSyntaxFrame(line []byte) bool {
	l := bytes.TrimLeft(line, " \t")
	if !bytes.HasPrefix(l, []byte(`File "`)) {
		return false
	}
	j := bytes.LastIndex(l, []byte(`", line `))
	if j < 0 {
		return false
	}
	digits := bytes.TrimRight(l[j+len(`", line `):], " ")
	if len(digits) == 0 {
		return false
	}
	for _, d := range digits {
		if d < '0' || d > '9' {
			return false
		}
	}
	return true
}

// blockLine processes a line inside a traceback block.
func (c *Classifier) blockLine(n int, line []byte) {
	l := line
	if len(c.prefix) > 0 && bytes.HasPrefix(l, c.prefix) {
		l = l[len(c.prefix):]
	}
	if len(l) > 0 && (l[0] == ' ' || l[0] == '\t') && len(bytes.TrimSpace(l)) > 0 {
		return // a frame, source line, caret line or "[Previous line repeated …]"
	}
	name, msg, ok := parseExceptionLine(l)
	if ok && c.headerless && !isSyntaxName(lastComponent(name)) {
		ok = false
	}
	if ok {
		c.inBlock = false
		c.traceback(n, line, name, msg)
		return
	}
	if c.headerless {
		c.inBlock = false
		return
	}
	if c.junk++; c.junk > maxJunk {
		c.inBlock = false
	}
}

func isSyntaxName(s string) bool {
	return s == "SyntaxError" || s == "IndentationError" || s == "TabError"
}

// traceback records the exception that ends a block.
func (c *Classifier) traceback(n int, line []byte, name, msg string) {
	short := lastComponent(name)
	subject := short
	if msg != "" {
		subject += ": " + msg
	}
	l := &Label{Group: GroupPythonUnlisted, Type: short, File: c.file, Line: n,
		Evidence: evidence(line), Exception: name, Kind: KindTraceback}
	wrapper := false
	for _, i := range c.c.tbIdx {
		if c.c.re[i].MatchString(subject) {
			r := &c.c.list[i]
			l.Group, l.Type, wrapper = r.Group, r.Type, r.Defer
			break
		}
	}
	c.lastTB, c.lastTBW = l, wrapper
	if !wrapper {
		c.plainTB = l
	}
}

// parseExceptionLine splits "pkg.mod.Name: message" (or "Name") into the
// name and the message; ok is false for lines that are not of that form.
func parseExceptionLine(l []byte) (name, msg string, ok bool) {
	i := 0
	start := true // at the start of a dotted component
	for i < len(l) {
		b := l[i]
		switch {
		case b == '_' || 'A' <= b && b <= 'Z' || 'a' <= b && b <= 'z':
			start = false
		case '0' <= b && b <= '9' && !start:
		case b == '.' && !start:
			start = true
		default:
			goto done
		}
		i++
	}
done:
	if i == 0 || start {
		return "", "", false
	}
	rest := l[i:]
	switch {
	case len(bytes.TrimSpace(rest)) == 0:
		return string(l[:i]), "", true
	case rest[0] == ':':
		return string(l[:i]), strings.TrimSpace(string(rest[1:])), true
	}
	return "", "", false
}

func lastComponent(name string) string {
	if j := strings.LastIndexByte(name, '.'); j >= 0 {
		return name[j+1:]
	}
	return name
}

// evidence trims line, makes it valid UTF-8 and cuts it to
// MaxEvidenceRunes runes.
func evidence(line []byte) string {
	s := strings.ToValidUTF8(string(bytes.TrimSpace(line)), "\uFFFD")
	if utf8.RuneCountInString(s) <= MaxEvidenceRunes {
		return s
	}
	n := 0
	for i := range s {
		if n == MaxEvidenceRunes {
			return s[:i]
		}
		n++
	}
	return s
}

// Result returns the primary error of the run so far (see Classifier for
// the precedence), or a label with group and type "none".
func (c *Classifier) Result() Label {
	switch {
	case c.timeout != nil:
		return *c.timeout
	case c.lastTB != nil:
		if c.lastTBW && c.plainTB != nil {
			return *c.plainTB
		}
		return *c.lastTB
	case c.line != nil:
		return *c.line
	}
	return Label{Group: GroupNone, Type: TypeNone}
}
