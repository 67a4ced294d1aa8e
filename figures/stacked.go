package figures

import (
	"image/color"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
)

// OtherColor fills the "other" segment of stacked bars (and categories
// beyond the palette).
var OtherColor = color.NRGBA{R: 0xbb, G: 0xbb, B: 0xbb, A: 0xff}

// StackedBars draws one bar per group with segments stacked by category
// (counts[g][c]), as RExBench Fig. 10 shows error types per agent. Colours
// follow the palette in category order (its colours after black, then
// black; OtherColor beyond and for "other"); a category with no count anywhere
// is left out of the legend. Empty input gives an empty figure.
func StackedBars(title, yLabel string, groups, categories []string, counts [][]float64) (*plot.Plot, error) {
	p := NewPlot(title, "", yLabel)
	AddGrid(p)
	if len(groups) == 0 || len(categories) == 0 {
		p.X.Min, p.X.Max, p.Y.Min, p.Y.Max = 0, 1, 0, 1
		return p, nil
	}
	var below *plotter.BarChart
	for ci, cat := range categories {
		vals := make(plotter.Values, len(groups))
		total := 0.0
		for gi := range groups {
			if ci < len(counts[gi]) {
				vals[gi] = counts[gi][ci]
				total += vals[gi]
			}
		}
		if total == 0 {
			continue
		}
		bc, err := plotter.NewBarChart(vals, vg.Points(22))
		if err != nil {
			return nil, err
		}
		bc.Color = Color(ci + 1) // the palette's colours after black, then black
		if cat == "other" || ci >= len(Palette) {
			bc.Color = OtherColor
		}
		bc.LineStyle.Width = 0
		if below != nil {
			bc.StackOn(below)
		}
		below = bc
		p.Add(bc)
		addEntry(p, cat, bc)
	}
	p.NominalX(groups...)
	// Draw turns the group names where they would not fit their slots
	// (a one-column figure).
	avoidFor(p).bars = &barLayout{levels: 1, names: append([]string(nil), groups...)}
	p.X.Min, p.X.Max = -0.5, float64(len(groups))-0.5
	p.Y.Min = 0
	LegendOutside(p)
	return p, nil
}
