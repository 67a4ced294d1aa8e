//go:build amd64 && !noasm && !gccgo && !safe

package analysis

import "gonum.org/v1/gonum/floats"

// gonumDotIsLanes says that floats.Dot is gonum's amd64 assembly here, the
// summation order dotLanes reproduces (the build constraint is gonum's own
// for it).
const gonumDotIsLanes = true

// dot is Σ x[i]·y[i] in dotLanes's order: here gonum's assembly.
func dot(x, y []float64) float64 { return floats.Dot(x, y) }
