package ingest

import (
	"bufio"
	"bytes"
	"compress/flate"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"io/fs"
	"os"
)

// maxLine bounds one input line (or CSV record). Lines of tens of MB (a
// model transcript in a message field) are read whole; beyond this the
// file is rejected rather than exhausting memory. A line longer than the
// read buffer costs about 2 bytes of allocation per byte (longLine), and
// a CSV field in it none more unless it has doubled quotes (csvline): the
// peak RSS of `rdeval ingest` of a 100 MB field is 2.4 (CSV) to 3.4 (JSON
// Lines, whose file is also mapped) bytes per input byte
// (docs/performance.md, "Memory of long lines").
const maxLine = 256 << 20

// source is one opened input: decompressed if gzip, BOM removed, with the
// SHA-256 of the raw bytes computed as they are read.
type source struct {
	path    string
	file    *os.File
	closer  io.Closer // for sources not backed by an *os.File
	size    int64     // raw size in bytes when known, else -1
	raw     io.Reader // counts and hashes the raw bytes
	sum     hash.Hash
	nraw    int64
	gz      *gzip.Reader
	br      *bufio.Reader
	hadBOM  bool
	isGzip  bool
	line    int  // lines returned so far
	lastNL  bool // whether the last line returned ended with '\n'
	scratch []byte
	// inScratch says the last line readLine returned is in scratch (a
	// line longer than the read buffer), where it stays until the next
	// readLine; other lines are in the read buffer, which peek may move.
	inScratch bool
	mapped    []byte // the file mapped into memory (mapRest), unmapped by Close
}

type countingHash struct {
	r io.Reader
	s *source
}

func (c countingHash) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	if n > 0 {
		c.s.sum.Write(p[:n])
		c.s.nraw += int64(n)
	}
	return n, err
}

// openSource opens path, sniffs gzip and strips a UTF-8 byte-order mark.
func openSource(path string) (*source, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	return newSource(path, f, f)
}

func newSource(path string, r io.Reader, f *os.File) (*source, error) {
	s := &source{path: path, file: f, sum: sha256.New(), size: -1}
	if st, ok := r.(interface{ Stat() (fs.FileInfo, error) }); ok {
		if fi, err := st.Stat(); err == nil && fi.Mode().IsRegular() {
			s.size = fi.Size()
		}
	}
	s.raw = countingHash{r: r, s: s}
	rb := bufio.NewReaderSize(s.raw, readBufBytes(s.size))
	if magic, _ := rb.Peek(2); len(magic) == 2 && magic[0] == 0x1f && magic[1] == 0x8b {
		gz, err := gzip.NewReader(rb)
		if err != nil {
			s.Close()
			return nil, &Error{File: path, Msg: "gzip header: " + err.Error()}
		}
		s.gz, s.isGzip = gz, true
		s.br = bufio.NewReaderSize(gz, 1<<16)
	} else {
		s.br = rb
	}
	if bom, _ := s.br.Peek(3); bytes.Equal(bom, []byte{0xEF, 0xBB, 0xBF}) {
		s.br.Discard(3)
		s.hadBOM = true
	}
	return s, nil
}

// readBufBytes is the read buffer for a file of size bytes (-1: unknown):
// 1 MiB for large files, where 64 KiB reads cost about a thousand system
// calls for METR ×20 (65 MB), and 64 KiB otherwise, since each source's
// buffer is fresh memory and ingest may open thousands of small files.
func readBufBytes(size int64) int {
	if size >= 4<<20 {
		return 1 << 20
	}
	return 1 << 16
}

// Close closes the underlying file (and unmaps it).
func (s *source) Close() error {
	if s.mapped != nil {
		// Nothing read keeps a slice of the mapping (the parse copies the
		// strings it keeps), so it is unmapped while Load goes on: tearing
		// down METR ×100's 325 MB took 15 ms of one core (strace).
		go unmapFile(s.mapped)
		s.mapped = nil
	}
	if s.file != nil {
		return s.file.Close()
	}
	if s.closer != nil {
		return s.closer.Close()
	}
	return nil
}

// peek returns up to n bytes of decompressed content without consuming them.
func (s *source) peek(n int) []byte {
	b, _ := s.br.Peek(n)
	return b
}

// readLine returns the next line without its "\n" or "\r\n". The slice is
// valid until the next call. At the end of input it returns io.EOF; a read
// failure (e.g. a truncated gzip stream) is returned as an *Error.
func (s *source) readLine() ([]byte, error) {
	b, err := s.br.ReadSlice('\n')
	s.inScratch = false
	if err == bufio.ErrBufferFull {
		if b, err = s.longLine(b); b == nil {
			return nil, err
		}
		s.inScratch = true
	}
	if err != nil && err != io.EOF {
		return nil, s.readErr(err)
	}
	if len(b) == 0 && err == io.EOF {
		return nil, io.EOF
	}
	s.line++
	s.lastNL = len(b) > 0 && b[len(b)-1] == '\n'
	if s.lastNL {
		b = b[:len(b)-1]
	}
	if len(b) > 0 && b[len(b)-1] == '\r' {
		b = b[:len(b)-1]
	}
	return b, nil
}

