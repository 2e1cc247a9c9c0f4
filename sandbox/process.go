package sandbox

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// childEnv is the whole environment of a child: nothing of the proxy's own
// (it holds upstream API keys).
var childEnv = append([]string{"LANG=C.UTF-8", "PATH=/usr/bin:/bin"}, raceEnv...)

// procRunner runs one language in a re-executed child: exe ChildArg language.
// It is the parent half shared by every language; the child half is
// ChildMain plus the language's childRuntime.
type procRunner struct {
	exe    string
	exeErr error // from os.Executable or the binary's vetting, reported by run
	// bin is exe held open (exefile.go) when the child re-executes it
	// (Lua): children start from it, never from the path.
	bin      *exeFile
	language string
	log      *slog.Logger
	// plain, in tests and benchmarks, runs the child without the sandbox.
	plain bool
	// readOnly are host paths the inner command needs, bound read-only
	// into the sandbox at the same paths (an interpreter's runtime).
	readOnly []string
	// onStart, when set (tests), is called with the child's pid after its
	// rlimits are applied and before it is sent the code.
	onStart func(pid int)
	// command, when set, gives the child's argv (argv[0] is the program's
	// absolute path) and its whole environment instead of re-executing exe:
	// how an interpreter language (python3, node) is started. See interp.go.
	command func(lim Limits) (argv, env []string)
	// preamble, when set, is written on the bridge ahead of the run frame:
	// Python's compiled prelude, which its command line's loader reads
	// (see pythonArgv). It counts toward no frame limit.
	preamble []byte
	// warm, when set, keeps a started child for the next run (warm.go).
	warm *spares
	// noProcs (Lua) has a sandboxed child refuse to make processes
	// (childNoProcsArg) where the seccomp layer allows it.
	noProcs bool
	// linger, in tests, keeps a sandbox init alive this long after it
	// answered (initSpec.LingerMillis).
	linger time.Duration
}

// run is Runner.Run for every process-based language.
func (p *procRunner) run(ctx context.Context, req Request, host Host) (*Result, error) {
	if p.exeErr != nil {
		return nil, p.exeErr
	}
	if err := ctx.Err(); err != nil {
		return &Result{Err: &ScriptError{Kind: "killed", Msg: "run cancelled: " + context.Cause(ctx).Error()}}, nil
	}
	if err := Detect().Allow(p.language, req.Require); err != nil {
		return nil, fmt.Errorf("sandbox: %w", err)
	}
	lim := req.Limits.withDefaults()
	if req.Args != nil && !isObject(req.Args) {
		return nil, fmt.Errorf("sandbox: Request.Args must be a JSON object, got %.40s", req.Args)
	}
	first, err := marshal(&frame{Method: methodRun, Params: mustJSON(runParams{Code: req.Code, Limits: toWire(lim), Args: req.Args, Check: req.Check,
		Hold: req.OnDone != nil})})
	if err != nil {
		return nil, fmt.Errorf("sandbox: encode run frame: %w", err)
	}
	if len(first) > lim.MaxFrameBytes {
		return &Result{Err: &ScriptError{Kind: "limit", Msg: fmt.Sprintf(
			"the script is %d bytes, over the %s frame limit; send a shorter script or raise %s",
			len(req.Code), fmtBytes(int64(lim.MaxFrameBytes)), hintFrame)}}, nil
	}
	dir, cleanup, err := workdir(req.Workdir, p.sandboxed())
	if err != nil {
		return nil, err
	}
	defer cleanup()
	var c *child
	if p.warmable(req.Workdir) {
		key := spareKey{dir: dir, tree: req.Tree, lim: lim}
		c = p.warm.begin(ctx, key) // its preamble is written already
		defer p.warm.end(key)      // the next run's child, once this one is gone
	}
	if c == nil {
		if c, err = p.start(dir, req.Tree, lim); err != nil {
			return nil, err
		}
		if p.preamble != nil {
			first = append(slices.Clip(p.preamble), first...) // a copy: preamble is shared by runs
		}
	}
	return c.supervise(ctx, first, host, req.OnDone, req.OnOutput), nil
}

