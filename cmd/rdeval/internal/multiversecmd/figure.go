package multiversecmd

import (
	"github.com/rdeval/rdeval/analysis"
	"github.com/rdeval/rdeval/figures"
	"gonum.org/v1/plot/vg"
)

// drawFigure writes --figure: one row per choice and one for all choices
// together (figures.MultiverseFigure), the default estimate dashed.
func drawFigure(opts *Options, res *result) error {
	p, err := figures.MultiverseFigure("Multiverse", res.Spec.Stat.Short(), spreadRows(res), res.Default.Value)
	if err != nil {
		return err
	}
	h := figures.Height(figures.OneColumn)
	if rows := vg.Length(len(res.Spread)+2) * vg.Points(22); rows > h {
		h = rows
	}
	return figures.SaveFile(p, figures.OneColumn, h, opts.Figure)
}

// spreadRows are the figure's rows: the cells of each spread row.
func spreadRows(res *result) []figures.SpreadRow {
	var rows []figures.SpreadRow
	for i, s := range res.Spread {
		r := figures.SpreadRow{Label: s.Choice, Lo: s.CILow, Hi: s.CIHigh}
		for _, c := range res.Cells {
			if c.Error != "" {
				continue
			}
			if i == len(res.Spread)-1 || analysis.OneAtATime(c.Combo, i) {
				r.Estimates = append(r.Estimates, c.Value)
			}
		}
		rows = append(rows, r)
	}
	return rows
}
