package main

import (
	"fmt"
	"io"
	"time"

	"github.com/alecthomas/kong"
)

// duration is a flag value in Go duration syntax (90s, 5m, 1h30m).
type duration struct{ d time.Duration }

// Decode implements kong.MapperValue.
func (d *duration) Decode(ctx *kong.DecodeContext) error {
	var s string
	if err := ctx.Scan.PopValueInto("duration", &s); err != nil {
		return err
	}
	v, err := time.ParseDuration(s)
	if err != nil || v <= 0 {
		return fmt.Errorf("%q is not a positive duration; use Go syntax like 90s, 5m or 1h30m", s)
	}
	d.d = v
	return nil
}

// readAll reads r to the end, up to 64 MiB.
func readAll(r io.Reader) ([]byte, error) {
	return io.ReadAll(io.LimitReader(r, 64<<20))
}
