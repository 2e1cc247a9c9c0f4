// Package redistest runs a real redis-server for tests of the packages
// that keep state in Redis (store, skills).
package redistest

import (
	"net"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"
)

// Start runs a real redis-server on a free loopback port until the test
// ends, and returns its address and a function that kills it earlier.
// Without redis-server the test skips, except under CI=true where
// .ci/test installs it and its absence is a failure. Extra arguments go
// to redis-server; "{port}" in them is the port.
func Start(t testing.TB, extra ...string) (addr string, stop func()) {
	t.Helper()
	bin, err := exec.LookPath("redis-server")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("redis-server not found; .ci/test installs it (apt-get install redis-server)")
		}
		t.Skip("redis-server not found: apt-get install redis-server (.ci/test does)")
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr = ln.Addr().String()
	ln.Close()
	_, port, _ := net.SplitHostPort(addr)
	args := []string{"--port", port, "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--dir", t.TempDir()}
	for _, a := range extra {
		args = append(args, strings.ReplaceAll(a, "{port}", port))
	}
	cmd := exec.Command(bin, args...)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var once sync.Once
	stop = func() {
		once.Do(func() {
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
		})
	}
	t.Cleanup(stop)
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if c, err := net.Dial("tcp", addr); err == nil {
			c.Close()
			return addr, stop
		}
		if time.Now().After(deadline) {
			t.Fatalf("redis-server did not listen on %s", addr)
		}
	}
}
