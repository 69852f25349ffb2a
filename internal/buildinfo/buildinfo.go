// Package buildinfo says which askonce this binary is. Release builds
// stamp Version with the linker:
//
//	go build -ldflags "-X github.com/askonce/askonce/internal/buildinfo.Version=v1.2.3" ./cmd/askonce
//
// Other builds report what the Go toolchain recorded: the module version
// of a `go install ...@v1.2.3`, else the VCS revision the binary was built
// from ("devel+1469574abcde", with "-dirty" for a modified tree).
package buildinfo

import (
	"runtime/debug"
	"sync"
)

// Version is set by release builds with -ldflags -X. Empty in other
// builds; read it through Get.
var Version string

var (
	once     sync.Once
	resolved string
)

// Get returns the version this binary reports everywhere: `askonce
// version`, /healthz, the MCP server info and the A2A Agent Card.
func Get() string {
	once.Do(func() {
		bi, _ := debug.ReadBuildInfo()
		resolved = resolve(Version, bi)
	})
	return resolved
}

// resolve picks the stamped version, else the module version, else the
// VCS revision, else "devel".
func resolve(stamped string, bi *debug.BuildInfo) string {
	if stamped != "" {
		return stamped
	}
	if bi == nil {
		return "devel"
	}
	if v := bi.Main.Version; v != "" && v != "(devel)" {
		return v
	}
	var rev string
	var dirty bool
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			dirty = s.Value == "true"
		}
	}
	if rev == "" {
		return "devel"
	}
	if len(rev) > 12 {
		rev = rev[:12]
	}
	if dirty {
		rev += "-dirty"
	}
	return "devel+" + rev
}
