package execute

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"

	"github.com/rdeval/rdeval/ingest"
)

// PatchMeta says who made a patch (declared in ingest, as result.json
// records it; its Validate checks the hint level and that no field holds a
// control character).
type PatchMeta = ingest.ExecutePatchMeta

// MetaSuffix names a patch's metadata sidecar: a.diff → a.diff.meta.json.
const MetaSuffix = ".meta.json"

// metaOver returns m with the fields of o that are set.
func metaOver(m, o PatchMeta) PatchMeta {
	for _, p := range []struct {
		dst *string
		src string
	}{{&m.Agent, o.Agent}, {&m.Framework, o.Framework}, {&m.Model, o.Model}, {&m.Hint, o.Hint}} {
		if p.src != "" {
			*p.dst = p.src
		}
	}
	return m
}

// readPatchMeta reads patch+MetaSuffix when it exists (strict JSON: an
// unknown key is an error naming the file).
func readPatchMeta(patch string) (PatchMeta, error) {
	var m PatchMeta
	path := patch + MetaSuffix
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return m, nil
	}
	if err != nil {
		return m, err
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&m); err != nil {
		return m, fmt.Errorf("%s: %v (want {\"agent\", \"framework\", \"model\", \"hint\"})", path, err)
	}
	if err := m.Validate(); err != nil {
		return m, fmt.Errorf("%s: %v", path, err)
	}
	return m, nil
}

// runKey is the hex digest whose first 12 digits name a run: the patch's
// sha256, or, when the patch has metadata, the sha256 of the patch's
// sha256 and its metadata, so that identical patches of different agents
// (two empty patches, say) stay separate runs.
func runKey(patchSHA string, m PatchMeta) string {
	if m == (PatchMeta{}) {
		return patchSHA
	}
	sum := sha256.Sum256([]byte(strings.Join([]string{patchSHA, m.Agent, m.Framework, m.Model, m.Hint}, "\n")))
	return hex.EncodeToString(sum[:])
}
