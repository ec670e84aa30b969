//go:build !race

package raceexit

// Enabled reports whether the binary was built with -race.
const Enabled = false
