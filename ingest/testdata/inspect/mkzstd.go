//go:build ignore

// mkzstd repacks an Inspect .eval log with every member compressed as
// Inspect 0.3.206 and later write them: zip method 93 (Zstandard). Each
// member is cut into zstd frames of at most -frame bytes of input, as
// Inspect cuts a member into frames of at most 200 MiB (small frames here,
// so that a small fixture still has several). The members' names, order,
// times and bytes are kept: only the compression changes.
//
//	go run mkzstd.go -frame 4096 IN.eval OUT.eval
package main

import (
	"archive/zip"
	"bytes"
	"flag"
	"io"
	"log"
	"os"

	"github.com/klauspost/compress/zstd"
)

func main() {
	frame := flag.Int("frame", 4096, "most input bytes per zstd frame")
	flag.Parse()
	if flag.NArg() != 2 {
		log.Fatal("usage: go run mkzstd.go [-frame N] IN.eval OUT.eval")
	}
	zr, err := zip.OpenReader(flag.Arg(0))
	if err != nil {
		log.Fatal(err)
	}
	defer zr.Close()
	var out bytes.Buffer
	zw := zip.NewWriter(&out)
	enc, err := zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.SpeedDefault), zstd.WithEncoderConcurrency(1))
	if err != nil {
		log.Fatal(err)
	}
	for _, f := range zr.File {
		rc, err := f.Open()
		if err != nil {
			log.Fatal(err)
		}
		data, err := io.ReadAll(rc)
		rc.Close()
		if err != nil {
			log.Fatal(err)
		}
		var comp []byte
		for off := 0; off < len(data) || off == 0; off += *frame {
			comp = enc.EncodeAll(data[off:min(off+*frame, len(data))], comp)
			if len(data) == 0 {
				break
			}
		}
		hdr := &zip.FileHeader{
			Name:               f.Name,
			Method:             93,
			Modified:           f.Modified,
			CRC32:              f.CRC32,
			CompressedSize64:   uint64(len(comp)),
			UncompressedSize64: uint64(len(data)),
		}
		w, err := zw.CreateRaw(hdr)
		if err != nil {
			log.Fatal(err)
		}
		if _, err := w.Write(comp); err != nil {
			log.Fatal(err)
		}
	}
	if err := zw.Close(); err != nil {
		log.Fatal(err)
	}
	if err := os.WriteFile(flag.Arg(1), out.Bytes(), 0o644); err != nil {
		log.Fatal(err)
	}
}
