package sandbox

import (
	"context"
	_ "embed"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// pythonPrelude is the code python3 runs (-c) before the script: the
// bridge client, tools/call/search_tools and the script runner.
//
//go:embed prelude/python.py
var pythonPrelude string

// pythonProbe prints what NewPython needs to know about the interpreter.
const pythonProbe = `import sys, json, site, sysconfig
paths = sysconfig.get_paths()
print(json.dumps({"exe": sys.executable, "prefix": sys.prefix, "version": list(sys.version_info[:3]),
  "stdlib": [paths["stdlib"], paths["platstdlib"]],
  "site": [p for p in site.getsitepackages() if p]}))`

// The oldest Python the prelude runs on (top-level await in compile,
// positional-only parameters).
const minPythonMajor, minPythonMinor = 3, 8

// Python runs Python scripts with python3 in a child process. See doc.go
// ("Inside a Python script") for what a script can use.
type Python struct{ in *interpreter }

var (
	_ Runner = (*Python)(nil)
	_ Warmer = (*Python)(nil)
)

// NewPython finds the interpreter (opts.Path, or python3 on PATH), checks
// its version and resolves launchers such as pyenv shims to the real
// binary. The error says why Python is unavailable and how to fix it.
func NewPython(opts *InterpreterOptions) (*Python, error) {
	if opts == nil {
		opts = &InterpreterOptions{}
	}
	const hint = "install Python 3.8 or later or set sandbox.python to its path"
	path, err := lookInterpreter(opts.Path, "python3", hint)
	if err != nil {
		return nil, fmt.Errorf("python: %w", err)
	}
	out, err := probe(path, "-I", "-c", pythonProbe)
	if err != nil {
		return nil, fmt.Errorf("python: %w; %s", err, hint)
	}
	var info struct {
		Exe     string   `json:"exe"`
		Prefix  string   `json:"prefix"`
		Version []int    `json:"version"`
		Stdlib  []string `json:"stdlib"`
		Site    []string `json:"site"`
	}
	if err := json.Unmarshal(out, &info); err != nil || len(info.Version) != 3 || !filepath.IsAbs(info.Exe) {
		return nil, fmt.Errorf("python: %s did not describe itself (is it Python 3?); %s", path, hint)
	}
	version := fmt.Sprintf("%d.%d.%d", info.Version[0], info.Version[1], info.Version[2])
	if !versionAtLeast(version, minPythonMajor, minPythonMinor) {
		return nil, fmt.Errorf("python: %s is Python %s, older than %d.%d; %s",
			path, version, minPythonMajor, minPythonMinor, hint)
	}
	exe, err := filepath.EvalSymlinks(info.Exe)
	if err != nil {
		return nil, fmt.Errorf("python: resolve %s: %w", info.Exe, err)
	}
	in := newInterpreter("python", opts)
	in.exe = exe
	in.version = version
	// Both the binary and the path it was found by: a venv's python is a
	// symlink whose location (and pyvenv.cfg beside its bin/) makes it the
	// venv's.
	paths := append([]string{exe, info.Exe}, info.Stdlib...)
	paths = append(paths, info.Site...)
	if cfg := filepath.Join(info.Prefix, "pyvenv.cfg"); fileExists(cfg) {
		paths = append(paths, cfg)
	}
	in.paths = runtimePaths(exe, paths...)
	in.proc.readOnly = in.paths // bound read-only inside the sandbox
	compiled := compilePrelude(info.Exe)
	argv := pythonArgv(info.Exe, compiled, info.Site)
	in.proc.exe = info.Exe
	in.proc.command = func(lim Limits) ([]string, []string) {
		// The memory limit goes first after the program, so that a warm
		// child sets it while it waits (the prelude takes it off argv).
		a := append(slices.Clip(argv[:pythonProgArgs]), "--toolfold-memory="+strconv.FormatInt(lim.MemoryBytes, 10))
		return append(a, argv[pythonProgArgs:]...), interpEnv
	}
	in.proc.preamble = compiled
	return &Python{in: in}, nil
}

// pythonArgv is the child's command line. -I: isolated (no PYTHON*
// variables, no user site, nothing of the working directory on sys.path,
// so a json.py planted in the workspace cannot hijack an import); -S: no
// site module (it costs tens of milliseconds; the prelude adds the
// site-packages directories to sys.path itself, without running .pth
// files); -B: write no .pyc files.
//
// When the prelude could be compiled (see compilePrelude), the command
// line holds only a loader that reads the marshalled code object (its
// length is on the command line) from the bridge, where the parent writes
// it ahead of the run frame (procRunner.preamble); otherwise it holds the
// prelude's source. The loader saves about 2 ms a run over passing the
// code in hex on the command line: 50 KiB less for the spec's JSON, the
// execve and Python's argv decoding to copy.
// pythonProgArgs is how many of pythonArgv's words come before site's.
const pythonProgArgs = 6

func pythonArgv(exe string, compiled []byte, site []string) []string {
	prog := pythonPrelude
	if compiled != nil {
		prog = fmt.Sprintf(pythonLoader, len(compiled))
	}
	return append([]string{exe, "-I", "-S", "-B", "-c", prog}, site...)
}

// pythonLoader reads %d bytes, the marshalled prelude, from the bridge
// (fd 4) and runs them. Read unbuffered: what follows is the run frame,
// which the prelude reads itself.
const pythonLoader = `import marshal, posix
n, b = %d, b""
while len(b) < n:
    c = posix.read(4, n - len(b))
    if not c:
        posix.write(2, b"toolfold sandbox: bridge: no prelude\n")
        posix._exit(3)
    b += c
c = marshal.loads(b)
del n, b
exec(c)
`

// compilePrelude compiles the prelude with the interpreter itself and
// returns its code object, marshalled: unmarshalling takes a tenth of a
// millisecond where compiling the source on every run takes several. nil
// when that fails.
func compilePrelude(exe string) []byte {
	const prog = `import sys, marshal
sys.stdout.write(marshal.dumps(compile(sys.stdin.read(), "<toolfold prelude>", "exec", optimize=2)).hex())`
	out, err := probeInput(exe, pythonPrelude, "-I", "-S", "-c", prog)
	if err != nil || len(out) == 0 || len(out) > 1<<20 {
		return nil // not a compiled prelude: run the source
	}
	code, err := hex.DecodeString(strings.TrimSpace(string(out)))
	if err != nil {
		return nil
	}
	return code
}

// Language returns "python".
func (*Python) Language() string { return "python" }

// Run runs req.Code in a fresh python3 child. See Runner.
func (p *Python) Run(ctx context.Context, req Request, host Host) (*Result, error) {
	return p.in.run(ctx, req, host)
}

// Path is the interpreter's binary (symlinks resolved).
func (p *Python) Path() string { return p.in.exe }

// Version is the interpreter's version, "3.11.7".
func (p *Python) Version() string { return p.in.version }

// RuntimePaths are what the interpreter needs, read-only: its binary (a
// file, and the symlink it was found by), the standard library and
// site-packages directories, and the directories of the shared libraries
// it links. The isolation layer binds them at the same paths.
func (p *Python) RuntimePaths() []string { return p.in.paths }

// versionAtLeast reports whether a dotted version is at least major.minor.
func versionAtLeast(v string, major, minor int) bool {
	parts := strings.SplitN(strings.TrimPrefix(v, "v"), ".", 3)
	if len(parts) < 2 {
		return false
	}
	ma, err1 := strconv.Atoi(parts[0])
	mi, err2 := strconv.Atoi(parts[1])
	return err1 == nil && err2 == nil && (ma > major || ma == major && mi >= minor)
}

// Forget stops the warm interpreter kept for runs in workdir. See Warmer.
func (p *Python) Forget(workdir string) { p.in.proc.forget(workdir) }

// Prestart is Warmer.Prestart.
func (p *Python) Prestart(req Request) { p.in.proc.prestart(req) }

// Close stops every warm interpreter; later runs start cold. See Warmer.
func (p *Python) Close() error { p.in.proc.close(); return nil }
