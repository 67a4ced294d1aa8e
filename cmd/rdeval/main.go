// Command rdeval turns the raw runs of AI research-agent benchmarks
// (RE-Bench, RExBench, METR time-horizon data) into tables, numbers and
// figures. Run `rdeval --help` for the commands.
//
// For profiling, RDEVAL_CPUPROFILE=FILE writes a CPU profile of the whole
// run to FILE (read it with `go tool pprof rdeval FILE`).
package main

import (
	"fmt"
	"os"
	"runtime/pprof"

	"github.com/rdeval/rdeval/cmd/rdeval/internal/cli"
	"github.com/rdeval/rdeval/cmd/rdeval/internal/iostreams"
)

func main() {
	if path := os.Getenv("RDEVAL_CPUPROFILE"); path != "" {
		stop, err := startProfile(path)
		if err != nil {
			fmt.Fprintf(os.Stderr, "rdeval: RDEVAL_CPUPROFILE: %v\n", err)
			os.Exit(2)
		}
		code := cli.Main(os.Args[1:], iostreams.System())
		stop()
		os.Exit(code)
	}
	os.Exit(cli.Main(os.Args[1:], iostreams.System()))
}

// startProfile starts a CPU profile written to path; stop ends it.
func startProfile(path string) (stop func(), err error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, err
	}
	return func() {
		pprof.StopCPUProfile()
		if err := f.Close(); err != nil {
			fmt.Fprintf(os.Stderr, "rdeval: RDEVAL_CPUPROFILE: %v\n", err)
		}
	}, nil
}
