package report

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"reflect"
	"time"

	json "github.com/go-json-experiment/json/v1"

	"github.com/acprun/acprun/internal/inputfile"
	"github.com/acprun/acprun/internal/jsonpos"
	"github.com/acprun/acprun/internal/srcerr"
)

// readFile reads the results file path: the one way merge, report, run
// --rerun-failed and run --balance-from read one (see Read). Its errors
// name the file: an *inputfile.Error when it cannot be read, else an
// *srcerr.Error at the value that is wrong ("r.json:2:22: not acprun
// results: scenarios.0.name: want a string, got number"), or about the
// whole file when no value is ("r.json: empty file, not acprun results").
// It reads a file of any size: acprun writes one as large as the text its
// agents sent.
func readFile(path string) (Results, error) {
	data, err := inputfile.Read(path, -1)
	if err != nil {
		return Results{}, err
	}
	data = trimBOM(data)
	res, derr := decode(data)
	if derr != nil {
		if off := derr.offset(data); off >= 0 {
			return Results{}, srcerr.AtOffset(path, data, int(off), derr.msg)
		}
		return Results{}, &srcerr.Error{File: path, Msg: derr.msg}
	}
	return res, nil
}

// Read decodes a results document written by acprun run or acprun
// merge. Its schemaVersion must be 1 to SchemaVersion; an older one is
// read as the current version says it (see upgradeV1; version 2 has no
// status invalid, and says everything else as version 3 does). The Duration
// fields, which JSON leaves out, are set from the durationMs fields, so the
// results print as the run's did.
//
// A document acprun did not write is an error that says what is wrong
// in the document's terms, by its path in it ("scenarios.0.status"): not
// JSON, a value of the wrong type, a scenario's result that is null,
// lacks its name, status, file or line (which acprun writes for every
// one, and merge and --rerun-failed key results on) or has one null, has
// an empty name or a status acprun does not write in that schemaVersion,
// or a null turn (see checkResults). Read's errors do not say where in
// the file; the readers of a file (merge, report, --rerun-failed,
// --balance-from) do.
func Read(r io.Reader) (Results, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return Results{}, err
	}
	res, derr := decode(trimBOM(data))
	if derr != nil {
		return Results{}, derr
	}
	return res, nil
}

// trimBOM drops the UTF-8 byte order mark an editor may put before a
// document: it is no part of the JSON, nor of line 1's columns.
func trimBOM(data []byte) []byte { return bytes.TrimPrefix(data, []byte("\ufeff")) }

// decode is Read of data, its errors saying where (see dataError).
func decode(data []byte) (Results, *dataError) {
	if len(bytes.TrimSpace(data)) == 0 {
		return Results{}, wholeError("empty file, not acprun results")
	}
	if bytes.HasPrefix(data, []byte{0xff, 0xfe}) || bytes.HasPrefix(data, []byte{0xfe, 0xff}) {
		// A UTF-16 byte order mark: json would say "invalid character '\xff'".
		return Results{}, wholeError("the file is UTF-16 (as PowerShell's > writes it), not UTF-8: save it as UTF-8, or have acprun write it (-o FILE)")
	}
	var res Results
	if err := json.Unmarshal(data, &res); err != nil {
		return Results{}, unmarshalError(err)
	}
	switch v := res.SchemaVersion; {
	case v == 0:
		return Results{}, wholeError("not acprun results: no schemaVersion")
	case v < 0:
		return Results{}, valueError("schemaVersion", fmt.Sprintf("not acprun results: schemaVersion %d: acprun writes 1 to %d", v, SchemaVersion))
	case v > SchemaVersion:
		return Results{}, valueError("schemaVersion", fmt.Sprintf("schemaVersion %d is not supported (want 1 to %d): a newer acprun wrote it; read it with that version", v, SchemaVersion))
	}
	if res.StartedAt != "" {
		if _, err := time.Parse(time.RFC3339Nano, res.StartedAt); err != nil {
			return Results{}, valueError("startedAt", fmt.Sprintf("not acprun results: startedAt: %q is not a time (RFC 3339, as 2026-03-14T09:26:53.589Z)", res.StartedAt))
		}
	}
	if derr := checkResults(data, res); derr != nil {
		return Results{}, derr
	}
	for i := range res.Scenarios {
		sc := &res.Scenarios[i]
		sc.Duration = time.Duration(sc.DurationMs) * time.Millisecond
		for j := range sc.Turns {
			t := &sc.Turns[j]
			t.Duration = time.Duration(t.DurationMs) * time.Millisecond
		}
	}
	if res.SchemaVersion == 1 {
		upgradeV1(&res)
	}
	res.SchemaVersion = SchemaVersion
	return res, nil
}

// dataError is what is wrong with a results document: msg, about the
// value at path (json's dotted form, "scenarios.0.status"; "" for the
// document) when byPath, else about byte offset off (-1: the whole
// document).
type dataError struct {
	msg    string
	path   string
	byPath bool
	off    int64 // with byPath, where json said the error was: taken when path is not found
	err    error // json's error, when it is one
}

func (e *dataError) Error() string { return e.msg }

func (e *dataError) Unwrap() error { return e.err }

// wholeError is msg about the whole document.
func wholeError(msg string) *dataError { return &dataError{msg: msg, off: -1} }

// valueError is msg about the value at path.
func valueError(path, msg string) *dataError {
	return &dataError{msg: msg, path: path, byPath: true, off: -1}
}

// unmarshalError is json's error err said in the document's terms: a
// syntax error at the byte json stopped at, a type error at the value
// of the wrong type (see typeError), and the error of a value's own
// decoding (ByK's), which says where, as it is.
func unmarshalError(err error) *dataError {
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	var derr *dataError
	switch {
	case errors.As(err, &derr):
		return derr
	case errors.As(err, &typ):
		return &dataError{msg: "not acprun results: " + typeError{typ}.Error(), path: typ.Field, byPath: true, off: typ.Offset, err: typeError{typ}}
	case errors.As(err, &syn):
		// Offset is after the byte that is wrong (the last one when the
		// document ends too early): point at that byte.
		return &dataError{msg: "not acprun results: " + syn.Error(), off: max(syn.Offset-1, 0), err: err}
	}
	return &dataError{msg: "not acprun results: " + err.Error(), off: -1, err: err}
}

// offset is the byte offset in data that e is about, -1 for none.
func (e *dataError) offset(data []byte) int64 {
	if e.byPath {
		if off, ok := jsonpos.Offset(data, e.path); ok {
			return off
		}
	}
	return e.off
}

// typeError is a value of the wrong JSON type in a results file, said in
// the file's terms (where, what was wanted, what was found) rather than in
// Go's; it wraps json's error, whose Offset says where.
type typeError struct{ err *json.UnmarshalTypeError }

func (e typeError) Error() string {
	where := e.err.Field
	if where == "" {
		where = "the file"
	}
	return fmt.Sprintf("%s: want %s, got %s", where, jsonKind(e.err.Type), e.err.Value)
}

func (e typeError) Unwrap() error { return e.err }

// jsonKind names the JSON value a Go type of the results reads: "a whole
// number", "a string", "a list".
func jsonKind(t reflect.Type) string {
	for t != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t == nil {
		return "a value"
	}
	switch t.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "a whole number"
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "true or false"
	case reflect.Slice, reflect.Array:
		return "a list"
	case reflect.Struct, reflect.Map:
		return "an object"
	}
	return "a value"
}