// runTempPrefix names the temporary run directories workdir makes.
const runTempPrefix = "toolfold-run-"

// workdir returns the run's working directory and a cleanup function. A
// sandboxed run without a directory of its own gets none on the host: the
// init mounts a fresh bounded tmpfs at /workspace, so making and removing
// a temporary directory would only cost time (0.6 ms a run).
func workdir(dir string, sandboxed bool) (string, func(), error) {
	if dir != "" || sandboxed {
		return dir, func() {}, nil
	}
	dir, err := os.MkdirTemp("", runTempPrefix)
	if err != nil {
		return "", nil, fmt.Errorf("sandbox: create run directory: %w", err)
	}
	return dir, func() { os.RemoveAll(dir) }, nil
}

// child is one started child process and the parent's ends of its pipes.
type child struct {
	p       *procRunner
	lim     Limits
	cmd     *exec.Cmd
	pid     int
	start   time.Time
	stdout  *os.File // parent's read ends
	stderr  *os.File
	bridgeR *os.File // child → parent
	bridgeW *os.File // parent → child
	exited  chan struct{}
	init    *initConn // nil when the child runs without the sandbox's init
	warm    bool      // started ahead of its run (warm.go)
	// noProcs: the child refuses to make processes or leave its group
	// (childNoProcsArg), so stopping the group stops the whole run.
	noProcs bool

	mu     sync.Mutex
	cause  *ScriptError // why the parent killed the child; first one wins
	reaped bool         // the group may no longer be signalled
}

// start spawns the child with its pipes, applies the rlimits and starts
// watching for its exit. On error nothing is left running.
func (p *procRunner) start(dir, tree string, lim Limits) (*child, error) {
	var files []*os.File // every end, closed on failure
	closeAll := func() {
		for _, f := range files {
			f.Close()
		}
	}
	pipe := func() (r, w *os.File, err error) {
		r, w, err = os.Pipe()
		if err == nil {
			files = append(files, r, w)
		}
		return r, w, err
	}
	outR, outW, err1 := pipe()
	errR, errW, err2 := pipe()
	brR, brChildW, err3 := pipe() // child → parent
	brChildR, brW, err4 := pipe() // parent → child
	if err := errors.Join(err1, err2, err3, err4); err != nil {
		closeAll()
		return nil, fmt.Errorf("sandbox: create pipes: %w", err)
	}
	argv, env := []string{p.exe, ChildArg, p.language, strconv.FormatInt(lim.MemoryBytes, 10)}, childEnv
	noProcs := p.noProcs && p.sandboxed() && seccompAvailable && Detect().NoProcs
	if noProcs {
		argv = append(argv, childNoProcsArg)
	}
	if p.command != nil {
		argv, env = p.command(lim)
	}
	cmd := &exec.Cmd{
		Path:        argv[0],
		Args:        argv,
		Env:         env,
		Dir:         dir,
		Stdout:      outW,
		Stderr:      errW,
		ExtraFiles:  []*os.File{brChildW, brChildR}, // fds 3 and 4
		SysProcAttr: childSysProcAttr(),             // own process group; dies with the proxy
	}
	ic, err := p.sandboxCmd(cmd, tree, lim) // the same command, inside the sandbox's init
	if err != nil {
		closeAll()
		return nil, err
	}
	if ic != nil {
		files = append(files, ic.files(cmd)...)
	} else if p.command == nil {
		// Unsandboxed, the child itself starts from the vetted file (fd 5).
		_, dup, err := p.bin.attach(cmd)
		if err != nil {
			closeAll()
			return nil, err
		}
		defer dup.Close()
	}
	if err := cmd.Start(); err != nil {
		closeAll()
		ic.release()
		return nil, fmt.Errorf("sandbox: start %s child: %w", p.language, err)
	}
	if ic != nil {
		// The init was forked, not vforked (it has a user namespace), and
		// has exec'd: take the faults the fork left in the background.
		go prefault()
	}
	outW.Close()
	errW.Close()
	brChildW.Close()
	brChildR.Close()
	c := &child{p: p, lim: lim, cmd: cmd, pid: cmd.Process.Pid, start: time.Now(), init: ic, noProcs: noProcs,
		stdout: outR, stderr: errR, bridgeR: brR, bridgeW: brW, exited: make(chan struct{})}
	go c.watchExit()
	err = applyRlimits(c.pid, lim, ic != nil)
	if err == nil && ic != nil {
		err = ic.begin(c.pid, cmd.ExtraFiles[2:])
	}
	if err != nil {
		if ic != nil {
			for _, f := range cmd.ExtraFiles[2:] {
				f.Close()
			}
		}
		c.killAndReap()
		c.closePipes()
		return nil, err
	}
	if p.onStart != nil {
		p.onStart(c.pid)
	}
	return c, nil
}

