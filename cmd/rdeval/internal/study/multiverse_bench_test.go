package study

import (
	"path/filepath"
	"testing"
)

// BenchmarkShippedSpecs runs every shipped multiverse example
// (examples/multiverse-*.yaml) as rdeval multiverse --spec FILE does, with
// the default 1000 bootstrap replicates (issue 25 item 7: each should take
// under 5 s on 2 cores).
//
//	go test -run '^$' -bench ShippedSpecs -benchtime 3x ./cmd/rdeval/internal/study
func BenchmarkShippedSpecs(b *testing.B) {
	specs, err := filepath.Glob(filepath.Join("..", "..", "..", "..", "examples", "multiverse-*.yaml"))
	if err != nil || len(specs) == 0 {
		b.Fatal("no examples/multiverse-*.yaml", err)
	}
	for _, path := range specs {
		b.Run(filepath.Base(path), func(b *testing.B) {
			sp, err := LoadMultiverseSpec(path)
			if err != nil {
				b.Fatal(err)
			}
			for i := 0; i < b.N; i++ {
				if _, err := Multiverse(sp, MultiverseParams{Boot: 1000, Seed: 1, MaxCells: testMaxCells, Load: testLoad}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
