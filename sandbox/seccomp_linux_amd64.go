package sandbox

import (
	"fmt"
	"unsafe"

	"golang.org/x/net/bpf"
	"golang.org/x/sys/unix"
)

// The seccomp filter: a deny list, each call answered with an errno (EPERM,
// EOPNOTSUPP for the extended-attribute setters, or ENOSYS for clone3 so C
// libraries fall back to clone, whose flags the filter can read) rather
// than a kill, so an interpreter reports a readable
// error. It assumes every layer above it failed: a script that became root
// of its namespace with all capabilities still cannot mount, trace, load
// modules, make namespaces or open a non-Unix socket.

// seccompAvailable reports whether this build has a filter for its arch.
const seccompAvailable = true

// deniedSyscalls answer EPERM whatever their arguments.
var deniedSyscalls = []uint32{
	unix.SYS_PTRACE, unix.SYS_PROCESS_VM_READV, unix.SYS_PROCESS_VM_WRITEV, unix.SYS_KCMP, unix.SYS_PIDFD_GETFD,
	unix.SYS_MOUNT, unix.SYS_UMOUNT2, unix.SYS_PIVOT_ROOT, unix.SYS_CHROOT, unix.SYS_MOVE_MOUNT, unix.SYS_OPEN_TREE,
	unix.SYS_FSOPEN, unix.SYS_FSCONFIG, unix.SYS_FSMOUNT, unix.SYS_FSPICK, unix.SYS_MOUNT_SETATTR,
	unix.SYS_UNSHARE, unix.SYS_SETNS,
	unix.SYS_KEYCTL, unix.SYS_ADD_KEY, unix.SYS_REQUEST_KEY,
	unix.SYS_BPF, unix.SYS_PERF_EVENT_OPEN, unix.SYS_USERFAULTFD,
	unix.SYS_IO_URING_SETUP, unix.SYS_IO_URING_ENTER, unix.SYS_IO_URING_REGISTER,
	unix.SYS_KEXEC_LOAD, unix.SYS_KEXEC_FILE_LOAD, unix.SYS_INIT_MODULE, unix.SYS_FINIT_MODULE, unix.SYS_DELETE_MODULE,
	unix.SYS_OPEN_BY_HANDLE_AT, unix.SYS_NAME_TO_HANDLE_AT,
	unix.SYS_ACCT, unix.SYS_SWAPON, unix.SYS_SWAPOFF, unix.SYS_REBOOT, unix.SYS_SYSLOG, unix.SYS_QUOTACTL,
	unix.SYS_IOPL, unix.SYS_IOPERM, unix.SYS_USELIB, unix.SYS_VHANGUP, unix.SYS_FANOTIFY_INIT,
	// Old or rare kernel surfaces no script needs: a process's own LDT,
	// secret memory, NUMA placement, page splicing into pipes, the
	// file-system type table, and the mount table as statmount and
	// listmount show it (the sources' host paths).
	unix.SYS_MODIFY_LDT, unix.SYS_MEMFD_SECRET, unix.SYS_MBIND, unix.SYS_VMSPLICE, unix.SYS_SYSFS,
	unix.SYS_STATMOUNT, unix.SYS_LISTMOUNT,
}

// xattrSetters answer EOPNOTSUPP, as a file system without extended
// attributes would (copy tools carry on without them): a script sets no
// attribute on the workspace's files, which the proxy and the host read.
var xattrSetters = []uint32{
	unix.SYS_SETXATTR, unix.SYS_LSETXATTR, unix.SYS_FSETXATTR, unix.SYS_SETXATTRAT,
	unix.SYS_REMOVEXATTR, unix.SYS_LREMOVEXATTR, unix.SYS_FREMOVEXATTR, unix.SYS_REMOVEXATTRAT,
}

// personality's argument (an unsigned int) that the filter allows: the
// query and plain PER_LINUX. Any flag (READ_IMPLIES_EXEC makes every
// readable mapping executable, ADDR_NO_RANDOMIZE turns ASLR off for what
// the script execs) or other persona answers EPERM.
const (
	personaQuery = 0xffffffff
	personaLinux = 0
)

