package ingest

// Opening Inspect .eval archives, with limits against zip bombs.
//
// Inspect writes its members deflated (zip method 8) up to 0.3.205 and
// zstd-compressed (method 93, ZIP_ZSTANDARD, possibly several zstd frames
// per member: Inspect caps a frame at 200 MiB of input) from 0.3.206
// (April 2026). Both are read.
//
// An .eval member is one JSON document read into memory, so its inflated
// size is bounded three ways:
//
//   - the size a member declares in the central directory must be at most
//     inspectEntryCap (256 MiB, the JSON Lines line cap): a larger member is
//     refused before a byte of it is inflated;
//   - the member must not inflate to more than it declares (archive/zip
//     stops at the declared size plus one byte and reports ErrFormat, which
//     is named here): the buffer never grows past the declared size, and
//     starts smaller when the declared size implies a compression ratio
//     over 32:1;
//   - the bytes being inflated by all readers at once (Load reads files one
//     after the other, but tests and callers may run several Loads) are
//     bounded by inflateBudget: a member waits until its declared size fits
//     in the budget. One member is held at a time per reader, so this
//     cannot deadlock.
//
// The zstd decoder is limited to a 64 MiB window (a frame asking for more
// is refused; Inspect's level-3 frames use a few MiB) and decodes serially.

import (
	"archive/zip"
	"errors"
	"fmt"
	"io"
	"slices"
	"sync"

	"github.com/klauspost/compress/zstd"
)

// zipMethodZstd is the zip compression method of Zstandard (APPNOTE 4.4.5).
const zipMethodZstd = 93

// inspectEntryCap bounds the inflated size of one .eval member (a var so
// that FuzzReadEval can lower it: the fuzzer would otherwise spend its
// time inflating legitimate 256 MiB members).
var inspectEntryCap uint64 = maxLine

// zstdMaxWindow bounds the window a zstd frame may ask for.
const zstdMaxWindow = 64 << 20

// inflateBudget bounds the bytes inflated at once across readers.
var inflateBudget = newByteBudget(maxLine)

// byteBudget is a counting semaphore over bytes.
type byteBudget struct {
	mu   sync.Mutex
	cond *sync.Cond
	max  int64
	used int64
}

func newByteBudget(max int64) *byteBudget {
	b := &byteBudget{max: max}
	b.cond = sync.NewCond(&b.mu)
	return b
}

// acquire waits until n bytes (at most max) are free and takes them.
func (b *byteBudget) acquire(n int64) {
	n = min(n, b.max)
	b.mu.Lock()
	for b.used+n > b.max {
		b.cond.Wait()
	}
	b.used += n
	b.mu.Unlock()
}

func (b *byteBudget) release(n int64) {
	n = min(n, b.max)
	b.mu.Lock()
	b.used -= n
	b.mu.Unlock()
	b.cond.Broadcast()
}

// inUse reports the bytes taken now (for tests).
func (b *byteBudget) inUse() int64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.used
}

// registerEvalDecompressors lets zr read zstd members (method 93); deflate
// (8) and store (0) are archive/zip's own.
func registerEvalDecompressors(zr *zip.Reader) {
	zr.RegisterDecompressor(zipMethodZstd, func(r io.Reader) io.ReadCloser {
		d, err := zstd.NewReader(r,
			zstd.WithDecoderConcurrency(1),
			zstd.WithDecoderLowmem(true),
			zstd.WithDecoderMaxWindow(zstdMaxWindow),
			zstd.WithDecoderMaxMemory(maxLine+1))
		if err != nil {
			return errReadCloser{err}
		}
		return d.IOReadCloser()
	})
}

type errReadCloser struct{ err error }

func (e errReadCloser) Read([]byte) (int, error) { return 0, e.err }
func (e errReadCloser) Close() error             { return nil }

// zipMethodName names a zip compression method for messages.
func zipMethodName(m uint16) string {
	switch m {
	case zip.Store:
		return "stored"
	case zip.Deflate:
		return "deflate"
	case zipMethodZstd:
		return "zstd"
	}
	return fmt.Sprintf("method %d", m)
}

// readZipEntry reads one archive member whole, within the limits above.
// The error says which limit was hit.
func readZipEntry(f *zip.File) ([]byte, error) {
	declared := f.UncompressedSize64
	if declared > inspectEntryCap {
		return nil, fmt.Errorf("member declares %d bytes inflated (%s), over the %d MiB limit for one member: refused without inflating it (a zip bomb, or a sample too large to read)",
			declared, zipMethodName(f.Method), inspectEntryCap>>20)
	}
	switch f.Method {
	case zip.Store, zip.Deflate, zipMethodZstd:
	default:
		return nil, fmt.Errorf("unsupported zip compression %s (want stored, deflate or zstd)", zipMethodName(f.Method))
	}
	n := int64(declared)
	inflateBudget.acquire(n)
	defer inflateBudget.release(n)
	rc, err := f.Open()
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	// The buffer starts at the declared size when the compression ratio
	// that implies is plausible (at most 32:1, or 1 MiB), else smaller, and
	// grows (doubling, never past the declared size) as bytes arrive: a
	// small archive that declares a large member costs no large buffer.
	start := declared
	if c := f.CompressedSize64; c < declared/32 {
		start = min(declared, max(32*c, 1<<20))
	}
	buf := make([]byte, 0, start)
	for {
		if len(buf) == cap(buf) {
			if uint64(len(buf)) >= declared {
				break
			}
			buf = slices.Grow(buf, int(min(declared, 2*uint64(cap(buf))+1)-uint64(len(buf))))
		}
		k, err := rc.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+k]
		if err == io.EOF {
			break
		}
		if errors.Is(err, io.ErrUnexpectedEOF) {
			break // it ends short of its declared size: said below
		}
		if err != nil {
			return nil, zipReadErr(err, declared)
		}
	}
	if uint64(len(buf)) < declared {
		return nil, fmt.Errorf("member inflates to fewer bytes than the %d it declares (a truncated or corrupt archive)", declared)
	}
	// The member must end here: archive/zip checks the CRC at EOF, and
	// reports ErrFormat for a member that inflates past its declared size.
	var one [1]byte
	switch k, err := rc.Read(one[:]); {
	case k > 0:
		return nil, zipReadErr(zip.ErrFormat, declared)
	case err == io.EOF:
	case err != nil:
		return nil, zipReadErr(err, declared)
	default:
		// Read returned 0, nil: read once more for EOF.
		if k, err := io.ReadFull(rc, one[:]); k > 0 || (err != io.EOF && err != io.ErrUnexpectedEOF) {
			return nil, zipReadErr(zip.ErrFormat, declared)
		}
	}
	return buf, nil
}

func zipReadErr(err error, declared uint64) error {
	if errors.Is(err, zip.ErrFormat) {
		return fmt.Errorf("member inflates to more than the %d bytes it declares: refused (a zip bomb, or a corrupt archive)", declared)
	}
	if errors.Is(err, zip.ErrChecksum) {
		return errors.New("member fails its CRC-32 check (a corrupt archive)")
	}
	return err
}
