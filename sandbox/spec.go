package sandbox

// The init spec: what the parent tells the sandbox init (the re-executed
// binary, PID 1 of the run's namespaces) to build and run. It travels as
// JSON on fd 5, a socket the init later answers on with the inner command's
// wait status. It is the seam for every language: Lua's inner command is
// the toolfold binary itself (bound at SandboxExe), Python's and
// JavaScript's are their interpreters, whose runtime directories go in
// ReadOnly.

// InitArg, as os.Args[1], makes the toolfold binary run as the sandbox init.
const InitArg = "__toolfold-sandbox-init"

// SandboxExe is where the toolfold binary appears inside the sandbox, for
// inner commands that re-execute it (Lua).
const SandboxExe = "/toolfold"

// SandboxWorkspace is the run's working directory inside the sandbox.
const SandboxWorkspace = "/workspace"

// TreeDirs are the directories of Request.Tree bound, read-only, into the
// workspace under the same names.
var TreeDirs = []string{"servers", "skills"}

// Inside the sandbox the script runs as this uid and gid ("sandbox" in the
// synthetic /etc/passwd), mapped to the same ids on the host (nobody and
// nogroup on most systems) when the proxy runs as root. The init itself is
// uid 0 of the user namespace.
const (
	sandboxUID = 65534
	sandboxGID = 65534
)

// Init file descriptors: 0-4 are the inner command's (stdin, stdout,
// stderr, bridge out, bridge in); 5 is the spec/status socket.
const initSpecFD = 5

// Workspace and /tmp bounds. Both are size- and inode-limited tmpfs mounts
// inside the sandbox, so a script fills neither the host's disk (one big
// file or 200,000 small ones) nor its memory (tmpfs pages are charged to
// the run's memory cgroup).
const (
	workspaceFiles = 10000 // inodes in /workspace
	tmpFiles       = 10000 // inodes in /tmp
)

// workspaceBytes bounds /workspace: four times the per-file limit.
func (l Limits) workspaceBytes() int64 { return 4 * l.FileBytes }

// tmpBytes bounds /tmp: the per-file limit.
func (l Limits) tmpBytes() int64 { return l.FileBytes }

// systemPaths are bound read-only into every sandbox: the dynamic loader
// and shared libraries a (cgo-built) toolfold binary or an interpreter
// needs. Symbolic links among them (merged /usr: /lib -> usr/lib) are
// recreated as links. Missing ones are skipped.
var systemPaths = []string{"/usr", "/lib", "/lib64", "/lib32", "/libx32", "/bin", "/sbin", "/etc/ld.so.cache", "/etc/localtime", "/etc/alternatives"}

// initSpec is what the init builds and runs.
type initSpec struct {
	// Argv is the inner command; Argv[0] is a path inside the sandbox.
	Argv []string `json:"argv"`
	// Env is the inner command's whole environment.
	Env []string `json:"env"`
	// Exe is the host path of the toolfold binary, bound at SandboxExe,
	// for messages: what is bound is the file open on the init's ExeFD,
	// the one the parent vetted and started the init from.
	Exe   string `json:"exe"`
	ExeFD int    `json:"exe_fd,omitempty"`
	// exeBound: buildRoot bound Exe at SandboxExe (its path still named
	// the file on ExeFD).
	exeBound bool
	// ReadOnly are host paths bound read-only at the same path.
	ReadOnly []string `json:"ro"`
	// Workspace, when set, is a host directory bound read-write at
	// /workspace instead of a fresh bounded tmpfs.
	Workspace      string `json:"workspace,omitempty"`
	WorkspaceBytes int64  `json:"workspace_bytes"`
	// Tree, when set, is a host directory whose servers/ and skills/ are
	// bound read-only at /workspace/servers and /workspace/skills
	// (Request.Tree).
	Tree     string `json:"tree,omitempty"`
	TmpBytes int64  `json:"tmp_bytes"`
	// Landlock and Seccomp say whether to apply those layers (the parent
	// detected them).
	Landlock bool `json:"landlock"`
	Seccomp  bool `json:"seccomp"`
	// UID and GID the inner command runs as inside the namespace: 65534
	// when the parent mapped it (the proxy runs as root), else 0, the only
	// id mapped, with every capability dropped.
	UID int `json:"uid"`
	GID int `json:"gid"`
	// Probe makes the init report which layers it could build instead of
	// running a command.
	Probe bool `json:"probe,omitempty"`
	// CgroupFDs are the init's descriptors of the run's cgroup v1 "tasks"
	// files, opened by the parent: the thread that forks the inner command
	// moves itself into each (writing "0") just before the fork, so the
	// inner command and all it starts are born in the run's cgroups.
	CgroupFDs []int `json:"cgroup_fds,omitempty"`
	// LingerMillis, set by tests only, keeps the init (and so the
	// namespaces) alive this long after its answer, so that a test can see
	// what the answer's moment left running.
	LingerMillis int `json:"linger_ms,omitempty"`
}

// initStatus is the init's answer on the spec socket.
type initStatus struct {
	// WaitStatus is the inner command's raw wait status. The init sends
	// it once every process of the namespace has ended and been reaped.
	WaitStatus uint32 `json:"wait_status"`
	// CPUNanos and MaxRSSKiB are the inner command's resource usage, with
	// its descendants it waited for (wait4's rusage).
	CPUNanos  int64 `json:"cpu_ns,omitempty"`
	MaxRSSKiB int64 `json:"maxrss_kib,omitempty"`
	// Setup, when not empty, is why the sandbox could not be built.
	Setup string `json:"setup,omitempty"`
	// Probe results.
	Layers *Layers `json:"layers,omitempty"`
}