// nsFlags are the clone flags that make namespaces.
const nsFlags = unix.CLONE_NEWUSER | unix.CLONE_NEWNS | unix.CLONE_NEWPID | unix.CLONE_NEWNET |
	unix.CLONE_NEWIPC | unix.CLONE_NEWUTS | unix.CLONE_NEWCGROUP | unix.CLONE_NEWTIME

const (
	retAllow  = 0x7fff0000 // SECCOMP_RET_ALLOW
	retErrno  = 0x00050000 // SECCOMP_RET_ERRNO | errno
	x32Bit    = 0x40000000 // __X32_SYSCALL_BIT
	offNr     = 0          // offsetof(struct seccomp_data, nr)
	offArch   = 4
	offArg0Lo = 16
)

// seccompFilter assembles the filter.
func seccompFilter() ([]bpf.RawInstruction, error) {
	// Labels at the end, counted back from the last instruction.
	var prog []bpf.Instruction
	type fix struct {
		at          int
		true, false string // labels; "" means the next instruction
	}
	var fixes []fix
	jump := func(cond bpf.JumpTest, val uint32, t, f string) {
		fixes = append(fixes, fix{len(prog), t, f})
		prog = append(prog, bpf.JumpIf{Cond: cond, Val: val})
	}
	labels := map[string]int{}
	label := func(name string) { labels[name] = len(prog) }
	load := func(off uint32) { prog = append(prog, bpf.LoadAbsolute{Off: off, Size: 4}) }

	load(offArch)
	jump(bpf.JumpNotEqual, unix.AUDIT_ARCH_X86_64, "enosys", "")
	load(offNr)
	jump(bpf.JumpGreaterOrEqual, x32Bit, "enosys", "")
	for _, nr := range deniedSyscalls {
		jump(bpf.JumpEqual, nr, "eperm", "")
	}
	for _, nr := range xattrSetters {
		jump(bpf.JumpEqual, nr, "enotsup", "")
	}
	jump(bpf.JumpEqual, unix.SYS_PERSONALITY, "personality", "")
	jump(bpf.JumpEqual, unix.SYS_CLONE3, "enosys", "")
	jump(bpf.JumpEqual, unix.SYS_CLONE, "clone", "")
	jump(bpf.JumpEqual, unix.SYS_SOCKET, "socket", "")
	jump(bpf.JumpEqual, unix.SYS_SOCKETPAIR, "socket", "")
	prog = append(prog, bpf.RetConstant{Val: retAllow})
	label("clone")
	load(offArg0Lo)
	jump(bpf.JumpBitsSet, nsFlags, "eperm", "allow")
	label("socket")
	load(offArg0Lo)
	jump(bpf.JumpEqual, unix.AF_UNIX, "allow", "eperm")
	label("personality")
	load(offArg0Lo)
	jump(bpf.JumpEqual, personaQuery, "allow", "")
	jump(bpf.JumpEqual, personaLinux, "allow", "eperm")
	label("allow")
	prog = append(prog, bpf.RetConstant{Val: retAllow})
	label("eperm")
	prog = append(prog, bpf.RetConstant{Val: retErrno | uint32(unix.EPERM)})
	label("enosys")
	prog = append(prog, bpf.RetConstant{Val: retErrno | uint32(unix.ENOSYS)})
	label("enotsup")
	prog = append(prog, bpf.RetConstant{Val: retErrno | uint32(unix.EOPNOTSUPP)})

	for _, f := range fixes {
		j := prog[f.at].(bpf.JumpIf)
		for _, t := range []struct {
			name string
			skip *uint8
		}{{f.true, &j.SkipTrue}, {f.false, &j.SkipFalse}} {
			if t.name == "" {
				continue
			}
			d := labels[t.name] - f.at - 1
			if d < 0 || d > 255 {
				return nil, fmt.Errorf("seccomp: jump to %s out of range (%d)", t.name, d)
			}
			*t.skip = uint8(d)
		}
		prog[f.at] = j
	}
	return bpf.Assemble(prog)
}

// sockProg is an assembled filter as the kernel takes it.
func sockProg(raw []bpf.RawInstruction) unix.SockFprog {
	filter := make([]unix.SockFilter, len(raw))
	for i, r := range raw {
		filter[i] = unix.SockFilter{Code: r.Op, Jt: r.Jt, Jf: r.Jf, K: r.K}
	}
	return unix.SockFprog{Len: uint16(len(filter)), Filter: &filter[0]}
}

