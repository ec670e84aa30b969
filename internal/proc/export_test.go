package proc

// Drain and its delays, for the tests of package proc_test.
var Drain = drain

const (
	MaxDrain  = maxDrain
	DrainPoll = drainPoll
)

// CloexecListed is the fallback of CloseInheritedOnExec, for kernels
// without close_range's CLOSE_RANGE_CLOEXEC.
var CloexecListed = cloexecListed
