//go:build !amd64 || noasm || gccgo || safe

package analysis

// gonumDotIsLanes says that floats.Dot is not gonum's amd64 assembly here.
const gonumDotIsLanes = false

// dot is Σ x[i]·y[i] in dotLanes's order (see dotLanes).
func dot(x, y []float64) float64 { return dotLanes(x, y) }
