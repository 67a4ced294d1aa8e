package diffcmd

import (
	"fmt"
	"html/template"
	"io"
	"strconv"
	"strings"
	"sync"

	"github.com/bluekeyes/go-gitdiff/gitdiff"
	"github.com/rdeval/rdeval/analysis/patchdiff"
)

// The page is one html/template: every value from a patch (paths, lines,
// hunk comments) is escaped by the template, and the page has no scripts
// and no external resources. It is parsed at first use, not when any
// rdeval command starts.
var pageTmpl = sync.OnceValue(func() *template.Template {
	return template.Must(template.New("page").Parse(pageHTML))
})

const pageHTML = `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>rdeval diff: {{.AgentName}} vs {{.GoldName}}</title>
<style>
body { font: 14px/1.4 system-ui, sans-serif; margin: 1.5em; color: #1f2328; }
h1 { font-size: 1.4em; margin: 0 0 .3em; }
h2 { font-size: 1.05em; margin: 1.6em 0 .4em; font-family: ui-monospace, monospace; word-break: break-all; }
h3 { font-size: .95em; margin: .2em 0; }
table { border-collapse: collapse; }
.meta { color: #59636e; margin: 0 0 1em; }
.meta code { word-break: break-all; }
.summary td, .files td, .files th { padding: .15em .8em .15em 0; text-align: left; }
.summary td.v, .files td.n { text-align: right; font-variant-numeric: tabular-nums; }
.files th { border-bottom: 1px solid #d1d9e0; }
.files td.p { font-family: ui-monospace, monospace; word-break: break-all; }
.chg { font-weight: normal; color: #59636e; font-size: .85em; }
.pair { display: grid; grid-template-columns: minmax(0, 1fr) minmax(0, 1fr); gap: 1em; }
.side { min-width: 0; }
.note { color: #59636e; font-style: italic; margin: .2em 0; }
.hunk { width: 100%; margin: .3em 0 .8em; font: 12px/1.35 ui-monospace, SFMono-Regular, Menlo, monospace; border: 1px solid #d1d9e0; }
.hunk-wrap { overflow-x: auto; }
.hunk th { background: #ddf4ff; color: #59636e; font-weight: normal; text-align: left; padding: .1em .5em; white-space: pre; }
.hunk td { padding: 0 .4em; white-space: pre; vertical-align: top; }
.hunk td.ln { color: #8c959f; text-align: right; user-select: none; width: 1%; }
.hunk tr.add td { background: #dafbe1; }
.hunk tr.del td { background: #ffebe9; }
.eol { color: #8c959f; font-style: italic; }
</style>
</head>
<body>
<h1>rdeval diff</h1>
<p class="meta">gold: <code>{{.GoldName}}</code> · agent: <code>{{.AgentName}}</code> · line window ±{{.Window}}</p>
<table class="summary">
{{range .Summary}}<tr><td>{{index . 0}}</td><td class="v">{{index . 1}}</td><td>{{index . 2}}</td></tr>
{{end}}</table>
<h2>Files</h2>
{{if .Files}}<table class="files">
<tr><th>path</th><th>change</th><th>gold +</th><th>gold −</th><th>agent +</th><th>agent −</th><th>in gold</th><th>in agent</th></tr>
{{range .Files}}<tr><td class="p"><a href="#f{{.ID}}">{{.Path}}</a></td><td>{{.Row.Change}}</td><td class="n">{{.GoldAdded}}</td><td class="n">{{.GoldDeleted}}</td><td class="n">{{.AgentAdded}}</td><td class="n">{{.AgentDeleted}}</td><td>{{if .Row.InGold}}yes{{else}}no{{end}}</td><td>{{if .Row.InAgent}}yes{{else}}no{{end}}</td></tr>
{{end}}</table>{{else}}<p class="note">Both patches are empty.</p>{{end}}
{{range .Files}}
<section id="f{{.ID}}">
<h2>{{.Path}} <span class="chg">{{.Row.Change}}</span></h2>
<div class="pair">
{{template "side" .Gold}}
{{template "side" .Agent}}
</div>
</section>
{{end}}
</body>
</html>
{{define "side"}}<div class="side">
<h3>{{.Label}}</h3>
{{if not .Touched}}<p class="note">not touched</p>{{end}}
{{range .Notes}}<p class="note">{{.}}</p>
{{end}}{{range .Hunks}}<div class="hunk-wrap"><table class="hunk">
<tr><th colspan="3">{{.Header}}</th></tr>
{{range .Lines}}<tr class="{{.Class}}"><td class="ln">{{.Old}}</td><td class="ln">{{.New}}</td><td>{{.Text}}{{if .NoEOL}} <span class="eol">(no newline at end of file)</span>{{end}}</td></tr>
{{end}}</table></div>
{{end}}</div>{{end}}`

