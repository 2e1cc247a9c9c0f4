package sandbox

import (
	"bytes"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"slices"
	"sync"
	"syscall"
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

// childExe is the binary the sandbox's processes start from, and a line
// that says which and why, for the log. It is looked up once.
var childExe = sync.OnceValues(func() (exeChoice, error) {
	self, err := os.Executable()
	if err != nil {
		return exeChoice{}, err
	}
	if r, err := filepath.EvalSymlinks(self); err == nil {
		self = r
	}
	return chooseExe(self), nil
})

// exeChoice is the binary the sandbox starts, and why.
type exeChoice struct {
	path string
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

// chooseExe picks SandboxBinary beside self when it is a regular
// executable file that answers IdentityArg with this build's Identity;
// else self.
func chooseExe(self string) exeChoice {
	cand := filepath.Join(filepath.Dir(self), SandboxBinary)
	st, err := os.Stat(cand)
	switch {
	case err != nil:
		return exeChoice{self, fmt.Sprintf("sandbox processes start from %s (no %s beside it: `go install ./cmd/...` installs both, and cold runs start faster)", self, SandboxBinary)}
	case !st.Mode().IsRegular() || st.Mode()&0o111 == 0:
		return exeChoice{self, fmt.Sprintf("sandbox processes start from %s (%s is not an executable file)", self, cand)}
	case !trusted(st, self):
		// Anyone who can plant a file beside toolfold (a sticky, world-
		// writable directory) must not choose what runs as the init.
		return exeChoice{self, fmt.Sprintf("sandbox processes start from %s (%s is not owned by toolfold's owner, or others may write it: not used)", self, cand)}
	}
	start := time.Now()
	out, err := probe(cand, IdentityArg)
	switch {
	case err != nil:
		return exeChoice{self, fmt.Sprintf("sandbox processes start from %s (%v)", self, err)}
	case string(bytes.TrimSpace(out)) != Identity():
		return exeChoice{self, fmt.Sprintf("sandbox processes start from %s (%s is another build: reinstall both with `go install ./cmd/...`)", self, cand)}
	}
	return exeChoice{cand, fmt.Sprintf("sandbox processes start from %s (same build, answered in %s)", cand, time.Since(start).Round(time.Millisecond))}
}

// trusted: st is owned by the owner of the file self, and neither its
// group nor others may write it.
func trusted(st os.FileInfo, self string) bool {
	me, err := os.Stat(self)
	if err != nil || st.Mode().Perm()&0o022 != 0 {
		return false
	}
	a, ok1 := st.Sys().(*syscall.Stat_t)
	b, ok2 := me.Sys().(*syscall.Stat_t)
	return ok1 && ok2 && a.Uid == b.Uid
}

// defaultExe is the binary the sandbox's init (and Lua's child) start
// from when the caller named none.
func defaultExe() (string, error) {
	c, err := childExe()
	return c.path, err
}
