package sandbox

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// The parent's side of the sandbox: wrap the plain child command in an init
// started in new namespaces, give the init its cgroup and spec, and read
// back the inner command's status.

// initConn is the parent's end of one init.
type initConn struct {
	sock *os.File
	spec []byte
	cg   *runCgroup
	// status is the init's answer; reported is closed once it was read
	// (or the init ended without one).
	status   *initStatus
	reported chan struct{}
	// selfJoin: the init joins the cgroups itself (cgroup v1, CgroupFDs).
	selfJoin bool
	// oom and pidsHit record, before the cgroup is removed, whether the
	// memory controller killed a task and the pids controller refused one.
	oom, pidsHit bool
	tasks        int
	snapped      bool // oom, pidsHit and tasks are final
}

// selfExeLink opens the very file this process runs.
const selfExeLink = "/proc/self/exe"

// fdExecPath is the path a child execs to run its descriptor fd: /proc is
// mounted where the parent runs, and the child, not yet in its own mount
// namespace's root, still sees it.
func fdExecPath(fd int, _ string) string { return "/proc/self/fd/" + strconv.Itoa(fd) }

// cgroups is this host's cgroup layout, found by detectLayers.
var cgroups cgroupLayout

// sandboxCmd turns cmd, the plain child command built by start (a
// re-execution of the toolfold binary, or an interpreter), into the same
// command run by an init inside the sandbox. It returns nil and leaves cmd
// alone when the namespaces are unavailable.
func (p *procRunner) sandboxCmd(cmd *exec.Cmd, tree string, lim Limits) (*initConn, error) {
	if !p.sandboxed() {
		return nil, nil
	}
	return p.sandboxCmdWith(cmd, tree, lim, Detect())
}

// sandboxed reports whether p's children start through the init.
func (p *procRunner) sandboxed() bool {
	layers := Detect()
	return layers.Namespaces && layers.Filesystem && !p.plain
}

