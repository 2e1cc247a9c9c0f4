package sandbox

import (
	"context"
	"fmt"
	"log/slog"
)

// LuaOptions configure NewLua. The zero value is ready to use.
type LuaOptions struct {
	// Exe is the binary re-executed as the child; it must call ChildMain
	// when IsChild. Empty means the sandbox's own binary beside this one
	// when it is the same build (SandboxBinary), else os.Executable(). It
	// is opened and vetted now, once per path (owner root or this user,
	// not writable by others, nor its directories): every run starts the
	// file opened then, whatever its path names later.
	Exe string
	// Logger receives debug lines per run and warnings for host errors and
	// protocol violations; nil discards them.
	Logger *slog.Logger
	// Warm keeps, after each run, a child started for the next run of the
	// same Workdir and Limits (see Warmer). Off, every run starts cold.
	Warm bool
}

// Lua runs Lua scripts (gopher-lua) in a re-executed child of the proxy.
type Lua struct {
	proc *procRunner
}

var (
	_ Runner = (*Lua)(nil)
	_ Warmer = (*Lua)(nil)
)

// NewLua returns the Lua runner. opts may be nil.
func NewLua(opts *LuaOptions) *Lua {
	if opts == nil {
		opts = &LuaOptions{}
	}
	p := &procRunner{exe: opts.Exe, language: "lua", log: opts.Logger, noProcs: true}
	if p.log == nil {
		p.log = slog.New(slog.DiscardHandler)
	}
	var err error
	if p.exe == "" {
		p.bin, err = defaultExe()
	} else {
		p.bin, err = openExe(p.exe) // vetted, held open: later runs start this file
	}
	if err != nil {
		p.exeErr = fmt.Errorf("sandbox: the binary to re-execute for Lua: %w", err)
	} else {
		p.exe = p.bin.path
	}
	p.warm = newSpares(p, opts.Warm)
	return &Lua{proc: p}
}

// Language returns "lua".
func (*Lua) Language() string { return "lua" }

// Run runs req.Code in a fresh child. See Runner.
func (l *Lua) Run(ctx context.Context, req Request, host Host) (*Result, error) {
	if req.Language != "" && req.Language != "lua" {
		return nil, fmt.Errorf("sandbox: the lua runner cannot run %q", req.Language)
	}
	return l.proc.run(ctx, req, host)
}

// NoFiles reports that a Lua script can neither touch files nor start
// processes (no io, os or package library). See FileLess.
func (*Lua) NoFiles() bool { return true }

// Forget stops the warm child kept for runs in workdir. See Warmer.
func (l *Lua) Forget(workdir string) { l.proc.forget(workdir) }

// Prestart is Warmer.Prestart.
func (l *Lua) Prestart(req Request) { l.proc.prestart(req) }

// Close stops every warm child; later runs start cold. See Warmer.
func (l *Lua) Close() error { l.proc.close(); return nil }
