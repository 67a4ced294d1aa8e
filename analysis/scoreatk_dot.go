package analysis

// dotLanes returns Σ x[i]·y[i] for equal-length x and y, summed in the
// order of gonum's amd64 assembly for floats.Dot (internal/asm/f64
// DotUnitary): four partial sums s_r over the i ≡ r (mod 4) of the leading
// multiple of four, the one to three trailing products added to s_0, and
// the result (s_1 + s_3) + (s_0 + s_2). Each product is rounded
// (float64(x*y)) so that no compiler fuses it into a multiply-add.
//
// score@k's replicates use it (through dot) wherever that assembly is not
// compiled: gonum's portable DotUnitary sums in plain order, and arm64
// builds fuse its steps, so a bootstrap interval computed with floats.Dot
// had other low bits on an arm64 machine than on an amd64 one. On amd64
// dot is floats.Dot itself (scalar Go is about 10 % slower there over a
// whole score@k bootstrap); TestDotLanesMatchesGonum checks that the two
// agree bit for bit.
func dotLanes(x, y []float64) float64 {
	y = y[:len(x)]
	var s0, s1, s2, s3 float64
	i := 0
	for ; i+4 <= len(x); i += 4 {
		s0 += float64(x[i] * y[i])
		s1 += float64(x[i+1] * y[i+1])
		s2 += float64(x[i+2] * y[i+2])
		s3 += float64(x[i+3] * y[i+3])
	}
	for ; i < len(x); i++ {
		s0 += float64(x[i] * y[i])
	}
	return (s1 + s3) + (s0 + s2)
}
