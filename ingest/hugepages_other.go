//go:build !linux

package ingest

func adviseHugePages(b []byte) {}
