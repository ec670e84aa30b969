// Package jsonpos finds where a value is in a JSON document, for errors
// that point at it (file:line:col).
package jsonpos

import (
	"bytes"
	"strconv"
	"strings"

	"github.com/go-json-experiment/json/jsontext"
)

// Offset is the offset in data of the value at path: member names
// and list indexes joined by dots, as json's errors say them
// ("scenarios.0.status"; "" for the document). Names match as Unmarshal
// matches them, case aside; false when data has no value there (a name
// with a dot in it cannot be told apart from a path).
func Offset(data []byte, path string) (int64, bool) {
	dec := jsontext.NewDecoder(bytes.NewReader(data), jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true))
	var steps []string
	if path != "" {
		steps = strings.Split(path, ".")
	}
	for _, step := range steps {
		var found bool
		switch dec.PeekKind() {
		case '{':
			found = enterMember(dec, step)
		case '[':
			found = enterElement(dec, step)
		}
		if !found {
			return 0, false
		}
	}
	if dec.PeekKind() == 0 {
		return 0, false
	}
	return valueStart(data, dec.InputOffset()), true
}

// enterMember reads an object up to the value of its member name, the
// next token; false when it has none.
func enterMember(dec *jsontext.Decoder, name string) bool {
	if _, err := dec.ReadToken(); err != nil {
		return false
	}
	for dec.PeekKind() == '"' {
		tok, err := dec.ReadToken()
		if err != nil {
			return false
		}
		if strings.EqualFold(tok.String(), name) {
			return true
		}
		if dec.SkipValue() != nil {
			return false
		}
	}
	return false
}

// enterElement reads a list up to its element at index, the next token;
// false when it has none.
func enterElement(dec *jsontext.Decoder, index string) bool {
	n, err := strconv.Atoi(index)
	if err != nil || n < 0 {
		return false
	}
	if _, err := dec.ReadToken(); err != nil {
		return false
	}
	for range n {
		if dec.PeekKind() == ']' || dec.SkipValue() != nil {
			return false
		}
	}
	k := dec.PeekKind()
	return k != ']' && k != 0
}

// valueStart is the offset of the value that follows offset off in
// data, past white space and the colon or comma before it.
func valueStart(data []byte, off int64) int64 {
	for off < int64(len(data)) && strings.IndexByte(" \t\r\n:,", data[off]) >= 0 {
		off++
	}
	return off
}
