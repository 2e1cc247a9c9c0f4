package sandbox

import (
	"fmt"
	"strings"
	"sync"
)

// Layers says which isolation layers the sandbox builds on this host,
// detected once at start-up by starting an init in probe mode (so "active"
// means it worked, not that the kernel claims it).
type Layers struct {
	// Namespaces: user, mount, pid, net, ipc, uts and cgroup namespaces;
	// the script runs as an unprivileged uid of its own.
	Namespaces bool `json:"namespaces"`
	// Filesystem: a private tmpfs root with read-only runtime binds, a
	// bounded /workspace and /tmp, no /sys.
	Filesystem bool `json:"filesystem"`
	// Proc: a fresh /proc of the run's PID namespace.
	Proc bool `json:"proc"`
	// Landlock is the Landlock ABI version applied, 0 when none.
	Landlock int `json:"landlock"`
	// Seccomp: the seccomp-bpf deny list.
	Seccomp bool `json:"seccomp"`
	// MemoryCgroup and PidsCgroup: a per-run cgroup bounds the memory and
	// the tasks of the whole run.
	MemoryCgroup bool `json:"memory_cgroup"`
	PidsCgroup   bool `json:"pids_cgroup"`
	// NoProcs: the filter a Lua child installs on all its threads
	// (installNoProcs: seccomp(2) with TSYNC) works here, so the parent may
	// ask for it; not a layer of its own (Full and Missing ignore it).
	NoProcs bool `json:"no_procs,omitempty"`
	// Why holds one reason per missing layer, for logs and `toolfold check`.
	Why []string `json:"why,omitempty"`
}

// Full reports whether every layer is active.
func (l Layers) Full() bool {
	return l.Namespaces && l.Filesystem && l.Proc && l.Landlock >= 6 && l.Seccomp && l.MemoryCgroup && l.PidsCgroup
}

// Missing lists the layers that are not active, in words.
func (l Layers) Missing() []string {
	var m []string
	add := func(ok bool, what string) {
		if !ok {
			m = append(m, what)
		}
	}
	add(l.Namespaces, "no user namespaces")
	add(!l.Namespaces || l.Filesystem, "no private root")
	add(!l.Namespaces || l.Proc, "no private /proc")
	add(l.Landlock > 0, "no Landlock")
	add(l.Landlock == 0 || l.Landlock >= 6, fmt.Sprintf("Landlock ABI %d without signal scoping", l.Landlock))
	add(l.Seccomp, "no seccomp")
	add(l.MemoryCgroup, "no memory cgroup")
	add(l.PidsCgroup, "no pids cgroup")
	return m
}

// String is the one line `toolfold check` prints and serve logs:
// "full (…)" or "degraded: no user namespaces, no memory cgroup".
func (l Layers) String() string {
	if l.Full() {
		return fmt.Sprintf("full (user/mount/pid/net/ipc/uts/cgroup namespaces, private root, Landlock ABI %d, seccomp, memory and pids cgroups)", l.Landlock)
	}
	return "degraded: " + strings.Join(l.Missing(), ", ")
}

// Require is the sandbox.require setting: which layers a run needs.
type Require string

const (
	// RequireFull refuses every language unless every layer is active.
	RequireFull Require = "full"
	// RequireDegraded (the default) runs Lua whatever is active (a Lua
	// script has no file, process or network API) and refuses Python and
	// JavaScript without namespaces and Landlock.
	RequireDegraded Require = "degraded"
	// RequireNone runs every language with whatever layers there are.
	RequireNone Require = "none"
)

// Allow returns nil when language may run under req with these layers, or
// an error saying what is missing and how to fix it.
func (l Layers) Allow(language string, req Require) error {
	switch req {
	case RequireNone:
		return nil
	case RequireFull:
		if !l.Full() {
			return fmt.Errorf("sandbox.require is full but the sandbox is %s; %s, or set sandbox.require: degraded", l, l.fix())
		}
		return nil
	}
	if builtIn(language) || (l.Namespaces && l.Filesystem && l.Landlock > 0) {
		return nil
	}
	return fmt.Errorf("refusing to run %s: the sandbox is %s, and %s needs user namespaces and Landlock; %s, or accept the risk with sandbox.require: none",
		language, l, language, l.fix())
}

// fix says how to get the missing layers.
func (l Layers) fix() string {
	var f []string
	if !l.Namespaces {
		f = append(f, "allow unprivileged user namespaces (sysctl kernel.unprivileged_userns_clone=1, user.max_user_namespaces>0, kernel.apparmor_restrict_unprivileged_userns=0) or run toolfold as root")
	}
	if l.Landlock == 0 {
		f = append(f, "boot a kernel with Landlock (5.13+, lsm=landlock,…)")
	}
	if !l.MemoryCgroup || !l.PidsCgroup {
		f = append(f, "run toolfold as root or give it a writable cgroup with the memory and pids controllers")
	}
	if len(f) == 0 {
		return "use Linux 6.7+ with Landlock and seccomp"
	}
	return strings.Join(f, "; ")
}

var (
	detectOnce sync.Once
	detected   Layers
)

// Detect returns the layers active on this host, probing once per process
// (a few milliseconds: it starts one sandbox init).
func Detect() Layers {
	detectOnce.Do(func() { detected = detectLayers() })
	return detected
}
