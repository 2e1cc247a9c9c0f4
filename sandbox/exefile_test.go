package sandbox

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// copyBinary copies this test binary to dst, mode 0755.
func copyBinary(t *testing.T, dst string) {
	t.Helper()
	src, err := os.Open(testBinary())
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o755)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(out, src); err != nil {
		t.Fatal(err)
	}
	if err := out.Close(); err != nil {
		t.Fatal(err)
	}
}

// swapIn replaces the file at path with a shell script that creates
// marker, as someone who may write path's directory would.
func swapIn(t *testing.T, path, marker string) {
	t.Helper()
	tmp := path + ".new"
	if err := os.WriteFile(tmp, []byte("#!/bin/sh\ntouch '"+marker+"'\necho 42\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, path); err != nil {
		t.Fatal(err)
	}
}

// TestSwappedBinaryNeverRuns: a runner starts its processes from the
// binary it opened and vetted when it was made, never from the path: once
// the file at the path is replaced by another program, and then deleted,
// cold runs, a warm child started before the swap and one started after
// it all run the script as before, and the other program never runs.
func TestSwappedBinaryNeverRuns(t *testing.T) {
	for _, mode := range []string{"sandbox", "plain"} {
		t.Run(mode, func(t *testing.T) {
			if mode == "sandbox" && !Detect().Namespaces {
				t.Skip("no sandbox here")
			}
			dir := t.TempDir()
			exe, marker := filepath.Join(dir, "toolfold"), filepath.Join(dir, "marker")
			copyBinary(t, exe)
			l := NewLua(&LuaOptions{Exe: exe})
			l.proc.plain = mode == "plain"
			rl, _ := warmed(t, l.proc)
			ws := t.TempDir()
			run := func(what, workdir string, warm bool) {
				t.Helper()
				res := runIn(t, l, workdir, `return 6 * 7`, Limits{})
				if res.Err != nil || string(res.Value) != "42" {
					t.Fatalf("%s: %s %v", what, res.Value, res.Err)
				}
				if got := rl.MustLast(t); got != warm {
					t.Fatalf("%s: warm = %v, want %v", what, got, warm)
				}
				if _, err := os.Stat(marker); err == nil {
					t.Fatalf("%s: the program swapped in at %s ran", what, exe)
				}
			}
			run("before the swap", ws, false)
			waitSpare(t, l.proc, ws, Limits{})
			swapIn(t, exe, marker)
			run("the warm child started before the swap", ws, true)
			waitSpare(t, l.proc, ws, Limits{})
			run("a warm child started after the swap", ws, true)
			run("a cold run after the swap", t.TempDir(), false)
			again := NewLua(&LuaOptions{Exe: exe}) // the same path: what was vetted then
			again.proc.plain = l.proc.plain
			if res, err := again.Run(context.Background(), Request{Code: `return 1`}, &fakeHost{}); err != nil || res.Err != nil {
				t.Fatalf("a runner made after the swap: %v %v", err, res.Err)
			}
			if err := os.Remove(exe); err != nil {
				t.Fatal(err)
			}
			run("a cold run once the path is gone", t.TempDir(), false)
			if _, err := os.Stat(marker); err == nil {
				t.Fatalf("the program swapped in at %s ran", exe)
			}
		})
	}
}

// TestBinaryInADirectoryOthersMayWrite: a binary in a directory that
// others may write, and that is not sticky, is refused when the runner is
// made, and every run says why and what to do.
func TestBinaryInADirectoryOthersMayWrite(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "bin")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	exe := filepath.Join(dir, "toolfold")
	copyBinary(t, exe)
	chmod(t, dir, 0o777)
	l := NewLua(&LuaOptions{Exe: exe})
	_, err := l.Run(context.Background(), Request{Code: `return 1`}, &fakeHost{})
	if err == nil {
		t.Fatal("a binary in a directory anyone may write was used")
	}
	for _, want := range []string{exe, "others may write the directory " + dir, "not sticky", "keep it in a directory only root"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not say %q", err, want)
		}
	}
}
