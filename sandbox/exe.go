package sandbox

import (
	"bytes"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"slices"
	"sync"
	"time"
)

// The sandbox's own binary. Every run starts two processes from a Go
// binary: the sandbox's init, and for Lua the child that runs the script.
// Started from the toolfold binary itself, each pays for everything
// toolfold links (OTel, gRPC, Redis, Prometheus, the phone metadata): about
// 45 ms of CPU to start, against 16 ms for a binary of this package alone
// (perf stat, same machine and load). cmd/toolfold-sandbox is that binary;
// `go install ./cmd/...` puts it beside toolfold, where it is used when it
// is the same build (its Identity matches this process's). Otherwise, or
// when it is missing, toolfold starts itself, as before: slower, the same.

// SandboxBinary is the name of the sandbox's own binary, looked for in the
// directory of the running toolfold binary.
const SandboxBinary = "toolfold-sandbox"

// IdentityArg, as the only argument, makes a sandbox binary print its
// Identity and exit.
const IdentityArg = "__toolfold-sandbox-identity"

// sources is this package's source and preludes: their hash is the
// identity of the code that speaks the sandbox's protocols (the init's
// spec, the bridge's frames), the same in every binary built from it.
//
//go:embed *.go prelude
var sources embed.FS

// sandboxModules are the modules other than toolfold's own whose
// packages this one imports (TestSandboxModules keeps the list true):
// their versions are part of Identity, so a go.mod bump that leaves this
// package's source alone still tells two builds apart.
var sandboxModules = []string{"github.com/yuin/gopher-lua", "golang.org/x/net", "golang.org/x/sys"}

// Identity is a hash of this package's source, the versions of the modules
// it imports and the Go version it was built with: two binaries with the
// same Identity start and talk to the sandbox's processes the same way.
var Identity = sync.OnceValue(func() string {
	h := sha256.New()
	h.Write([]byte(runtime.Version()))
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, m := range bi.Deps { // sorted by path
			if slices.Contains(sandboxModules, m.Path) {
				if m.Replace != nil {
					m = m.Replace
				}
				fmt.Fprintf(h, "\x00%s@%s %s", m.Path, m.Version, m.Sum)
			}
		}
	}
	_ = fs.WalkDir(sources, ".", func(p string, d fs.DirEntry, err error) error { // in lexical order
		if err == nil && !d.IsDir() {
			b, _ := sources.ReadFile(p)
			fmt.Fprintf(h, "\x00%s\x00%d\x00", p, len(b))
			h.Write(b)
		}
		return nil
	})
	return hex.EncodeToString(h.Sum(nil)[:16])
})

// childExe is the binary the sandbox's processes start from, opened and
// vetted once (exefile.go), and a line that says which and why, for the
// log.
var childExe = sync.OnceValues(func() (exeChoice, error) {
	path, err := os.Executable()
	if err != nil {
		return exeChoice{}, err
	}
	if r, err := filepath.EvalSymlinks(path); err == nil {
		path = r
	}
	self, err := openSelf(path)
	if err != nil {
		return exeChoice{}, err
	}
	return chooseExe(self), nil
})

// exeChoice is the binary the sandbox starts, and why.
type exeChoice struct {
	bin  *exeFile
	note string // for the log
}

// ExeNote says which binary the sandbox's processes start from, and why
// (the startup log prints it).
func ExeNote() string {
	c, err := childExe()
	if err != nil {
		return "sandbox processes: " + err.Error()
	}
	return c.note
}

// chooseExe picks SandboxBinary beside self when, opened, it is a regular
// executable file that vetExe trusts and that answers IdentityArg with
// this build's Identity; else self. The choice is the open file: what
// later happens at its path changes nothing.
func chooseExe(self *exeFile) exeChoice {
	cand := filepath.Join(filepath.Dir(self.path), SandboxBinary)
	fallback := func(why string) exeChoice {
		return exeChoice{self, fmt.Sprintf("sandbox processes start from %s (%s)", self.path, why)}
	}
	if _, err := os.Lstat(cand); err != nil {
		return fallback(fmt.Sprintf("no %s beside it: `go install ./cmd/...` installs both, and cold runs start faster", SandboxBinary))
	}
	bin, err := openVetted(cand)
	switch {
	case errors.Is(err, errUntrusted):
		// Anyone who can plant a file beside toolfold, or swap it later,
		// must not choose what runs as the init.
		return fallback(err.Error() + ": not used")
	case err != nil:
		return fallback(err.Error())
	}
	start := time.Now()
	out, err := probeExe(bin, IdentityArg)
	switch {
	case err != nil:
		bin.f.Close()
		return fallback(err.Error())
	case string(bytes.TrimSpace(out)) != Identity():
		bin.f.Close()
		return fallback(fmt.Sprintf("%s is another build: reinstall both with `go install ./cmd/...`", cand))
	}
	return exeChoice{bin, fmt.Sprintf("sandbox processes start from %s (same build, answered in %s)", cand, time.Since(start).Round(time.Millisecond))}
}

// defaultExe is the binary the sandbox's init (and Lua's child) start
// from when the caller named none.
func defaultExe() (*exeFile, error) {
	c, err := childExe()
	return c.bin, err
}
