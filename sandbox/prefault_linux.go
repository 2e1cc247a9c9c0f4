package sandbox

import (
	"bufio"
	"bytes"
	"errors"
	"os"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Breaking copy-on-write after a fork. Go starts a process with vfork,
// which shares the parent's memory until the exec, except when it must
// write the child's uid and gid maps, as for the sandbox's init
// (CLONE_NEWUSER): then it forks, and the fork write-protects every
// private writable page of the proxy. The child execs at once and the
// pages are the proxy's alone again, but each one the proxy writes next
// still takes a page fault, slow in a virtual machine: traced, the request
// that followed a run took about 120 of them before its first middleware,
// 3 ms, against 2 faults and 0.5 ms with no run before it.
//
// prefault takes those faults in the background, while the model reads
// the run's answer: MADV_POPULATE_WRITE (Linux 5.14) on the pages that are
// resident in each private writable mapping makes the kernel break the
// protection as a write would, without writing anything.

// prefaultEvery spaces the passes: one costs 2-6 ms of CPU for a proxy
// of 60 MiB, and a busy proxy starts runs back to back (in CI, twenty
// sessions' runs with a pass after each slowed a replica's health check
// past HAProxy's one second). Forks within it share the next pass.
const prefaultEvery = 100 * time.Millisecond

var (
	noPopulate atomic.Bool // the kernel has no MADV_POPULATE_WRITE
	pf         struct {
		mu        sync.Mutex
		scheduled bool      // a pass is due
		last      time.Time // when the last pass started
	}
)

// prefault schedules a pass over the proxy's memory: at once, or
// prefaultEvery after the last one started; a fork before it starts is
// covered by it.
func prefault() {
	if noPopulate.Load() {
		return
	}
	pf.mu.Lock()
	defer pf.mu.Unlock()
	if pf.scheduled {
		return
	}
	pf.scheduled = true
	time.AfterFunc(max(time.Until(pf.last.Add(prefaultEvery)), 0), func() {
		pf.mu.Lock()
		pf.scheduled, pf.last = false, time.Now() // a fork from now on schedules the next
		pf.mu.Unlock()
		prefaultPass()
	})
}

// prefaultPass is one pass of prefault.
func prefaultPass() {
	maps, err := os.ReadFile("/proc/self/maps")
	if err != nil {
		return
	}
	page := uintptr(os.Getpagesize())
	var vec []byte
	sc := bufio.NewScanner(bytes.NewReader(maps))
	for sc.Scan() {
		f := bytes.Fields(sc.Bytes())
		// address perms offset dev inode [path]: private and writable, and
		// not the kernel's own ([vvar], [vsyscall]).
		if len(f) < 5 || string(f[1]) != "rw-p" || len(f) > 5 && bytes.HasPrefix(f[5], []byte("[v")) {
			continue
		}
		lo, hi, ok := bytes.Cut(f[0], []byte("-"))
		start, err1 := strconv.ParseUint(string(lo), 16, 64)
		end, err2 := strconv.ParseUint(string(hi), 16, 64)
		if !ok || err1 != nil || err2 != nil || end <= start {
			continue
		}
		for s := uintptr(start); s < uintptr(end); {
			n := min((uintptr(end)-s)/page, 1<<16) // pages in this chunk
			if uintptr(cap(vec)) < n {
				vec = make([]byte, n)
			}
			v := vec[:n]
			if _, _, e := unix.Syscall(unix.SYS_MINCORE, s, n*page, uintptr(unsafe.Pointer(&v[0]))); e != 0 {
				break // unmapped meanwhile
			}
			for i := uintptr(0); i < n; {
				if v[i]&1 == 0 {
					i++
					continue
				}
				j := i
				for j < n && v[j]&1 != 0 {
					j++
				}
				_, _, e := unix.Syscall(unix.SYS_MADVISE, s+i*page, (j-i)*page, unix.MADV_POPULATE_WRITE)
				if errors.Is(e, unix.EINVAL) {
					noPopulate.Store(true)
					return
				}
				i = j
			}
			s += n * page
		}
	}
}
