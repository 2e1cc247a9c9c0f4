package sandbox

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime"
	"runtime/debug"
	"strconv"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// ChildArg, as os.Args[1], makes the toolfold binary run as a sandbox child.
// cmd/toolfold's main calls `if sandbox.IsChild() { sandbox.ChildMain() }`
// first thing; os.Args[2] names the language.
const ChildArg = "__toolfold-sandbox-child"

// IsChild reports whether this process was started as a sandbox child or
// as the sandbox's init (InitArg).
func IsChild() bool { return len(os.Args) > 1 && (os.Args[1] == ChildArg || os.Args[1] == InitArg) }

// childNoProcsArg, as os.Args[4], has a Lua child refuse to make processes
// (installNoProcs) before it reads its run frame; a child that cannot
// exits, so a run never goes on without it.
const childNoProcsArg = "noprocs"

// childRuntime runs one script (p.Code, with p.Args bound as args) inside
// the child, or with p.Check only compiles it, and returns what the done
// notification reports. It may write the script's output to os.Stdout and
// talk to the parent through b.
type childRuntime func(b *childBridge, p *runParams) doneParams

// childRuntimes are the languages a child can run, by os.Args[2]. Tests add
// hostile ones.
var childRuntimes = map[string]childRuntime{
	"lua": runLua,
}

// childPrepare, by language, does before the run frame is read what a run
// needs but that depends on no script: building Lua's interpreter state.
var childPrepare = map[string]func(){
	"lua": prepareLua,
}

// ChildMain runs the sandbox child: it reads the run frame from the bridge,
// runs the script and sends done. It never returns.
func ChildMain() {
	if os.Args[1] == InitArg {
		os.Exit(initMain())
	}
	os.Exit(childMain())
}

func childMain() int {
	debug.SetTraceback("none") // a fatal error's first line is what the parent reads
	runtime.GOMAXPROCS(2)
	go exitOnSIGXCPU()
	if len(os.Args) < 3 || childRuntimes[os.Args[2]] == nil {
		fmt.Fprintf(os.Stderr, "toolfold: %s: unknown sandbox language %q\n", ChildArg, os.Args[2:])
		return 2
	}
	run := childRuntimes[os.Args[2]]
	if len(os.Args) > 4 && os.Args[4] == childNoProcsArg {
		if err := installNoProcs(); err != nil {
			fmt.Fprintf(os.Stderr, "toolfold: %s: %v\n", ChildArg, err)
			return 2
		}
	}
	if prepare := childPrepare[os.Args[2]]; prepare != nil {
		prepare() // a warm child does this while it waits for its script
	}
	// The memory limit comes in argv too, so that a warm child sets its
	// guard before the script comes, not on the run's clock; the run
	// frame's limit, which the parent also enforces, stays the one that
	// counts.
	guarded := int64(-1)
	if len(os.Args) > 3 {
		if n, err := strconv.ParseInt(os.Args[3], 10, 64); err == nil && n > 0 {
			guardMemory(n)
			guarded = n
		}
	}
	b, p, err := openChildBridge()
	if err != nil {
		fmt.Fprintf(os.Stderr, "toolfold: %s: %v (this mode is started by toolfold itself)\n", ChildArg, err)
		return 2
	}
	if p.Limits.MemoryBytes != guarded {
		guardMemory(p.Limits.MemoryBytes)
	}
	d := run(b, p)
	b.done(d)
	if p.Hold {
		b.holdAfterDone()
	}
	return 0
}

// holdAfterDone waits, after done, for the parent to stop the run (it
// answers at done, then sends SIGSTOP and SIGKILL), for at most holdMax,
// or until the parent closes the bridge. Exiting at done instead put the
// process's teardown, and its init's wake-up to reap it, on the CPUs
// while the parent read done and answered (measured: 0.1–0.4 ms of a
// trivial run's p50).
func (b *childBridge) holdAfterDone() {
	time.AfterFunc(holdMax, func() { os.Exit(0) })
	io.Copy(io.Discard, b.in)
}

// exitOnSIGXCPU turns the soft RLIMIT_CPU signal, which Go ignores by
// default, into an immediate exit the parent recognizes.
func exitOnSIGXCPU() {
	c := make(chan os.Signal, 1)
	signal.Notify(c, syscall.SIGXCPU)
	<-c
	os.Stderr.WriteString("toolfold sandbox: CPU time limit reached\n")
	os.Exit(exitCPU)
}

