package ingest

import (
	"fmt"
	"reflect"
	"sort"
	"testing"
)

// TestFastSettersMatchSetters: for every column with a fast setter, a JSON
// Lines record holding each of a range of values (valid and invalid for
// the column) gives the same Run, or the same error, with the fast setters
// as with the columns' own setters (runColumns). A fast setter pointing at
// the wrong field, converting differently, or taking a value its setter
// refuses fails here.
func TestFastSettersMatchSetters(t *testing.T) {
	values := []string{
		`"x"`, `"Claude 3 Opus"`, `""`, `"a\"b"`, `"ai_rd_fix_embedding\/main"`, `"\/"`, `"\u00e9t\u00e9"`, `"2024-11-22T10:15:03.123456+00:00"`, `"1734070031112"`, `"héllo"`,
		`0`, `1`, `-1`, `2`, `1800`, `7.2849e-06`, `0.0000072849`, `1734070031112`, `1734070031112.5`, `-0`, `1e308`, `1e400`, `-1e400`,
		`9007199254740993`, `0.0006`, `-0.0006`, `1734070031112.0007`, `9223372036854775807`, `9223372036854775808`, `1.5`, `1e3`,
		`true`, `false`, `null`, `[]`, `["a","b"]`, `{}`, `{"a":1}`,
	}
	base := map[string]string{"run_id": `"r1"`, "benchmark": `"re-bench"`, "task_id": `"t1"`, "agent": `"a"`, "kind": `"agent"`}
	cols := make([]string, 0, len(fastRunFields))
	for c := range fastRunFields {
		cols = append(cols, c)
	}
	sort.Strings(cols)
	for _, col := range cols {
		if _, ok := runColumns[col]; !ok {
			t.Errorf("fast setter for %q, which has no setter in runColumns", col)
			continue
		}
		for _, v := range values {
			fields := map[string]string{}
			for k, x := range base {
				fields[k] = x
			}
			fields[col] = v
			keys := make([]string, 0, len(fields))
			for k := range fields {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			line := "{"
			for i, k := range keys {
				if i > 0 {
					line += ","
				}
				line += fmt.Sprintf("%q:%s", k, fields[k])
			}
			line += "}"
			fast, fastErr := parseRunLine(t, line, true)
			slow, slowErr := parseRunLine(t, line, false)
			if fmt.Sprint(fastErr) != fmt.Sprint(slowErr) {
				t.Errorf("%s: error %v with fast setters, %v without", line, fastErr, slowErr)
				continue
			}
			if !reflect.DeepEqual(fast, slow) {
				t.Errorf("%s:\nfast setters: %+v\nsetters:      %+v", line, fast, slow)
			}
		}
	}
}

// parseRunLine parses one generic JSON Lines run record with or without
// the fast setters.
func parseRunLine(t *testing.T, line string, fast bool) (Run, error) {
	t.Helper()
	defer func(old bool) { useFastSetters = old }(useFastSetters)
	useFastSetters = fast
	l := newLoader(Options{})
	l.cat = BuiltinCatalog()
	rp := l.newRunLineParser("in.jsonl", ReaderGeneric, &interner{})
	err := rp.parse([]byte(line), 1)
	return *rp.r, err
}

// TestFastSettersMETR: METR's real all_runs.jsonl (../shared) loads into
// the same dataset with and without the fast setters.
func TestFastSettersMETR(t *testing.T) {
	path := metrFile(t, "3a947ac7069ecb6e1fd0064cc0205e5eb9dcba0f")
	load := func(fast bool) *Dataset {
		defer func(old bool) { useFastSetters = old }(useFastSetters)
		useFastSetters = fast
		ds, err := Load([]string{path}, Options{})
		if err != nil {
			t.Fatal(err)
		}
		return ds
	}
	fast, slow := load(true), load(false)
	if len(fast.Runs) != 7059 {
		t.Fatalf("%d runs, want 7059", len(fast.Runs))
	}
	if !reflect.DeepEqual(fast.Runs, slow.Runs) || !reflect.DeepEqual(fast.Tasks, slow.Tasks) || !reflect.DeepEqual(fast.Errors, slow.Errors) {
		t.Error("METR's all_runs.jsonl loads differently with the fast setters")
	}
}
