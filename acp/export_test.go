package acp

import "reflect"

// Unsigned is unsigned, for the schema tests: the members the schema
// bounds at minimum 0, by type.
func Unsigned(t reflect.Type) map[string]bool { return unsigned[t] }

// UnsignedTypes are the types that have unsigned members.
func UnsignedTypes() []reflect.Type {
	var out []reflect.Type
	for t := range unsigned {
		out = append(out, t)
	}
	return out
}
