package analysis

import "math"

// Elementary functions with the same bits on every platform.
//
// math.Exp and math.Log are assembly on amd64 (Exp with fused multiply-adds
// where the CPU has them, chosen at run time), math.Exp is assembly on
// arm64, and the portable Go versions are used elsewhere; they agree to an
// ulp or so, not bit for bit, so a bootstrap of logistic fits (time
// horizons) printed other digits on an arm64 or 386 machine than on amd64
// for the same seed. These use only IEEE additions, multiplications,
// divisions and exact operations (Floor, Frexp, Ldexp), each product
// rounded by an explicit conversion so that no compiler fuses it into a
// multiply-add (the Go spec allows fusion otherwise). Accuracy: within 2
// ulp of math's functions (TestDetMathAccuracy); the algorithms are the
// textbook ones (Cody and Waite's argument reduction; Taylor series).

const (
	// ln 2 split so that k·ln2Hi is exact for |k| < 2²¹: ln2Hi is ln 2 to
	// 32 significant bits, ln2Lo the rest rounded (Python's decimal at 60
	// digits: 0x3fe62e42fee00000 and ln 2 − ln2Hi).
	ln2Hi = 6.93147180369123816490e-01
	ln2Lo = 1.9082149292705877e-10
	log2e = 1.4426950408889634 // 1/ln 2
)

// detExp returns e^x within 2 ulp, the same bits on every platform:
// x = k·ln 2 + r with |r| ≤ ln 2 / 2, e^r by its Taylor series to r¹³/13!
// (truncation below 4e−18 relative), times 2^k.
func detExp(x float64) float64 {
	switch {
	case x != x:
		return x
	case x > 709.782712893384: // ln(MaxFloat64)
		return math.Inf(1)
	case x < -745.1332191019412: // below half the least subnormal
		return 0
	}
	m, k := expReduced(x)
	return math.Ldexp(m, int(k))
}

// expReduced splits e^x = m·2^k: k is the nearest integer to x/ln 2 and
// m = e^r, r = x − k·ln 2 (in two parts, Cody–Waite), as
// 1 + (r + r²·T), T = Σ r^j/(j+2)!, j = 0…11, by Estrin's scheme (a
// dependency chain of four steps instead of Horner's 11); the leading
// 1 + r is added last, where its rounding is smallest. detExp and
// detExpNonPos scale m by 2^k.
func expReduced(x float64) (m, k float64) {
	k = math.Floor(float64(x*log2e) + 0.5)
	r := float64(x-float64(k*ln2Hi)) - float64(k*ln2Lo)
	r2 := float64(r * r)
	r4 := float64(r2 * r2)
	r8 := float64(r4 * r4)
	q0 := 0.5 + float64(r*(1.0/6))
	q1 := 1.0/24 + float64(r*(1.0/120))
	q2 := 1.0/720 + float64(r*(1.0/5040))
	q3 := 1.0/40320 + float64(r*(1.0/362880))
	q4 := 1.0/3628800 + float64(r*(1.0/39916800))
	q5 := 1.0/479001600 + float64(r*(1.0/6227020800))
	s0 := q0 + float64(q1*r2)
	s1 := q2 + float64(q3*r2)
	s2 := q4 + float64(q5*r2)
	t := s0 + float64(s1*r4) + float64(s2*r8)
	return 1 + (r + float64(r2*t)), k
}

// detLog returns ln x within 2 ulp, the same bits on every platform: x =
// 2^k·(1 + f) with 1 + f in [√2/2, √2), and ln(1 + f) = 2·atanh(s), s =
// f/(2 + f), |s| < 0.1716, as f − f²/2 + s·(f²/2 + R), R = Σ 2s^(2j)/(2j+1)
// for j = 1…11 (truncation below 1e−19).
func detLog(x float64) float64 {
	switch {
	case x != x || math.IsInf(x, 1):
		return x
	case x < 0:
		return math.NaN()
	case x == 0:
		return math.Inf(-1)
	}
	m, e := math.Frexp(x) // x = m·2^e, m in [0.5, 1)
	if m < math.Sqrt2/2 {
		m *= 2
		e--
	}
	return logReduced(m, float64(e))
}

