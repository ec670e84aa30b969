//go:build !linux

package proc

// Exiting reports whether the leader has exited; whether it has begun to
// is not known here.
func (p *Process) Exiting() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.gone
}
