package main

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// TestConfigFlagUnreadable: a --config file that cannot be read is an
// error that names the flag and the file once, not an error of a file
// acprun found itself; one that can be read is loaded.
func TestConfigFlagUnreadable(t *testing.T) {
	dir := t.TempDir()
	missing := filepath.Join(dir, "nope.yaml")
	if _, err := (configFlag{Config: missing}).config(); err == nil || err.Error() != "--config "+missing+": no such file or directory" {
		t.Errorf("missing --config: error %v, want it to name --config", err)
	}
	if _, err := (configFlag{Config: dir}).config(); err == nil || err.Error() != "--config "+dir+": not a regular file (a directory): give a file" {
		t.Errorf("--config DIR: error %v, want it to name --config", err)
	}
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := (configFlag{Config: fifo}).config(); err == nil || err.Error() != "--config "+fifo+": not a regular file (a FIFO): give a file" {
		t.Errorf("--config FIFO: error %v, want it refused at once", err)
	}
	file := filepath.Join(dir, "c.yaml")
	if err := os.WriteFile(file, []byte("agents: {mine: {command: [x]}}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg, err := (configFlag{Config: file}).config()
	if err != nil || cfg == nil || cfg.File != file {
		t.Errorf("--config %s: %+v, %v; want it loaded", file, cfg, err)
	}
}
