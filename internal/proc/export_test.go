package proc

// Drain and its delays, for the tests of package proc_test.
var Drain = drain

const (
	MaxDrain  = maxDrain
	DrainPoll = drainPoll
)
