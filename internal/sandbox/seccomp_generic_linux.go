//go:build linux && (arm64 || riscv64 || loong64)

package sandbox

// legacyModeCalls is empty: these architectures have the "at" system
// calls only (see modeCalls).
var legacyModeCalls []modeCall
