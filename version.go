package main

import (
	"runtime/debug"
	"strings"
	"sync"
	"time"
)

// version, when set at build time with -ldflags "-X main.version=…", is
// the version acprun reports instead of the module version of the build
// info.
var version string

// acprunVersion is acprun's version as --version prints it after "acprun "
// and as initialize sends it in clientInfo.version: the module version and,
// when the build recorded them, the commit (+dirty when the tree had
// changes) and its date, e.g. "v0.3.1 (abc1234, 2026-12-01)" or
// "(devel) (abc1234+dirty, 2026-12-03)".
var acprunVersion = sync.OnceValue(func() string {
	info, _ := debug.ReadBuildInfo()
	return describeVersion(version, info)
})

// describeVersion is the version string of a build: ldVersion when it is
// set, else info's main module version (without the +dirty the commit
// shows), else "(devel)"; then the VCS commit and date info holds, if
// any. info may be nil.
func describeVersion(ldVersion string, info *debug.BuildInfo) string {
	v := ldVersion
	if v == "" && info != nil {
		v = strings.TrimSuffix(info.Main.Version, "+dirty")
	}
	if v == "" {
		v = "(devel)"
	}
	if info == nil {
		return v
	}
	var rev, date string
	dirty := false
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			dirty = s.Value == "true"
		case "vcs.time":
			if t, err := time.Parse(time.RFC3339, s.Value); err == nil {
				date = t.UTC().Format(time.DateOnly)
			}
		}
	}
	var parts []string
	if rev != "" {
		if len(rev) > 7 {
			rev = rev[:7]
		}
		if dirty {
			rev += "+dirty"
		}
		parts = append(parts, rev)
	}
	if date != "" {
		parts = append(parts, date)
	}
	if len(parts) == 0 {
		return v
	}
	return v + " (" + strings.Join(parts, ", ") + ")"
}
