package sandbox

import (
	"fmt"
	"os"
	"strings"
	"syscall"
	"time"
)

// exitCPU is the child's exit status when it received SIGXCPU (the soft
// RLIMIT_CPU): Go ignores that signal by default, so the child turns it into
// an exit instead of waiting for the hard limit's SIGKILL.
const exitCPU = 152

// Markers of memory exhaustion on a child's stderr: the Go runtime's fatal
// errors, an interpreter's MemoryError or a C allocator's ENOMEM text.
var memoryMarkers = []string{
	"fatal error: runtime: out of memory",
	"fatal error: out of memory",
	"cannot allocate memory",
	"not enough memory",
	"MemoryError",
	"JavaScript heap out of memory",
	"pthread_create failed",              // cgo builds: a thread stack over RLIMIT_DATA
	"ThreadSanitizer failed to allocate", // race-detector builds (tests)
	memoryMarker,                         // the child's guard, when a crash won the race to exit
}

// Markers of a refused fork on a child's stderr: a shell's, Python's,
// node's.
var forkMarkers = []string{
	"Cannot fork", "fork: Resource temporarily unavailable", "fork: retry", "BlockingIOError: [Errno 11]",
	"spawn EAGAIN", "can't start new thread",
}

// classifyExit explains a child that ended without sending done and without
// being killed by the parent. status is how the script's process ended: the
// child's own, or the inner command's as reported by the sandbox's init.
func classifyExit(use exitUsage, status syscall.WaitStatus, stderr string, lim Limits) *ScriptError {
	code := status.ExitStatus() // -1 when signalled, as ProcessState.ExitCode
	cpu := use.CPU
	limit := time.Duration(lim.cpuSeconds()) * time.Second
	switch {
	case code == exitMemory, containsAny(stderr, memoryMarkers), crashedNearMemoryLimit(use, code, stderr, lim):
		return &ScriptError{Kind: "memory", Msg: fmt.Sprintf(
			"ran out of memory (limit %s); process the data in smaller pieces or raise %s",
			fmtBytes(lim.MemoryBytes), hintMemory)}
	case code == exitCPU,
		status.Signaled() && status.Signal() == syscall.SIGXCPU,
		status.Signaled() && status.Signal() == syscall.SIGKILL && cpu >= limit-50*time.Millisecond:
		return &ScriptError{Kind: "cpu", Msg: fmt.Sprintf(
			"used more than %s of CPU time; make the script do less per run or raise %s", limit, hintCPU)}
	case strings.Contains(stderr, "stack exceeds") && strings.Contains(stderr, "limit"):
		return &ScriptError{Kind: "runtime", Msg: "stack overflow (recursion too deep)"}
	case status.Signaled() && status.Signal() == syscall.SIGXFSZ, strings.Contains(stderr, "File too large"):
		return &ScriptError{Kind: "limit", Msg: fmt.Sprintf(
			"a file grew past the %s per-file limit; write less or raise %s", fmtBytes(lim.FileBytes), hintFileSize)}
	case strings.Contains(stderr, "No space left on device"):
		return &ScriptError{Kind: "limit", Msg: fmt.Sprintf(
			"the sandbox's disk is full (/workspace holds %s, /tmp %s, %d files each); write less or raise %s",
			fmtBytes(lim.workspaceBytes()), fmtBytes(lim.tmpBytes()), workspaceFiles, hintFileSize)}
	case containsAny(stderr, forkMarkers):
		return &ScriptError{Kind: "limit", Msg: fmt.Sprintf(
			"the script reached the sandbox's process limit (%d processes); start fewer processes or raise %s", lim.Processes, hintProcesses)}
	case strings.Contains(stderr, "failed to create new OS thread"):
		return &ScriptError{Kind: "limit", Msg: "the sandbox could not start a thread (process limit reached)"}
	}
	msg := "the sandbox process ended unexpectedly (" + describeStatus(status) + ")"
	if line := firstLine(stderr); line != "" {
		msg += ": " + line
	}
	return &ScriptError{Kind: "killed", Msg: msg}
}

// crashedNearMemoryLimit recognizes the other way a Go child dies of memory:
// when a small allocation inside the runtime fails first (the collector's
// metadata, say), the runtime faults instead of reporting it. A Go runtime
// crash of a child that had touched a quarter of its limit is taken for one.
func crashedNearMemoryLimit(use exitUsage, code int, stderr string, lim Limits) bool {
	if code != 2 {
		return false
	}
	crash := strings.HasPrefix(stderr, "fatal error: ") || strings.HasPrefix(stderr, "SIGSEGV") ||
		strings.HasPrefix(stderr, "unexpected fault address") || strings.HasPrefix(stderr, "runtime: ")
	return crash && use.MaxRSS >= lim.MemoryBytes/4
}

// exitUsage is what a child used: CPU time (user and system) and its peak
// resident memory in bytes.
type exitUsage struct {
	CPU    time.Duration
	MaxRSS int64
}

// usageOf reads state's resource usage.
func usageOf(state *os.ProcessState) exitUsage {
	u := exitUsage{CPU: state.UserTime() + state.SystemTime()}
	if ru, ok := state.SysUsage().(*syscall.Rusage); ok {
		u.MaxRSS = int64(ru.Maxrss) << 10 // Maxrss is in KiB
	}
	return u
}

func containsAny(s string, subs []string) bool {
	for _, sub := range subs {
		if strings.Contains(s, sub) {
			return true
		}
	}
	return false
}

// firstLine is the first non-empty line of s, at most 300 bytes.
func firstLine(s string) string {
	for line := range strings.Lines(s) {
		if line = strings.TrimSpace(line); line != "" {
			if len(line) > 300 {
				line = string(trimPartialRune([]byte(line[:300]))) + "…"
			}
			return line
		}
	}
	return ""
}

// describeStatus renders a wait status as ProcessState.String does.
func describeStatus(ws syscall.WaitStatus) string {
	switch {
	case ws.Signaled():
		return "signal: " + ws.Signal().String()
	case ws.Exited():
		return "exit status " + itoa(ws.ExitStatus())
	}
	return "status " + itoa(int(ws))
}