// longLine reads the rest of a line longer than the read buffer, whose
// first part is b, into s.scratch and returns it with the error that ended
// it (nil and an *Error past maxLine). While the line fits in s.scratch
// (as long as the longest line before it) it is appended there; beyond
// that its parts are kept in blocks and copied once into a new s.scratch
// of the exact size. Growing one slice by append (1.25× a step at this
// size) allocated 5.3 bytes per byte of a 100 MB line, the blocks 2.
func (s *source) longLine(b []byte) ([]byte, error) {
	buf := append(s.scratch[:0], b...)
	var blocks [][]byte // when buf ran out of room: the full ones before it
	total := len(b)
	var err error = bufio.ErrBufferFull
	for err == bufio.ErrBufferFull {
		b, err = s.br.ReadSlice('\n')
		total += len(b)
		if total > maxLine {
			return nil, &Error{File: s.path, Line: s.line + 1, Msg: fmt.Sprintf("line longer than %d MiB", maxLine>>20)}
		}
		if len(buf)+len(b) > cap(buf) {
			blocks = append(blocks, buf)
			buf = make([]byte, 0, max(len(b), min(total, 16<<20)))
		}
		buf = append(buf, b...)
	}
	if blocks == nil {
		s.scratch = buf
		return buf, err
	}
	line := make([]byte, 0, total)
	for _, bl := range blocks {
		line = append(line, bl...)
	}
	s.scratch = append(line, buf...)
	return s.scratch, err
}

func (s *source) readErr(err error) error {
	if errors.Is(err, io.ErrUnexpectedEOF) && s.isGzip {
		return &Error{File: s.path, Line: s.line + 1, Msg: "truncated gzip stream (unexpected end of file); the file was cut short, so none of it is read: re-copy or re-compress it"}
	}
	if errors.Is(err, gzip.ErrChecksum) && s.isGzip {
		return &Error{File: s.path, Line: s.line + 1, Msg: "corrupt gzip stream: the CRC-32 or length in its trailer does not match the data (gzip: invalid checksum), so none of it is read: re-copy or re-compress it"}
	}
	var corrupt flate.CorruptInputError
	if errors.Is(err, gzip.ErrChecksum) || errors.Is(err, gzip.ErrHeader) || errors.As(err, &corrupt) {
		msg := "corrupt gzip stream: " + err.Error()
		if s.isGzip {
			msg += ", so none of it is read: re-copy or re-compress it"
		}
		return &Error{File: s.path, Line: s.line + 1, Msg: msg}
	}
	return &Error{File: s.path, Line: s.line + 1, Msg: err.Error()}
}

// finish drains what is left of the raw file (so the checksum covers all of
// it) and returns the hex SHA-256 and raw byte count. A mapped source has
// hashed its whole mapping (hashMapped) instead.
func (s *source) finish() (string, int64) {
	if s.mapped == nil {
		io.Copy(io.Discard, s.raw)
	}
	return hex.EncodeToString(s.sum.Sum(nil)), s.nraw
}

// mapMinBytes is the least file size read through a memory mapping
// (mapRest): the parallel readers' threshold, since only they map. METR's
// 3 MB all_runs.jsonl, mapped: `rdeval scoreatk --boot 0` 42.0 → 36.9 ms
// (medians of 32 alternating runs). A variable so that tests map small
// files.
var mapMinBytes int64 = 1 << 20

// mapRest maps a plain (not gzip) regular file of at least mapMinBytes,
// whose last line read (readLine) was last, and returns the file from the
// start of that line on; s.line then counts the lines before it. It
// returns nil when the file is not mapped (readLine then goes on as
// before). The caller splits the bytes into lines as readLine would, and
// hashes them with hashMapped: the bytes the buffered reader had read
// ahead are already hashed. The mapping holds the page cache's own pages,
// so reading it copies nothing and takes no fresh memory, where read(2)
// copies every byte into the reader's buffer and the reader copies each
// line into its chunk.
func (s *source) mapRest(last []byte) []byte {
	if s.file == nil || s.isGzip || s.size < mapMinBytes || s.size < s.nraw || !s.lastNL {
		return nil
	}
	next := s.nraw - int64(s.br.Buffered()) // just past last's newline
	m := mapFile(s.file, s.size)
	if m == nil {
		return nil
	}
	start := int64(bytes.LastIndexByte(m[:next-1], '\n') + 1)
	if s.hadBOM && start < 3 {
		start = 3
	}
	line := m[start : next-1]
	if n := len(line); n > 0 && line[n-1] == '\r' {
		line = line[:n-1]
	}
	if !bytes.Equal(line, last) {
		unmapFile(m) // not where the line was expected: read on as before
		return nil
	}
	s.mapped = m
	s.line--
	if afterMap != nil {
		afterMap(s.path)
	}
	return m[start:]
}

// afterMap, when set (by tests), is called with the path of each file
// mapRest maps, just after it is mapped.
var afterMap func(path string)

// hashMapped adds the mapped bytes from what is hashed so far up to offset
// end of the file (mapRest's bytes start at offset len(s.mapped)−len(rest)).
func (s *source) hashMapped(end int64) {
	if end > s.nraw {
		s.sum.Write(s.mapped[s.nraw:end])
		s.nraw = end
	}
}
