package sandbox

import (
	"runtime"
	"runtime/debug"
	"sync"
	"time"
)

// A run that moves a large result through the bridge grows the proxy's
// heap by several times its size (the frame read, its decoded value, the
// encoders' buffers, the host's copies), and Go returns that memory to the
// OS only after a collection, which an idle proxy does not start for two
// minutes. Measured (proxy.TestLargeResultRSS): 52 MiB idle, 341 MiB after
// results of 3-31 MiB, still 341 MiB a minute later. So once a run has
// moved more than largeRunBytes, the heap is collected and released
// releaseDelay later, when the proxy has answered the run: 50 MiB ten
// seconds later, measured side by side with the build before (374 MiB a
// minute later). Collecting alone (runtime.GC twice, no FreeOSMemory) left
// 106 MiB: the runtime kept 55 MiB of free heap for the minute.
const (
	largeRunBytes = 4 << 20
	releaseDelay  = 500 * time.Millisecond
)

var releasing struct {
	mu      sync.Mutex
	pending bool
}

// releaseAfterLargeRun schedules releaseMemory when a run moved n bytes or
// more; at most one is pending at a time.
func releaseAfterLargeRun(n int64) {
	if n < largeRunBytes {
		return
	}
	releasing.mu.Lock()
	defer releasing.mu.Unlock()
	if releasing.pending {
		return
	}
	releasing.pending = true
	time.AfterFunc(releaseDelay, releaseMemory)
}

// releaseMemory collects twice, since sync.Pool keeps what it held for one
// collection (encoding/json pools its encoders' buffers, the size of the
// largest value encoded), and returns the free heap to the OS.
func releaseMemory() {
	releasing.mu.Lock()
	releasing.pending = false
	releasing.mu.Unlock()
	runtime.GC()
	debug.FreeOSMemory()
}
