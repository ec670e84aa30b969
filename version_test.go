package main

import (
	"runtime/debug"
	"testing"
)

// TestDescribeVersion checks the version string of builds with and
// without a tag, VCS information and -ldflags.
func TestDescribeVersion(t *testing.T) {
	vcs := func(mainVersion string, settings ...string) *debug.BuildInfo {
		info := &debug.BuildInfo{Main: debug.Module{Path: "github.com/acprun/acprun", Version: mainVersion}}
		for i := 0; i+1 < len(settings); i += 2 {
			info.Settings = append(info.Settings, debug.BuildSetting{Key: settings[i], Value: settings[i+1]})
		}
		return info
	}
	const rev = "abc1234def5678abc1234def5678abc1234def56"
	tests := []struct {
		name, ld string
		info     *debug.BuildInfo
		want     string
	}{
		{"tagged release", "", vcs("v0.3.1", "vcs.revision", rev, "vcs.time", "2026-12-01T10:00:00Z", "vcs.modified", "false"), "v0.3.1 (abc1234, 2026-12-01)"},
		{"dirty tree", "", vcs("v0.3.1+dirty", "vcs.revision", rev, "vcs.time", "2026-12-01T23:30:00-02:00", "vcs.modified", "true"), "v0.3.1 (abc1234+dirty, 2026-12-02)"},
		{"untagged", "", vcs("(devel)", "vcs.revision", rev, "vcs.modified", "true"), "(devel) (abc1234+dirty)"},
		{"go install module@version", "", vcs("v0.3.1"), "v0.3.1"},
		{"go run, no VCS", "", vcs("(devel)"), "(devel)"},
		{"no build info", "", nil, "(devel)"},
		{"empty main version", "", vcs(""), "(devel)"},
		{"-ldflags -X main.version", "1.2.3-rc1", vcs("(devel)", "vcs.revision", rev), "1.2.3-rc1 (abc1234)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := describeVersion(tt.ld, tt.info); got != tt.want {
				t.Errorf("describeVersion(%q, …) = %q, want %q", tt.ld, got, tt.want)
			}
		})
	}
}
