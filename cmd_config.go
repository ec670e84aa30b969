package main

import (
	"errors"
	"io/fs"
	"os"

	"github.com/acprun/acprun/scenario"
)

// loadConfig loads the config file path, or when path is "" the config
// file (acprun.yaml) of the working directory when there is one. It
// returns nil, nil when there is no config: the built-in agents only and
// no defaults. Problems in the file are a scenario.Errors.
func loadConfig(path string) (*scenario.Config, error) {
	if path == "" {
		if _, err := os.Stat(scenario.ConfigFile); errors.Is(err, fs.ErrNotExist) {
			return nil, nil
		}
		path = scenario.ConfigFile
	}
	return scenario.LoadConfig(path, scenario.LoadOptions{})
}