// logReduced is ln(2^k·m) for m in [√2/2, √2): with f = m − 1 (exact),
// s = f/(2 + f), ln m = f − f²/2 + s·(f²/2 + R), R = z·Σ 2z^(j−1)/(2j+1),
// z = s², j = 1…11, by Estrin's scheme (R is a small correction:
// |s·R| < 1e−3·|f|). detLog and detLog1pUnit reduce their argument to it.
func logReduced(m, k float64) float64 {
	f := m - 1
	s := f / (2 + f)
	z := float64(s * s)
	z2 := float64(z * z)
	z4 := float64(z2 * z2)
	z8 := float64(z4 * z4)
	q0 := 2.0/3 + float64(z*(2.0/5))
	q1 := 2.0/7 + float64(z*(2.0/9))
	q2 := 2.0/11 + float64(z*(2.0/13))
	q3 := 2.0/15 + float64(z*(2.0/17))
	q4 := 2.0/19 + float64(z*(2.0/21))
	s0 := q0 + float64(q1*z2)
	s1 := q2 + float64(q3*z2)
	s2 := q4 + float64(z2*(2.0/23))
	R := float64(z * (s0 + float64(s1*z4) + float64(s2*z8)))
	hfsq := float64(0.5 * float64(f*f))
	return float64(k*ln2Hi) - ((hfsq - (float64(s*(hfsq+R)) + float64(k*ln2Lo))) - f)
}

// detLog1p returns ln(1 + x), accurate for small x (Goldberg's
// ln(u)·x/(u − 1) with u = 1 + x rounded), the same bits on every
// platform.
func detLog1p(x float64) float64 {
	switch {
	case x != x || math.IsInf(x, 1):
		return x
	case x < -1:
		return math.NaN()
	case x == -1:
		return math.Inf(-1)
	}
	u := 1 + x
	if u == 1 {
		return x
	}
	return float64(detLog(u) * (x / (u - 1)))
}

// detExpNonPos is detExp(x) for x ≤ 0 (or NaN), with the same bits: the
// scaling by 2^k, k ≤ 0, is a multiplication by that power of two when
// the result is normal (exact, as Ldexp), and Ldexp otherwise. It saves
// Ldexp's special cases in FitLogistic's inner loop.
func detExpNonPos(x float64) float64 {
	if !(x <= 0) || x < -708 {
		return detExp(x)
	}
	m, k := expReduced(x)
	// k ≥ −1022 here (x ≥ −708), so 2^k is a normal number and, the
	// mantissa being in [0.7, 1.5), the product is normal and exact unless
	// it falls below 2^−1022, where Ldexp rounds it the same way as the
	// multiplication (both round the exact value once).
	return float64(m * math.Float64frombits(uint64(1023+int64(k))<<52))
}

// detLog1pUnit is detLog1p(x) for x in [0, 1] (or NaN), with the same
// bits: u = 1 + x is in [1, 2], so detLog's Frexp is the branch below.
func detLog1pUnit(x float64) float64 {
	if !(x >= 0 && x <= 1) {
		return detLog1p(x)
	}
	u := 1 + x
	if u == 1 {
		return x
	}
	// detLog(u): Frexp gives m = u/2, e = 1 (u < 2) or m = 0.5, e = 2
	// (u = 2); then m < √2/2 doubles m back.
	m, k := u/2, 1.0
	if u == 2 {
		m, k = 0.5, 2
	}
	if m < math.Sqrt2/2 {
		m *= 2
		k--
	}
	return float64(logReduced(m, k) * (x / (u - 1)))
}

