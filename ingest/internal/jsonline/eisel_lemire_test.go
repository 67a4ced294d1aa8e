package jsonline

import (
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
)

// TestEiselLemireMatchesStrconv: wherever eiselLemire decides, it gives
// strconv.ParseFloat's float64 for man·10^exp10 — random mantissas of 1 to
// 19 digits with exponents over the whole table, Python-style shortest
// representations of random float64s, and values next to halfway points —
// and it decides nearly always in the normal range.
func TestEiselLemireMatchesStrconv(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	check := func(man uint64, exp10 int) bool {
		got, ok := eiselLemire(man, exp10, false)
		if !ok {
			return false
		}
		s := strconv.FormatUint(man, 10) + "e" + strconv.Itoa(exp10)
		want, err := strconv.ParseFloat(s, 64)
		if err != nil && !math.IsInf(want, 0) {
			t.Fatalf("%s: %v", s, err)
		}
		if math.Float64bits(got) != math.Float64bits(want) {
			t.Fatalf("%s: got %v (%#x), strconv %v (%#x)", s, got, math.Float64bits(got), want, math.Float64bits(want))
		}
		return true
	}
	n, decided := 0, 0
	for range 2_000_000 {
		digits := 1 + rng.IntN(19)
		man := rng.Uint64() % pow10u(digits)
		exp10 := pow10Min + rng.IntN(pow10Max-pow10Min+1)
		check(man, exp10)
		// The normal range, where it should nearly always decide.
		exp10 = -280 + rng.IntN(560)
		n++
		if check(man, exp10) || man == 0 {
			decided++
		}
	}
	if decided < n*999/1000 {
		t.Errorf("decided %d of %d in the normal range", decided, n)
	}
	// Shortest representations of random doubles (what Python's repr and
	// strconv's 'g', -1 print) and their neighbours one digit off.
	for range 1_000_000 {
		f := math.Float64frombits(rng.Uint64()>>2 | 0x3000000000000000)
		if math.IsNaN(f) || math.IsInf(f, 0) {
			continue
		}
		s := strconv.FormatFloat(f, 'e', -1, 64) // d.ddddde±x
		man, exp10 := decimalParts(s)
		if !check(man, exp10) && man != 0 {
			t.Errorf("%s: undecided", s)
		}
		check(man+1, exp10)
		check(man*10+5, exp10-1) // halfway-looking digit strings
	}
}

func pow10u(d int) uint64 {
	p := uint64(1)
	for range d {
		p *= 10
	}
	return p
}

// decimalParts splits strconv's 'e' format into an integer mantissa and a
// power of ten.
func decimalParts(s string) (uint64, int) {
	var man uint64
	exp10, frac, i := 0, false, 0
	for ; s[i] != 'e'; i++ {
		switch c := s[i]; {
		case c == '.':
			frac = true
		case c >= '0' && c <= '9':
			man = man*10 + uint64(c-'0')
			if frac {
				exp10--
			}
		}
	}
	e, _ := strconv.Atoi(s[i+1:])
	return man, exp10 + e
}

// TestFloatFastMatchesStrconv: number texts of every shape (sign, integer
// and fraction digits, leading and trailing zeros, exponents) convert as
// strconv.ParseFloat converts them whenever floatFast accepts them, and
// floatFast accepts Python-style 17-digit reprs.
func TestFloatFastMatchesStrconv(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	digits := func(n int) string {
		b := make([]byte, n)
		for i := range b {
			b[i] = byte('0' + rng.IntN(10))
		}
		return string(b)
	}
	accepted := 0
	for i := range 500_000 {
		s := ""
		if rng.IntN(2) == 0 {
			s = "-"
		}
		if ip := digits(1 + rng.IntN(8)); ip[0] == '0' {
			s += "0"
		} else {
			s += ip
		}
		if rng.IntN(4) > 0 {
			s += "." + digits(1+rng.IntN(20))
		}
		if rng.IntN(3) == 0 {
			s += "e" + []string{"", "+", "-"}[rng.IntN(3)] + strconv.Itoa(rng.IntN(330))
		}
		if i%5 == 0 { // a Python repr
			s = strconv.FormatFloat(rng.NormFloat64()*math.Pow(10, float64(rng.IntN(20)-10)), 'g', -1, 64)
		}
		got, ok := floatFast([]byte(s))
		if !ok {
			if i%5 == 0 && !strings.ContainsAny(s, "eE") {
				t.Errorf("%s: not accepted", s)
			}
			continue
		}
		accepted++
		want, _ := strconv.ParseFloat(s, 64)
		if math.Float64bits(got) != math.Float64bits(want) {
			t.Fatalf("%s: got %v, strconv %v", s, got, want)
		}
	}
	if accepted < 250_000 {
		t.Errorf("accepted only %d of 500,000", accepted)
	}
}
