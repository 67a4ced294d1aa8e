package jsonline

import "sync"

// Parser parses lines with [Parser.ParseObject], keeping a scratch buffer
// for decoding escaped keys between calls. The zero value is ready to use.
// A Parser must not be used by several goroutines at once.
type Parser struct {
	scratch []byte
}

// maxPooledScratch bounds the scratch buffer a pooled Parser keeps, so one
// huge escaped key does not pin its memory for good.
const maxPooledScratch = 64 << 10

var parserPool = sync.Pool{New: func() any { return new(Parser) }}

// ParseObject parses line, which must contain exactly one JSON object with
// optional ASCII whitespace (space, tab, '\n', '\r') around it, and calls fn
// for each top-level member in input order.
//
// key is the decoded key; it aliases line or an internal scratch buffer and
// is valid only during the call, as is v.Raw. Nested arrays and objects are
// fully validated but reported to fn as one Value whose Raw spans them.
// If fn returns an error, ParseObject stops and returns that error
// unchanged. Malformed input yields a *[SyntaxError]; fn may already have
// been called for the members before the error.
//
// ParseObject is safe for concurrent use; it takes a [Parser] from a pool.
func ParseObject(line []byte, fn func(key []byte, v Value) error) error {
	p := parserPool.Get().(*Parser)
	err := p.ParseObject(line, fn)
	if cap(p.scratch) > maxPooledScratch {
		p.scratch = nil
	}
	parserPool.Put(p)
	return err
}

// ParseObject is like the package-level [ParseObject], but decodes escaped
// keys into p's scratch buffer, so a key passed to fn may alias it.
func (p *Parser) ParseObject(line []byte, fn func(key []byte, v Value) error) error {
	b := line
	i := skipWS(b, 0)
	if i >= len(b) {
		return errAt(0, msgEmpty)
	}
	if b[i] != '{' {
		return notObject(b, i)
	}
	i = skipWS(b, i+1)
	if i >= len(b) {
		return errEOL(b, "object")
	}
	if b[i] == '}' {
		i++
	} else {
		for {
			if b[i] != '"' {
				return badKeyStart(b, i)
			}
			end, esc, err := scanString(b, i)
			if err != nil {
				return err
			}
			key := b[i+1 : end-1 : end-1]
			if esc {
				// Cannot fail: scanString validated the escapes.
				p.scratch, _ = appendUnescaped(p.scratch[:0], key)
				key = p.scratch[:len(p.scratch):len(p.scratch)]
			}
			if end < len(b)-1 && b[end] == ':' && !isSpace[b[end+1]] {
				i = end + 1 // compact JSON: no whitespace around ':'
			} else if i, err = scanColon(b, end); err != nil {
				return err
			}
			var kind Kind
			switch c := b[i]; {
			case c == '"': // the common cases first, without the dispatch
				kind = String
				end, _, err = scanString(b, i)
			case c == '-' || isDigit(c):
				kind = Number
				end, err = scanNumber(b, i)
			default:
				kind, end, err = scanValue(b, i, 1)
			}
			if err != nil {
				return err
			}
			if err := fn(key, Value{Kind: kind, Raw: b[i:end:end], Offset: i}); err != nil {
				return err
			}
			if end < len(b)-1 && b[end] == ',' && b[end+1] == '"' {
				i = end + 1 // compact JSON: the next member's key follows the comma
				continue
			}
			i = skipWS(b, end)
			if i >= len(b) {
				return errEOL(b, "object")
			}
			if b[i] == ',' {
				comma := i
				i = skipWS(b, i+1)
				if i >= len(b) {
					return errEOL(b, "object")
				}
				if b[i] == '}' {
					return errAt(comma, "trailing comma before '}'")
				}
				continue
			}
			if b[i] != '}' {
				return afterMember(b, i, true)
			}
			i++
			break
		}
	}
	if i = skipWS(b, i); i < len(b) {
		return errAt(i, msgTrailing)
	}
	return nil
}

// notObject builds the error for a line whose value starts at b[i] but is
// not an object. A value that is broken from its first bytes (NaN, a bad
// literal, a stray character) gets that more specific error instead.
func notObject(b []byte, i int) error {
	var k Kind
	switch b[i] {
	case '[':
		k = Array
	case '"':
		k = String
	default:
		var err error
		if k, _, err = scanScalar(b, i); err != nil {
			return err
		}
	}
	return errAt(i, msgWantObject+k.String())
}
