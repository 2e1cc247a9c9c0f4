package sandbox

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// InterpreterOptions configure NewPython and NewJavaScript. The zero value
// looks the interpreter up on PATH.
type InterpreterOptions struct {
	// Path is the interpreter: an absolute or relative path, or a bare name
	// looked up on PATH. Empty means "python3" or "node". A launcher such
	// as a pyenv shim is resolved once, at construction, to the real binary.
	Path string
	// Logger receives debug lines per run and warnings for protocol
	// violations; nil discards them.
	Logger *slog.Logger
	// Warm keeps, after each run, an interpreter started for the next run
	// of the same Workdir and Limits, its prelude loaded (see Warmer).
	Warm bool
}

// interpEnv is the whole environment of an interpreter child: nothing of
// the proxy's own (it holds upstream API keys).
var interpEnv = []string{"LANG=C.UTF-8", "PATH=/usr/bin:/bin"}

// probeTimeout bounds the one run of the interpreter at construction. It
// is generous: a launcher such as a pyenv shim runs a dozen processes
// before the interpreter, which on a saturated machine took over 10 s
// (CI), and a probe that times out leaves the language off until restart.
const probeTimeout = 30 * time.Second

// interpreter is what NewPython and NewJavaScript find out about their
// binary once, at construction.
type interpreter struct {
	language string
	exe      string   // the real binary, absolute, symlinks resolved
	version  string   // "3.11.7", "20.20.2"
	paths    []string // RuntimePaths
	proc     *procRunner
}

// newInterpreter builds the procRunner half of an interpreter language;
// the caller fills exe, version and paths and sets proc.command.
func newInterpreter(language string, opts *InterpreterOptions) *interpreter {
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	in := &interpreter{language: language, proc: &procRunner{language: language, log: log}}
	in.proc.warm = newSpares(in.proc, opts.Warm)
	return in
}

// lookInterpreter resolves the configured path (or def) to an absolute
// path. hint says how to fix a missing interpreter.
func lookInterpreter(path, def, hint string) (string, error) {
	if path == "" {
		path = def
	}
	if !strings.ContainsRune(path, os.PathSeparator) {
		p, err := exec.LookPath(path)
		if err != nil {
			return "", fmt.Errorf("%s not found on PATH; %s", path, hint)
		}
		path = p
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", fmt.Errorf("%s: %w", path, err)
	}
	st, err := os.Stat(abs)
	switch {
	case err != nil:
		return "", fmt.Errorf("%s: %w; %s", abs, errors.Unwrap(err), hint)
	case st.IsDir() || st.Mode()&0o111 == 0:
		return "", fmt.Errorf("%s is not an executable file; %s", abs, hint)
	}
	return abs, nil
}

// probe runs the interpreter once with args (with the proxy's environment,
// so that launchers such as pyenv shims work) and returns its stdout.
func probe(exe string, args ...string) ([]byte, error) {
	return probeInput(exe, "", args...)
}

// probeInput is probe with stdin.
func probeInput(exe, stdin string, args ...string) ([]byte, error) {
	return probeWith(exe, nil, stdin, args...)
}

// probeExe is probe of a binary held open: it runs the open file, not
// what its path names now.
func probeExe(bin *exeFile, args ...string) ([]byte, error) {
	return probeWith(bin.path, bin, "", args...)
}

// probeWith is probeInput, started from bin when it is not nil.
func probeWith(exe string, bin *exeFile, stdin string, args ...string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(context.Background(), probeTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, exe, args...)
	if bin != nil {
		_, dup, err := bin.attach(cmd)
		if err != nil {
			return nil, err
		}
		defer dup.Close()
	}
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &limitedBuffer{b: &out, n: 256 << 10}, &limitedBuffer{b: &errb, n: 4 << 10}
	cmd.Dir = os.TempDir()
	cmd.Stdin = strings.NewReader(stdin)
	if err := cmd.Run(); err != nil {
		if ctx.Err() != nil {
			return nil, fmt.Errorf("%s did not answer within %s", exe, probeTimeout)
		}
		if line := firstLine(errb.String()); line != "" {
			return nil, fmt.Errorf("%s: %v: %s", exe, err, line)
		}
		return nil, fmt.Errorf("%s: %w", exe, err)
	}
	return out.Bytes(), nil
}

// limitedBuffer keeps the first n bytes written to it.
type limitedBuffer struct {
	b *bytes.Buffer
	n int
}

func (l *limitedBuffer) Write(p []byte) (int, error) {
	if room := l.n - l.b.Len(); room > 0 {
		l.b.Write(p[:min(room, len(p))])
	}
	return len(p), nil
}

// runtimePaths returns the paths an interpreter needs read-only: the given
// ones (its binary, its library directories) and the directories of the
// shared libraries exe links (from ldd, when there is one), without
// duplicates or paths nested in another. The binary is listed as a file,
// not its directory: /usr/bin holds much more than node.
func runtimePaths(exe string, paths ...string) []string {
	dirs := append([]string{exe}, paths...)
	dirs = append(dirs, sharedLibDirs(exe)...)
	var clean []string
	for _, d := range dirs {
		if d == "" {
			continue
		}
		clean = append(clean, filepath.Clean(d))
		if real, err := filepath.EvalSymlinks(d); err == nil {
			clean = append(clean, real)
		}
	}
	slices.Sort(clean)
	clean = slices.Compact(clean)
	var out []string
	for _, d := range clean {
		if len(out) > 0 && within(d, out[len(out)-1]) {
			continue
		}
		out = append(out, d)
	}
	return out
}

// fileExists reports whether path names an existing file (not following a
// final symlink).
func fileExists(path string) bool {
	_, err := os.Lstat(path)
	return err == nil
}

// within reports whether path is dir or below it.
func within(path, dir string) bool {
	return path == dir || dir == "/" || strings.HasPrefix(path, dir+"/")
}

// sharedLibDirs lists the directories of the libraries exe links, and of
// its dynamic loader, as ldd reports them; nil when ldd is missing or
// fails (a static binary).
func sharedLibDirs(exe string) []string {
	ldd, err := exec.LookPath("ldd")
	if err != nil {
		return nil
	}
	out, err := probe(ldd, exe)
	if err != nil {
		return nil
	}
	var dirs []string
	for line := range strings.Lines(string(out)) {
		// "libc.so.6 => /lib/x86_64-linux-gnu/libc.so.6 (0x...)" or "/lib64/ld-linux-x86-64.so.2 (0x...)"
		f := strings.Fields(line)
		for i, w := range f {
			if strings.HasPrefix(w, "/") && (i == 0 || f[i-1] == "=>") {
				dirs = append(dirs, filepath.Dir(w))
				if real, err := filepath.EvalSymlinks(w); err == nil {
					dirs = append(dirs, filepath.Dir(real))
				}
			}
		}
	}
	return dirs
}

// run is Runner.Run for an interpreter language.
func (in *interpreter) run(ctx context.Context, req Request, host Host) (*Result, error) {
	if req.Language != "" && req.Language != in.language {
		return nil, fmt.Errorf("sandbox: the %s runner cannot run %q", in.language, req.Language)
	}
	return in.proc.run(ctx, req, host)
}