// watchExit closes c.exited when the child has exited, without reaping it:
// until it is reaped its pid, and so its process group id, cannot be reused,
// which keeps kill(-pid) safe.
func (c *child) watchExit() {
	defer close(c.exited)
	waitNoReap(c.pid)
}

// kill records why the child is being stopped (the first reason wins) and
// kills its process group.
func (c *child) kill(cause *ScriptError) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.cause == nil {
		c.cause = cause
	}
	if !c.reaped {
		unix.Kill(-c.pid, unix.SIGKILL)
	}
}

// killCause returns the reason recorded by kill, or nil.
func (c *child) killCause() *ScriptError {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.cause
}

// killAndReap kills whatever is left of the process group, then reaps the
// child. Every exit path of a run goes through it.
func (c *child) killAndReap() *os.ProcessState {
	c.mu.Lock()
	if !c.reaped {
		unix.Kill(-c.pid, unix.SIGKILL)
		c.reaped = true
	}
	c.mu.Unlock()
	<-c.exited
	c.cmd.Wait() // the error is in ProcessState
	if c.init != nil {
		c.init.finish()
	}
	return c.cmd.ProcessState
}

func (c *child) closePipes() {
	c.init.release()
	c.closeIO()
}

// closeIO closes the parent's ends of the child's pipes.
func (c *child) closeIO() {
	c.stdout.Close()
	c.stderr.Close()
	c.bridgeR.Close()
	c.bridgeW.Close()
}

