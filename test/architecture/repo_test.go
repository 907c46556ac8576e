package architecture

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// maxTrackedBytes bounds a tracked file: sources, fixtures and lock files are far below it, and
// anything above is a build output or a data dump that belongs elsewhere.
const maxTrackedBytes = 5 << 20

// buildOutputDirs are directories, from the repository root, that only builds and runs fill;
// nothing in them is tracked. node_modules is refused at any depth.
var buildOutputDirs = []string{"bin", ".data", "contracts/build"}

// TestRepository_HoldsNoBuildOutputs keeps binaries, large files and build directories out of
// git: they bloat every clone for good, go stale against the source, and a committed executable
// is one nobody reviewed.
func TestRepository_HoldsNoBuildOutputs(t *testing.T) {
	root := filepath.Join("..", "..")
	out, err := exec.Command("git", "-C", root, "ls-files", "-z").Output()
	if err != nil {
		t.Skipf("not a git checkout (or no git): %v", err)
	}
	files := strings.Split(strings.TrimRight(string(out), "\x00"), "\x00")
	if len(files) < 50 {
		t.Fatalf("git ls-files listed %d files: is the test looking at the right tree?", len(files))
	}
	for _, name := range files {
		if why := trackedProblem(root, name); why != "" {
			t.Errorf("%s is tracked but %s; remove it (git rm --cached) and ignore it", name, why)
		}
	}
}

// trackedProblem says why a tracked file does not belong in the repository, or "".
func trackedProblem(root, name string) string {
	if dir := inBuildOutputDir(name); dir != "" {
		return "lies under " + dir + "/, which builds fill"
	}
	fi, err := os.Lstat(filepath.Join(root, name))
	if err != nil || !fi.Mode().IsRegular() {
		return "" // deleted in the working tree, or a symbolic link
	}
	if fi.Size() > maxTrackedBytes {
		return fmt.Sprintf("is %.1f MB (the limit is %d MB)", float64(fi.Size())/(1<<20), maxTrackedBytes>>20)
	}
	f, err := os.Open(filepath.Join(root, name))
	if err != nil {
		return ""
	}
	defer f.Close()
	head := make([]byte, 4096)
	n, err := io.ReadFull(f, head)
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, io.EOF) {
		return ""
	}
	if kind := executableKind(head[:n]); kind != "" {
		return "is an " + kind + " binary"
	}
	return ""
}

// inBuildOutputDir returns the build output directory a path lies in, at any depth ("" if none).
func inBuildOutputDir(name string) string {
	for _, dir := range buildOutputDirs {
		if strings.HasPrefix(name, dir+"/") {
			return dir
		}
	}
	if strings.Contains("/"+name, "/node_modules/") {
		return "node_modules"
	}
	return ""
}

// executableKind recognises compiled executables and libraries by their headers.
func executableKind(head []byte) string {
	switch {
	case bytes.HasPrefix(head, []byte("\x7fELF")):
		return "ELF"
	case len(head) >= 4 && isMachO(binary.BigEndian.Uint32(head)):
		return "Mach-O"
	case isPE(head):
		return "PE"
	}
	return ""
}

func isMachO(magic uint32) bool {
	switch magic {
	case 0xfeedface, 0xfeedfacf, 0xcefaedfe, 0xcffaedfe, 0xcafebabe, 0xbebafeca:
		return true
	}
	return false
}

// isPE checks the DOS stub's "MZ" and the "PE\0\0" signature it points to.
func isPE(head []byte) bool {
	if len(head) < 0x40 || !bytes.HasPrefix(head, []byte("MZ")) {
		return false
	}
	offset := int(binary.LittleEndian.Uint32(head[0x3c:]))
	return offset+4 <= len(head) && bytes.Equal(head[offset:offset+4], []byte("PE\x00\x00"))
}

func TestRepositoryCheck_Recognises(t *testing.T) {
	pe := make([]byte, 0x100)
	copy(pe, "MZ")
	binary.LittleEndian.PutUint32(pe[0x3c:], 0x80)
	copy(pe[0x80:], "PE\x00\x00")
	for name, head := range map[string][]byte{
		"ELF":         []byte("\x7fELF\x02\x01\x01\x00"),
		"Mach-O":      {0xcf, 0xfa, 0xed, 0xfe, 0x0c, 0x00, 0x00, 0x01},
		"Mach-O fat":  {0xca, 0xfe, 0xba, 0xbe, 0x00, 0x00, 0x00, 0x02},
		"PE":          pe,
		"source":      []byte("package main\n"),
		"MZ text":     []byte("MZ is how this note starts, and it goes on for a while ............................."),
		"empty":       nil,
		"JSON":        []byte(`{"abi":[]}`),
		"shell":       []byte("#!/usr/bin/env bash\n"),
		"binary-ish":  {0x00, 0x01, 0x02},
		"Mach-O LE32": {0xce, 0xfa, 0xed, 0xfe},
	} {
		want := map[string]string{"ELF": "ELF", "Mach-O": "Mach-O", "Mach-O fat": "Mach-O", "PE": "PE", "Mach-O LE32": "Mach-O"}[name]
		if got := executableKind(head); got != want {
			t.Errorf("%s: executableKind = %q, want %q", name, got, want)
		}
	}
	for name, want := range map[string]string{
		"bin/geth": "bin", "corridor": "", ".data/session.secret": ".data", "contracts/build/SafeL2.json": "contracts/build",
		"contracts/node_modules/solc/index.js": "node_modules", "web/node_modules/x": "node_modules",
		"docs/bin.md": "", "cmd/corridor/main.go": "", "bench/binaries.go": "", "adapters/bin/x.go": "",
	} {
		if got := inBuildOutputDir(name); got != want {
			t.Errorf("inBuildOutputDir(%q) = %q, want %q", name, got, want)
		}
	}
}
