package errorscmd

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/rdeval/rdeval/cmd/rdeval/internal/cmdutil"
)

// paperColumns are the columns of the paper's long-format error counts
// (../shared/anchors/rexbench-paper-2506.22598v3/error_counts.csv);
// source_table is optional and other columns are ignored.
var paperColumns = []string{"framework", "model", "error_group", "error_type", "count"}

// paperErrorTable is one of the paper's explicit-error tables: counts per error
// type (rows) and model (columns) for one framework, or summed over all of
// them (Framework "all").
type paperErrorTable struct {
	Framework   string
	SourceTable string // e.g. "9"; "" when absent or mixed
	Models      []string
	Rows        []paperRow
	Totals      []int // per model: sum of the rows
}

// paperRow is one error type of a paperErrorTable; Counts[i] is the count of
// Models[i], -1 when the file has no cell for it.
type paperRow struct {
	Group, Type string
	Counts      []int
}

// readPaperTable reads the long format (framework, model, error_group,
// error_type, count[, source_table]) into one table per framework, in the
// order of first appearance, plus a table "all" summed over frameworks
// when there are several. Errors name the line.
func readPaperTable(r io.Reader) ([]paperErrorTable, error) {
	cr := csv.NewReader(r)
	header, err := cr.Read()
	if errors.Is(err, io.EOF) {
		return nil, errors.New("empty file")
	}
	if err != nil {
		return nil, err
	}
	col := map[string]int{}
	for i, h := range header {
		col[strings.TrimSpace(strings.TrimPrefix(h, "\ufeff"))] = i
	}
	for _, c := range paperColumns {
		if _, ok := col[c]; !ok {
			return nil, fmt.Errorf("line 1: missing column %q (want %s)", c, strings.Join(paperColumns, ", "))
		}
	}
	src, hasSrc := col["source_table"]
	type acc struct {
		t      *paperErrorTable
		model  map[string]int
		row    map[[2]string]int
		cells  map[[3]string]int // group, type, model → count
		source map[string]bool
	}
	var order []string
	tabs := map[string]*acc{}
	get := func(fw string) *acc {
		a := tabs[fw]
		if a == nil {
			a = &acc{t: &paperErrorTable{Framework: fw}, model: map[string]int{}, row: map[[2]string]int{}, cells: map[[3]string]int{}, source: map[string]bool{}}
			tabs[fw] = a
			order = append(order, fw)
		}
		return a
	}
	add := func(a *acc, model, group, typ string, n int) {
		if _, ok := a.model[model]; !ok {
			a.model[model] = len(a.t.Models)
			a.t.Models = append(a.t.Models, model)
		}
		k := [2]string{group, typ}
		if _, ok := a.row[k]; !ok {
			a.row[k] = len(a.t.Rows)
			a.t.Rows = append(a.t.Rows, paperRow{Group: group, Type: typ})
		}
		a.cells[[3]string{group, typ, model}] += n
	}
	var all *acc
	for {
		rec, err := cr.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, err
		}
		line, _ := cr.FieldPos(0)
		v := func(c string) string { return strings.TrimSpace(rec[col[c]]) }
		n, err := strconv.Atoi(v("count"))
		if err != nil || n < 0 {
			return nil, fmt.Errorf("line %d: count %q: want a non-negative integer", line, v("count"))
		}
		fw, model, group, typ := v("framework"), v("model"), v("error_group"), v("error_type")
		if fw == "" || model == "" || typ == "" {
			return nil, fmt.Errorf("line %d: framework, model and error_type must not be empty", line)
		}
		a := get(fw)
		if _, dup := a.cells[[3]string{group, typ, model}]; dup {
			return nil, fmt.Errorf("line %d: a second count for %s / %s / %s / %s", line, fw, model, group, typ)
		}
		add(a, model, group, typ, n)
		if hasSrc {
			a.source[strings.TrimSpace(rec[src])] = true
		}
		if all == nil {
			all = &acc{t: &paperErrorTable{Framework: "all"}, model: map[string]int{}, row: map[[2]string]int{}, cells: map[[3]string]int{}, source: map[string]bool{}}
		}
		add(all, model, group, typ, n)
	}
	if len(order) == 0 {
		return nil, errors.New("no rows")
	}
	var out []paperErrorTable
	finish := func(a *acc) {
		t := a.t
		t.Totals = make([]int, len(t.Models))
		for i := range t.Rows {
			r := &t.Rows[i]
			r.Counts = make([]int, len(t.Models))
			for j, m := range t.Models {
				n, ok := a.cells[[3]string{r.Group, r.Type, m}]
				if !ok {
					r.Counts[j] = -1
					continue
				}
				r.Counts[j] = n
				t.Totals[j] += n
			}
		}
		if len(a.source) == 1 {
			for s := range a.source {
				t.SourceTable = s
			}
		}
		out = append(out, *t)
	}
	for _, fw := range order {
		finish(tabs[fw])
	}
	if len(order) > 1 {
		finish(all)
	}
	return out, nil
}