// childBridge is the child's end of the bridge. Lua is single-threaded, so
// requests are synchronous: send one, read frames until its response.
type childBridge struct {
	r      *frameReader
	in     *os.File // what r reads
	w      *frameWriter
	max    int
	nextID int64
}

// openChildBridge opens fds 3 and 4 and reads the run frame.
func openChildBridge() (*childBridge, *runParams, error) {
	for _, fd := range []int{childBridgeOutFD, childBridgeInFD} {
		if _, err := unix.FcntlInt(uintptr(fd), unix.F_GETFD, 0); err != nil {
			return nil, nil, fmt.Errorf("no bridge on fd %d", fd)
		}
	}
	out := os.NewFile(childBridgeOutFD, "bridge-out")
	in := os.NewFile(childBridgeInFD, "bridge-in")
	// The parent checked the run frame against the frame cap, which the
	// child learns from that frame.
	fr := newFrameReader(in, 1<<30)
	line, err := fr.next()
	if err != nil {
		return nil, nil, fmt.Errorf("read run frame: %w", err)
	}
	var f frame
	var p runParams
	if err := json.Unmarshal(line, &f); err != nil || f.Method != methodRun {
		return nil, nil, fmt.Errorf("first bridge frame is not a run frame")
	}
	if err := json.Unmarshal(f.Params, &p); err != nil {
		return nil, nil, fmt.Errorf("decode run frame: %w", err)
	}
	fr.max = p.Limits.MaxFrameBytes
	return &childBridge{r: fr, in: in, w: &frameWriter{w: out}, max: p.Limits.MaxFrameBytes}, &p, nil
}

// bridgeError is an error response from the parent: the script sees Msg.
type bridgeError struct{ Msg string }

func (e *bridgeError) Error() string { return e.Msg }

// request sends one request and returns its result. A *bridgeError is for
// the script; any other error means the parent is gone or broke protocol,
// and the child exits.
func (b *childBridge) request(method string, params any, what string) (json.RawMessage, error) {
	b.nextID++
	id := b.nextID
	data, err := marshal(&frame{ID: id, Method: method, Params: mustJSON(params)})
	if err != nil {
		return nil, err
	}
	if len(data) > b.max {
		return nil, &bridgeError{Msg: fmt.Sprintf(
			"%s of %d bytes exceed the %s frame limit; pass less data per call or raise %s",
			what, len(data), fmtBytes(int64(b.max)), hintFrame)}
	}
	if err := b.w.writeRaw(data); err != nil {
		b.fatal(err)
	}
	for {
		line, err := b.r.next()
		if err != nil {
			b.fatal(err)
		}
		var resp frame
		if err := json.Unmarshal(line, &resp); err != nil {
			b.fatal(fmt.Errorf("malformed response: %w", err))
		}
		if resp.ID != id {
			continue // not ours: a single-threaded runtime has one request in flight
		}
		if resp.Output != "" {
			os.Stdout.WriteString(resp.Output)
		}
		if resp.Error != nil {
			return nil, &bridgeError{Msg: resp.Error.Message}
		}
		return resp.Result, nil
	}
}

// done sends the done notification. A value too big for a frame becomes an
// error the script's author can act on.
func (b *childBridge) done(d doneParams) {
	if d.Error != nil && len(d.Error.Msg) > 4<<10 {
		d.Error.Msg = string(trimPartialRune([]byte(d.Error.Msg[:4<<10]))) + "…"
	}
	data := mustJSON(&frame{Method: methodDone, Params: mustJSON(d)})
	if len(data) > b.max {
		data = mustJSON(&frame{Method: methodDone, Params: mustJSON(doneParams{Error: &wireError{Kind: "limit", Msg: fmt.Sprintf(
			"the return value of %d bytes exceeds the %s frame limit; return less (print it, or summarize) or raise %s",
			len(d.Value), fmtBytes(int64(b.max)), hintFrame)}})})
	}
	if err := b.w.writeRaw(data); err != nil {
		b.fatal(err)
	}
}

// fatal ends a child whose bridge broke: the parent is gone or killing it.
func (b *childBridge) fatal(err error) {
	fmt.Fprintf(os.Stderr, "toolfold sandbox: bridge: %v\n", err)
	os.Exit(3)
}
