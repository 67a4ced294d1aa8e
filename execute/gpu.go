package execute

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/rdeval/rdeval/ingest"
)

// GPU is one NVIDIA GPU as nvidia-smi lists it (declared in ingest, as
// result.json records it).
type GPU = ingest.ExecuteGPU

// GPUQuery is the nvidia-smi query DiscoverGPUs runs.
var GPUQuery = []string{"--query-gpu=index,uuid,name,memory.total,memory.used,pci.bus_id", "--format=csv,noheader,nounits"}

// ErrNoNvidiaSMI says that GPUs were asked for but nvidia-smi is not on
// PATH.
var ErrNoNvidiaSMI = errors.New("GPUs requested but nvidia-smi is not on PATH: install the NVIDIA driver utilities, or run CPU tasks (gpus: 0) with --gpus none")

// GPUHost says where GPU information and device nodes are; tests point it
// at fake folders.
type GPUHost struct {
	// NvidiaSMI is the nvidia-smi command ("" = look it up on PATH).
	NvidiaSMI string
	// DevDir holds the device nodes (default /dev).
	DevDir string
	// ProcGPUs is the driver's per-GPU folder (default
	// /proc/driver/nvidia/gpus).
	ProcGPUs string
}

func (h GPUHost) devDir() string {
	if h.DevDir == "" {
		return "/dev"
	}
	return h.DevDir
}

// DiscoverGPUs runs nvidia-smi and parses its list of GPUs.
func DiscoverGPUs(ctx context.Context, h GPUHost) ([]GPU, error) {
	smi := h.NvidiaSMI
	if smi == "" {
		p, err := exec.LookPath("nvidia-smi")
		if err != nil {
			return nil, ErrNoNvidiaSMI
		}
		smi = p
	}
	ctx, cancel := context.WithTimeout(ctx, 60*time.Second)
	defer cancel()
	var stderr bytes.Buffer
	cmd := exec.CommandContext(ctx, smi, GPUQuery...)
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("nvidia-smi %s: %v: %s", strings.Join(GPUQuery, " "), err, strings.TrimSpace(stderr.String()))
	}
	gpus, err := ParseGPUList(out)
	if err != nil {
		return nil, err
	}
	procDir := h.ProcGPUs
	if procDir == "" {
		procDir = "/proc/driver/nvidia/gpus"
	}
	for i := range gpus {
		gpus[i].Minor = gpus[i].Index
		if m, ok := readMinor(procDir, gpus[i].BusID); ok {
			gpus[i].Minor = m
		}
	}
	return gpus, nil
}

