package reportcmd

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"html"
	"image"
	"image/color"
	"image/draw"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/rdeval/rdeval/cmd/rdeval/internal/cmdutil"
	"github.com/rdeval/rdeval/cmd/rdeval/internal/demo"
	"github.com/rdeval/rdeval/cmd/rdeval/internal/iostreams"
)

// chromiumPath finds a headless-capable Chromium: $RDEVAL_CHROMIUM, else
// chromium (Debian's package, which .ci/run installs) or chromium-browser.
func chromiumPath(t *testing.T) string {
	t.Helper()
	if p := os.Getenv("RDEVAL_CHROMIUM"); p != "" {
		return p
	}
	for _, name := range []string{"chromium", "chromium-browser"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	t.Skip("skipping the browser test: no chromium on PATH (apt-get install -y chromium, or set RDEVAL_CHROMIUM)")
	return ""
}

// chromium runs headless Chromium with the flags of the issue on a file
// URL and returns its stdout.
func chromium(t *testing.T, bin string, extra ...string) []byte {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	args := append([]string{"--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking",
		"--disable-dev-shm-usage", "--user-data-dir=" + t.TempDir()}, extra...)
	cmd := exec.CommandContext(ctx, bin, args...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("chromium %v: %v\n%s", extra, err, stderr.String())
	}
	return stdout.Bytes()
}

// checkScript runs in the page after it loaded and writes what it found
// into <pre id="rdeval-check"> as JSON: the number of report figures, of
// headline tables, of images, and every problem — a figure without an
// inline SVG, an SVG with a zero-size box on the page, a drawing whose
// bounding box is empty or that has fewer than 10 drawn elements, a
// headline table without rows, any image that did not load, and anything
// wider than the window (the page scrolls sideways) or reaching past the
// body's right edge.
const checkScript = `<script>
window.addEventListener('load', function () {
  var out = {figures: 0, tables: 0, images: 0, problems: []};
  var right = document.body.getBoundingClientRect().right + 1;
  if (document.documentElement.scrollWidth > window.innerWidth) out.problems.push('page overflows: ' + document.documentElement.scrollWidth + ' px wide in a ' + window.innerWidth + ' px window');
  document.querySelectorAll('figure svg, table, pre, p, li').forEach(function (e) {
    var r = e.getBoundingClientRect();
    if (r.right > right) out.problems.push((e.closest('[id]') ? e.closest('[id]').id + ' ' : '') + e.tagName.toLowerCase() + ' overflows: right edge ' + Math.round(r.right) + ' > ' + Math.round(right));
  });
  var tabs = document.querySelectorAll('section.rdeval-table');
  out.tables = tabs.length;
  tabs.forEach(function (s) {
    if (s.querySelectorAll('table tr').length < 2) out.problems.push(s.id + ': no table rows');
  });
  var figs = document.querySelectorAll('figure.rdeval-figure');
  out.figures = figs.length;
  figs.forEach(function (f) {
    var svg = f.querySelector('svg');
    if (!svg) { out.problems.push(f.id + ': no inline svg'); return; }
    var r = svg.getBoundingClientRect();
    if (!(r.width > 0 && r.height > 0)) out.problems.push(f.id + ': svg box ' + r.width + 'x' + r.height);
    var b = {width: 0, height: 0};
    try { b = svg.getBBox(); } catch (e) {}
    if (!(b.width > 0 && b.height > 0)) out.problems.push(f.id + ': empty drawing (bbox ' + b.width + 'x' + b.height + ')');
    var marks = svg.querySelectorAll('path,line,rect,text,polygon,polyline,circle').length;
    if (marks < 10) out.problems.push(f.id + ': only ' + marks + ' drawn elements');
  });
  Array.prototype.forEach.call(document.images, function (img) {
    out.images++;
    if (!img.complete || img.naturalWidth === 0) out.problems.push('broken image ' + img.getAttribute('src'));
  });
  var pre = document.createElement('pre');
  pre.id = 'rdeval-check';
  pre.textContent = JSON.stringify(out);
  document.body.appendChild(pre);
});
</script>`

type pageCheck struct {
	Figures  int      `json:"figures"`
	Tables   int      `json:"tables"`
	Images   int      `json:"images"`
	Problems []string `json:"problems"`
}

var checkRE = regexp.MustCompile(`(?s)<pre id="rdeval-check">(.*?)</pre>`)

// checkPage copies page (keeping its folder, so relative links resolve)
// with checkScript added, loads it in Chromium with --dump-dom in a window
// width px wide (and --screenshot=shot when shot is not "", in the same
// start, then width must be 1200) and returns
// the script's findings. It fails the test when the script's output is
// missing, so a page that did not load or run cannot pass.
func checkPage(t *testing.T, bin, page, shot string, width int) pageCheck {
	t.Helper()
	b, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	i := bytes.LastIndex(b, []byte("</body>"))
	if i < 0 {
		t.Fatalf("%s: no </body>", page)
	}
	test := filepath.Join(filepath.Dir(page), ".check-"+filepath.Base(page))
	withScript := append(append(append([]byte{}, b[:i]...), checkScript...), b[i:]...)
	if err := os.WriteFile(test, withScript, 0o644); err != nil {
		t.Fatal(err)
	}
	defer os.Remove(test)
	args := []string{"--virtual-time-budget=10000", "--dump-dom", fmt.Sprintf("--window-size=%d,2400", width)}
	if shot != "" {
		args = append(args, "--screenshot="+shot)
	}
	dom := chromium(t, bin, append(args, "file://"+test)...)
	m := checkRE.FindSubmatch(dom)
	if m == nil {
		t.Fatalf("the check script wrote nothing: the page did not load or the script did not run (%d bytes of DOM)", len(dom))
	}
	var c pageCheck
	if err := json.Unmarshal([]byte(html.UnescapeString(string(m[1]))), &c); err != nil {
		t.Fatalf("check output %q: %v", m[1], err)
	}
	return c
}

// checkScreenshot fails the test unless the screenshot at shot is a real
// rendering (screenshotProblem).
func checkScreenshot(t *testing.T, shot string) {
	t.Helper()
	if err := screenshotProblem(shot); err != nil {
		t.Error(err)
	}
}

// screenshotProblem says what is wrong with the screenshot at shot, nil
// when it is a PNG of the window's size (1200×2400) with at least 50
// colours and at least 2% non-white pixels.
func screenshotProblem(shot string) error {
	f, err := os.Open(shot)
	if err != nil {
		return fmt.Errorf("no screenshot: %v", err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		return fmt.Errorf("screenshot: %v", err)
	}
	bd := img.Bounds()
	if bd.Dx() != 1200 || bd.Dy() != 2400 {
		return fmt.Errorf("screenshot %v, want 1200×2400", bd)
	}
	colours := map[uint32]bool{}
	nonWhite := 0
	for y := bd.Min.Y; y < bd.Max.Y; y += 2 {
		for x := bd.Min.X; x < bd.Max.X; x += 2 {
			r, g, b, _ := img.At(x, y).RGBA()
			colours[(r>>8)<<16|(g>>8)<<8|b>>8] = true
			if r < 0xf000 || g < 0xf000 || b < 0xf000 {
				nonWhite++
			}
		}
	}
	share := float64(nonWhite) / float64(bd.Dx()*bd.Dy()/4)
	if len(colours) < 50 || share < 0.02 {
		return fmt.Errorf("screenshot looks blank: %d colours, %.2f%% non-white pixels", len(colours), 100*share)
	}
	return nil
}

// TestScreenshotCheckCatchesBlankPages: a white page, a page with a bit of
// black text-like noise, and a PNG of the wrong size all fail the check.
func TestScreenshotCheckCatchesBlankPages(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, w, h int, paint func(*image.RGBA)) string {
		img := image.NewRGBA(image.Rect(0, 0, w, h))
		draw.Draw(img, img.Bounds(), image.White, image.Point{}, draw.Src)
		if paint != nil {
			paint(img)
		}
		p := filepath.Join(dir, name)
		f, _ := os.Create(p)
		png.Encode(f, img)
		f.Close()
		return p
	}
	for name, p := range map[string]string{
		"white": write("white.png", 1200, 2400, nil),
		"few marks": write("few.png", 1200, 2400, func(img *image.RGBA) {
			for x := 0; x < 600; x++ {
				img.Set(x, 40, color.Black)
			}
		}),
		"wrong size": write("small.png", 800, 600, nil),
	} {
		if screenshotProblem(p) == nil {
			t.Errorf("%s: the check passed", name)
		}
	}
}

// TestReportInChromium writes the demo report and the report of the demo
// study config and that of the demo's files as INPUT, opens each index.html in headless Chromium, takes a
// screenshot and checks that every figure rendered (as many figures as
// the page holds, each a non-empty inline SVG with a non-zero box, no
// broken image) and every headline table has rows; the demo report is
// loaded again in a window of print width (A4, 794 px) where nothing may
// overflow. One Chromium start per check; the config report is skipped
// in -short mode.
func TestReportInChromium(t *testing.T) {
	bin := chromiumPath(t)
	for _, tc := range []struct {
		name string
		opts func(dir string) *Options
	}{
		{"demo", func(dir string) *Options { return &Options{OutDir: dir} }},
		{"config", func(dir string) *Options {
			return &Options{OutDir: dir, Config: "../../../../examples/demo-study.yaml"}
		}},
		// The demo's files given as INPUT: the generated config's figures.
		{"inputs", func(dir string) *Options {
			src := extractDemo(t)
			in := func(p string) string { return filepath.Join(src, filepath.FromSlash(p)) }
			return &Options{OutDir: dir, Inputs: []string{in(demo.REBenchRunsPath), in(demo.REBenchScoreLogPath), in(demo.RExBenchRunsPath), in(demo.HorizonRunsPath)},
				Input: cmdutil.InputFlags{TasksFile: in(demo.RExBenchTasksPath), TaskIDFrom: "task/sample"}, ReleaseDates: in(demo.HorizonReleaseDatesPath)}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.name != "demo" && testing.Short() {
				t.Skip("skipping the config and INPUT reports in -short mode (each Chromium start takes seconds)")
			}
			dir := filepath.Join(t.TempDir(), "report")
			if err := runReport(t, tc.opts(dir)); err != nil {
				t.Fatal(err)
			}
			page := filepath.Join(dir, "index.html")
			b, _ := os.ReadFile(page)
			want := bytes.Count(b, []byte(`<figure class="rdeval-figure"`))
			wantTables := bytes.Count(b, []byte(`<section class="rdeval-table"`))
			if want < 14 || wantTables < 6 {
				t.Fatalf("the report holds %d figures and %d tables; want the 14 of the demo config and 6 headline tables", want, wantTables)
			}
			widths := []int{1200}
			if tc.name == "demo" {
				widths = append(widths, 794)
			}
			for _, w := range widths {
				shot := ""
				if w == 1200 {
					shot = filepath.Join(t.TempDir(), "report.png")
				}
				c := checkPage(t, bin, page, shot, w)
				if c.Figures != want || c.Tables != wantTables {
					t.Errorf("%d px: Chromium saw %d figures and %d tables, the page has %d and %d", w, c.Figures, c.Tables, want, wantTables)
				}
				for _, p := range c.Problems {
					t.Errorf("%d px: %s", w, p)
				}
				if shot != "" {
					checkScreenshot(t, shot)
				}
			}
		})
	}
}

// TestChromiumCheckCatchesBrokenFigures: the same check on a copy of the
// demo report with one figure's SVG emptied, one SVG of zero size and a
// broken image reports each of them, so TestReportInChromium cannot pass
// on a page whose figures did not render.
func TestChromiumCheckCatchesBrokenFigures(t *testing.T) {
	bin := chromiumPath(t)
	dir := filepath.Join(t.TempDir(), "report")
	if err := runReport(t, &Options{OutDir: dir}); err != nil {
		t.Fatal(err)
	}
	page := filepath.Join(dir, "index.html")
	b, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	figRE := regexp.MustCompile(`(?s)<figure class="rdeval-figure"[^>]* id="([^"]+)">(<svg.*?</svg>)`)
	ms := figRE.FindAllStringSubmatch(s, -1)
	if len(ms) < 3 {
		t.Fatalf("%d figures", len(ms))
	}
	empty, zero := ms[0][1], ms[1][1]
	s = strings.Replace(s, ms[0][2], `<svg xmlns="http://www.w3.org/2000/svg"></svg>`, 1)
	s = strings.Replace(s, ms[1][2], strings.Replace(ms[1][2], "<svg ", `<svg style="width:0;height:0" `, 1), 1)
	s = strings.Replace(s, "<h2>Figures</h2>", `<h2>Figures</h2><img src="figures/missing.png" alt="missing">`, 1)
	broken := filepath.Join(dir, "broken.html")
	if err := os.WriteFile(broken, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
	c := checkPage(t, bin, broken, "", 1200)
	got := strings.Join(c.Problems, "\n")
	for _, want := range []string{
		empty + ": empty drawing",
		empty + ": only 0 drawn elements",
		zero + ": svg box 0x0",
		"broken image figures/missing.png",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("the check missed %q; it found:\n%s", want, got)
		}
	}
	if len(c.Problems) != 4 || c.Images != 1 {
		t.Errorf("%d problems, %d images; want 4 problems on 1 image:\n%s", len(c.Problems), c.Images, got)
	}
}

// runReport runs the report on test streams.
func runReport(t *testing.T, opts *Options) error {
	t.Helper()
	io, _, errb := iostreams.Test()
	opts.IO = io
	opts.Version = "test"
	var err error
	if opts.Config != "" {
		err = runFromConfig(opts)
	} else {
		err = reportRun(opts)
	}
	if err != nil {
		return fmt.Errorf("%v\n%s", err, errb.String())
	}
	return nil
}
