package main

import (
	"os"
	"path/filepath"
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
	if _, err := (configFlag{Config: dir}).config(); err == nil || err.Error() != "--config "+dir+": is a directory" {
		t.Errorf("--config DIR: error %v, want it to name --config", err)
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
