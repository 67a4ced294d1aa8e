package jsonline

import (
	"math"
	"math/bits"
)

// Decimal-to-binary conversion of man·10^exp10 for mantissas of up to 19
// digits, the Eisel–Lemire algorithm: D. Lemire, "Number parsing at a
// gigabyte per second", Software: Practice and Experience 51(8), 2021,
// §5 (algorithm by M. Eisel), as N. Tao describes it for Go's strconv.
// Python writes floats with up to 17 significant digits (repr), past the
// 15 that floatFast converts with one exact multiplication, so score logs
// took strconv's path, which scans the number again. The result is
// correctly rounded, so it equals strconv.ParseFloat's; where the 128-bit
// product cannot decide the rounding (rare), or the value is subnormal,
// zero-exponent-adjacent or out of range, ok is false and the caller falls
// back to strconv (TestEiselLemireMatchesStrconv).

const (
	pow10Min = -348 // powers of ten tabulated: 10^pow10Min … 10^pow10Max
	pow10Max = 347
)

// pow10Table[q-pow10Min] holds the 128 most significant bits of 10^q,
// rounded down (hi, lo), with the top bit set (pow10_table.go, written and
// checked against math/big by TestPow10Table).

// eiselLemire returns man·10^exp10 (negated when neg) rounded to the
// nearest float64, ties to even, when it can decide the rounding; man is
// at most 19 digits.
func eiselLemire(man uint64, exp10 int, neg bool) (float64, bool) {
	if man == 0 {
		if neg {
			return math.Copysign(0, -1), true
		}
		return 0, true
	}
	if exp10 < pow10Min || exp10 > pow10Max {
		return 0, false
	}
	// Normalise man to 64 significant bits.
	shift := bits.LeadingZeros64(man)
	man <<= uint(shift)
	// Binary exponent of the result before rounding: ⌊log2(10)·exp10⌋
	// (217706/2^16 approximates log2(10) closely enough over the table),
	// plus the 64 bits of man and the IEEE bias, less the normalisation.
	exp2 := uint64(217706*exp10>>16+64+1023) - uint64(shift)

	p := &pow10Table[exp10-pow10Min]
	hi, lo := bits.Mul64(man, p[0])
	// The truncated low half of the power could carry into the 9 bits
	// below the 54 kept: widen the product with it when that is possible.
	if hi&0x1ff == 0x1ff && lo+man < man {
		yhi, ylo := bits.Mul64(man, p[1])
		mhi, mlo := hi, lo+yhi
		if mlo < lo {
			mhi++
		}
		if mhi&0x1ff == 0x1ff && mlo+1 == 0 && ylo+man < man {
			return 0, false // still undecided
		}
		hi, lo = mhi, mlo
	}
	// Keep 54 bits (one for rounding).
	top := hi >> 63
	mant := hi >> (top + 9)
	exp2 -= 1 ^ top
	// Exactly half-way between two float64s as far as the product tells:
	// the tie cannot be broken here.
	if lo == 0 && hi&0x1ff == 0 && mant&3 == 1 {
		return 0, false
	}
	// Round to 53 bits, half to even by the bit below.
	mant += mant & 1
	mant >>= 1
	if mant>>53 > 0 {
		mant >>= 1
		exp2++
	}
	// exp2 0 (or wrapped below it) is subnormal; 0x7ff and up overflow.
	if exp2-1 >= 0x7ff-1 {
		return 0, false
	}
	b := exp2<<52 | mant&(1<<52-1)
	if neg {
		b |= 1 << 63
	}
	return math.Float64frombits(b), true
}
