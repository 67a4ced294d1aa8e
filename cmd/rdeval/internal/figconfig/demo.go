package figconfig

import (
	_ "embed"

	"crypto/sha256"
	"encoding/hex"

	"github.com/rdeval/rdeval/cmd/rdeval/internal/demo"
	"github.com/rdeval/rdeval/ingest"
)

// LoadDemo ingests the whole embedded demo study (synthetic; see
// cmd/rdeval/internal/demo), its time-horizon part included, with its
// RExBench gold catalog.
func LoadDemo() (*ingest.Dataset, error) { return demo.LoadAll(ingest.Options{}) }

func sha256Hex(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

// demoStudyYAML is the figures config of the whole demo study: every
// figure type on the part it suits. examples/demo-study.yaml is a link to
// this file (TestDemoConfigIsExample).
//
//go:embed demo-study.yaml
var demoStudyYAML []byte

// DemoConfig is the demo study's figures config (demo-study.yaml): the
// default report's figures. Its Path is "demo-study.yaml".
func DemoConfig() (*Config, error) { return ParseConfig("demo-study.yaml", demoStudyYAML) }
