package sandbox

import (
	"errors"
	"fmt"
	"os"
	"strings"

	"golang.org/x/sys/unix"
)

// envFile returns a new file in memory (a memfd, sealed: no one can
// change it since) that holds env, each entry followed by a NUL, for the
// helper to read (see readEnv). It is closed on exec in acprun: only the
// process it is handed to gets it.
func envFile(env []string) (*os.File, error) {
	var b strings.Builder
	for _, kv := range env {
		if strings.IndexByte(kv, 0) >= 0 {
			name, _, _ := strings.Cut(kv, "=")
			return nil, fmt.Errorf("variable %q holds a NUL byte", name) // its value may be a secret
		}
		b.WriteString(kv)
		b.WriteByte(0)
	}
	fd, err := unix.MemfdCreate("acprun-env", unix.MFD_CLOEXEC|unix.MFD_ALLOW_SEALING)
	if err != nil {
		return nil, fmt.Errorf("memfd_create: %w", err)
	}
	f := os.NewFile(uintptr(fd), "acprun-env")
	if _, err := f.WriteString(b.String()); err != nil {
		f.Close()
		return nil, err
	}
	if _, err := unix.FcntlInt(f.Fd(), unix.F_ADD_SEALS, unix.F_SEAL_SEAL|unix.F_SEAL_SHRINK|unix.F_SEAL_GROW|unix.F_SEAL_WRITE); err != nil {
		f.Close()
		return nil, fmt.Errorf("seal: %w", err)
	}
	return f, nil
}

// readEnv reads the environment envFile wrote from descriptor fd, which
// must be such a file (sealed against writes), and closes it.
func readEnv(fd int) ([]string, error) {
	f := os.NewFile(uintptr(fd), "environment")
	defer f.Close()
	seals, err := unix.FcntlInt(uintptr(fd), unix.F_GET_SEALS, 0)
	switch {
	case errors.Is(err, unix.EINVAL):
		return nil, fmt.Errorf("descriptor %d is not the command's environment (not sealed)", fd)
	case err != nil:
		return nil, fmt.Errorf("descriptor %d is not the command's environment: %w", fd, err)
	case seals&unix.F_SEAL_WRITE == 0:
		return nil, fmt.Errorf("descriptor %d is not the command's environment (not sealed)", fd)
	}
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	b := make([]byte, fi.Size())
	if _, err := f.ReadAt(b, 0); err != nil {
		return nil, err
	}
	if len(b) == 0 {
		return []string{}, nil
	}
	if b[len(b)-1] != 0 {
		return nil, fmt.Errorf("descriptor %d: no NUL after its last entry", fd)
	}
	return strings.Split(string(b[:len(b)-1]), "\x00"), nil
}