// sandboxCmdWith is sandboxCmd with the layers to use.
func (p *procRunner) sandboxCmdWith(cmd *exec.Cmd, tree string, lim Limits, layers Layers) (*initConn, error) {
	// The init is a Go binary that calls ChildMain: the runner's exe for
	// Lua (which is also the inner command, seen at SandboxExe), the
	// default one (toolfold-sandbox or this binary, see exe.go) for an
	// interpreter (whose runner's exe is the interpreter).
	argv := append([]string{cmd.Path}, cmd.Args[1:]...)
	s := initSpec{
		Argv: argv, Env: cmd.Env, ReadOnly: p.readOnly, Tree: tree,
		WorkspaceBytes: lim.workspaceBytes(), TmpBytes: lim.tmpBytes(),
		Landlock: layers.Landlock > 0, Seccomp: layers.Seccomp,
		LingerMillis: int(p.linger / time.Millisecond),
	}
	initExe := p.bin
	if p.command == nil {
		argv[0], s.Exe = SandboxExe, p.exe
	} else {
		var err error
		if initExe, err = defaultExe(); err != nil {
			return nil, fmt.Errorf("sandbox: find the toolfold binary to start the sandbox with: %w", err)
		}
	}
	if cmd.Dir != "" && !isRunTemp(cmd.Dir) { // "": no Request.Workdir (see workdir)
		s.Workspace = cmd.Dir // a caller's workspace: bound, not a fresh tmpfs
	}
	root := os.Geteuid() == 0
	if root {
		s.UID, s.GID = sandboxUID, sandboxGID
		if s.Workspace != "" {
			// The script's uid owns the workspace itself (not what is in
			// it: that is the script's already).
			if err := os.Lchown(s.Workspace, sandboxUID, sandboxGID); err != nil {
				return nil, fmt.Errorf("sandbox: hand the workspace to the sandbox user: %w", err)
			}
		}
	}
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return nil, fmt.Errorf("sandbox: spec socket: %w", err)
	}
	// Ours non-blocking: a pollable file, so its deadlines work and a read
	// waiting for the init's answer holds no thread.
	if err := unix.SetNonblock(fds[0], true); err != nil {
		unix.Close(fds[0])
		unix.Close(fds[1])
		return nil, fmt.Errorf("sandbox: spec socket: %w", err)
	}
	ours, theirs := os.NewFile(uintptr(fds[0]), "init-spec"), os.NewFile(uintptr(fds[1]), "init-spec-child")
	ic := &initConn{sock: ours}
	if cgroups.mem != "" || cgroups.pids != "" {
		if ic.cg, err = newRunCgroup(cgroups, lim); err != nil {
			ours.Close()
			theirs.Close()
			return nil, err
		}
	}
	cmd.ExtraFiles = append(cmd.ExtraFiles, theirs) // fd 5
	if ic.cg != nil && !ic.cg.v2 {
		// cgroup v1: the init's forking thread joins itself (see
		// joinCgroups); the descriptors are the parent's, so the kernel
		// checks the parent's credentials.
		for _, d := range ic.cg.dirs {
			f, err := os.OpenFile(d+"/tasks", os.O_WRONLY, 0)
			if err != nil {
				for _, f := range cmd.ExtraFiles[2:] {
					f.Close()
				}
				ours.Close()
				ic.cg.remove()
				return nil, fmt.Errorf("sandbox: open the run's cgroup %s: %w", d, err)
			}
			s.CgroupFDs = append(s.CgroupFDs, 3+len(cmd.ExtraFiles))
			cmd.ExtraFiles = append(cmd.ExtraFiles, f)
		}
		ic.selfJoin = true
	}
	// The init starts from the vetted binary's descriptor, never its path,
	// and binds that same file at SandboxExe for Lua (initSpec.ExeFD).
	n, _, err := initExe.attach(cmd) // closed with the other ExtraFiles[2:]
	if err == nil && s.Exe != "" {
		s.ExeFD = n
	}
	if err == nil {
		ic.spec, err = json.Marshal(&s)
	}
	if err != nil {
		for _, f := range cmd.ExtraFiles[2:] {
			f.Close()
		}
		ours.Close()
		ic.release()
		return nil, err
	}
	cmd.Args = []string{initExe.path, InitArg}
	cmd.Env = append([]string{}, raceEnv...) // empty, not nil: nil would be the proxy's own
	cmd.Dir = "/"
	sys := cmd.SysProcAttr
	sys.Cloneflags = unix.CLONE_NEWUSER | unix.CLONE_NEWNS | unix.CLONE_NEWPID | unix.CLONE_NEWNET | unix.CLONE_NEWIPC | unix.CLONE_NEWUTS
	if root {
		// ns 0 is host 0 so the init can open the runtime wherever it lives
		// (a 0700 build directory, /root/.pyenv); it drops every capability
		// and becomes 65534 before the script runs.
		sys.UidMappings = []syscall.SysProcIDMap{{ContainerID: 0, HostID: 0, Size: 1}, {ContainerID: sandboxUID, HostID: sandboxUID, Size: 1}}
		sys.GidMappings = []syscall.SysProcIDMap{{ContainerID: 0, HostID: 0, Size: 1}, {ContainerID: sandboxGID, HostID: sandboxGID, Size: 1}}
		sys.GidMappingsEnableSetgroups = true // to drop the host's supplementary groups
		sys.Credential = &syscall.Credential{Uid: 0, Gid: 0, Groups: []uint32{}}
	} else {
		sys.UidMappings = []syscall.SysProcIDMap{{ContainerID: 0, HostID: os.Geteuid(), Size: 1}}
		sys.GidMappings = []syscall.SysProcIDMap{{ContainerID: 0, HostID: os.Getegid(), Size: 1}}
	}
	return ic, nil
}

