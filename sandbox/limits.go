package sandbox

import (
	"fmt"
	"time"
)

// minMemoryBytes is the smallest MemoryBytes a run gets: below it the
// collector and the memory guard have no room to work in.
const minMemoryBytes = 32 << 20

// startupAllowance is added to MemoryBytes in the RLIMIT_DATA the parent
// sets. RLIMIT_DATA counts every private writable mapping, touched or not,
// and the child (the whole toolfold binary) starts with many: about 75 MiB
// in a pure-Go build (the Go heap arena index, 32 MiB; crypto's DRBG buffer
// in .bss, 32 MiB; .data), plus 8 MiB per thread stack in a cgo build
// (about 140 MiB in all). None of it is the script's, and it depends on how
// the binary was built, so the child measures its own start-up size and
// lowers its RLIMIT_DATA to that plus MemoryBytes before running the script
// (see guardMemory). The parent's value is the backstop.
const startupAllowance = 256 << 20

// The config keys that raise each limit, named in the messages the model
// reads so it (or its user) knows what to change.
const (
	hintTimeout   = "sandbox.timeout"
	hintCPU       = "sandbox.cpu_time"
	hintMemory    = "sandbox.memory"
	hintOutput    = "sandbox.output"
	hintToolCalls = "sandbox.max_tool_calls"
	hintFrame     = "sandbox.max_frame"
	hintProcesses = "sandbox.processes"
	hintFileSize  = "sandbox.file_size"
)

// withDefaults returns l with every zero (or negative) field taken from
// DefaultLimits and MemoryBytes raised to the minimum the child needs.
func (l Limits) withDefaults() Limits {
	d := DefaultLimits
	pick := func(v, def int64) int64 {
		if v <= 0 {
			return def
		}
		return v
	}
	l.Timeout = time.Duration(pick(int64(l.Timeout), int64(d.Timeout)))
	l.CPUTime = time.Duration(pick(int64(l.CPUTime), int64(d.CPUTime)))
	l.MemoryBytes = max(pick(l.MemoryBytes, d.MemoryBytes), minMemoryBytes)
	l.OutputBytes = pick(l.OutputBytes, d.OutputBytes)
	l.MaxToolCalls = int(pick(int64(l.MaxToolCalls), int64(d.MaxToolCalls)))
	l.MaxConcurrency = int(pick(int64(l.MaxConcurrency), int64(d.MaxConcurrency)))
	l.MaxFrameBytes = int(pick(int64(l.MaxFrameBytes), int64(d.MaxFrameBytes)))
	l.OpenFiles = int(pick(int64(l.OpenFiles), int64(d.OpenFiles)))
	l.FileBytes = pick(l.FileBytes, d.FileBytes)
	l.Processes = int(pick(int64(l.Processes), int64(d.Processes)))
	return l
}

// cpuSeconds is RLIMIT_CPU's soft limit: CPUTime rounded up to seconds.
func (l Limits) cpuSeconds() uint64 {
	return uint64((l.CPUTime + time.Second - 1) / time.Second)
}

// dataLimit is the RLIMIT_DATA the parent gives the child: MemoryBytes for
// the script, the start-up allowance, and in race-detector builds (test
// binaries) room for the race runtime's shadow memory.
func (l Limits) dataLimit() uint64 {
	return uint64(l.MemoryBytes + startupAllowance + raceOverhead)
}

// fmtBytes renders a size for a message: "64 KiB", "16 MiB", "1234 bytes".
func fmtBytes(n int64) string {
	switch {
	case n >= 1<<30 && n%(1<<30) == 0:
		return fmt.Sprintf("%d GiB", n>>30)
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}