// installSeccomp installs the filter on the calling OS thread (the caller
// has locked it and execs or forks the script from it). no_new_privs must
// already be set.
func installSeccomp() error {
	raw, err := seccompFilter()
	if err != nil {
		return err
	}
	prog := sockProg(raw)
	_, _, errno := unix.RawSyscall(unix.SYS_PRCTL, unix.PR_SET_SECCOMP, unix.SECCOMP_MODE_FILTER, uintptr(unsafe.Pointer(&prog)))
	if errno != 0 {
		return fmt.Errorf("install seccomp filter: %w", errno)
	}
	return nil
}

// procSyscalls make a process, replace the program, or leave the process
// group. A Lua child needs none of them (gopher-lua has no process API):
// its own filter (installNoProcs), stacked on the init's, refuses them,
// so the processes of a Lua run are its init and its child, both in the
// process group the parent stops at done (child.noProcs).
var procSyscalls = []uint32{unix.SYS_FORK, unix.SYS_VFORK, unix.SYS_EXECVE, unix.SYS_EXECVEAT,
	unix.SYS_SETSID, unix.SYS_SETPGID}

// noProcsFilter assembles that filter: clone is allowed for a thread
// (CLONE_THREAD), which the Go runtime makes, and refused for a process;
// clone3, whose flags a filter cannot read, answers ENOSYS (as under the
// init's filter; the Go runtime does not use it).
func noProcsFilter() ([]bpf.RawInstruction, error) {
	prog := []bpf.Instruction{
		bpf.LoadAbsolute{Off: offArch, Size: 4},
		bpf.JumpIf{Cond: bpf.JumpEqual, Val: unix.AUDIT_ARCH_X86_64, SkipTrue: 1},
		bpf.RetConstant{Val: retErrno | uint32(unix.ENOSYS)},
		bpf.LoadAbsolute{Off: offNr, Size: 4},
	}
	n := len(procSyscalls)
	for i, nr := range procSyscalls {
		// To the EPERM return: past the rest of the list, the clone3
		// check and its return, and the 4 instructions of the clone check.
		prog = append(prog, bpf.JumpIf{Cond: bpf.JumpEqual, Val: nr, SkipTrue: uint8(n - 1 - i + 2 + 4)})
	}
	prog = append(prog,
		bpf.JumpIf{Cond: bpf.JumpEqual, Val: unix.SYS_CLONE3, SkipFalse: 1},
		bpf.RetConstant{Val: retErrno | uint32(unix.ENOSYS)},
		bpf.JumpIf{Cond: bpf.JumpEqual, Val: unix.SYS_CLONE, SkipFalse: 2}, // not clone: allow
		bpf.LoadAbsolute{Off: offArg0Lo, Size: 4},
		bpf.JumpIf{Cond: bpf.JumpBitsSet, Val: unix.CLONE_THREAD, SkipFalse: 1},
		bpf.RetConstant{Val: retAllow},
		bpf.RetConstant{Val: retErrno | uint32(unix.EPERM)},
	)
	return bpf.Assemble(prog)
}

// installNoProcs installs noProcsFilter on every thread of the process
// (SECCOMP_FILTER_FLAG_TSYNC), setting no_new_privs first (the sandbox's
// init has already; a child started without it has not).
func installNoProcs() error {
	raw, err := noProcsFilter()
	if err != nil {
		return err
	}
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return fmt.Errorf("no_new_privs: %w", err)
	}
	prog := sockProg(raw)
	tid, _, errno := unix.Syscall(unix.SYS_SECCOMP, unix.SECCOMP_SET_MODE_FILTER, unix.SECCOMP_FILTER_FLAG_TSYNC,
		uintptr(unsafe.Pointer(&prog)))
	switch {
	case errno != 0:
		return fmt.Errorf("install the no-process seccomp filter: %w", errno)
	case tid != 0:
		return fmt.Errorf("install the no-process seccomp filter: thread %d could not take it", tid)
	}
	return nil
}
