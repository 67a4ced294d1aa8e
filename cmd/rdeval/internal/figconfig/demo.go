package figconfig

import (
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
