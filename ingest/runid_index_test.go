package ingest

import (
	"fmt"
	"testing"
)

// TestRunIDIndex: every id put is found at its index through growth, ids
// never put are not, and ids whose hashes collide are told apart by the
// ids themselves.
func TestRunIDIndex(t *testing.T) {
	var ids []string
	x := newRunIDIndex(func(i int) string { return ids[i] })
	x.reset(3) // small, so that it grows many times
	for i := range 10_000 {
		ids = append(ids, fmt.Sprintf("run-%d", i))
		if _, dup := x.get(ids[i], x.hashOf(ids[i])); dup {
			t.Fatalf("%s found before it was put", ids[i])
		}
		x.put(x.hashOf(ids[i]), i)
	}
	for i, id := range ids {
		if j, ok := x.get(id, x.hashOf(id)); !ok || j != i {
			t.Fatalf("get(%s) = %d, %v; want %d", id, j, ok, i)
		}
	}
	if _, ok := x.get("run-10000", x.hashOf("run-10000")); ok {
		t.Error("found an id never put")
	}
	if x.len() != len(ids) {
		t.Errorf("len %d, want %d", x.len(), len(ids))
	}
	// Three ids sharing one hash (as hashOf gives them: upper half set).
	const h = 7 << idxBits
	ids = []string{"a", "b", "c"}
	x.reset(0)
	for i := range ids {
		x.put(h, i)
	}
	for i, id := range ids {
		if j, ok := x.get(id, h); !ok || j != i {
			t.Errorf("collision: get(%s) = %d, %v; want %d", id, j, ok, i)
		}
	}
	if _, ok := x.get("d", h); ok {
		t.Error("collision: found an id never put")
	}
}

// TestRunIDIndexGetOrPut: getOrPut inserts a new id at the index given
// and finds an old one (with tags colliding too), through many growths.
func TestRunIDIndexGetOrPut(t *testing.T) {
	var ids []string
	x := newRunIDIndex(func(i int) string { return ids[i] })
	x.reset(3)
	for i := range 5_000 {
		ids = append(ids, fmt.Sprintf("run-%d", i))
		if j, dup := x.getOrPut(ids[i], x.hashOf(ids[i]), i); dup || j != i {
			t.Fatalf("getOrPut(new %s) = %d, %v", ids[i], j, dup)
		}
		k := i / 2 // an earlier id again
		if j, dup := x.getOrPut(ids[k], x.hashOf(ids[k]), len(ids)); !dup || j != k {
			t.Fatalf("getOrPut(old %s) = %d, %v; want %d", ids[k], j, dup, k)
		}
	}
	if x.len() != len(ids) {
		t.Errorf("len %d, want %d", x.len(), len(ids))
	}
	const h = 7 << idxBits
	ids = []string{"a", "b", "a"}
	x.reset(0)
	for i, want := range []struct {
		j   int
		dup bool
	}{{0, false}, {1, false}, {0, true}} {
		if j, dup := x.getOrPut(ids[i], h, i); j != want.j || dup != want.dup {
			t.Errorf("collision, %s: getOrPut = %d, %v; want %d, %v", ids[i], j, dup, want.j, want.dup)
		}
	}
}