// supervise sends the run frame, serves the bridge, collects the output and
// waits for the child to end: by itself, by the timeout, by ctx, or killed
// for breaking a limit. Every process of the run has ended when it
// returns. The child is reaped before it returns, but for a sandbox init
// that answered that the run is over: its exit, which tears down the
// namespaces (about 1.5 ms with the cgroup's removal), finishes in the
// background.
func (c *child) supervise(ctx context.Context, first []byte, host Host, onDone func(*Result), onOutput func([]byte)) *Result {
	clock := &runClock{}
	runCtx, cancel := context.WithCancel(withClock(ctx, clock))
	defer cancel()
	out := newOutputBuffer(c.lim.OutputBytes)
	out.onKept = onOutput
	errTail := newStderrBuffer(8 << 10)
	b := newBridgeServer(c, host)
	var readers, stdout sync.WaitGroup
	stdout.Go(func() { c.readStdout(out) })
	readers.Go(func() { errTail.readFrom(c.stderr) })
	readers.Go(func() { b.serve(runCtx, first) })

	var doneSeen <-chan struct{} // nil: await does not stop at done
	if onDone != nil {
		doneSeen = b.doneSeen
	}
	c.await(ctx, clock, doneSeen)
	// answered is the result given to onDone at done, before the
	// processes' teardown.
	var answered *Result
	if isClosed(doneSeen) && c.killCause() == nil {
		answered = c.answerAtDone(b, out, &stdout, cancel, onDone)
	}
	var state *os.ProcessState // nil when the init answered first
	// The init's answer, and its cgroups, say every process of the run has
	// ended: the init's own exit can wait.
	early := c.init.ended() && c.killCause() == nil && c.init.quiet(c.pid)
	if !early {
		state = c.killAndReap()
	}
	dur := time.Since(c.start)
	cancel()          // in-flight host calls end
	c.drain(&readers) // its read deadline stops the stdout reader too
	stdout.Wait()
	b.wait()
	if early {
		c.init.snapshot() // the cgroup's verdicts, before it is removed
		c.closeIO()
		c.p.background(func() {
			c.killAndReap()
			c.init.release()
		})
	} else {
		c.closePipes()
	}
	releaseAfterLargeRun(b.frameBytes.Load())
	if answered != nil {
		return answered // the caller's already: logged by answerAtDone
	}

	res := &Result{Output: out.String(), Duration: dur, ToolCalls: int(b.calls.Load()), ResultBytes: b.resultBytes.Load()}
	res.Value, res.Err = c.outcome(b.done, state, errTail)
	// The code had ended, and what it left running was stopped before done.
	res.PendingStopped = b.pending && b.done == nil && res.Err != nil
	c.init.note(res.Err, c.lim)
	c.p.log.Debug("run finished", "language", c.p.language, "pid", c.pid, "warm", c.warm, "duration", dur,
		"tool_calls", res.ToolCalls, "error", res.Err, "exit", exitString(state, c.init))
	if s := errTail.String(); s != "" {
		c.p.log.Debug("child stderr", "pid", c.pid, "stderr", s)
	}
	return res
}

// answerAtDone is the answer of a run whose script said it was done
// (Request.OnDone): it kills every process of the run, so that nothing of
// the script runs after the answer, takes what the script printed before
// done, and calls onDone with the result. It returns nil, and calls nothing,
// if what was printed broke the output limit: the run then ends as any
// other.
func (c *child) answerAtDone(b *bridgeServer, out *outputBuffer, stdout *sync.WaitGroup, cancel func(), onDone func(*Result)) *Result {
	c.mu.Lock()
	if !c.reaped {
		// No cause: the script had ended. Every process of the run is
		// stopped now, so that none of its code runs after the answer: the
		// group, with the sandbox's init at its head, and every process in
		// the run's cgroups, a setsid daemon included. They are killed
		// once the answer has gone out: killed now, their teardown
		// (address spaces, namespaces), woken all at once, took the CPU
		// ahead of the answer and of the client reading it.
		unix.Kill(-c.pid, unix.SIGSTOP)
		if !c.noProcs {
			c.init.stopTasks() // 0.2–0.3 ms on this cgroup v1 machine: two lists of the run's processes
		}
	}
	c.mu.Unlock()
	defer func() {
		c.mu.Lock()
		if !c.reaped {
			unix.Kill(-c.pid, unix.SIGKILL) // what is left of the PID namespace dies with its init
			c.init.killTasks()
		}
		c.mu.Unlock()
	}()
	dur := time.Since(c.start)
	cancel() // a host call still in flight past done ends
	// Everything the script printed before done is in the pipe (its writes
	// returned before it wrote done) or read already: stop the reader and
	// read the rest without waiting for the writers to close.
	c.stdout.SetReadDeadline(time.Now())
	stdout.Wait()
	c.stdout.SetReadDeadline(time.Time{})
	c.readPiped(out)
	if c.killCause() != nil {
		return nil
	}
	res := &Result{Output: out.String(), Duration: dur, ToolCalls: int(b.calls.Load()), ResultBytes: b.resultBytes.Load()}
	res.Value, res.Err = c.outcome(b.done, nil, nil)
	if res.Err != nil {
		// Whether a fork was refused before done, for note; a run without
		// an error has nothing to note, and release snapshots the cgroup
		// after the answer.
		c.init.snapshot()
		c.init.note(res.Err, c.lim)
	}
	c.p.log.Debug("run finished", "language", c.p.language, "pid", c.pid, "warm", c.warm, "duration", dur,
		"tool_calls", res.ToolCalls, "error", res.Err, "answered", "at done")
	onDone(res)
	time.Sleep(answerGrace) // the answer goes out, and its client reads it, before the teardown
	return res
}

