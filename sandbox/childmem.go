package sandbox

import (
	"bytes"
	"os"
	"runtime/debug"
	"runtime/metrics"
	"strconv"
	"time"

	"golang.org/x/sys/unix"
)

// The child's memory guard. MemoryBytes is the memory the script may use,
// on top of what the child had mapped when it started. The parent's
// RLIMIT_DATA allows for any start-up size; the child measures its own and
// lowers RLIMIT_DATA to that plus MemoryBytes. When the Go runtime then hits
// the limit, how it dies depends on which allocation failed: "fatal error:
// out of memory" for a big one, a fault in the collector for a small
// internal one. So the child also watches its data size (what RLIMIT_DATA
// measures) and, just below the limit, exits with exitMemory: the parent
// reports "memory" either way.

// exitMemory is the child's exit status when its memory guard fired.
const exitMemory = 153

// memoryMarker is what the guard writes to stderr before exiting.
const memoryMarker = "toolfold sandbox: memory limit reached"

// guardPeriod is how often the guard looks: at the fastest a Lua loop
// allocates about 1 GB/s, so a few MiB per period, well inside the margin.
const guardPeriod = 5 * time.Millisecond

// guardMemory lowers RLIMIT_DATA to the start-up size plus memoryBytes,
// sets the Go runtime's soft memory limit below it, and starts the guard.
// Without /proc it leaves the parent's RLIMIT_DATA as the only bound.
func guardMemory(memoryBytes int64) {
	statm, err := os.Open("/proc/self/statm")
	start, ok := int64(0), false
	if err == nil {
		start, ok = dataBytes(statm)
	}
	if !ok {
		debug.SetMemoryLimit(memoryBytes * 3 / 4)
		return
	}
	limit := start + memoryBytes*raceMemoryFactor
	var rl unix.Rlimit
	if unix.Getrlimit(unix.RLIMIT_DATA, &rl) == nil && rl.Max != unix.RLIM_INFINITY {
		limit = min(limit, int64(rl.Max))
	}
	// Lowering is always allowed; on failure the parent's limit still holds.
	unix.Setrlimit(unix.RLIMIT_DATA, &unix.Rlimit{Cur: uint64(limit), Max: uint64(limit)})
	margin := min(max(memoryBytes/8, 8<<20), 24<<20)
	debug.SetMemoryLimit(currentGoMemory() + (memoryBytes-margin)*3/4)
	go watchData(statm, limit-margin)
}

// watchData exits the child when its data size passes threshold.
func watchData(statm *os.File, threshold int64) {
	t := time.NewTicker(guardPeriod)
	for range t.C {
		if n, ok := dataBytes(statm); ok && n > threshold {
			os.Stderr.WriteString(memoryMarker + "\n")
			os.Exit(exitMemory)
		}
	}
}

// dataBytes reads the "data" field of /proc/self/statm: the pages of data
// and stack mappings, which is RLIMIT_DATA's measure plus the (small) stack.
func dataBytes(statm *os.File) (int64, bool) {
	var buf [128]byte
	n, err := statm.ReadAt(buf[:], 0)
	if n == 0 && err != nil {
		return 0, false
	}
	// size resident shared text lib data dt
	fields := bytes.Fields(buf[:n])
	if len(fields) < 6 {
		return 0, false
	}
	pages, err := strconv.ParseInt(string(fields[5]), 10, 64)
	if err != nil {
		return 0, false
	}
	return pages * int64(os.Getpagesize()), true
}

// currentGoMemory is the memory the Go runtime has mapped now.
func currentGoMemory() int64 {
	s := []metrics.Sample{{Name: "/memory/classes/total:bytes"}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return int64(s[0].Value.Uint64())
}
