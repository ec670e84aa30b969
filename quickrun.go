package main

import (
	"reflect"
	"strconv"
	"strings"
)

// quickRun parses the command lines of `acprun run` that scripts, CI and
// cron jobs write most, scenario paths and a few flags (-q, -v, --no-text,
// and the output files and config), without kong, and reports false for
// every other line, which kong parses. kong builds its whole model of the
// command line, by reflection over every flag and help text, before it
// parses a word: a millisecond or more on the way to the first agent, as
// much as a short scenario's session takes.
//
// A line quickRun takes gives the runCLI that kong gives for it, field
// for field (TestQuickRunParsesAsKong): the defaults of the tags, then
// each flag. It takes only what it can parse the same way for certain:
// every argument is a path (a word not starting with "-") or one of
// quickFlags, each flag at most once; a flag's value is the next word, or
// for a long flag what follows "=", and is neither empty nor starts with
// "-" (so "-o -", stdout, goes to kong). Help, the version, every other
// flag and every error are kong's.
func quickRun(args []string) (*runCLI, bool) {
	if len(args) < 2 || args[0] != "run" {
		return nil, false
	}
	root := &runCLI{}
	if !setDefaults(reflect.ValueOf(root).Elem()) {
		return nil, false
	}
	set := map[any]bool{} // the fields set, each flag once
	c := &root.Run
	for i := 1; i < len(args); i++ {
		word := args[i]
		if !strings.HasPrefix(word, "-") {
			if word == "" {
				return nil, false
			}
			c.Paths = append(c.Paths, word)
			continue
		}
		name, value, hasValue := strings.Cut(word, "=")
		field := quickFlag(c, name)
		if field == nil || set[field] || hasValue && !strings.HasPrefix(name, "--") {
			return nil, false
		}
		set[field] = true
		switch f := field.(type) {
		case *bool:
			if hasValue {
				return nil, false
			}
			*f = true
		case *string:
			if !hasValue {
				if i+1 == len(args) {
					return nil, false
				}
				i++
				value = args[i]
			}
			if value == "" || strings.HasPrefix(value, "-") {
				return nil, false
			}
			*f = value
		}
	}
	if len(c.Paths) == 0 {
		return nil, false
	}
	return root, true
}

// quickFlag returns the field of c the flag named name sets, by every
// name kong knows it by (its long name, short name and aliases): a *bool
// for a flag without a value, a *string for one with; nil for a flag
// quickRun leaves to kong.
func quickFlag(c *runCmd, name string) any {
	if field, ok := quickFlags[name]; ok {
		return field(c)
	}
	return nil
}

// quickFlags are the flags quickRun parses, by name (see quickFlag).
var quickFlags = map[string]func(c *runCmd) any{
	"-q":            func(c *runCmd) any { return &c.Quiet },
	"--quiet":       func(c *runCmd) any { return &c.Quiet },
	"-v":            func(c *runCmd) any { return &c.Verbose },
	"--verbose":     func(c *runCmd) any { return &c.Verbose },
	"--no-text":     func(c *runCmd) any { return &c.NoText },
	"-o":            func(c *runCmd) any { return &c.JSON },
	"--output":      func(c *runCmd) any { return &c.JSON },
	"--json":        func(c *runCmd) any { return &c.JSON },
	"--junit":       func(c *runCmd) any { return &c.JUnit },
	"--html":        func(c *runCmd) any { return &c.HTML },
	"--events":      func(c *runCmd) any { return &c.Events },
	"--transcripts": func(c *runCmd) any { return &c.Transcripts },
	"--config":      func(c *runCmd) any { return &c.Config },
}

// setDefaults sets each field of the struct v (and of the structs it
// embeds) that has a default tag to that default, as kong does; false
// when a default is not a string, int or bool that kong would take as it
// is written, or a field may be set from the environment (an env tag).
func setDefaults(v reflect.Value) bool {
	for i := range v.NumField() {
		f, field := v.Type().Field(i), v.Field(i)
		if f.Tag.Get("kong") == "-" {
			continue
		}
		if _, isCmd := f.Tag.Lookup("cmd"); isCmd || f.Anonymous && f.Type.Kind() == reflect.Struct {
			if !setDefaults(field) {
				return false
			}
			continue
		}
		if _, ok := f.Tag.Lookup("env"); ok {
			return false // kong reads the flag from the environment too
		}
		def, ok := f.Tag.Lookup("default")
		if !ok {
			continue
		}
		if strings.Contains(def, "$") {
			return false // kong interpolates ${vars}
		}
		switch field.Kind() {
		case reflect.String:
			field.SetString(def)
		case reflect.Int:
			n, err := strconv.Atoi(def)
			if err != nil {
				return false
			}
			field.SetInt(int64(n))
		case reflect.Bool:
			b, err := strconv.ParseBool(def)
			if err != nil {
				return false
			}
			field.SetBool(b)
		default:
			return false
		}
	}
	return true
}
