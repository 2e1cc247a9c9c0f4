package sandbox

import (
	"context"
	"os"
	"path/filepath"
	"testing"
)

// BenchmarkIsolation is the cost of the sandbox per run: the same inner
// command started by the same runner with and without the init (user,
// mount, pid, net, ipc, uts namespaces, the root file system, Landlock,
// seccomp, the run's cgroups). Compare each plain/sandbox pair of one run.
func BenchmarkIsolation(b *testing.B) {
	const done = `{"method":"done","params":{}}\n`
	type inner struct {
		name     string
		argv     []string
		readOnly []string
	}
	inners := []inner{
		{"lua", nil, nil},
		{"sh", []string{"/bin/sh", "-c", "echo '" + done[:len(done)-2] + "' >&3"}, nil},
	}
	if exe, err := pythonOnce(); err == nil {
		exe, _ = filepath.EvalSymlinks(exe)
		inners = append(inners, inner{"python", []string{exe, "-I", "-S", "-c", "import os; os.write(3, b'" + done + "')"},
			[]string{filepath.Dir(filepath.Dir(exe))}})
	}
	if _, err := os.Stat("/usr/bin/node"); err == nil {
		inners = append(inners, inner{"node", []string{"/usr/bin/node", "-e", "require('fs').writeSync(3, '" + done + "')"}, nil})
	}
	for _, in := range inners {
		for _, mode := range []string{"plain", "sandbox"} {
			b.Run(in.name+"/"+mode, func(b *testing.B) {
				if mode == "sandbox" && !Detect().Namespaces {
					b.Skip("no sandbox here")
				}
				p := &procRunner{exe: testBinary(), bin: testExe(b), language: "lua", log: testLogger(b), readOnly: in.readOnly, plain: mode == "plain"}
				if in.argv != nil {
					p.command = func(Limits) ([]string, []string) { return in.argv, childEnv }
				}
				ctx := context.Background()
				for b.Loop() {
					res, err := p.run(ctx, Request{Code: "return 1", Limits: Limits{}}, benchHost{})
					if err != nil || res.Err != nil {
						b.Fatalf("run: %v %v", err, res.Err)
					}
				}
			})
		}
	}
}
