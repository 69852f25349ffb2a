package main_test

import (
	"bufio"
	"crypto/sha256"
	"debug/elf"
	"debug/macho"
	"encoding/hex"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// releaseBuild is the output of scripts/release.sh that .ci/run makes
// (ASKONCE_TEST_RELEASE_DIR, with ASKONCE_TEST_RELEASE_VERSION its
// version). Outside CI, without them, the release tests skip: a
// -trimpath build takes minutes. In CI (CI set) they must be there.
func releaseBuild(t *testing.T) (dir, version string) {
	t.Helper()
	dir, version = os.Getenv("ASKONCE_TEST_RELEASE_DIR"), os.Getenv("ASKONCE_TEST_RELEASE_VERSION")
	if dir == "" || version == "" {
		if os.Getenv("CI") != "" {
			t.Fatal("ASKONCE_TEST_RELEASE_DIR and ASKONCE_TEST_RELEASE_VERSION are not set: .ci/run makes the release build (CI never skips)")
		}
		t.Skip("skipping: no release build; set ASKONCE_TEST_RELEASE_DIR and ASKONCE_TEST_RELEASE_VERSION to scripts/release.sh's -o and -v (.ci/run does)")
	}
	return dir, version
}

// releaseBinary is the path of one target's binary in the release build.
func releaseBinary(dir, version, goos, goarch string) string {
	return filepath.Join(dir, "askonce_"+version+"_"+goos+"_"+goarch)
}

// maxReleaseSize is the size docs/deploy.md promises for the stripped
// linux/amd64 release binary (37.2 MB when the promise was made).
const maxReleaseSize = 41_000_000

// The release build CI makes: every binary matches checksums.txt, the
// linux/amd64 one is static and stripped and reports the stamped
// version, and the darwin/arm64 one is a Mach-O for arm64.
func TestReleaseBinariesMatchTheirChecksumsAndReportTheStampedVersion(t *testing.T) {
	dir, version := releaseBuild(t)
	f, err := os.Open(filepath.Join(dir, "checksums.txt"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	listed := map[string]bool{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		sum, name, ok := strings.Cut(sc.Text(), "  ")
		if !ok {
			t.Fatalf("checksums.txt line %q is not `sha256  name`", sc.Text())
		}
		if got := sha256File(t, filepath.Join(dir, name)); got != sum {
			t.Errorf("%s: sha256 %s, checksums.txt says %s", name, got, sum)
		}
		listed[name] = true
	}
	linux := releaseBinary(dir, version, "linux", "amd64")
	darwin := releaseBinary(dir, version, "darwin", "arm64")
	for _, p := range []string{linux, darwin} {
		if !listed[filepath.Base(p)] {
			t.Errorf("checksums.txt does not list %s (lists %v)", filepath.Base(p), listed)
		}
	}

	out, err := exec.Command(linux, "version").Output()
	if err != nil {
		t.Fatalf("%s version: %v", linux, err)
	}
	if first, _, _ := strings.Cut(string(out), "\n"); first != "askonce "+version+" (github.com/askonce/askonce)" {
		t.Errorf("askonce version prints %q, want the stamped %s", first, version)
	}

	ef, err := elf.Open(linux)
	if err != nil {
		t.Fatal(err)
	}
	defer ef.Close()
	for _, p := range ef.Progs {
		if p.Type == elf.PT_INTERP {
			t.Errorf("%s has a dynamic loader: not static", linux)
		}
	}
	if ef.Section(".symtab") != nil || ef.Section(".debug_info") != nil {
		t.Errorf("%s has a symbol table or debug info: not stripped", linux)
	}
	st, err := os.Stat(linux)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%s: %d bytes (%.1f MB)", filepath.Base(linux), st.Size(), float64(st.Size())/1e6)
	if st.Size() > maxReleaseSize {
		t.Errorf("%s is %d bytes; docs/deploy.md promises at most %d", linux, st.Size(), maxReleaseSize)
	}

	mf, err := macho.Open(darwin)
	if err != nil {
		t.Fatalf("%s: %v", darwin, err)
	}
	defer mf.Close()
	if mf.Cpu != macho.CpuArm64 || mf.Type != macho.TypeExec {
		t.Errorf("%s: cpu %v type %v, want an arm64 executable", darwin, mf.Cpu, mf.Type)
	}
}

func sha256File(t *testing.T, path string) string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		t.Fatal(err)
	}
	return hex.EncodeToString(h.Sum(nil))
}
