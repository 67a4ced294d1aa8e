// Package figures draws the paper figures of rdeval with gonum/plot, as
// SVG, PNG and PDF, from results computed by package analysis.
//
// The package only draws: it may import analysis for its result types but
// never ingest or execute, and it does no statistics of its own. Every
// figure is built on the house style of this package (NewPlot, Palette,
// the column widths and Height) and written through Save or SaveFile, so
// that all figures share fonts, sizes, colours and legend placement.
//
// # Determinism
//
// A figure is a function of its input data alone: drawing the same results
// gives the same bytes, run after run and, for SVG, machine after machine,
// so figures can be checked in and compared byte for byte (the golden files
// under testdata are such comparisons). To keep it so, code in this package
//
//   - writes no timestamps, host names, paths or random identifiers into
//     output; the one date a backend insists on, the PDF /CreationDate and
//     /ModDate, is pinned to the Unix epoch (see Save for how);
//   - never lets map iteration order decide the order of series, bars,
//     legend entries or anything drawn: inputs are sorted slices, and any
//     map is read through sorted keys;
//   - uses only fonts compiled into the binary: gonum/plot's Liberation
//     fonts (from codeberg.org/go-fonts/liberation, which plot loads by
//     default), here Liberation Sans, so text is measured and laid out the
//     same way everywhere, whatever fonts the machine has installed.
//
// SVG output names its font (font-family: Liberation Sans) rather than
// embedding it, which keeps the files small and diffable; PDF output embeds
// the font; PNG output is rasterised with it. SVG writes coordinates rounded
// to five significant digits, which is what makes it the format to compare
// across machines: PNG pixels come from floating-point rasterising whose
// last bits change with the code the compiler generates (building with
// GOAMD64=v3, which fuses multiply-adds as arm64 builds do, changes the PNG
// of the golden plot but not its SVG or PDF), so PNG is byte-identical only
// for a given platform and toolchain.
//
// # Figures
//
// Each figure draws results computed elsewhere (package analysis, through
// the rdeval commands); nothing here estimates anything:
//
//   - AllocationFigure: score against total time budget, best allocation
//     per agent, with CI bands (RE-Bench Fig. 2).
//   - ScoreAtKFigure with AddRefLines: score@k against k on a log2 axis
//     with bands and human percentile lines (RE-Bench Figs. 7–8).
//   - GroupedBars: bars with error bars per group and level — score@k by
//     allocation at one budget (Fig. 6), per task (Fig. 9, with
//     RotateXLabels), RExBench success and file recall (SuccessBars).
//   - CurvesFigure: score over time within runs (RE-Bench Figs. 4–5).
//   - ForestFigure: regression coefficients with confidence intervals.
//   - LogisticFigure: fitted logistic curves with observed rates and their
//     intervals — success against human minutes per agent with binned
//     rates and Wilson intervals (analysis.HorizonBins; METR) and against
//     gold lines changed (RExBench).
//   - StackedBars: the error taxonomy per agent (RExBench Fig. 10).
//   - HorizonTrendFigure: p50 horizon against release date with the trend
//     and its band (METR Fig. 1).
//
// # Fit to print
//
//   - Bands are drawn before every line, and markers sit at observed
//     points (LinePlot, Series.Markers).
//   - A mean over fewer tasks than its series' others (an allocation
//     budget with no cell covering the agent's full task set, a k where
//     tasks ran out of runs) is never on a line: an open marker or a
//     dashed open bar (PartialDistinct, Bar.Partial), or not drawn
//     (PartialOmit).
//   - One agent, one style in every figure of a study: NewStyleMap on the
//     study's sorted agents (Palette after black, then dashed, then
//     dotted; in bars tinted, then open), humans HumanColor (dark grey);
//     the palette has no yellow.
//   - Legends go to a corner of the data area where they cover no data,
//     else outside (Draw): to the right, or, where a legend would take
//     over a third of the width there (a one-column figure, long names),
//     in columns below the x axis; bar and logistic figures put theirs to
//     the right of the data when it fits.
//   - Grouped bars take their width from the slot each group has on the
//     canvas, and Draw turns bar charts' group names (30° or 60°) where
//     they would not fit it: 14 agents, or a one-column figure.
//   - No label on the data: reference lines' labels (AddRefLines, human
//     percentiles) sit right of the data area; the horizon trend's point
//     labels go where they cover no other label or point.
//   - x tick labels fit: Draw keeps every n-th label where neighbours would
//     run together (a log2 axis one column wide) and keeps the first and
//     last 3 pt inside the figure; release dates are marked at firsts of
//     months or years (2024-01, 2024-07 or 2024, 2025).
//   - DisplayName gives RE-Bench task ids and RExBench hint levels readable
//     names (rdeval figures' config names override it).
//
// LinePlot draws any set of Series with bands. All are built on the house
// style: the print-safe Okabe–Ito Palette (without yellow) with Color and Band; the OneColumn and
// TwoColumn widths and Height; NewPlot, AddGrid, LineStyle and
// LegendOutside; Log2Ticks and UseLog2X; Draw, which lays out the legend;
// Save, which writes SVG, PNG and PDF; and SaveFile, which writes a file
// atomically. rdeval figures (cmd/rdeval/internal/figurescmd) draws them
// all from one config; see docs/figures.md.
package figures
