//go:build !linux

package sandbox

import (
	"errors"
	"os"
)

// envFile fails: Plan never wraps a command in the helper but on Linux.
func envFile([]string) (*os.File, error) {
	return nil, errors.New("the sandbox helper is Linux only")
}

// readEnv fails: the helper is Linux only.
func readEnv(int) ([]string, error) {
	return nil, errors.New("the sandbox helper is Linux only")
}