// detExp2 returns 2^x: 2^k·e^(r·ln 2) with k the nearest integer to x and
// r = x − k exact.
func detExp2(x float64) float64 {
	switch {
	case x != x:
		return x
	case x > 1024:
		return math.Inf(1)
	case x < -1075:
		return 0
	}
	k := math.Floor(x + 0.5)
	return math.Ldexp(detExp(float64((x-k)*math.Ln2)), int(k))
}

// detLog2 returns log₂ x, exact at powers of two.
func detLog2(x float64) float64 {
	m, e := math.Frexp(x)
	if m == 0.5 {
		return float64(e - 1)
	}
	if x != x || x <= 0 || math.IsInf(x, 1) {
		return detLog(x)
	}
	if m < math.Sqrt2/2 {
		m *= 2
		e--
	}
	return float64(e) + float64(detLog(m)*log2e)
}

// halfLog2Pi is ½·ln(2π) (Python's decimal at 40 digits).
const halfLog2Pi = 0.9189385332046727417803297364056176398614

// stirlingMin is where Stirling's series takes over from the recurrence.
const stirlingMin = 10

// stirlingCorrection is ln Γ(z) − ((z − ½)·ln z − z + ½·ln 2π) for
// z ≥ stirlingMin, by Stirling's series Σ B₂ⱼ/(2j(2j−1)·z^(2j−1)),
// j = 1…7 (Abramowitz & Stegun 6.1.40); the first term left out is
// below 3e−17 at z = 10.
func stirlingCorrection(z float64) float64 {
	w := 1 / float64(z*z)
	s := 691.0/360360 - float64(w*(1.0/156))
	s = 1.0/1188 - float64(w*s)
	s = 1.0/1680 - float64(w*s)
	s = 1.0/1260 - float64(w*s)
	s = 1.0/360 - float64(w*s)
	s = 1.0/12 - float64(w*s)
	return s / z
}

// detLgamma returns ln Γ(x) for x > 0 (math.Lgamma's value; scipy's
// gammaln; R's lgamma), the same bits on every platform: Stirling's series
// at x ≥ 10, and below that ln Γ(x) = ln Γ(x + n) − ln(x(x+1)…(x+n−1))
// with x + n ≥ 10. Its absolute error is a few ulp of max(1, x·ln x)
// (TestDetLgammaAccuracy), math.Lgamma's other bits under GOAMD64=v3 being
// why it exists: power's and the GLM's Student t call it through
// detLogBeta. NaN for x ≤ 0 or NaN; +Inf for +Inf.
func detLgamma(x float64) float64 {
	switch {
	case x != x || x <= 0:
		return math.NaN()
	case math.IsInf(x, 1):
		return x
	}
	shift := 0.0
	if x < stirlingMin {
		prod := 1.0
		for x < stirlingMin {
			prod = float64(prod * x)
			x++
		}
		shift = detLog(prod)
	}
	return float64(float64(x-0.5)*detLog(x)) - x + halfLog2Pi + stirlingCorrection(x) - shift
}

// detLogBeta returns ln B(a, b) = ln Γ(a) + ln Γ(b) − ln Γ(a + b) for
// a, b > 0 (scipy.special.betaln; R's lbeta), the same bits on every
// platform. With a the larger, a ≥ 10 takes ln Γ(a) − ln Γ(a + b) from
// Stirling's series as −(a − ½)·ln(1 + b/a) − b·ln(a + b) + b plus the
// difference of the two corrections (as R's lbeta and TOMS 708's algdiv
// do), which keeps the digits that subtracting two large ln Γ loses: at
// Student t's a = df/2, b = ½ with df = 10⁶ the two are near 6e6.
func detLogBeta(a, b float64) float64 {
	if a < b {
		a, b = b, a
	}
	if a < stirlingMin {
		return detLgamma(a) + detLgamma(b) - detLgamma(a+b)
	}
	ab := a + b
	diff := -float64(float64(a-0.5)*detLog1p(b/a)) - float64(b*detLog(ab)) + b +
		(stirlingCorrection(a) - stirlingCorrection(ab))
	return detLgamma(b) + diff
}
