package jsonline

import (
	"errors"
	"strconv"
	"unsafe"
)

// exact10 holds the powers of ten that float64 represents exactly.
var exact10 = [...]float64{
	1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10,
	1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
}

// Float returns the number as a float64, rounded as strconv.ParseFloat
// rounds it. It is an error if v is not a Number or if the number is too
// large for a float64 (numbers too small become 0, as in encoding/json).
func (v Value) Float() (float64, error) {
	if v.Kind == Number {
		if f, ok := floatFast(v.Raw); ok {
			return f, nil
		}
	}
	if err := v.checkNumber(); err != nil {
		return 0, err
	}
	// unsafe.String avoids a copy per number: ParseFloat keeps the string
	// only in its error, which is not returned.
	f, err := strconv.ParseFloat(unsafe.String(unsafe.SliceData(v.Raw), len(v.Raw)), 64)
	if err != nil {
		return 0, errors.New(v.Text() + " is out of range for float64")
	}
	return f, nil
}

// checkNumber reports an error unless v is a well-formed Number.
func (v Value) checkNumber() error {
	if v.Kind != Number {
		return errors.New("want number, got " + v.Text())
	}
	if len(v.Raw) == 0 || (v.Raw[0] != '-' && !isDigit(v.Raw[0])) {
		return errors.New("malformed " + v.Text())
	}
	if end, err := scanNumber(v.Raw, 0); err != nil || end != len(v.Raw) {
		return errors.New("malformed " + v.Text())
	}
	return nil
}

// floatFast converts b if it is a well-formed JSON number of at most 19
// significant digits. With at most 15, and a power of ten small enough to
// be exact too, one IEEE multiplication or division of two exact values is
// correctly rounded; otherwise the Eisel–Lemire algorithm rounds it
// (eiselLemire). Either way the result equals strconv.ParseFloat's. ok is
// false for anything else, which then takes the general path (and its
// validation).
func floatFast(b []byte) (f float64, ok bool) {
	i := 0
	neg := len(b) > 0 && b[0] == '-'
	if neg {
		i++
	}
	if i >= len(b) {
		return 0, false
	}
	var mant uint64
	nd := 0  // significant digits in mant
	exp := 0 // power of ten to apply to mant
	switch c := b[i]; {
	case c == '0':
		i++
	case isDigit(c):
		for ; i < len(b) && isDigit(b[i]); i++ {
			mant = mant*10 + uint64(b[i]-'0')
			nd++
		}
	default:
		return 0, false
	}
	if i < len(b) && b[i] == '.' {
		i++
		s := i
		for ; i < len(b) && isDigit(b[i]); i++ {
			if mant == 0 && b[i] == '0' {
				exp--
				continue
			}
			mant = mant*10 + uint64(b[i]-'0')
			exp--
			nd++
		}
		if i == s {
			return 0, false
		}
	}
	if nd > 19 { // mant has overflowed
		return 0, false
	}
	if i < len(b) {
		if b[i]|0x20 != 'e' {
			return 0, false
		}
		i++
		eneg := false
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			eneg = b[i] == '-'
			i++
		}
		if i >= len(b) {
			return 0, false
		}
		e := 0
		for ; i < len(b); i++ {
			if !isDigit(b[i]) || e > 1000 {
				return 0, false
			}
			e = e*10 + int(b[i]-'0')
		}
		if eneg {
			e = -e
		}
		exp += e
	}
	if nd <= 15 {
		f = float64(mant)
		if neg {
			f = -f
		}
		switch {
		case mant == 0 || exp == 0:
			return f, true
		case exp < 0 && exp >= -22:
			return f / exact10[-exp], true
		case exp > 0 && exp <= 22:
			return f * exact10[exp], true
		case exp > 22 && exp <= 22+15-nd:
			// mant·10^(exp-22) is still an exact integer below 10^15.
			return f * exact10[exp-22] * exact10[22], true
		}
	}
	// 16 to 19 digits (Python's repr gives 17), or a power of ten that
	// float64 does not hold exactly.
	return eiselLemire(mant, exp, neg)
}

// Int returns the number as an int64 if it is an exact integer: "3", "3.0",
// "3e2" and "-0" are accepted, "3.5" and "1e-1" are not. It is an error if v
// is not a Number, is not an integer, or does not fit in an int64.
func (v Value) Int() (int64, error) {
	if err := v.checkNumber(); err != nil {
		return 0, err
	}
	b := v.Raw
	neg := b[0] == '-'
	i := 0
	if neg {
		i++
	}
	// Fast path: at most 18 digits and nothing else.
	if n := len(b) - i; n <= 18 {
		var u int64
		j := i
		for ; j < len(b) && isDigit(b[j]); j++ {
			u = u*10 + int64(b[j]-'0')
		}
		if j == len(b) {
			if neg {
				u = -u
			}
			return u, nil
		}
	}
	// General path: significand digits D and exponent so that the value is
	// D·10^exp, computed exactly.
	start := i
	for i < len(b) && isDigit(b[i]) {
		i++
	}
	intd := b[start:i]
	var frac []byte
	if i < len(b) && b[i] == '.' {
		s := i + 1
		for i = s; i < len(b) && isDigit(b[i]); i++ {
		}
		frac = b[s:i]
	}
	exp := 0
	if i < len(b) { // exponent
		i++
		eneg := false
		if b[i] == '+' || b[i] == '-' {
			eneg = b[i] == '-'
			i++
		}
		for ; i < len(b); i++ {
			if exp < 1<<30 {
				exp = exp*10 + int(b[i]-'0')
			}
		}
		if eneg {
			exp = -exp
		}
	}
	for len(frac) > 0 && frac[len(frac)-1] == '0' {
		frac = frac[:len(frac)-1]
	}
	exp -= len(frac)
	if len(frac) == 0 {
		for len(intd) > 0 && intd[len(intd)-1] == '0' {
			intd = intd[:len(intd)-1]
			exp++
		}
	}
	for len(intd) > 0 && intd[0] == '0' {
		intd = intd[1:]
	}
	if len(intd) == 0 {
		for len(frac) > 0 && frac[0] == '0' {
			frac = frac[1:]
		}
	}
	nd := len(intd) + len(frac)
	if nd == 0 {
		return 0, nil // some spelling of zero
	}
	if exp < 0 {
		return 0, errors.New(v.Text() + " is not an integer")
	}
	if nd+exp > 19 {
		return 0, errors.New(v.Text() + " overflows int64")
	}
	var u uint64 // at most 19 digits: fits
	for _, c := range intd {
		u = u*10 + uint64(c-'0')
	}
	for _, c := range frac {
		u = u*10 + uint64(c-'0')
	}
	for ; exp > 0; exp-- {
		if u > (1<<64-1)/10 {
			return 0, errors.New(v.Text() + " overflows int64")
		}
		u *= 10
	}
	if neg {
		if u > 1<<63 {
			return 0, errors.New(v.Text() + " overflows int64")
		}
		return -int64(u), nil
	}
	if u > 1<<63-1 {
		return 0, errors.New(v.Text() + " overflows int64")
	}
	return int64(u), nil
}

// FastFloat converts b when it is a well-formed JSON number with at most 15
// significant digits and a small power of ten, exactly as
// strconv.ParseFloat would; ok is false otherwise (the caller then uses
// strconv). Other packages' number fields (CSV cells) share this fast path.
func FastFloat(b []byte) (f float64, ok bool) { return floatFast(b) }