// ParseGPUList parses nvidia-smi's csv,noheader,nounits output of
// index,uuid,name,memory.total,memory.used[,pci.bus_id]. Blank lines are
// skipped; names may contain commas (the fields around them are fixed);
// "[N/A]" memory is -1. An error names the line.
func ParseGPUList(out []byte) ([]GPU, error) {
	var gpus []GPU
	seenIdx := map[int]bool{}
	seenUUID := map[string]bool{}
	sc := bufio.NewScanner(bytes.NewReader(out))
	line := 0
	for sc.Scan() {
		line++
		text := strings.TrimSpace(strings.TrimSuffix(sc.Text(), "\r"))
		if text == "" {
			continue
		}
		raw := strings.Split(text, ",")
		f := slices.Clone(raw)
		for i := range f {
			f[i] = strings.TrimSpace(f[i])
		}
		bad := func(format string, a ...any) ([]GPU, error) {
			return nil, fmt.Errorf("nvidia-smi output line %d %q: %s", line, text, fmt.Sprintf(format, a...))
		}
		if len(f) < 5 {
			return bad("want index, uuid, name, memory.total, memory.used")
		}
		// index, uuid, name (may hold commas), total, used, [bus id].
		var bus string
		tail := f[len(f)-2:]
		nameEnd := len(f) - 2
		if looksBusID(f[len(f)-1]) && len(f) >= 6 {
			bus = f[len(f)-1]
			tail = f[len(f)-3 : len(f)-1]
			nameEnd = len(f) - 3
		}
		idx, err := strconv.Atoi(f[0])
		if err != nil || idx < 0 {
			return bad("index %q is not a number", f[0])
		}
		uuid := f[1]
		if !(strings.HasPrefix(uuid, "GPU-") || strings.HasPrefix(uuid, "MIG-")) || strings.ContainsAny(uuid, " \t,") {
			return bad("uuid %q: want GPU-… or MIG-…", uuid)
		}
		g := GPU{Index: idx, UUID: uuid, Name: strings.TrimSpace(strings.Join(raw[2:nameEnd], ",")), BusID: bus}
		for i, p := range []*int64{&g.MemoryTotalMiB, &g.MemoryUsedMiB} {
			v, err := parseMiB(tail[i])
			if err != nil {
				return bad("memory %q: %v", tail[i], err)
			}
			*p = v
		}
		if seenIdx[idx] || seenUUID[uuid] {
			return bad("GPU %d / %s listed twice", idx, uuid)
		}
		seenIdx[idx], seenUUID[uuid] = true, true
		gpus = append(gpus, g)
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	sort.Slice(gpus, func(i, j int) bool { return gpus[i].Index < gpus[j].Index })
	return gpus, nil
}

func parseMiB(s string) (int64, error) {
	s = strings.TrimSuffix(strings.TrimSpace(s), " MiB")
	if s == "[N/A]" || s == "N/A" || s == "[Not Supported]" {
		return -1, nil
	}
	v, err := strconv.ParseInt(s, 10, 64)
	if err != nil || v < 0 {
		return 0, errors.New("want MiB as a whole number or [N/A]")
	}
	return v, nil
}

func looksBusID(s string) bool {
	// 00000000:3B:00.0 or 0000:3b:00.0
	parts := strings.Split(s, ":")
	return len(parts) == 3 && strings.Contains(parts[2], ".")
}

// readMinor reads "Device Minor: N" from the driver's information file of
// the GPU at bus id (nvidia-smi's 8-digit domain; the folder uses 4
// digits, lower case).
func readMinor(procDir, bus string) (int, bool) {
	if bus == "" {
		return 0, false
	}
	b := strings.ToLower(bus)
	if i := strings.IndexByte(b, ':'); i > 4 {
		b = b[i-4:]
	}
	data, err := os.ReadFile(filepath.Join(procDir, b, "information"))
	if err != nil {
		return 0, false
	}
	for l := range strings.SplitSeq(string(data), "\n") {
		if k, v, ok := strings.Cut(l, ":"); ok && strings.TrimSpace(k) == "Device Minor" {
			if n, err := strconv.Atoi(strings.TrimSpace(v)); err == nil && n >= 0 {
				return n, true
			}
		}
	}
	return 0, false
}

// SelectGPUs applies --gpus to the GPUs found: "auto" (or "all") keeps
// them all, "none" none, and a comma-separated list of nvidia-smi indexes
// or UUIDs those (each must exist).
func SelectGPUs(flag string, found []GPU) ([]GPU, error) {
	switch strings.TrimSpace(flag) {
	case "", "auto", "all":
		return found, nil
	case "none":
		return nil, nil
	}
	var out []GPU
	seen := map[int]bool{}
	for item := range strings.SplitSeq(flag, ",") {
		item = strings.TrimSpace(item)
		var g *GPU
		for i := range found {
			if strconv.Itoa(found[i].Index) == item || found[i].UUID == item {
				g = &found[i]
			}
		}
		if g == nil {
			var have []string
			for _, f := range found {
				have = append(have, strconv.Itoa(f.Index))
			}
			return nil, fmt.Errorf("--gpus %s: no GPU %q (nvidia-smi lists %s)", flag, item, strings.Join(have, ", "))
		}
		if seen[g.Index] {
			return nil, fmt.Errorf("--gpus %s: GPU %q listed twice", flag, item)
		}
		seen[g.Index] = true
		out = append(out, *g)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Index < out[j].Index })
	return out, nil
}

// gpuDeviceBinds returns the device nodes a run with the given GPUs needs:
// /dev/nvidia<minor> of each, then the shared nodes nvidiactl, nvidia-uvm,
// nvidia-uvm-tools and nvidia-modeset, each only when it exists under
// h.DevDir. Other GPUs' nodes are never included.
func gpuDeviceBinds(h GPUHost, gpus []GPU) []string {
	if len(gpus) == 0 {
		return nil
	}
	dev := h.devDir()
	var out []string
	for _, g := range gpus {
		out = append(out, filepath.Join(dev, "nvidia"+strconv.Itoa(g.Minor)))
	}
	for _, n := range []string{"nvidiactl", "nvidia-uvm", "nvidia-uvm-tools", "nvidia-modeset"} {
		out = append(out, filepath.Join(dev, n))
	}
	var have []string
	for _, p := range out {
		if _, err := os.Stat(p); err == nil {
			have = append(have, p)
		}
	}
	return have
}

// gpuEnv is the environment that gives a run its GPUs: CUDA and the
// NVIDIA container runtime see exactly the assigned UUIDs, in PCI bus
// order; none means no GPU at all.
func gpuEnv(gpus []GPU) []string {
	ids := make([]string, len(gpus))
	for i, g := range gpus {
		ids[i] = g.UUID
	}
	v := strings.Join(ids, ",")
	nv := v
	if v == "" {
		nv = "void"
	}
	return []string{"CUDA_VISIBLE_DEVICES=" + v, "NVIDIA_VISIBLE_DEVICES=" + nv, "CUDA_DEVICE_ORDER=PCI_BUS_ID"}
}
