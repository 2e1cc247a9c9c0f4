package sandbox

import (
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strconv"
)

// nodePrelude is the code node runs (-e) before the script: the bridge
// client, tools/call/searchTools and the script runner.
//
//go:embed prelude/node.js
var nodePrelude string

const nodeProbe = `console.log(JSON.stringify({exe: process.execPath, version: process.versions.node}))`

// minNode is the oldest Node.js the prelude is tested on.
const minNode = 18

// JavaScript runs JavaScript scripts with node in a child process. See
// doc.go ("Inside a JavaScript script") for what a script can use.
type JavaScript struct{ in *interpreter }

var (
	_ Runner = (*JavaScript)(nil)
	_ Warmer = (*JavaScript)(nil)
)

// NewJavaScript finds node (opts.Path, or node on PATH) and checks its
// version. The error says why JavaScript is unavailable and how to fix it.
func NewJavaScript(opts *InterpreterOptions) (*JavaScript, error) {
	if opts == nil {
		opts = &InterpreterOptions{}
	}
	const hint = "install Node.js 18 or later or set sandbox.node to its path"
	path, err := lookInterpreter(opts.Path, "node", hint)
	if err != nil {
		return nil, fmt.Errorf("javascript: %w", err)
	}
	out, err := probe(path, "-e", nodeProbe)
	if err != nil {
		return nil, fmt.Errorf("javascript: %w; %s", err, hint)
	}
	var info struct {
		Exe     string `json:"exe"`
		Version string `json:"version"`
	}
	if err := json.Unmarshal(out, &info); err != nil || !filepath.IsAbs(info.Exe) {
		return nil, fmt.Errorf("javascript: %s did not describe itself (is it Node.js?); %s", path, hint)
	}
	if !versionAtLeast(info.Version, minNode, 0) {
		return nil, fmt.Errorf("javascript: %s is Node.js %s, older than %d; %s", path, info.Version, minNode, hint)
	}
	exe, err := filepath.EvalSymlinks(info.Exe)
	if err != nil {
		return nil, fmt.Errorf("javascript: resolve %s: %w", info.Exe, err)
	}
	in := newInterpreter("javascript", opts)
	in.exe, in.version = exe, info.Version
	in.paths = runtimePaths(exe, info.Exe)
	in.proc.readOnly = in.paths // bound read-only inside the sandbox
	in.proc.exe = exe
	in.proc.command = func(lim Limits) ([]string, []string) { return nodeArgv(exe, lim), interpEnv }
	return &JavaScript{in: in}, nil
}

// nodeArgv is the child's command line. --max-old-space-size makes V8
// collect before the memory limit and fail with "heap out of memory" at it
// (RLIMIT_DATA stays the backstop). --experimental-vm-modules lets the
// prelude serve a script's import() itself (prelude/node.js), which Node
// refuses a vm.Script without it.
func nodeArgv(exe string, lim Limits) []string {
	heapMiB := max(lim.MemoryBytes>>20, 16)
	return []string{exe, "--max-old-space-size=" + strconv.FormatInt(heapMiB, 10), "--experimental-vm-modules", "-e", nodePrelude}
}

// Language returns "javascript".
func (*JavaScript) Language() string { return "javascript" }

// Run runs req.Code in a fresh node child. See Runner.
func (j *JavaScript) Run(ctx context.Context, req Request, host Host) (*Result, error) {
	return j.in.run(ctx, req, host)
}

// Path is node's binary (symlinks resolved).
func (j *JavaScript) Path() string { return j.in.exe }

// Version is node's version, "20.20.2".
func (j *JavaScript) Version() string { return j.in.version }

// RuntimePaths are what node needs, read-only: its binary (a file, and
// the symlink it was found by) and the directories of the shared libraries
// it links. The isolation layer binds them at the same paths.
func (j *JavaScript) RuntimePaths() []string { return j.in.paths }

// Forget stops the warm interpreter kept for runs in workdir. See Warmer.
func (j *JavaScript) Forget(workdir string) { j.in.proc.forget(workdir) }

// Prestart is Warmer.Prestart.
func (j *JavaScript) Prestart(req Request) { j.in.proc.prestart(req) }

// Close stops every warm interpreter; later runs start cold. See Warmer.
func (j *JavaScript) Close() error { j.in.proc.close(); return nil }
