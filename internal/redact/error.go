package redact

// Error returns err with its text redacted (see String); it unwraps to
// err, so that errors.Is and errors.As still see through it. A nil err
// stays nil.
func (r *Redactor) Error(err error) error {
	if err == nil {
		return nil
	}
	return &redactedError{msg: r.String(err.Error()), err: err}
}

// redactedError is an error whose text is redacted.
type redactedError struct {
	msg string
	err error
}

func (e *redactedError) Error() string { return e.msg }
func (e *redactedError) Unwrap() error { return e.err }
