package progress

// Flush waits until every event so far is written.
func (e *Events) Flush() { e.q.Flush() }

// MaxHeld is how many bytes of -v lines wait for a slow writer.
const MaxHeld = maxHeld
