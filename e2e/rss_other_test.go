//go:build !linux

package e2e_test

import "os"

// maxRSS is 0: the peak resident memory is counted in other units
// elsewhere (bytes on macOS), and the tests that check it need Linux's.
func maxRSS(*os.ProcessState) int64 { return 0 }
