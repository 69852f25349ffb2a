package buildinfo

import (
	"runtime/debug"
	"testing"
)

func TestResolvePrefersTheStampThenTheModuleThenTheRevision(t *testing.T) {
	t.Parallel()
	rev := []debug.BuildSetting{{Key: "vcs.revision", Value: "1469574abcdef0123456789"}}
	dirty := append(rev, debug.BuildSetting{Key: "vcs.modified", Value: "true"})
	for _, tc := range []struct {
		name, stamped string
		bi            *debug.BuildInfo
		want          string
	}{
		{"stamped by a release build", "v1.2.3", &debug.BuildInfo{Main: debug.Module{Version: "v0.9.0"}}, "v1.2.3"},
		{"go install of a tagged module", "", &debug.BuildInfo{Main: debug.Module{Version: "v0.9.0"}, Settings: rev}, "v0.9.0"},
		{"a build in a clean checkout", "", &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: rev}, "devel+1469574abcde"},
		{"a build in a modified checkout", "", &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: dirty}, "devel+1469574abcde-dirty"},
		{"no VCS information", "", &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}}, "devel"},
		{"no build information", "", nil, "devel"},
	} {
		if got := resolve(tc.stamped, tc.bi); got != tc.want {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
}