// MountWorkspace mounts a size- and inode-limited tmpfs (size bytes, or 4 ×
// the default FileBytes when size <= 0; 10,000 inodes; owned by the sandbox
// user) on dir, an empty directory, so a workspace that persists across the
// runs of a session is bounded as a fresh one is. Its contents live until
// UnmountWorkspace (or the end of the proxy's mount namespace). It needs
// root; a directory that is already a mount point is left as it is.
// Without it, a Request.Workdir is bound as it is, bounded per file only
// (RLIMIT_FSIZE).
func MountWorkspace(dir string, size int64) error {
	if size <= 0 {
		size = DefaultLimits.workspaceBytes()
	}
	var st, parent unix.Stat_t
	if err := unix.Lstat(dir, &st); err != nil {
		return fmt.Errorf("sandbox: workspace: %w", err)
	}
	if st.Mode&unix.S_IFMT != unix.S_IFDIR {
		return fmt.Errorf("sandbox: workspace %s is not a directory", dir)
	}
	if err := unix.Lstat(filepath.Dir(dir), &parent); err != nil || parent.Dev != st.Dev {
		return nil // already a mount point
	}
	f, err := os.Open(dir)
	if err != nil {
		return fmt.Errorf("sandbox: workspace: %w", err)
	}
	names, _ := f.Readdirnames(1)
	f.Close()
	if len(names) > 0 {
		return fmt.Errorf("sandbox: workspace %s is not empty; a bounded workspace starts empty", dir)
	}
	opts := fmt.Sprintf("size=%d,nr_inodes=%d,mode=0755,uid=%d,gid=%d", size, workspaceFiles, sandboxUID, sandboxGID)
	if err := unix.Mount("toolfold-workspace", dir, "tmpfs", unix.MS_NOSUID|unix.MS_NODEV, opts); err != nil {
		return fmt.Errorf("sandbox: bound the workspace %s: %w", dir, err)
	}
	return nil
}

// UnmountWorkspace removes the bounded tmpfs MountWorkspace mounted on dir,
// and its contents; call it when the session that owns the workspace ends. A directory that is not such a mount is
// left alone.
func UnmountWorkspace(dir string) error {
	data, err := os.ReadFile("/proc/self/mountinfo")
	if err != nil {
		return err
	}
	for line := range strings.Lines(string(data)) {
		f := strings.Fields(line)
		if len(f) > 8 && f[4] == dir && strings.Contains(line, " - tmpfs toolfold-workspace ") {
			return unix.Unmount(dir, unix.MNT_DETACH)
		}
	}
	return nil
}

// isRunTemp reports whether dir is a temporary run directory made by
// workdir, which a sandboxed run replaces with a fresh bounded tmpfs.
func isRunTemp(dir string) bool {
	return filepath.Dir(dir) == filepath.Clean(os.TempDir()) && strings.HasPrefix(filepath.Base(dir), runTempPrefix)
}

// files are the parent's and the child's ends of the spec socket and the
// cgroup files passed to the init, for start to close if the child cannot
// be started.
func (ic *initConn) files(cmd *exec.Cmd) []*os.File {
	return append([]*os.File{ic.sock}, cmd.ExtraFiles[2:]...)
}

// begin runs after the init started and its rlimits are set: it closes the
// init's descriptors, joins the init to the run's cgroup (cgroup v2; on v1
// the init joins its forking thread) and sends the spec, which the init
// waits for before it builds anything.
func (ic *initConn) begin(pid int, theirs []*os.File) error {
	for _, f := range theirs {
		f.Close()
	}
	if ic.cg != nil && !ic.selfJoin {
		if err := ic.cg.join(pid); err != nil {
			return err
		}
	}
	ic.sock.SetWriteDeadline(time.Now().Add(5 * time.Second))
	if _, err := ic.sock.Write(ic.spec); err != nil {
		return fmt.Errorf("sandbox: send the spec to the init: %w", err)
	}
	if err := unix.Shutdown(int(ic.sock.Fd()), unix.SHUT_WR); err != nil {
		return fmt.Errorf("sandbox: send the spec to the init: %w", err)
	}
	ic.reported = make(chan struct{})
	go ic.readStatus()
	return nil
}