func paperTable(opts *Options) error {
	f, err := os.Open(opts.PaperTable)
	if err != nil {
		return cmdutil.Usagef("--paper-table: %v", err)
	}
	defer f.Close()
	tabs, err := readPaperTable(f)
	if err != nil {
		return &cmdutil.BadInputError{Err: fmt.Errorf("--paper-table %s: %w", opts.PaperTable, err)}
	}
	cell := func(n int) string {
		if n < 0 {
			return ""
		}
		return strconv.Itoa(n)
	}
	switch opts.Format {
	case cmdutil.FormatJSON:
		out := make([]map[string]any, len(tabs))
		for i, t := range tabs {
			rows := make([]map[string]any, len(t.Rows))
			for j, r := range t.Rows {
				counts := map[string]int{}
				for k, m := range t.Models {
					if r.Counts[k] >= 0 {
						counts[m] = r.Counts[k]
					}
				}
				rows[j] = map[string]any{"error_group": r.Group, "error_type": r.Type, "counts": counts}
			}
			totals := map[string]int{}
			for k, m := range t.Models {
				totals[m] = t.Totals[k]
			}
			out[i] = map[string]any{"framework": t.Framework, "source_table": orNull(t.SourceTable), "models": t.Models, "rows": rows, "totals": totals}
		}
		return cmdutil.WriteJSON(opts.IO.Out, out)
	case cmdutil.FormatCSV:
		// One wide CSV: the union of models as columns.
		var models []string
		idx := map[string]int{}
		for _, t := range tabs {
			for _, m := range t.Models {
				if _, ok := idx[m]; !ok {
					idx[m] = len(models)
					models = append(models, m)
				}
			}
		}
		tab := cmdutil.Table{Header: append([]string{"framework", "error_group", "error_type"}, models...)}
		for _, t := range tabs {
			line := func(g, ty string, counts []int) {
				row := make([]string, 3+len(models))
				row[0], row[1], row[2] = t.Framework, g, ty
				for k, m := range t.Models {
					row[3+idx[m]] = cell(counts[k])
				}
				tab.Rows = append(tab.Rows, row)
			}
			for _, r := range t.Rows {
				line(r.Group, r.Type, r.Counts)
			}
			line("(total)", "", t.Totals)
		}
		return tab.WriteCSV(opts.IO.Out)
	}
	for i, t := range tabs {
		if i > 0 && opts.Format != cmdutil.FormatLaTeX {
			fmt.Fprintln(opts.IO.Out)
		}
		title := "framework: " + t.Framework
		if t.SourceTable != "" {
			title += " (Table " + t.SourceTable + ")"
		} else if t.Framework == "all" {
			title += " (sum over frameworks)"
		}
		fmt.Fprintln(opts.IO.Out, title)
		tab := cmdutil.Table{Header: append([]string{"error_group", "error_type"}, t.Models...)}
		for _, r := range t.Rows {
			row := []string{r.Group, r.Type}
			for _, n := range r.Counts {
				row = append(row, cell(n))
			}
			tab.Rows = append(tab.Rows, row)
		}
		row := []string{"(total)", ""}
		for _, n := range t.Totals {
			row = append(row, cell(n))
		}
		tab.Rows = append(tab.Rows, row)
		if opts.Format == cmdutil.FormatLaTeX {
			tab.Cite(opts.IO, "Explicit errors per model, "+title+".").Source.Label = "tab:rdeval-errors-" + t.Framework
			if err := tab.WriteLaTeX(opts.IO.Out); err != nil {
				return err
			}
			continue
		}
		if err := tab.WriteText(opts.IO.Out); err != nil {
			return err
		}
	}
	return nil
}
