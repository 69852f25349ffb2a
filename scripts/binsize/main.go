// Command binsize prints what makes an askonce binary large: the size of
// its symbols summed by Go module, from an unstripped ELF build.
//
//	CGO_ENABLED=0 go build -trimpath -o /tmp/askonce ./cmd/askonce
//	go run ./scripts/binsize /tmp/askonce
//
// Each symbol (code, read-only data, data, type descriptors) counts for
// the module whose package it names; the function table (.gopclntab) is
// shared out in proportion to each module's code. Bytes of the loaded
// sections no sized symbol covers are shown as one line; the symbol and
// debug sections a release build strips are not counted. docs/deploy.md
// records the output for a release.
package main

import (
	"cmp"
	"debug/buildinfo"
	"debug/elf"
	"fmt"
	"os"
	"slices"
	"strings"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: go run ./scripts/binsize BINARY  (an unstripped ELF Go binary)")
		os.Exit(2)
	}
	if err := run(os.Args[1]); err != nil {
		fmt.Fprintln(os.Stderr, "binsize:", err)
		os.Exit(1)
	}
}

type share struct {
	module     string
	text, data int64
}

func run(path string) error {
	bi, err := buildinfo.ReadFile(path)
	if err != nil {
		return err
	}
	modules := []string{bi.Main.Path}
	for _, d := range bi.Deps {
		modules = append(modules, d.Path)
	}
	// Longest first, so that a nested module wins over its parent.
	slices.SortFunc(modules, func(a, b string) int { return cmp.Compare(len(b), len(a)) })
	f, err := elf.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	syms, err := f.Symbols()
	if err != nil {
		return fmt.Errorf("%s: %w (binsize needs a build without -ldflags -s)", path, err)
	}
	text := f.Section(".text")
	byModule := map[string]*share{}
	var textTotal int64
	for _, s := range syms {
		// Zero-filled sections (.bss) take no room in the file.
		if s.Size == 0 || int(s.Section) >= len(f.Sections) || s.Section == elf.SHN_UNDEF || f.Sections[s.Section].Type == elf.SHT_NOBITS {
			continue
		}
		m := moduleOf(pkgOf(s.Name), modules)
		sh := byModule[m]
		if sh == nil {
			sh = &share{module: m}
			byModule[m] = sh
		}
		if text != nil && f.Sections[s.Section] == text {
			sh.text += int64(s.Size)
			textTotal += int64(s.Size)
		} else {
			sh.data += int64(s.Size)
		}
	}
	var pcln int64
	if s := f.Section(".gopclntab"); s != nil {
		pcln = int64(s.Size)
	}
	list := make([]*share, 0, len(byModule))
	var total int64
	for _, sh := range byModule {
		list = append(list, sh)
	}
	size := func(sh *share) int64 {
		if textTotal == 0 {
			return sh.text + sh.data
		}
		return sh.text + sh.data + pcln*sh.text/textTotal
	}
	slices.SortFunc(list, func(a, b *share) int { return cmp.Compare(size(b), size(a)) })
	st, err := os.Stat(path)
	if err != nil {
		return err
	}
	fmt.Printf("%-58s %8s %8s %8s\n", "module", "MB", "code", "data")
	for _, sh := range list {
		total += size(sh)
		if size(sh) < 100_000 {
			continue
		}
		fmt.Printf("%-58s %8.2f %8.2f %8.2f\n", sh.module, mb(size(sh)), mb(sh.text), mb(sh.data))
	}
	var loaded int64
	for _, sec := range f.Sections {
		if sec.Flags&elf.SHF_ALLOC != 0 && sec.Type != elf.SHT_NOBITS {
			loaded += int64(sec.Size)
		}
	}
	fmt.Printf("%-58s %8.2f\n", "(modules under 0.1 MB)", mb(total-sumBig(list, size)))
	fmt.Printf("%-58s %8.2f\n", "(no symbol: merged strings, unsized data, padding)", mb(loaded-total))
	fmt.Printf("%-58s %8.2f  (of %.2f MB on disk; the rest is the symbols and debug info -s -w strip)\n", "loaded sections", mb(loaded), mb(st.Size()))
	return nil
}

func sumBig(list []*share, size func(*share) int64) int64 {
	var n int64
	for _, sh := range list {
		if size(sh) >= 100_000 {
			n += size(sh)
		}
	}
	return n
}

func mb(n int64) float64 { return float64(n) / 1e6 }

// pkgOf is the import path of the package a linker symbol belongs to:
// "type:*github.com/a/b.T" and "github.com/a/b.(*T).M[...]" are
// github.com/a/b; runtime-wide symbols (go:string.*, go:func.*) are "".
func pkgOf(name string) string {
	name = strings.TrimPrefix(name, "type:")
	name = strings.TrimPrefix(name, "go:itab.")
	name = strings.TrimPrefix(name, ".eq.") // generated equality functions
	name = strings.TrimLeft(name, "*")
	if strings.HasPrefix(name, "go:") || strings.HasPrefix(name, "runtime.") {
		if strings.HasPrefix(name, "runtime.") {
			return "runtime"
		}
		return ""
	}
	if i := strings.IndexAny(name, "[,("); i >= 0 {
		name = name[:i]
	}
	slash := strings.LastIndex(name, "/")
	dot := strings.Index(name[slash+1:], ".")
	if dot < 0 {
		return name
	}
	return name[:slash+1+dot]
}

// moduleOf is the module of a package path (modules sorted longest
// first), "std" for the standard library and "(runtime data)" for
// symbols of no package.
func moduleOf(pkg string, modules []string) string {
	if pkg == "" {
		return "(runtime data: strings, func values)"
	}
	for _, m := range modules {
		if pkg == m || strings.HasPrefix(pkg, m+"/") {
			return m
		}
	}
	if first, _, _ := strings.Cut(pkg, "/"); !strings.Contains(first, ".") {
		return "std"
	}
	return pkg + " (no module)"
}