// readStatus reads the init's one line of answer, sent when every process
// of the run has ended (or EOF, when the init ended without answering).
func (ic *initConn) readStatus() {
	defer close(ic.reported)
	line, err := bufio.NewReader(io.LimitReader(ic.sock, 1<<20)).ReadBytes('\n')
	var st initStatus
	if err == nil && json.Unmarshal(line, &st) == nil {
		ic.status = &st
	}
}

// settled is closed when the init has answered or ended; nil without an
// init.
func (ic *initConn) settled() <-chan struct{} {
	if ic == nil {
		return nil
	}
	return ic.reported
}

// ended reports whether the init has answered with the inner command's
// status: every process of the run has ended and been reaped, so the run
// is over though the init itself may still be exiting.
func (ic *initConn) ended() bool {
	if ic == nil || ic.reported == nil {
		return false
	}
	select {
	case <-ic.reported: // status is written
	default:
		return false
	}
	return ic.status != nil && ic.status.Setup == "" && ic.status.Layers == nil
}

// quiet reports whether the run's cgroups hold no process but the init
// (which is in them on cgroup v2): the kernel's word, beside the init's,
// that the run's processes have ended. True without a cgroup.
func (ic *initConn) quiet(initPid int) bool {
	if ic == nil || ic.cg == nil {
		return true
	}
	init := strconv.Itoa(initPid)
	for _, d := range ic.cg.dirs {
		procs, err := os.ReadFile(d + "/cgroup.procs")
		if err != nil {
			return false
		}
		for _, f := range strings.Fields(string(procs)) {
			if f != init {
				return false
			}
		}
	}
	return true
}

// finish waits for the init's status, after the init was reaped, and
// closes the spec socket.
func (ic *initConn) finish() {
	if ic.reported != nil {
		select {
		case <-ic.reported:
		case <-time.After(time.Second): // only the init holds the other end
			ic.sock.Close()
			<-ic.reported
		}
	}
	ic.sock.Close()
}

// killTasks sends SIGKILL to every process of the run in its cgroups, a
// daemon in its own session included; nothing without a cgroup.
func (ic *initConn) killTasks() {
	if ic != nil && ic.cg != nil {
		ic.cg.killTasks()
	}
}

// stopTasks stops every process in the run's cgroups.
func (ic *initConn) stopTasks() {
	if ic != nil && ic.cg != nil {
		ic.cg.stopTasks()
	}
}

// snapshot records, while the run's cgroup exists, whether its memory
// controller killed a task and its pids controller refused one.
func (ic *initConn) snapshot() {
	if ic != nil && ic.cg != nil && !ic.snapped {
		ic.oom, ic.pidsHit, ic.tasks = ic.cg.oomKilled(), ic.cg.pidsHit(), ic.cg.tasks
		ic.snapped = true
	}
}

// release removes the run's cgroup, once the init has exited.
func (ic *initConn) release() {
	if ic == nil {
		return
	}
	ic.sock.Close()
	if ic.cg != nil {
		ic.snapshot()
		ic.cg.remove()
		ic.cg = nil
	}
}

// usage is the inner command's CPU time and peak memory as the init saw
// them; ok is false without an answer.
func (ic *initConn) usage() (exitUsage, bool) {
	if !ic.ended() {
		return exitUsage{}, false
	}
	return exitUsage{CPU: time.Duration(ic.status.CPUNanos), MaxRSS: ic.status.MaxRSSKiB << 10}, true
}

// innerStatus is the inner command's wait status, when the init sent one.
func (ic *initConn) innerStatus() (syscall.WaitStatus, bool) {
	if ic == nil || ic.status == nil || ic.status.Setup != "" {
		return 0, false
	}
	return syscall.WaitStatus(ic.status.WaitStatus), true
}

