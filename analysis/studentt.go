package analysis

import "math"

// Student's t distribution, the one implementation in rdeval: the GLM's
// p-values and profile cut-offs and power's paired t-tests use it.
//
// It is written here rather than taken from gonum's distuv.StudentsT so
// that results are bit-identical across builds. Measured 2026-12-02 with
// gonum v0.17.0, over df 1..200: distuv's CDF gave other bits than the
// default linux/amd64 build in 457 of 5,607 points under GOARCH=386 and in
// 738 under GOAMD64=v3 (its Quantile in 27 and 593 of 1,400), because
// mathext's incomplete beta and math.Lgamma are Go code whose products the
// compiler fuses into multiply-adds on some platforms. This one uses
// detmath only (detLogBeta, detExp, detLog, detLog1p) and rounds every
// product; TestSeededBitsPinned's "Student t" case pins its bits and runs
// under GOAMD64=v3 and GOARCH=386 in .ci/run. Accuracy against
// scipy.stats.t (testdata/reference/studentt.py): TestStudentTReference.

// StudentTCDF is the CDF of Student's t with df > 0 degrees of freedom
// (scipy.stats.t.cdf(x, df); R pt(x, df)):
//
//	P(T ≤ x) = S(−x)  for x < 0,   1 − S(x)  for x ≥ 0,
//	S(t) = P(T > t) = I_{df/(df+t²)}(df/2, ½) / 2   (t ≥ 0)
//
// with I the regularized incomplete beta, so the lower tail keeps its
// relative accuracy far out (a p-value of 1e−30 is not rounded to 0).
func StudentTCDF(x, df float64) float64 {
	if x < 0 {
		return studentTSF(-x, df)
	}
	return 1 - studentTSF(x, df)
}

// studentTSF is S(t) = P(T > t) for t ≥ 0 (scipy.stats.t.sf). 1 − x =
// t²/(df + t²) is passed to the incomplete beta as computed, not as
// 1 − x, which near t = 0 with a large df would keep few digits.
func studentTSF(t, df float64) float64 {
	switch {
	case t != t || df != df || df <= 0:
		return math.NaN()
	case math.IsInf(t, 1):
		return 0
	}
	t2 := float64(t * t)
	den := df + t2
	return regIncBetaXY(df/2, 0.5, df/den, t2/den) / 2
}

// StudentTQuantile is the p-quantile of Student's t with df degrees of
// freedom (scipy.stats.t.ppf(p, df); R qt(p, df)): for q = min(p, 1 − p),
// the t ≥ 0 with S(t) = q, by bisection until the bracket is two adjacent
// floats, so the result is where S as computed crosses q, to the last
// bit; negated for p < ½. Bisecting on the tail keeps its digits at
// p = 1e−12. ±Inf at p = 1 and 0, NaN outside [0, 1].
func StudentTQuantile(p, df float64) float64 {
	switch {
	case p != p || p < 0 || p > 1 || df != df || df <= 0:
		return math.NaN()
	case p == 0.5:
		return 0
	case p == 1:
		return math.Inf(1)
	case p == 0:
		return math.Inf(-1)
	case p < 0.5:
		return -studentTUpper(p, df)
	}
	return studentTUpper(1-p, df) // 1 − p exact for p ≥ ½ (Sterbenz)
}

// studentTUpper is the t ≥ 0 with S(t) = q for q in (0, ½).
func studentTUpper(q, df float64) float64 {
	lo, hi := 0.0, 1.0
	for studentTSF(hi, df) > q {
		lo, hi = hi, 2*hi
		if math.IsInf(hi, 1) {
			return hi
		}
	}
	for {
		mid := lo + (hi-lo)/2
		if mid == lo || mid == hi {
			return hi
		}
		if studentTSF(mid, df) > q {
			lo = mid
		} else {
			hi = mid
		}
	}
}

// regIncBetaXY is the regularized incomplete beta I_x(a, b)
// (scipy.special.betainc(a, b, x); R pbeta(x, a, b)) with y = 1 − x given
// by the caller to full precision, by its continued fraction evaluated
// with the modified Lentz method (Numerical Recipes §6.4), on the side of
// (a+1)/(a+b+2) where it converges fast:
//
//	I_x(a, b) = x^a·y^b / (a·B(a, b)) · CF(a, b, x)
//	          = 1 − x^a·y^b / (b·B(a, b)) · CF(b, a, y)
func regIncBetaXY(a, b, x, y float64) float64 {
	if x <= 0 {
		return 0
	}
	if y <= 0 {
		return 1
	}
	var lx, ly float64 // ln x and ln y, each from the smaller of x and y
	if x > 0.5 {
		lx, ly = detLog1p(-y), detLog(y)
	} else {
		lx, ly = detLog(x), detLog1p(-x)
	}
	front := detExp(float64(a*lx) + float64(b*ly) - detLogBeta(a, b))
	if x < (a+1)/(a+b+2) {
		return front * betaCF(a, b, x) / a
	}
	return 1 - front*betaCF(b, a, y)/b
}

// regIncBeta is regIncBetaXY(a, b, x, 1 − x).
func regIncBeta(a, b, x float64) float64 { return regIncBetaXY(a, b, x, 1-x) }

// betaCF is the continued fraction of I_x(a, b): its terms d₂ₘ =
// m(b−m)x/((a+2m−1)(a+2m)) and d₂ₘ₊₁ = −(a+m)(a+b+m)x/((a+2m)(a+2m+1)),
// by modified Lentz, stopping when a step changes it by under 3e−16.
func betaCF(a, b, x float64) float64 {
	c, d := 1.0, lentzClamp(1-(a+b)*x/(a+1))
	d = 1 / d
	h := d
	for m := 1; m <= betaCFMaxIter; m++ {
		fm := float64(m)
		c, d = lentzStep(fm*(b-fm)*x/((a+2*fm-1)*(a+2*fm)), c, d)
		h *= d * c
		c, d = lentzStep(-(a+fm)*(a+b+fm)*x/((a+2*fm)*(a+2*fm+1)), c, d)
		del := float64(d * c) // rounded: del − 1 must not fuse with it
		h *= del
		if math.Abs(del-1) < 3e-16 {
			break
		}
	}
	return h
}

// lentzStep is one term num of modified Lentz's method: d ← 1/(1 + num·d),
// c ← 1 + num/c, each kept away from 0.
func lentzStep(num, c, d float64) (float64, float64) {
	return lentzClamp(1 + num/c), 1 / lentzClamp(1+float64(num*d))
}

func lentzClamp(v float64) float64 {
	const tiny = 1e-300
	if math.Abs(v) < tiny {
		return tiny
	}
	return v
}

// betaCFMaxIter bounds the continued fraction; on the reference grid
// (studentt.csv: df to 10⁶, |t| ≤ 60, quantiles from 1e−12 to 1 − 1e−6)
// it converges within 55 terms.
const betaCFMaxIter = 300
