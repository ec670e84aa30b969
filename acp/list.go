package acp

// List is a slice that ACP requires to be a JSON array: a nil List marshals
// as [] where a nil slice would be null. A []T is assignable to a List[T]
// and back, so fields of this type are set and read as plain slices; it
// unmarshals as a plain slice does (null gives nil).
type List[T any] []T

// MarshalJSON encodes l as a JSON array, [] when l is nil. It leaves < > &
// unescaped, so that the encoder it is part of decides, as for any other
// field.
func (l List[T]) MarshalJSON() ([]byte, error) {
	if l == nil {
		return []byte("[]"), nil
	}
	return unescaped([]T(l))
}