// explain names the limit that stopped a run the init saw end without
// done: the sandbox's own setup, the memory cgroup or the pids cgroup.
func (ic *initConn) explain(lim Limits) *ScriptError {
	switch {
	case ic == nil:
		return nil
	case ic.status != nil && ic.status.Setup != "":
		return &ScriptError{Kind: "killed", Msg: "the sandbox could not be built: " + ic.status.Setup}
	case ic.oom:
		return &ScriptError{Kind: "memory", Msg: fmt.Sprintf(
			"ran out of memory: the run's processes together passed the sandbox's memory bound (%s with /workspace and /tmp); process the data in smaller pieces or raise %s",
			fmtBytes(int64(lim.dataLimit())+lim.workspaceBytes()+lim.tmpBytes()), hintMemory)}
	}
	return nil
}

// note adds to a run's error the bounds the sandbox enforced that the
// script may have met without dying of them: a refused fork.
func (ic *initConn) note(err *ScriptError, lim Limits) {
	if ic == nil || err == nil || !ic.pidsHit {
		return
	}
	err.Msg += fmt.Sprintf(" (the run also reached the sandbox's process limit of %d tasks, so a fork or thread failed; start fewer processes or raise %s)",
		ic.tasks, hintProcesses)
}

// detectLayers probes the sandbox: it starts an init in probe mode and
// reads which layers it could build, then checks the cgroups.
func detectLayers() Layers {
	var l Layers
	var why []string
	cgroups, why = detectCgroups()
	l.MemoryCgroup, l.PidsCgroup = cgroups.mem != "", cgroups.pids != ""
	exe, err := defaultExe()
	if err == nil {
		var pl *Layers
		pl, err = probeInit(exe)
		if pl != nil {
			pl.MemoryCgroup, pl.PidsCgroup = l.MemoryCgroup, l.PidsCgroup
			l = *pl
		}
	}
	if err != nil {
		why = append(why, err.Error())
		l.Landlock = landlockABI()
	}
	l.Why = append(l.Why, why...)
	return l
}

// probeInit starts exe as an init in probe mode.
func probeInit(exe *exeFile) (*Layers, error) {
	p := &procRunner{exe: exe.path, bin: exe}
	devnull, err := os.Open(os.DevNull)
	if err != nil {
		return nil, err
	}
	defer devnull.Close()
	cmd := &exec.Cmd{Path: exe.path, Args: []string{exe.path}, ExtraFiles: []*os.File{devnull, devnull}, // fds 3 and 4
		SysProcAttr: &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}}
	saved := cgroups
	cgroups = cgroupLayout{} // the probe needs no cgroup
	ic, err := p.sandboxCmdWith(cmd, "", DefaultLimits, Layers{Namespaces: true, Filesystem: true})
	cgroups = saved
	if err != nil {
		return nil, err
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	ic.spec = []byte(`{"probe":true,"argv":["/probe"],"workspace_bytes":1048576,"tmp_bytes":1048576}`)
	if err := cmd.Start(); err != nil {
		ic.sock.Close()
		for _, f := range cmd.ExtraFiles[2:] {
			f.Close()
		}
		return nil, fmt.Errorf("no user namespaces: %v", err)
	}
	err = ic.begin(cmd.Process.Pid, cmd.ExtraFiles[2:])
	cmd.Wait() // the probe ends by itself within milliseconds
	ic.finish()
	if err == nil && ic.status != nil && ic.status.Setup != "" {
		return &Layers{Namespaces: true}, fmt.Errorf("no private root: %s", ic.status.Setup)
	}
	if err == nil && (ic.status == nil || ic.status.Layers == nil) {
		err = fmt.Errorf("sandbox probe failed: %s %s", cmd.ProcessState, strings.TrimSpace(stderr.String()))
	}
	if err != nil {
		return nil, err
	}
	return ic.status.Layers, nil
}
