package diffcmd

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/rdeval/rdeval/cmd/rdeval/internal/cmdutil"
)

// Gold patches read from a SWE-bench file (--gold-file) rather than from
// a folder of <task>.patch files (--gold-dir):
//
//   - a dataset export (princeton-nlp/SWE-bench, SWE-bench_Lite,
//     SWE-bench_Verified rows, as datasets' to_json writes them): one
//     object per line, or a JSON array of objects, each with instance_id
//     and patch (the gold patch);
//   - predictions (all_preds.jsonl, a harness predictions file): instance_id,
//     model_patch, model_name_or_path — another model's patches as the
//     reference.
//
// A record's patch is "patch" when it has one, else "model_patch"; the
// task is its instance_id. A null or missing patch leaves the instance
// without a gold patch (predictions have null patches where generation
// failed); a run of such an instance is then an error saying so.

// goldRef is where one task's gold patch comes from: a file (--gold-dir),
// or a record of --gold-file.
type goldRef struct {
	path string // the <task>.patch file, or the --gold-file
	line int    // --gold-file: the record's line (JSON Lines) or 1-based position (JSON array); 0 for a file
	data []byte // --gold-file: the patch; nil for a file
}

// name is how messages name the gold patch.
func (g goldRef) name() string {
	if g.line == 0 {
		return g.path
	}
	return fmt.Sprintf("%s:%d", g.path, g.line)
}

// goldFileRecord is one record of a --gold-file.
type goldFileRecord struct {
	InstanceID *string `json:"instance_id"`
	Patch      *string `json:"patch"`
	ModelPatch *string `json:"model_patch"`
}

// goldFile is a --gold-file read: the gold patch of each instance, and the
// instances listed without one (instance → line).
type goldFile struct {
	path   string
	gold   map[string]goldRef
	noneAt map[string]int
}

// readGoldFile reads a --gold-file (see above). A record that is not an
// object with a string instance_id, or an instance listed twice, is an
// error naming the file, line and field.
func readGoldFile(path string) (*goldFile, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, &cmdutil.BadInputError{Err: fmt.Errorf("--gold-file: %w", err)}
	}
	bad := func(line int, field, format string, args ...any) error {
		at := path
		if line > 0 {
			at = fmt.Sprintf("%s:%d", path, line)
		}
		if field != "" {
			at += fmt.Sprintf(": field %q", field)
		}
		return &cmdutil.BadInputError{Err: fmt.Errorf("--gold-file %s: %s", at, fmt.Sprintf(format, args...))}
	}
	var raws []json.RawMessage
	var lines []int
	trimmed := bytes.TrimSpace(bytes.TrimPrefix(data, bom))
	if len(trimmed) > 0 && trimmed[0] == '[' {
		if err := json.Unmarshal(trimmed, &raws); err != nil {
			return nil, bad(0, "", "not a JSON array of records {instance_id, patch}: %v", err)
		}
		for i := range raws {
			lines = append(lines, i+1)
		}
	} else {
		sc := bufio.NewScanner(bytes.NewReader(data))
		sc.Buffer(nil, 256<<20)
		for n := 1; sc.Scan(); n++ {
			line := bytes.TrimSpace(sc.Bytes())
			if n == 1 {
				line = bytes.TrimPrefix(line, bom)
			}
			if len(line) == 0 {
				continue
			}
			raws, lines = append(raws, json.RawMessage(bytes.Clone(line))), append(lines, n)
		}
		if err := sc.Err(); err != nil {
			return nil, bad(0, "", "%v", err)
		}
	}
	gf := &goldFile{path: path, gold: map[string]goldRef{}, noneAt: map[string]int{}}
	firstAt := map[string]int{}
	for i, raw := range raws {
		var r goldFileRecord
		if err := json.Unmarshal(raw, &r); err != nil {
			return nil, bad(lines[i], "", "want a record {instance_id, patch} or {instance_id, model_patch}: %v", err)
		}
		if r.InstanceID == nil || *r.InstanceID == "" {
			return nil, bad(lines[i], "instance_id", "missing: each record names its SWE-bench instance")
		}
		id := *r.InstanceID
		if at, dup := firstAt[id]; dup {
			return nil, bad(lines[i], "instance_id", "instance %s listed twice (first at line %d)", id, at)
		}
		firstAt[id] = lines[i]
		p := r.Patch
		if p == nil {
			p = r.ModelPatch
		}
		if p == nil {
			gf.noneAt[id] = lines[i]
			continue
		}
		gf.gold[id] = goldRef{path: path, line: lines[i], data: []byte(*p)}
	}
	if len(gf.gold) == 0 {
		return nil, bad(0, "", "no record with a patch (want JSON Lines or a JSON array of {instance_id, patch} or {instance_id, model_patch})")
	}
	return gf, nil
}

// missing is the error for an instance the file has no gold patch for.
func (gf *goldFile) missing(id, what string) error {
	if at, ok := gf.noneAt[id]; ok {
		return &cmdutil.BadInputError{Err: fmt.Errorf("%s: instance %s has no patch in --gold-file %s (null at line %d)", what, id, gf.path, at)}
	}
	return &cmdutil.BadInputError{Err: fmt.Errorf("%s: instance %s is not in --gold-file %s (%d instances with a patch)", what, id, gf.path, len(gf.gold))}
}

// runInstance is the SWE-bench instance of a --run folder: the folder's
// name (logs/<instance>/, logs/run_evaluation/<run_id>/<model>/<instance>/).
func runInstance(dir string) string {
	return filepath.Base(filepath.Clean(strings.TrimRight(dir, `/\`)))
}

// read parses the gold patch of task (text: keep the lines for the HTML
// page).
func (g goldRef) read(task string, text bool) (*patch, error) {
	if g.data == nil {
		return readPatchFile(g.path, "gold", text)
	}
	return parsePatch("gold patch", g.name()+" (instance "+task+")", g.data, text)
}
