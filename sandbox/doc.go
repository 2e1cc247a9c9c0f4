// Package sandbox runs the scripts a model writes for run_script, each in a
// fresh child process, and carries the script's tool calls back to the proxy.
//
// # The run shape
//
// Every language runs the same way; only the child's interpreter differs.
//
//	proxy (parent)                                  child: toolfold __toolfold-sandbox-child lua
//	──────────────                                  ──────────────────────────────────────────────
//	Runner.Run(ctx, req, host)
//	  start the child ─────────── exec ──────────▶  empty environment (LANG, PATH only)
//	                                                stdin /dev/null, own process group,
//	                                                SIGKILL when the proxy dies, cwd = workdir
//	  prlimit: CPU, DATA, NOFILE, FSIZE, CORE (+NPROC as root)
//	  run frame (code, limits) ─── fd 4 ─────────▶  fresh interpreter, safe libraries only
//	                           ◀── fd 3 ──────────  {"id":1,"method":"call",...}
//	  host.Call / host.Search (≤ MaxConcurrency)
//	  {"id":1,"result":...} ────── fd 4 ─────────▶  the call returns in the script
//	                           ◀── stdout ────────  print: the script's output, never parsed
//	                           ◀── stderr ────────  kept (head and tail) to explain a crash
//	                           ◀── fd 3 ──────────  {"method":"done","params":{"value":...}}
//	  wait for the end (or kill the group: timeout, ctx, a limit), reap, remove workdir
//
// The binary re-executes itself (os.Executable, or toolfold-sandbox beside
// it: exe.go), so Lua needs nothing installed. It is opened once and
// vetted as opened (exefile.go), and every child starts from that
// descriptor, never from the path; cmd/toolfold's main must begin with
//
//	if sandbox.IsChild() { sandbox.ChildMain() }
//
// Untrusted code never runs inside the proxy: gopher-lua's string.rep,
// table.concat and ".." reach a Go out-of-memory that no recover catches, and
// pattern matching ignores context cancellation. In a child both only end
// that child.
//
// # Inside a Lua script
//
// Base (without load, loadstring, loadfile, dofile, module,
// collectgarbage, getfenv, setfenv, newproxy), string (without dump), table
// and math; no io, os, debug, package or coroutine. Added:
//
//	tools.<server>.<tool>{key = value}   a tool call; any name resolves when called
//	call("server.tool", {key = value})   the same with the name as a string
//	search_tools(query [, detail [, limit]])  the search_tools text
//	skills.save{name = ..., description = ..., language = ..., code = ...}  save a skill (SkillSaver)
//	json.encode(v), json.decode(s), json.null
//	json.array(...)                      a new array of the arguments (nil as json.null)
//	json.object([t])                     a new object, with t's fields when given
//	print(...)                           tab-separated, to the output
//	require("servers.memory")            a module of the code API (below), nothing else
//
// A failed call raises a Lua error whose value is the message alone, so
// pcall(tools.fs.read_file, {path = "x"}) returns false and the upstream's
// text. The script's first return value becomes Result.Value (JSON).
// Results arrive as decoded JSON: objects are tables, arrays sequences, null
// is json.null (nil at the top level). Lua has one table type for both, so
// each decoded table carries a mark (a shared metatable) that json.array and
// json.object set too. Going back, a table marked as an array is an array,
// empty or not, so {"entities":[]} read from one tool goes to the next
// unchanged, and appending keeps it one (keys other than 1..n are an error);
// one marked as an object is an object; an unmarked table is an array when
// its keys are exactly 1..n with n > 0 and an object otherwise, the empty
// one too: {} encodes as {}. Write json.array() for an empty array argument.
// (The proxy also turns {} into [] where a tool's inputSchema declares the
// parameter an array.)
//
// # Languages
//
// A run_script language is one Language (language.go): its name, title,
// file extensions, how its interpreter is found (a command on PATH, the
// sandbox key of proxy.yaml that names it or switches it off), its runner
// constructor, prelude, call Syntax (search_tools' signatures, rendered by
// package index) and the words run_script's description uses. config,
// index, proxy, cmd/toolfold and the bench iterate over Languages; adding a
// fourth language is one RegisterLanguage plus its Runner. Lua is built in
// (no interpreter), and so allowed on a degraded sandbox (Layers.Allow).
//
// # Interpreter languages: Python and JavaScript
//
// NewPython and NewJavaScript find their interpreter once (a path, or
// python3 / node on PATH; a pyenv shim is resolved to the real binary),
// check its version (Python 3.8+, Node.js 18+) and say why it is
// unavailable otherwise. Each run starts the interpreter itself in place
// of the re-executed binary (procRunner.command) with the environment
// LANG and PATH only, stdin /dev/null and the same pipes, rlimits and
// bridge; a prelude embedded from prelude/ is passed on the command line
// (Python's, compiled, on the bridge ahead of the run frame, read by a
// short loader on the command line), so nothing in the working directory
// is read to set up a run.
// RuntimePaths lists the directories the interpreter needs read-only (its
// prefix, binary and shared-library directories) for the isolation layer.
//
//	python3 -I -S -B -c <loader of the compiled prelude>  [site-packages dirs]
//	node --max-old-space-size=<memory> --experimental-vm-modules -e <prelude>
//
// -I keeps the working directory (a session's workspace, which an earlier
// run may have filled) off sys.path, so a planted json.py hijacks nothing;
// -S skips the site module (tens of milliseconds; the prelude appends the
// site-packages directories itself, without running .pth files). The
// Python prelude imports only built-in modules and is a code object
// marshalled by the same interpreter at construction, written raw on the
// bridge before the run frame (in hex on the command line it cost 3-5 ms a
// run: the spec's JSON, the execve and Python's argv decoding each copied
// 106 KB); it lowers its own RLIMIT_DATA to its start-up size plus
// MemoryBytes. The node prelude uses only modules loaded at start (no net,
// no stream), reads the run frame and writes the done frame with blocking
// calls, does the bridge's other I/O with fs on the thread pool (started
// only by a script that calls a tool) and writes output with blocking
// writes (node's own pipe stdout would queue a printing loop's output in
// memory).
//
// # Inside a Python script
//
//	tools.<server>.<tool>(key=value)        a tool call; or one dict; any name via tools["s"]["t"]
//	await tools.<server>.<tool>.acall(...)  the same for asyncio (calls run concurrently)
//	call("server.tool", {...} or key=value) by qualified name; await acall(...) for asyncio
//	search_tools(query, detail=None, limit=None)  the search_tools text; await asearch_tools(...)
//	skills.save(name=..., description=..., language=..., code=...)  save a skill; await skills.asave(...)
//	ToolError                               raised by a failed call (str(e) is the message, e.tool the name)
//	return value                            at the top level: the run's value (JSON)
//	print(...)                              output, line-buffered
//	from servers.memory import create_entities  the code API (below); import skills.NAME too
//
// The script is compiled with top-level await allowed (it then runs under
// asyncio.run). A top-level return, also inside top-level if/for/while/
// with/try/match blocks but not inside def or class, is rewritten in the
// AST to raise an internal BaseException carrying the value, so finally
// blocks run and `except Exception` does not catch it (a bare except does).
// Blocking calls may come from several threads at once. Errors report the
// innermost line of the script in the traceback; a ToolError's message is
// the message alone, other exceptions read "Type: message". A MemoryError
// ends the run as "memory"; sys.exit(0) (or exit(), which the prelude
// defines since site does not run) is a run without a value.
//
// When the code has ended, the run waits, as python does at exit, for the
// script's non-daemon threads and threading's exit calls (so an executor
// that was not shut down finishes its work); daemon threads are not waited
// for. A thread may call tools until then.
//
// A name lookup or an inet socket of the socket module (urllib,
// http.client, asyncio, requests: anything built on it) raises
// PermissionError(EPERM, "the sandbox has no network: call a tool instead
// (search_tools finds one)"): the prelude patches socket as it is first
// imported (a meta path finder), words only. The kernel layers are what
// refuse the network: _socket used directly gets their bare EPERM
// (TestBatteryNetworkPastThePrelude). Not an audit hook: Python calls one
// for every audited event, each id() among them.
//
// # Inside a JavaScript script
//
//	await tools.<server>.<tool>({key: value})  a tool call (a promise); any name via tools["s"]["t"]
//	await call("server.tool", {key: value})    by qualified name
//	await searchTools(query, detail, limit)    or searchTools(query, {detail, limit}); alias search_tools
//	await skills.save({name, description, language, code})  save a skill
//	ToolError                                  a failed call rejects with it (e.message, e.tool)
//	require(name)                              built-in modules and absolute paths only
//	console.log(...)                           output
//
// The script is the body of an async function (compiled with vm.Script
// as file "script", the header on line 1, so lines match): top-level
// await and return both work. Static import statements at the start of a
// line (import { a } from "./servers/memory/index.js", import * as m,
// import m, import "x") are rewritten on their own lines to require calls
// (a default import is module.exports); require resolves a relative path
// against the working directory. Promise.all runs
// calls in parallel. A ToolError is created when the call is made, so its
// stack names the calling line. An uncaught exception or unhandled
// rejection ends the run with its line; a script awaiting a promise that
// nothing can settle ends at once ("can never finish"), because the
// bridge is read only while a request is in flight. process.exit(0) ends
// the run without a value, another code as an error.
//
// When the code has returned, the run waits, as node does before it exits,
// until the event loop is empty: pending timers, immediates and I/O run,
// and their callbacks may call tools (an unref'd timer is not waited for).
// The run's value is what the code returned, encoded then; an uncaught
// exception in a callback ends the run as an error, process.exit(0) in one
// keeps the value.
//
// A network attempt (net, tls, http, https, http2, dns, dgram, fetch)
// fails with an Error of code EPERM saying the same as Python's: the
// prelude patches those modules when something first loads one
// (Module._load; loading net costs about 10 ms, paid only then) and wraps
// fetch, whose own message is only "fetch failed".
//
// # The code API (Request.Tree)
//
// A run with Request.Tree (the proxy's, written by package codeapi) sees
// its servers/ and skills/ read-only at /workspace/servers and
// /workspace/skills: bind mounts the init makes inside the workspace
// (mount_linux.go), never copies; a write there fails (EROFS), and a kept
// workspace holding a file of either name goes without that bind. Each
// language imports from them what calls the same bridge as tools:
// Python's prelude adds the module toolfold (call, acall, tools,
// search_tools, ToolError, skills) and a finder for the packages servers
// and skills in the working directory (-I keeps it off sys.path, so
// nothing else there is importable); JavaScript's modules are CommonJS
// calling globalThis.__toolfold.call; Lua's require (luarequire.go) loads
// only servers.* and skills.* modules, NAME.lua or NAME/init.lua under
// the working directory, with the script's globals. Without the mount
// namespace (a degraded sandbox) a run has no tree.
//
// # The bridge
//
// Two pipes on fds 3 (child → parent) and 4 (parent → child), one JSON
// object per line, each at most Limits.MaxFrameBytes:
//
//	parent → child  {"method":"run","params":{"code":"...","limits":{...},"args":{...},"check":true}}  first, once
//	                (for Python, after the marshalled prelude, raw bytes)
//	child → parent  {"id":1,"method":"call","params":{"name":"fs.read_file","args":{...}}}
//	child → parent  {"id":2,"method":"search","params":{"query":"...","detail":"full","limit":5}}
//	child → parent  {"id":3,"method":"save_skill","params":{"name":"...","code":"...",...}}
//	parent → child  {"id":1,"result":<json>}  or  {"id":1,"error":{"message":"..."}}, either with "output":"..."
//	child → parent  {"method":"pending"}  the code ended; pending work (timers, threads) runs before done
//	child → parent  {"method":"done","params":{"value":<json>,"error":{"kind":"runtime","line":3,"msg":"..."}}}
//
// "args" (Request.Args, a saved skill's arguments) is bound as the global
// args: a Lua table, a Python dict, a JavaScript object; without it args is
// undefined. "check" (Request.Check) compiles the code exactly as a run
// would, inside the same sandbox, and sends done without running it: a
// skill's code is checked this way before it is saved.
//
// save_skill (skills.save in a script) reaches a Host that implements
// SkillSaver, and counts as a tool call. A response's "output" is text the
// child prints before the call returns: what a skill the call ran printed
// (the Host adds it with CallOutput), so it lands between what the script
// printed before and after the call.
//
// Requests may be in flight concurrently (a Python or JavaScript prelude
// sends several); ids are positive and unique while in flight. The child is
// untrusted: an oversized, malformed or unknown frame kills it, and a
// result too large for a frame is replaced by an error the script sees.
//
// Whatever the child sends, the parent's goroutines and memory stay
// bounded. At most MaxConcurrency requests are served at once, and while
// all are busy the parent reads no further frame, so a child that sends
// faster than its calls complete (or than it reads their responses) only
// stalls on the full pipe; a child must read responses while it sends.
// Requests past MaxToolCalls are refused by the read loop itself, and after
// 100 refusals the child is killed ("limit"). A response write to a child
// that does not read blocks until the wall timeout kills it.
//
// # Limits
//
// All enforced from the parent (see Limits): the wall timeout kills the
// process group; RLIMIT_CPU ends a spinning child; RLIMIT_DATA bounds its
// memory, with a guard in the child that exits just below it so the model
// reads "ran out of memory" rather than a crash; output past OutputBytes is
// counted and cut with a notice, and output that keeps flowing past 16×
// (at least 1 MiB) kills the child; MaxToolCalls and MaxFrameBytes answer
// the script with catchable errors (100 calls past MaxToolCalls kill it).
// The messages name the config key to raise (sandbox.timeout,
// sandbox.memory, ...). The limits bound the wait for a script's pending
// work too: a setInterval that never stops, or a thread that loops, ends at
// the wall timeout with the usual error, and Result.PendingStopped (which
// run_script's footer reports) says the code had ended and what it left
// running was stopped.
//
// A run that moved 4 MiB or more through the bridge (tool results,
// arguments, the return value) has the proxy collect its heap and return it to the OS
// half a second after it ends (release.go): Go would otherwise keep the
// pages of those buffers until its next collection, which an idle proxy
// starts only every two minutes.
//
// # The sandbox (Linux)
//
// Every child starts through the sandbox's init (init_linux.go): the
// binary re-executed with InitArg as PID 1 of new user, mount, pid, net,
// ipc and uts namespaces. The parent (spawn_linux.go) turns the plain child
// command into an initSpec (argv, environment, read-only runtime paths,
// workspace, tmpfs bounds, layers) sent as JSON on fd 5 once it has applied
// the rlimits and, on cgroup v2, moved the init into the run's cgroup
// (cgroup_linux.go). On cgroup v1 it passes the run's "tasks" files
// instead (initSpec.CgroupFDs) and the init's forking thread moves itself
// in just before the fork: moving a whole process takes the kernel's
// thread-group lock and waits for an RCU grace period (4-18 ms a run),
// moving the calling thread does not (0.1 ms).
// The init builds the root (mount_linux.go: tmpfs, read-only binds opened
// as O_PATH before anything is mounted, synthetic /etc, fresh /proc with
// hidepid, bounded /tmp and /workspace, pivot_root), then on one locked OS
// thread joins the run's cgroups (v1), enters a cgroup namespace, empties
// the capability sets, sets no_new_privs, applies Landlock (landlock_linux.go) and the seccomp filter
// (seccomp_linux_amd64.go), and forks the inner command from that thread
// as uid 65534: the thread's restrictions pass to the child and the thread
// dies with its goroutine. It points its own copies of fds 1-4 at
// /dev/null, reaps every process until the inner command exits, kills and
// reaps what is left in the PID namespace (kill(-1) until ESRCH), answers
// the inner command's wait status and resource usage on fd 5, and exits.
// The parent answers the run on that status: the init's exit (the
// namespaces' teardown, about 1.2 ms) and the cgroup's removal finish in
// the background. Should the init die first, the kernel kills what is
// left in the PID namespace.
//
//	proxy ── exec, clone(NEWUSER|NEWNS|NEWPID|NEWNET|NEWIPC|NEWUTS) ──▶ init (PID 1, ns uid 0)
//	  prlimit, (v2: join cgroup), spec ── fd 5 ────────────────────▶ build root, (v1: thread joins cgroup), harden it
//	                                                                   └─ fork+exec as 65534 ─▶ script
//	  fds 1-4 are the script's: passed through, the init's own copies then pointed at /dev/null
//	                            ◀── fd 5 ── {"wait_status":…}           kill and reap all, answer, exit
//
// Where a sandboxed run's 7-9 ms over a plain start go (medians, python3
// -I -S, load below 1): clone and exec of the init 2 ms, the init's Go
// start-up 3.6 ms, the root 1 ms, capabilities, Landlock and seccomp
// 0.55 ms, the fork 0.3 ms; after the script: namespace teardown until the
// init's exit is seen 1.2 ms, cgroup removal 0.25 ms, run directory 0.55 ms.
//
// # Warm runs
//
// With the Warm option (toolfold serve sets it from sandbox.warm) a runner
// starts, when a run ends, the child of the next run with the same Workdir
// and Limits (warm.go): the same init, layers and interpreter a cold run
// would start, Python's prelude written to it, blocked on reading its run
// frame. The next run with that key writes its run frame to it instead of
// starting one, and the child is used once. Spares are bounded (4 per
// runner, none evicted for another), stopped after SpareIdle unused, when
// their workdir is forgotten (Warmer.Forget, at a session's end) and at
// Close; one that died while idle is discarded.
//
// # Answering at done
//
// A caller that sets Request.OnDone (the proxy does) is answered as soon as
// the done frame arrives: the parent sends SIGSTOP to the run's process
// group, whose leader is the init, and to every process in the run's
// cgroups (a setsid daemon included); reads what the script printed before
// done, which is in the stdout pipe already (with what other processes of
// the run printed until the stop); calls OnDone with the result; and 2 ms
// later sends them SIGKILL. Stopped, the processes run no code of the
// script and are not torn down while the answer goes out (killed at once,
// their exit took the CPU ahead of it). Without cgroups, a process that
// left the group is not stopped: it dies with the init, after the kill.
// Run returns, with the same result, once every process has ended.
//
// Request.OnOutput sees each piece of kept output as the stdout reader
// reads it, for every runner, before OnDone and before Run returns: a
// caller shows a long run's progress with it (the proxy's run_script).
//
// A child whose parent answers at done is told so (runParams.Hold): Lua's
// child and Python's prelude then wait after done to be stopped rather
// than exit, so that neither their exit nor the init's wake-up to reap
// them runs while the parent reads done and answers (Python not while a
// daemon thread's request is in flight). Where the probe found it works
// (Layers.NoProcs, x86_64), a Lua child also refuses, with a seccomp
// filter of its own stacked on the init's (installNoProcs), to make
// processes or leave its process group: what runs of a Lua run is then its
// init and its child, both in the group, and the parent stops the group
// alone at done, without listing the cgroup's processes (0.2–0.3 ms on
// cgroup v1).
// Output printed past the flood limit before done stops the run as
// before, with no answer at done.
//
// # The fork's aftermath
//
// Go starts a child with vfork, sharing the parent's memory until the exec,
// except when it must write the child's uid and gid maps (CLONE_NEWUSER),
// as for the init: then it forks, and the fork write-protects every private
// writable page of the proxy, so that each page the proxy writes next takes
// a fault, slow in a virtual machine (3 ms over the next request here).
// Once the init has exec'd, prefault (prefault_linux.go) takes those faults
// in the background with MADV_POPULATE_WRITE on the resident pages.
//
// Lua's inner command is the toolfold binary again (ChildArg lua), the
// init's own executable (/proc/self/exe), bound at /toolfold while its path
// still names that file; an interpreter's is its own argv with its runtime in
// readOnly. Detect probes the layers once (an init in probe mode);
// Layers.Allow applies sandbox.require. Without user namespaces, and
// outside Linux, the child runs as before: a plain process with rlimits.
//
// # Threat model
//
// The script is hostile and every layer assumes the ones above it failed
// (docs/sandbox.md has the table). The proxy survives anything the
// script does (memory, CPU, output, recursion, bridge abuse); the script
// never sees the proxy's environment (upstream API keys) or files; it
// reaches no network; no process of a script outlives Run (the init kills
// and reaps them before it answers, the parent checks the run's cgroups
// are empty, the PID namespace dies with the init, and the init with the
// proxy; only the init's own exit, the namespaces' teardown and the
// cgroup's removal finish just after Run returns); tool calls are counted
// and bounded. sandbox/battery_linux_test.go and layers_linux_test.go are the
// proof; hostile_test.go covers Lua and the bridge.
package sandbox