type htmlPage struct {
	GoldName, AgentName string
	Window              int
	Summary             [][3]string
	Files               []htmlFile
}

type htmlFile struct {
	ID          int
	Path        string
	Row         patchdiff.FileRow
	Gold, Agent htmlSide
	// Line counts, blank for a patch that does not touch the file.
	GoldAdded, GoldDeleted, AgentAdded, AgentDeleted string
}

type htmlSide struct {
	Label   string
	Touched bool
	Notes   []string
	Hunks   []htmlHunk
}

type htmlHunk struct {
	Header string
	Lines  []htmlLine
}

type htmlLine struct {
	Class, Old, New, Text string
	NoEOL                 bool
}

// writeHTML writes the side-by-side page of a comparison.
func writeHTML(w io.Writer, gold, agent *patch, c *patchdiff.Comparison) error {
	page := htmlPage{GoldName: valid(gold.name), AgentName: valid(agent.name), Window: c.Window, Summary: summaryLines(c)}
	goldSecs, agentSecs := sections(gold), sections(agent)
	count := func(in bool, n int) string {
		if !in {
			return ""
		}
		return strconv.Itoa(n)
	}
	for i, r := range c.Files {
		page.Files = append(page.Files, htmlFile{
			ID: i + 1, Path: valid(displayPath(r)), Row: r,
			Gold:      side("gold", goldSecs[r.Path]),
			Agent:     side("agent", agentSecs[r.Path]),
			GoldAdded: count(r.InGold, r.GoldAdded), GoldDeleted: count(r.InGold, r.GoldDeleted),
			AgentAdded: count(r.InAgent, r.AgentAdded), AgentDeleted: count(r.InAgent, r.AgentDeleted),
		})
	}
	return pageTmpl().Execute(w, page)
}

// sections groups a patch's sections by path, in patch order.
func sections(p *patch) map[string][]*patchFile {
	out := map[string][]*patchFile{}
	for i := range p.files {
		f := &p.files[i]
		out[f.Path] = append(out[f.Path], f)
	}
	return out
}

// side lays out one patch's sections for one file.
func side(label string, secs []*patchFile) htmlSide {
	s := htmlSide{Label: label, Touched: len(secs) > 0}
	for _, f := range secs {
		switch f.Op {
		case "A":
			s.Notes = append(s.Notes, fmt.Sprintf("new file, mode %06o", f.NewMode))
		case "D":
			s.Notes = append(s.Notes, "deleted file")
		case "R":
			s.Notes = append(s.Notes, "renamed from "+valid(f.OldPath))
		case "C":
			s.Notes = append(s.Notes, "copied from "+valid(f.OldPath))
		}
		if f.Op != "A" && f.NewMode != 0 {
			s.Notes = append(s.Notes, fmt.Sprintf("mode %06o → %06o", f.OldMode, f.NewMode))
		}
		if f.Binary {
			s.Notes = append(s.Notes, "binary file: content not shown")
		}
		for _, frag := range f.frags {
			s.Hunks = append(s.Hunks, hunk(frag))
		}
	}
	return s
}

// hunk lays out one fragment with old and new line numbers.
func hunk(frag *gitdiff.TextFragment) htmlHunk {
	h := htmlHunk{Header: valid(strings.TrimSuffix(frag.Header(), "\n")), Lines: make([]htmlLine, len(frag.Lines))}
	o, n := frag.OldPosition, frag.NewPosition
	for i, l := range frag.Lines {
		hl := htmlLine{Text: l.Op.String() + valid(strings.TrimSuffix(l.Line, "\n")), NoEOL: l.NoEOL()}
		switch l.Op {
		case gitdiff.OpDelete:
			hl.Class, hl.Old = "del", strconv.FormatInt(o, 10)
			o++
		case gitdiff.OpAdd:
			hl.Class, hl.New = "add", strconv.FormatInt(n, 10)
			n++
		default:
			hl.Class, hl.Old, hl.New = "ctx", strconv.FormatInt(o, 10), strconv.FormatInt(n, 10)
			o++
			n++
		}
		h.Lines[i] = hl
	}
	return h
}

// valid replaces invalid UTF-8 so that the page is valid UTF-8 whatever
// the patch holds.
func valid(s string) string { return strings.ToValidUTF8(s, "\uFFFD") }
