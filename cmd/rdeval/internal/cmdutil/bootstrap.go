package cmdutil

import "github.com/spf13/cobra"

// Bootstrap is the --boot, --seed and --ci flags of a command with a
// bootstrap, embedded in its Options and checked by Check.
type Bootstrap struct {
	Boot int     // replicates (0: no interval)
	Seed uint64  // seed of the resampling
	CI   float64 // confidence level, in (0, 1)
}

// AddBootstrapFlags registers --boot and --seed with these defaults, and
// --ci (default 0.95) when ci; without it the level is 0.95.
func AddBootstrapFlags(cmd *cobra.Command, b *Bootstrap, boot int, seed uint64, ci bool) {
	fl := cmd.Flags()
	fl.IntVar(&b.Boot, "boot", boot, "bootstrap replicates (0: no interval)")
	fl.Uint64Var(&b.Seed, "seed", seed, "bootstrap seed")
	b.CI = 0.95
	if ci {
		fl.Float64Var(&b.CI, "ci", 0.95, "confidence level")
	}
}

// Check is the flags' one validation: a usage error naming the flag.
func (b *Bootstrap) Check() error {
	if b.Boot < 0 {
		return Usagef("--boot %d: want 0 (no interval) or more replicates", b.Boot)
	}
	if !(b.CI > 0 && b.CI < 1) {
		return Usagef("--ci %v: want a level between 0 and 1, e.g. 0.95", b.CI)
	}
	return nil
}
