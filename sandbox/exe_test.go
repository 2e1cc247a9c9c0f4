package sandbox

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestChooseExe: the sandbox's own binary beside toolfold is used only when
// it is there, executable, and answers with this build's Identity;
// otherwise toolfold starts itself, and the note says why. The sibling is
// a shell script standing in for cmd/toolfold-sandbox (e2e runs the real
// one: TestCheckLanguages).
func TestChooseExe(t *testing.T) {
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("no sh")
	}
	dir := t.TempDir()
	self := filepath.Join(dir, "toolfold")
	if err := os.WriteFile(self, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	selfBin, err := openSelf(self)
	if err != nil {
		t.Fatal(err)
	}
	selfBin.f.Close()
	selfBin.path = self // stands in for the running binary
	sib := filepath.Join(dir, SandboxBinary)
	write := func(script string, mode os.FileMode) {
		t.Helper()
		if err := os.WriteFile(sib, []byte(script), mode); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(sib, mode); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct {
		name   string
		setup  func()
		want   string
		reason string
	}{
		{"missing", func() {}, self, "no " + SandboxBinary + " beside it"},
		{"not executable", func() { write("#!/bin/sh\necho "+Identity()+"\n", 0o644) }, self, "is not an executable file"},
		{"another build", func() { write("#!/bin/sh\necho 0123456789abcdef\n", 0o755) }, self, "is another build"},
		{"others may write it", func() {
			write("#!/bin/sh\necho "+Identity()+"\n", 0o777)
		}, self, "others may write it"},
		{"another owner", func() {
			write("#!/bin/sh\necho "+Identity()+"\n", 0o755)
			if os.Geteuid() == 0 {
				if err := os.Chown(sib, 65534, 65534); err != nil {
					t.Fatal(err)
				}
			}
		}, self, "not owned by root or by toolfold's user"},
		{"others may write its directory", func() {
			write("#!/bin/sh\necho "+Identity()+"\n", 0o755)
			chmod(t, dir, 0o777)
		}, self, "others may write the directory " + dir + " (mode 0777, not sticky)"},
		{"a sticky directory", func() {
			write("#!/bin/sh\n[ \"$1\" = "+IdentityArg+" ] && echo "+Identity()+"\n", 0o755)
			chmod(t, dir, os.ModeSticky|0o777)
		}, sib, "same build"},
		{"fails", func() { write("#!/bin/sh\nexit 3\n", 0o755) }, self, "exit status 3"},
		{"asked the right question", func() {
			write("#!/bin/sh\n[ \"$1\" = "+IdentityArg+" ] && [ $# = 1 ] && echo "+Identity()+"\n", 0o755)
		}, sib, "same build"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			os.Remove(sib)
			tc.setup()
			if tc.name == "another owner" && os.Geteuid() != 0 {
				t.Skip("needs root to give the file away")
			}
			defer os.Chmod(dir, 0o700)
			c := chooseExe(selfBin)
			if c.bin.path != tc.want || !strings.Contains(c.note, tc.reason) {
				t.Errorf("chooseExe = %q (%s), want %q (%s)", c.bin.path, c.note, tc.want, tc.reason)
			}
			if c.bin != selfBin {
				c.bin.f.Close()
			}
		})
	}
}

// chmod sets dir's mode (umask aside).
func chmod(t *testing.T, dir string, mode os.FileMode) {
	t.Helper()
	if err := os.Chmod(dir, mode); err != nil {
		t.Fatal(err)
	}
}

// TestIdentityIsStable: the identity is a hash of this package's embedded
// source, the same on every call, and it changes with the source.
func TestIdentityIsStable(t *testing.T) {
	id := Identity()
	if len(id) != 32 || id != Identity() {
		t.Fatalf("Identity() = %q, then %q", id, Identity())
	}
	b, err := sources.ReadFile("exe.go")
	if err != nil || !strings.Contains(string(b), "IdentityArg") {
		t.Fatalf("exe.go is not among the embedded sources: %v", err)
	}
}

// TestSandboxModules: sandboxModules lists every module, other than
// toolfold's own, whose packages this package imports, so that Identity
// changes with their versions.
func TestSandboxModules(t *testing.T) {
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command")
	}
	out, err := exec.Command(goBin, "list", "-deps", "-f", "{{with .Module}}{{.Path}}{{end}}", ".").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	seen := map[string]bool{}
	for _, m := range strings.Fields(string(out)) {
		if m != "github.com/toolfold/toolfold" && !seen[m] {
			seen[m] = true
			if !slices.Contains(sandboxModules, m) {
				t.Errorf("the sandbox package imports a package of %s, which sandboxModules does not list", m)
			}
		}
	}
	for _, m := range sandboxModules {
		if !seen[m] {
			t.Errorf("sandboxModules lists %s, which the sandbox package does not import", m)
		}
	}
}
