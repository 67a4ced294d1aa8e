package execute

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// The driver reads what agent code leaves behind (metric files, keep
// files, logs) and what agents produced (patches) as hostile input: never
// blocking on a FIFO or device, never following a symbolic link out, and
// never reading or copying more than a fixed amount.

// Keep limits: a file matching a keep glob is copied only when both its
// size and its allocated size are at most maxKeepFile, and a run keeps at
// most maxKeepTotal bytes in all.
const (
	maxKeepFile  = 256 << 20
	maxKeepTotal = 1 << 30
)

// logTail is how much of the end of a log over MaxLogBytes is kept (the
// metric line is usually last).
const logTail = 4 << 20

// openRegular opens the file at host path p read-only without blocking
// (O_NONBLOCK: a FIFO or device opens at once instead of waiting for a
// writer) and, when noFollow, without following a symbolic link as its last
// element; it refuses anything fstat does not call a regular file. name is
// the path errors give.
func openRegular(p, name string, noFollow bool) (*os.File, os.FileInfo, error) {
	flags := os.O_RDONLY | syscall.O_NONBLOCK
	if noFollow {
		flags |= syscall.O_NOFOLLOW
	}
	f, err := os.OpenFile(p, flags, 0)
	if err != nil {
		if pe, ok := err.(*os.PathError); ok && pe.Err == syscall.ELOOP {
			return nil, nil, fmt.Errorf("%s: a symbolic link (not followed)", name)
		}
		return nil, nil, err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	if !fi.Mode().IsRegular() {
		f.Close()
		return nil, nil, fmt.Errorf("%s: not a regular file (%s)", name, fi.Mode().Type())
	}
	return f, fi, nil
}

// allocated is the disk space the file fi takes (st_blocks × 512).
func allocated(fi os.FileInfo) int64 {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return int64(st.Blocks) * 512
	}
	return fi.Size()
}

// readPatchFile reads an agent's patch file: a regular file (a FIFO or
// device is refused instead of blocking), checked with fstat before it is
// read. A patch over MaxPatchBytes is not read into memory: its data is nil
// and its sha256 is computed streaming, so the run is planned (and ends in
// patch_failed) without the patch ever being held or copied.
func readPatchFile(path string) (data []byte, sha string, size int64, err error) {
	f, fi, err := openRegular(path, path, false)
	if err != nil {
		return nil, "", 0, fmt.Errorf("patch %w", err)
	}
	defer f.Close()
	h := sha256.New()
	if fi.Size() > MaxPatchBytes {
		if _, err := io.Copy(h, f); err != nil {
			return nil, "", 0, fmt.Errorf("%s: %w", path, err)
		}
		return nil, hex.EncodeToString(h.Sum(nil)), fi.Size(), nil
	}
	data, err = io.ReadAll(io.LimitReader(f, MaxPatchBytes+1))
	if err != nil {
		return nil, "", 0, fmt.Errorf("%s: %w", path, err)
	}
	if len(data) > MaxPatchBytes { // grew since fstat
		return nil, "", 0, fmt.Errorf("%s: grew past %d bytes while being read", path, MaxPatchBytes)
	}
	h.Write(data)
	return data, hex.EncodeToString(h.Sum(nil)), int64(len(data)), nil
}

// copyKept copies the regular file src (not following a final symbolic
// link) to the new file dst (making its folder only once the file passes), refusing files over maxKeepFile in size or in
// allocated size and stopping at budget bytes; it returns the bytes copied.
func copyKept(src, dst, name string, budget int64) (int64, error) {
	in, fi, err := openRegular(src, name, true)
	if err != nil {
		return 0, err
	}
	defer in.Close()
	if n := max(fi.Size(), allocated(fi)); n > maxKeepFile {
		return 0, fmt.Errorf("%s: %d bytes (%d allocated), over the %d MiB keep limit per file: not kept", name, fi.Size(), allocated(fi), maxKeepFile>>20)
	}
	if fi.Size() > budget {
		return 0, fmt.Errorf("%s: %d bytes would pass the %d MiB keep limit per run: not kept", name, fi.Size(), maxKeepTotal>>20)
	}
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return 0, err
	}
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return 0, err
	}
	n, err := io.Copy(out, io.LimitReader(in, fi.Size()))
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(dst)
		return 0, err
	}
	return n, nil
}

// tailLog copies r to w: the first limit-logTail bytes, then, when there
// is more, a line saying how many bytes were dropped and the last logTail
// bytes (held in a ring buffer: memory stays at logTail). It reports the
// number of bytes dropped.
func tailLog(w io.Writer, r io.Reader, limit int64) int64 {
	head := max(limit-logTail, 0)
	n, _ := io.Copy(w, io.LimitReader(r, head))
	if n < head {
		return 0
	}
	ring := make([]byte, logTail)
	var total int64 // bytes read past head
	buf := make([]byte, 64<<10)
	for {
		m, err := r.Read(buf)
		for i := 0; i < m; {
			pos := int(total % logTail)
			c := copy(ring[pos:], buf[i:m])
			i += c
			total += int64(c)
		}
		if err != nil {
			break
		}
	}
	if total <= logTail {
		w.Write(ring[:total])
		return 0
	}
	dropped := total - logTail
	fmt.Fprintf(w, "\n[rdeval: %d bytes of output dropped here; the log keeps its first %d and last %d bytes]\n", dropped, head, logTail)
	pos := int(total % logTail)
	w.Write(ring[pos:])
	w.Write(ring[:pos])
	return dropped
}

// checkEngine asks the container engine whether it can run containers
// (docker info / podman info): a daemon that is down stops the batch before
// any run, instead of turning every run into an exec_error.
func checkEngine(ctx context.Context, engine string) error {
	if _, err := exec.LookPath(engine); err != nil {
		return fmt.Errorf("execute: --backend %s: %s is not installed", engine, engine)
	}
	ctx, cancel := context.WithTimeout(ctx, 60*time.Second)
	defer cancel()
	format := "{{.ServerVersion}}" // docker's; podman info has no server
	if engine == BackendPodman {
		format = "{{.Version.Version}}"
	}
	out, err := exec.CommandContext(ctx, engine, "info", "--format", format).CombinedOutput()
	if err != nil {
		return fmt.Errorf("execute: --backend %s: the engine cannot run containers (%s info: %v): %s", engine, engine, err, oneLine(strings.TrimSpace(string(out)), 300))
	}
	return nil
}
