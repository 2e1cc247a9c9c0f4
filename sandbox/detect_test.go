package sandbox

import (
	"strings"
	"testing"
)

// TestDetect prints the layers on this host; on Linux as root (the
// project's CI machine) every layer must be active.
func TestDetect(t *testing.T) {
	l := Detect()
	t.Logf("sandbox: %s; why: %q", l, l.Why)
	if !l.Namespaces {
		t.Skip("no user namespaces here")
	}
	if !l.Filesystem || !l.Proc || l.Landlock == 0 || !l.Seccomp {
		t.Errorf("namespaces work but not every layer: %s (%q)", l, l.Why)
	}
}

func TestLayersAllow(t *testing.T) {
	full := Layers{Namespaces: true, Filesystem: true, Proc: true, Landlock: 7, Seccomp: true, MemoryCgroup: true, PidsCgroup: true}
	none := Layers{}
	noCg := full
	noCg.MemoryCgroup = false
	cases := []struct {
		l    Layers
		lang string
		req  Require
		err  string
	}{
		{full, "python", RequireFull, ""},
		{noCg, "lua", RequireFull, "sandbox.require is full but the sandbox is degraded: no memory cgroup"},
		{none, "lua", RequireDegraded, ""},
		{none, "lua", "", ""},
		{none, "python", "", "refusing to run python: the sandbox is degraded: no user namespaces"},
		{noCg, "javascript", RequireDegraded, ""},
		{none, "javascript", RequireNone, ""},
	}
	for _, c := range cases {
		err := c.l.Allow(c.lang, c.req)
		if (err == nil) != (c.err == "") || err != nil && !strings.Contains(err.Error(), c.err) {
			t.Errorf("%s %s %q: %v, want %q", c.l, c.lang, c.req, err, c.err)
		}
	}
	if s := full.String(); !strings.HasPrefix(s, "full (") {
		t.Errorf("full.String() = %q", s)
	}
}
