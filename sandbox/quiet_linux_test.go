package sandbox

import (
	"os"
	"path/filepath"
	"testing"
)

// TestInitConnQuiet: the early answer needs the run's cgroups to hold no
// process but the init; anything else, or an unreadable cgroup, sends the
// run down the path that waits for the init's exit.
func TestInitConnQuiet(t *testing.T) {
	const init = 4242
	for _, tc := range []struct {
		name  string
		procs []string // cgroup.procs of each dir; "-" for a missing file
		want  bool
	}{
		{"empty (cgroup v1)", []string{"", ""}, true},
		{"only the init (cgroup v2)", []string{"4242\n"}, true},
		{"a script process left", []string{"", "4242\n4300\n"}, false},
		{"unreadable", []string{"-"}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cg := &runCgroup{}
			for _, p := range tc.procs {
				d := t.TempDir()
				if p != "-" {
					os.WriteFile(filepath.Join(d, "cgroup.procs"), []byte(p), 0o600)
				}
				cg.dirs = append(cg.dirs, d)
			}
			if got := (&initConn{cg: cg}).quiet(init); got != tc.want {
				t.Errorf("quiet = %v, want %v", got, tc.want)
			}
		})
	}
	if !(*initConn)(nil).quiet(init) || !(&initConn{}).quiet(init) {
		t.Error("without an init or a cgroup, quiet must leave the decision to the init's answer")
	}
}