// answerGrace is how long the stopped processes of a run answered at done
// wait for their SIGKILL after the answer is handed over.
const answerGrace = 2 * time.Millisecond

// isClosed reports whether ch (nil: never) is closed.
func isClosed(ch <-chan struct{}) bool {
	if ch == nil {
		return false
	}
	select {
	case <-ch:
		return true
	default:
		return false
	}
}

// await waits for the child to end by itself, or ends it: at the
// timeout (later by the time its wall clock was paused, see PauseClock),
// or when ctx ends. It also returns when done (nil: never) is closed: the
// script said it was done and the caller answers then (Request.OnDone).
func (c *child) await(ctx context.Context, clock *runClock, done <-chan struct{}) {
	timer := time.NewTimer(c.lim.Timeout)
	defer timer.Stop()
	for {
		select {
		case <-c.exited:
			return
		case <-done:
			return
		case <-c.init.settled():
			return
		case <-timer.C:
			if d := clock.extend(); d > 0 {
				timer.Reset(d)
				continue
			}
			c.kill(&ScriptError{Kind: "timeout", Msg: fmt.Sprintf(
				"timed out after %s; make the script do less per run or raise %s", c.lim.Timeout, hintTimeout)})
			return
		case <-ctx.Done():
			c.kill(&ScriptError{Kind: "killed", Msg: "run cancelled: " + context.Cause(ctx).Error()})
			return
		}
	}
}

// drain waits for the pipe readers to reach EOF. Once the process group is
// dead every write end is closed; the deadline only guards against a writer
// that escaped the group (impossible for Lua; namespaces close it later).
func (c *child) drain(readers *sync.WaitGroup) {
	deadline := time.Now().Add(2 * time.Second)
	for _, f := range []*os.File{c.stdout, c.stderr, c.bridgeR} {
		f.SetReadDeadline(deadline)
	}
	c.bridgeW.Close() // unblocks a response writer stuck on a full pipe
	readers.Wait()
}

// outcome turns how the child ended into the script's value and error.
func (c *child) outcome(done *doneParams, state *os.ProcessState, stderr *stderrBuffer) (json.RawMessage, *ScriptError) {
	if cause := c.killCause(); cause != nil {
		return nil, cause
	}
	if done != nil {
		if done.Error != nil {
			return nil, &ScriptError{Kind: done.Error.Kind, Line: done.Error.Line, Msg: done.Error.Msg}
		}
		return done.Value, nil
	}
	if err := c.init.explain(c.lim); err != nil {
		return nil, err
	}
	inner, ok := c.init.innerStatus()
	if !ok {
		inner = state.Sys().(syscall.WaitStatus)
	}
	use, ok := c.init.usage()
	if !ok {
		use = usageOf(state)
	}
	return nil, classifyExit(use, inner, stderr.String(), c.lim)
}

// exitString describes how the child ended, for the debug log.
func exitString(state *os.ProcessState, ic *initConn) string {
	if state != nil {
		return state.String()
	}
	if st, ok := ic.innerStatus(); ok {
		return describeStatus(st) + " (init exiting)"
	}
	return "unknown"
}

func mustJSON(v any) json.RawMessage {
	b, err := marshal(v)
	if err != nil {
		panic(err) // only called with plain structs
	}
	return b
}

// isObject reports whether raw is one valid JSON object.
func isObject(raw json.RawMessage) bool {
	raw = bytes.TrimSpace(raw)
	return len(raw) > 0 && raw[0] == '{' && json.Valid(raw)
}
