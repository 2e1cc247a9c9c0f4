package sandbox

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/toolfold/toolfold/internal/testlog"
)

// The hostile battery for processes other than the Lua child: shell,
// Python and node scripts run as the inner command of the sandbox's init,
// each with its expected outcome. A shell script ends with doneSh so a
// contained attempt reads as a normal end; what it printed says how each
// attempt failed. After each case the runner must still serve a Lua run.

// doneSh sends the done notification on the bridge, as a prelude would.
const doneSh = "\necho '{\"method\":\"done\",\"params\":{}}' >&3\n"

// needSandbox skips a test unless every namespace and file-system layer is
// active (the battery tests the sandbox, not the plain child).
func needSandbox(t *testing.T) Layers {
	t.Helper()
	l := Detect()
	if !l.Namespaces || !l.Filesystem {
		t.Skipf("sandbox not available here: %s", l)
	}
	return l
}

// runInner runs argv in the sandbox with lim (and Workdir dir, when set)
// and checks a Lua run still works afterwards.
func runInner(t *testing.T, argv []string, readOnly []string, lim Limits, dir string) *Result {
	t.Helper()
	p := testRunner(t, "sh")
	p.command = func(Limits) ([]string, []string) { return argv, childEnv }
	p.readOnly = readOnly
	p.exe = argv[0] // as an interpreter's runner: the init is os.Executable()
	var w runWatch
	p.onStart = w.started
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	res, err := p.run(ctx, Request{Code: "unused", Limits: lim, Workdir: dir}, &fakeHost{})
	if err != nil {
		t.Fatalf("run %q: %v", argv, err)
	}
	w.assertGone(t) // nothing of the run is left, whatever the script did
	t.Logf("output %q, error %v, took %s", res.Output, res.Err, res.Duration)
	if after := runLuaTest(t, "return 40 + 2", Limits{}, nil); after.Err != nil || string(after.Value) != "42" {
		t.Fatalf("the runner no longer serves after %q: %v %s", argv, after.Err, after.Value)
	}
	return res
}

func sh(t *testing.T, script string, lim Limits) *Result {
	return runInner(t, []string{"/bin/sh", "-c", script + doneSh}, nil, lim, "")
}

var pythonOnce = sync.OnceValues(func() (string, error) {
	out, err := exec.Command("python3", "-I", "-c", "import sys; print(sys.executable)").Output()
	return strings.TrimSpace(string(out)), err
})

// python runs code with python3 -I; its runtime (a pyenv tree here) is
// bound read-only.
func python(t *testing.T, code string, lim Limits) *Result {
	t.Helper()
	exe, err := pythonOnce()
	if err != nil {
		t.Skipf("no python3: %v", err)
	}
	exe, _ = filepath.EvalSymlinks(exe)
	prefix := filepath.Dir(filepath.Dir(exe))
	code += "\nimport os; os.write(3, b'{\"method\":\"done\",\"params\":{}}\\n')\n"
	return runInner(t, []string{exe, "-I", "-c", code}, []string{prefix}, lim, "")
}

func wantOutput(t *testing.T, res *Result, wants ...string) {
	t.Helper()
	for _, w := range wants {
		if !strings.Contains(res.Output, w) {
			t.Errorf("output lacks %q:\n%s", w, res.Output)
		}
	}
}

func wantNoError(t *testing.T, res *Result) {
	t.Helper()
	if res.Err != nil {
		t.Errorf("Err = %v, want none (output %q)", res.Err, res.Output)
	}
}

func TestBatteryIdentity(t *testing.T) {
	needSandbox(t)
	res := sh(t, `id; grep -E '^(Cap(Inh|Prm|Eff|Bnd|Amb)|NoNewPrivs|Seccomp):' /proc/self/status; ls -l /proc/$$/fd; hostname; cat /proc/net/dev | tail -n +3 | cut -d: -f1; ls /; ls /sys 2>&1; ls /proc | grep -c '^[0-9]'; echo "userns $(cat /proc/sys/user/max_user_namespaces)"`, Limits{})
	wantNoError(t, res)
	wantOutput(t, res, "uid=65534(sandbox) gid=65534(sandbox) groups=65534(sandbox)\n",
		"CapInh:\t0000000000000000", "CapPrm:\t0000000000000000", "CapEff:\t0000000000000000",
		"CapBnd:\t0000000000000000", "CapAmb:\t0000000000000000", "NoNewPrivs:\t1", "Seccomp:\t2",
		" 0 -> /dev/null\n", " 4 -> pipe:", "sandbox\n", "    lo\n", "No such file or directory", "userns 0\n")
	if n := strings.Count(res.Output, " -> "); n != 5 {
		t.Errorf("the script has %d open descriptors, want 0-4", n)
	}
	if strings.Contains(res.Output, "eth") || strings.Contains(res.Output, "home\n") || strings.Contains(res.Output, "root\n") {
		t.Errorf("host interfaces or directories visible:\n%s", res.Output)
	}
}

// loopbackListener listens on a loopback port of the host for the test's
// length; accepted receives when anything connects to it.
func loopbackListener(t *testing.T) (int, <-chan struct{}) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	accepted := make(chan struct{}, 1)
	go func() {
		if c, err := ln.Accept(); err == nil {
			c.Close()
			accepted <- struct{}{}
		}
	}()
	return ln.Addr().(*net.TCPAddr).Port, accepted
}

func TestBatteryNetwork(t *testing.T) {
	needSandbox(t)
	port, accepted := loopbackListener(t)
	res := python(t, fmt.Sprintf(`
import socket
for target in [("127.0.0.1", %d), ("1.1.1.1", 53), ("10.0.0.1", 80)]:
    try:
        socket.create_connection(target, timeout=2); print("CONNECTED", target)
    except OSError as e:
        print("connect", target, type(e).__name__, e.errno)
try:
    print("RESOLVED", socket.getaddrinfo("example.com", 443))
except OSError as e:
    print("dns", type(e).__name__)
try:
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); s.sendto(b"x", ("8.8.8.8", 53)); print("SENT")
except OSError as e:
    print("udp", type(e).__name__, e.errno)
`, port), Limits{})
	wantNoError(t, res)
	wantOutput(t, res, fmt.Sprintf("connect ('127.0.0.1', %d) PermissionError 1", port), "connect ('1.1.1.1', 53) PermissionError 1", "dns gaierror", "udp PermissionError 1")
	if strings.Contains(res.Output, "CONNECTED") || strings.Contains(res.Output, "RESOLVED") || strings.Contains(res.Output, "SENT") {
		t.Errorf("network reached:\n%s", res.Output)
	}
	select {
	case <-accepted:
		t.Error("the loopback listener accepted a connection from the sandbox")
	case <-time.After(100 * time.Millisecond):
	}
}

// TestBatteryNetworkPastThePrelude: the preludes' no-network message is
// only text. A script that goes around it (_socket, which the patched
// socket module wraps, ctypes' raw socket(2), a fresh interpreter without
// the prelude) still reaches no network: the kernel layers refuse it with
// EPERM, and the host's loopback listener never sees a connection.
func TestBatteryNetworkPastThePrelude(t *testing.T) {
	needSandbox(t)
	port, accepted := loopbackListener(t)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	run := func(r Runner, code string) *Result {
		t.Helper()
		res, err := r.Run(ctx, Request{Code: code}, &fakeHost{})
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("output %q, error %v", res.Output, res.Err)
		wantNoError(t, res)
		return res
	}
	py := run(newTestPython(t), fmt.Sprintf(`import _socket, ctypes, subprocess, sys
try:
    _socket.socket(_socket.AF_INET, _socket.SOCK_STREAM).connect(("127.0.0.1", %[1]d)); print("CONNECTED")
except OSError as e:
    print("_socket", type(e).__name__, e.errno, e.strerror)
libc = ctypes.CDLL(None, use_errno=True)
print("raw socket", libc.socket(2, 1, 0), ctypes.get_errno())
fresh = "import socket\ntry:\n    socket.create_connection(('127.0.0.1', %[1]d), timeout=2); print('CONNECTED')\nexcept OSError as e:\n    print('fresh', type(e).__name__, e.errno)"
r = subprocess.run([sys.executable, "-I", "-c", fresh], capture_output=True, text=True)
print(r.stdout, r.stderr)`, port))
	wantOutput(t, py, "_socket PermissionError 1 Operation not permitted\n", "raw socket -1 1\n", "fresh PermissionError 1\n")
	js := run(newTestNode(t), fmt.Sprintf(`const fresh = "require('net').connect(%[1]d, '127.0.0.1').on('error', (e) => console.log('fresh', e.code)).on('connect', () => console.log('CONNECTED'))"
const r = require('child_process').spawnSync(process.execPath, ['-e', fresh])
console.log(String(r.stdout), String(r.stderr), r.error || '')`, port))
	wantOutput(t, js, "fresh EPERM\n")
	for _, res := range []*Result{py, js} {
		if strings.Contains(res.Output, "CONNECTED") {
			t.Errorf("network reached:\n%s", res.Output)
		}
	}
	select {
	case <-accepted:
		t.Error("the loopback listener accepted a connection from the sandbox")
	case <-time.After(100 * time.Millisecond):
	}
}

func TestBatterySecrets(t *testing.T) {
	needSandbox(t)
	home := t.TempDir()
	os.MkdirAll(filepath.Join(home, ".ssh"), 0o700)
	os.WriteFile(filepath.Join(home, ".ssh", "id_ed25519"), []byte("PRIVATE-KEY-MATERIAL"), 0o600)
	cfg := filepath.Join(home, "proxy.yaml")
	os.WriteFile(cfg, []byte("http: {bearer_token: TOKEN-IN-CONFIG}\n"), 0o644)
	t.Setenv("HOME", home)
	t.Setenv("TOOLFOLD_UPSTREAM_KEY", "sk-proxy-env-secret")
	res := sh(t, fmt.Sprintf(`exec 2>&1
cat /etc/shadow; cat %[1]s/.ssh/id_ed25519; cat ~/.ssh/id_ed25519; cat %[2]s; cat /proc/1/environ; cat /proc/%[3]d/environ
env; cat /proc/*/environ | tr '\0' '\n'; ls /proc/1 2>&1 | head -1; echo HOME=$HOME`, home, cfg, os.Getpid()), Limits{})
	wantNoError(t, res)
	for _, secret := range []string{"PRIVATE-KEY-MATERIAL", "TOKEN-IN-CONFIG", "sk-proxy-env-secret", "root:"} {
		if strings.Contains(res.Output, secret) {
			t.Errorf("secret %q leaked:\n%s", secret, res.Output)
		}
	}
	wantOutput(t, res, "cat: /etc/shadow: No such file or directory", "id_ed25519: No such file or directory",
		"proxy.yaml: No such file or directory", "cat: /proc/1/environ: No such file or directory")
}

func TestBatteryWriteOutside(t *testing.T) {
	needSandbox(t)
	host := t.TempDir()
	res := sh(t, fmt.Sprintf(`
for f in /etc/passwd /etc/new /usr/bin/evil /evil /proc/sys/kernel/hostname /dev/evil %[1]s/evil /toolfold; do
  (echo x > $f) 2>&1 | sed 's/^/write: /'
done
mkdir /workspace/d && echo ok > /workspace/d/f && cat /workspace/d/f
echo tmp > /tmp/t && cat /tmp/t
touch /dev/shm/x 2>&1 | sed 's/^/shm: /'`, host), Limits{})
	wantNoError(t, res)
	wantOutput(t, res, "ok\n", "tmp\n", "/etc/passwd: Read-only file system", "/usr/bin/evil: Read-only file system",
		"/evil: Read-only file system", "/toolfold: Read-only file system")
	if n := strings.Count(res.Output, "write: "); n != 8 {
		t.Errorf("%d of 8 writes outside the workspace failed:\n%s", n, res.Output)
	}
	if _, err := os.Stat(filepath.Join(host, "evil")); err == nil {
		t.Error("the script wrote into a host directory")
	}
}

func TestBatterySymlinkEscape(t *testing.T) {
	needSandbox(t)
	secretDir := t.TempDir()
	secret := filepath.Join(secretDir, "secret")
	os.WriteFile(secret, []byte("HOST-SECRET"), 0o644)
	work := t.TempDir()
	os.Symlink(secret, filepath.Join(work, "planted"))
	os.Symlink(secretDir, filepath.Join(work, "planted-dir"))
	res := runInner(t, []string{"/bin/sh", "-c", `cat planted; echo pwn > planted; echo pwn > planted-dir/x; ls planted-dir/
ln -s /etc/passwd made; ln -s ` + secretDir + ` made-dir; echo left > keep` + doneSh}, nil, Limits{}, work)
	wantNoError(t, res)
	if strings.Contains(res.Output, "HOST-SECRET") {
		t.Errorf("read through a planted symlink:\n%s", res.Output)
	}
	if b, _ := os.ReadFile(secret); string(b) != "HOST-SECRET" {
		t.Errorf("host file changed through a symlink: %q", b)
	}
	if _, err := os.Stat(filepath.Join(secretDir, "x")); err == nil {
		t.Error("wrote into a host directory through a symlink")
	}
	if b, _ := os.ReadFile(filepath.Join(work, "keep")); string(b) != "left\n" {
		t.Errorf("the workspace did not persist: %q", b)
	}
	if fi, err := os.Lstat(filepath.Join(work, "made-dir")); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Errorf("made-dir: %v %v", fi, err)
	}
	if entries, _ := os.ReadDir(secretDir); len(entries) != 1 {
		t.Errorf("the host directory changed: %v", entries)
	}
}

func TestBatteryForkBomb(t *testing.T) {
	needSandbox(t)
	start := time.Now()
	// No done: the shell ends when its loop does, as a bomb's author's would.
	res := runInner(t, []string{"/bin/sh", "-c", `b() { b | b & }; b; sleep 1; echo survived`}, nil, Limits{Timeout: 20 * time.Second, Processes: 32}, "")
	t.Logf("fork bomb contained in %s", time.Since(start))
	if res.Err == nil || !strings.Contains(res.Err.Msg, "process limit") {
		t.Errorf("Err = %v, want the process limit named", res.Err)
	}
	wantNoLeftovers(t, "")
}

// wantNoLeftovers fails when a process of the sandbox user, or one whose
// command line holds marker, still runs on the host.
func wantNoLeftovers(t *testing.T, marker string) {
	t.Helper()
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		cmdline, err := os.ReadFile("/proc/" + e.Name() + "/cmdline")
		if err != nil || len(cmdline) == 0 {
			continue
		}
		if marker != "" && bytes.Contains(cmdline, []byte(marker)) {
			t.Errorf("process %s survived the run: %q", e.Name(), cmdline)
		}
	}
}

func TestBatteryMemory(t *testing.T) {
	needSandbox(t)
	t.Run("one process", func(t *testing.T) {
		res := python(t, `x = bytearray(3 << 30); print("ALLOCATED")`, Limits{MemoryBytes: 64 << 20})
		if res.Err == nil || res.Err.Kind != "memory" || strings.Contains(res.Output, "ALLOCATED") {
			t.Errorf("Err = %v, output %q; want a memory error", res.Err, res.Output)
		}
	})
	t.Run("many processes", func(t *testing.T) {
		// Each stays under its own RLIMIT_DATA; together they pass the
		// run's memory cgroup.
		if !Detect().MemoryCgroup {
			t.Skip("no memory cgroup")
		}
		exe, _ := pythonOnce()
		exe, _ = filepath.EvalSymlinks(exe)
		// Two of them together pass the bound; ten started at once overlap
		// for their 10 s whatever the load. On a loaded CI machine filling
		// 250 MiB ten times took longer than a 40 s timeout with 20 s of
		// sleep: the timeout leaves room.
		code := `import time; b = bytearray(250 << 20); [b.__setitem__(i, 1) for i in range(0, len(b), 4096)]; time.sleep(10)`
		script := fmt.Sprintf(`for i in 1 2 3 4 5 6 7 8 9 10; do %s -I -c '%s' & done; wait; echo done-waiting`, exe, code)
		res := runInner(t, []string{"/bin/sh", "-c", script}, []string{filepath.Dir(filepath.Dir(exe))}, Limits{MemoryBytes: 256 << 20, Timeout: 90 * time.Second}, "")
		if res.Err == nil || res.Err.Kind != "memory" || !strings.Contains(res.Err.Msg, "together") {
			t.Errorf("Err = %v; want the memory cgroup named", res.Err)
		}
	})
}

func TestBatteryCPUAndTime(t *testing.T) {
	needSandbox(t)
	res := sh(t, `while :; do :; done`, Limits{CPUTime: time.Second, Timeout: testlog.Bound(2 * time.Minute)}) // the CPU limit ends it
	if res.Err == nil || res.Err.Kind != "cpu" {
		t.Errorf("spin: Err = %v, want cpu", res.Err)
	}
	res = sh(t, `sleep 600`, Limits{Timeout: time.Second})
	if res.Err == nil || res.Err.Kind != "timeout" || res.Duration > testlog.Bound(time.Minute) {
		t.Errorf("sleep: Err = %v after %s, want timeout", res.Err, res.Duration)
	}
	res = sh(t, `yes`, Limits{OutputBytes: 1 << 10, Timeout: testlog.Bound(2 * time.Minute)}) // the output limit ends it
	if res.Err == nil || res.Err.Kind != "output" {
		t.Errorf("yes: Err = %v, want output", res.Err)
	}
}

func TestBatteryDiskFill(t *testing.T) {
	needSandbox(t)
	lim := Limits{FileBytes: 4 << 20} // /workspace 16 MiB, /tmp 4 MiB
	res := sh(t, `
head -c 100M /dev/zero > /workspace/huge; echo "huge: $?"; echo "size $(wc -c < /workspace/huge)"
for i in 1 2 3 4 5 6; do head -c 4000000 /dev/zero > /workspace/f$i 2>/dev/null || echo "full at $i"; done
df -k /workspace | tail -1; head -c 10M /dev/zero > /tmp/t; echo "tmp: $?"`, lim)
	wantNoError(t, res)
	wantOutput(t, res, "size 4194304\n", "full at")
	res = python(t, `
import os
n = 0
try:
    for n in range(200000):
        open(f"/workspace/f{n}", "w").close()
    print("CREATED ALL")
except OSError as e:
    print("stopped at", n, e.strerror)`, Limits{})
	wantNoError(t, res)
	wantOutput(t, res, "No space left on device")
	if strings.Contains(res.Output, "CREATED ALL") {
		t.Errorf("200,000 files fit:\n%s", res.Output)
	}
	// Uncaught, each names its limit.
	res = python(t, `open("/workspace/big", "wb").write(b"x" * (8 << 20))`, lim)
	if res.Err == nil || !strings.Contains(res.Err.Msg, "per-file limit") {
		t.Errorf("a file past file_size: Err = %v", res.Err)
	}
	res = python(t, `
for n in range(20000):
    open(f"/tmp/f{n}", "w").close()`, lim)
	if res.Err == nil || !strings.Contains(res.Err.Msg, "disk is full") {
		t.Errorf("a full /tmp: Err = %v", res.Err)
	}
}

func TestBatteryPrivileges(t *testing.T) {
	needSandbox(t)
	suid := filepath.Join(t.TempDir(), "suid-id")
	data, err := os.ReadFile("/usr/bin/id")
	if err != nil {
		t.Skip(err)
	}
	os.WriteFile(suid, data, 0o755)
	os.Chmod(suid, 0o4755) // owned by root: set-user-id root
	res := runInner(t, []string{"/bin/sh", "-c", suid + ` -u; /usr/bin/su -c id 2>&1; /usr/bin/mount -t tmpfs x /tmp 2>&1; kill -9 $PPID 2>&1; kill -9 1 2>&1; kill -9 -1; echo after-kill` + doneSh},
		[]string{suid}, Limits{}, "")
	wantNoError(t, res)
	wantOutput(t, res, "65534\n", "after-kill")
	if strings.Contains(res.Output, "uid=0") || strings.Contains(res.Output, "\n0\n") {
		t.Errorf("a setuid binary gave root:\n%s", res.Output)
	}
	res = python(t, strings.ReplaceAll(`
import ctypes, os
libc = ctypes.CDLL(None, use_errno=True)
def try_(name, rc):
    print(name, rc, os.strerror(ctypes.get_errno()) if rc != 0 else "ALLOWED")
try_("ptrace", libc.ptrace(16, 1, 0, 0))
try_("mount", libc.mount(b"none", b"/tmp", b"tmpfs", 0, None))
try_("unshare-user", libc.unshare(0x10000000))
try_("unshare-net", libc.unshare(0x40000000))
try_("bpf", libc.syscall(321, 0, 0, 0))
try_("io_uring", libc.syscall(425, 1, 0))
try_("setuid0", libc.setuid(0))
try_("kill-parent", libc.kill(os.getppid(), 9))
try_("kill-proxy", libc.kill(PROXY, 9))
`, "PROXY", fmt.Sprint(os.Getpid())), Limits{})
	wantNoError(t, res)
	for _, w := range []string{"ptrace -1 Operation not permitted", "mount -1 Operation not permitted", "unshare-user -1 Operation not permitted",
		"unshare-net -1 Operation not permitted", "bpf -1 Operation not permitted", "io_uring -1 Operation not permitted", "setuid0 -1 Operation not permitted",
		"kill-parent -1 Operation not permitted", "kill-proxy -1 No such process"} {
		wantOutput(t, res, w)
	}
}

func TestBatteryDaemon(t *testing.T) {
	needSandbox(t)
	marker := fmt.Sprintf("%d.%d", 4000+os.Getpid()%1000, time.Now().UnixNano()%1000)
	res := sh(t, `setsid sh -c 'sleep `+marker+` & sleep `+marker+` &' </dev/null >/dev/null 2>&1 & sleep 0.2; echo started`, Limits{})
	wantNoError(t, res)
	wantOutput(t, res, "started")
	wantNoLeftovers(t, "sleep\x00"+marker)
	// Run returns when the init says the run is over, before the init
	// itself has exited: by then it must have killed the daemons. Its exit
	// is held back here, so nothing but the init's own killing can pass.
	p := testRunner(t, "sh")
	p.exe, p.linger = "/bin/sh", 300*time.Millisecond
	p.command = func(Limits) ([]string, []string) {
		// Daemons holding no pipe of the run: nothing else waits for them.
		return []string{"/bin/sh", "-c", `setsid sh -c 'sleep 30 & sleep 30 &' </dev/null >/dev/null 2>&1 3>&- 4>&- & sleep 0.2` + doneSh}, childEnv
	}
	var w runWatch
	p.onStart = w.started
	res, err := p.run(context.Background(), Request{Code: "unused"}, &fakeHost{})
	if err != nil || res.Err != nil {
		t.Fatalf("run: %v %v", err, res.Err)
	}
	if left := inPIDNamespace(w.ns, w.pid); len(left) > 0 {
		t.Errorf("the daemons %v were still running when the init answered", left)
	}
	w.assertGone(t)
}

func TestBatteryBridge(t *testing.T) {
	needSandbox(t)
	res := sh(t, `echo '{"method":"done","params":{"value":42}}'; echo '{"id":1,"result":1}'`, Limits{})
	wantNoError(t, res)
	if string(res.Value) == "42" {
		t.Error("a done frame on stdout was taken for the bridge")
	}
	wantOutput(t, res, `{"method":"done","params":{"value":42}}`)
	for name, script := range map[string]string{
		"not json": `echo 'hello parent' >&3; sleep 30`,
		"unknown":  `echo '{"id":1,"method":"exec","params":{"cmd":"sh"}}' >&3; sleep 30`,
		"huge":     `head -c 3000000 /dev/zero | tr '\0' x >&3; sleep 30`,
	} {
		t.Run(name, func(t *testing.T) {
			res := runInner(t, []string{"/bin/sh", "-c", script}, nil, Limits{MaxFrameBytes: 1 << 20, Timeout: 20 * time.Second}, "")
			if res.Err == nil || res.Err.Kind == "timeout" {
				t.Errorf("Err = %v, want the bridge violation named", res.Err)
			}
		})
	}
}

func TestBatteryNode(t *testing.T) {
	needSandbox(t)
	if _, err := os.Stat("/usr/bin/node"); err != nil {
		t.Skip("no node")
	}
	code := `
const fs = require("fs"), net = require("net");
for (const p of ["/etc/shadow", "/root/.bashrc", "/proc/1/environ"]) {
  try { fs.readFileSync(p); console.log("READ", p) } catch (e) { console.log("read", p, e.code) }
}
try { fs.writeFileSync("/usr/x", "x"); console.log("WROTE") } catch (e) { console.log("write", e.code) }
fs.writeFileSync("/workspace/ok", "ok"); console.log("workspace", fs.readFileSync("/workspace/ok", "utf8"));
const s = net.connect(80, "1.1.1.1");
s.on("error", e => { console.log("connect", e.code); fs.writeSync(3, '{"method":"done","params":{}}\n') });
s.on("connect", () => { console.log("CONNECTED"); process.exit(0) });
`
	res := runInner(t, []string{"/usr/bin/node", "-e", code}, nil, Limits{}, "")
	wantNoError(t, res)
	wantOutput(t, res, "read /etc/shadow ENOENT", "read /root/.bashrc ENOENT", "read /proc/1/environ ENOENT", "write EROFS", "workspace ok", "connect EPERM")
	if strings.Contains(res.Output, "READ") || strings.Contains(res.Output, "CONNECTED") || strings.Contains(res.Output, "WROTE") {
		t.Errorf("node escaped:\n%s", res.Output)
	}
}

// TestBatteryPersistentWorkspace: a workspace made with MountWorkspace is
// bounded like a fresh one and keeps its contents across runs until
// UnmountWorkspace.
// TestBatteryRareSurfaces: from Python in the sandbox, personality with
// READ_IMPLIES_EXEC, modify_ldt, memfd_secret, mbind, vmsplice and sysfs
// are refused, and no extended attribute is set on a workspace file;
// personality's query still answers.
func TestBatteryRareSurfaces(t *testing.T) {
	needSandbox(t)
	res := python(t, `
import ctypes, os
libc = ctypes.CDLL(None, use_errno=True)
def try_(name, rc):
    print(name, rc, os.strerror(ctypes.get_errno()) if rc == -1 else "ALLOWED")
try_("personality-query", 0 if libc.personality(0xffffffff) >= 0 else -1)
try_("personality-rie", libc.personality(0x0400000))
try_("modify_ldt", libc.syscall(154, 0, 0, 0))
try_("memfd_secret", libc.syscall(447, 0))
try_("mbind", libc.syscall(237, 0, 0, 0, 0, 0, 0))
try_("vmsplice", libc.syscall(278, 1, 0, 0, 0))
try_("sysfs", libc.syscall(139, 3))
with open("/workspace/f", "w") as f:
    f.write("x")
try:
    os.setxattr("/workspace/f", b"user.toolfold", b"1")
    print("setxattr ALLOWED")
except OSError as e:
    print("setxattr", e.strerror)
`, Limits{})
	wantNoError(t, res)
	wantOutput(t, res, "personality-query 0 ALLOWED", "personality-rie -1 Operation not permitted",
		"modify_ldt -1 Operation not permitted", "memfd_secret -1 Operation not permitted", "mbind -1 Operation not permitted",
		"vmsplice -1 Operation not permitted", "sysfs -1 Operation not permitted", "setxattr Operation not supported")
}

func TestBatteryPersistentWorkspace(t *testing.T) {
	needSandbox(t)
	if os.Geteuid() != 0 {
		t.Skip("mounting the bounded workspace needs root")
	}
	dir := t.TempDir()
	lim := Limits{FileBytes: 1 << 20} // workspace 4 MiB
	if err := MountWorkspace(dir, lim.workspaceBytes()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { UnmountWorkspace(dir) })
	if err := MountWorkspace(t.TempDir()+"/..", 0); err == nil || !strings.Contains(err.Error(), "not empty") {
		t.Errorf("MountWorkspace on a non-empty directory: %v", err)
	}
	run := func(script string) *Result {
		return runInner(t, []string{"/bin/sh", "-c", "exec 2>&1; " + script + doneSh}, nil, lim, dir)
	}
	res := run(`echo one > state; for i in 1 2 3 4 5 6; do head -c 1000000 /dev/zero > f$i || echo "full at $i"; done`)
	wantOutput(t, res, "full at 5", "No space left on device")
	res = run(`cat state; rm f*; echo two >> state`)
	wantOutput(t, res, "one\n")
	if b, err := os.ReadFile(filepath.Join(dir, "state")); err != nil || string(b) != "one\ntwo\n" {
		t.Errorf("state on the host = %q, %v", b, err)
	}
	// A bounded workspace is a file system of its own: the mount table
	// the script reads names no host path for it (a bound directory's
	// line would: the kernel prints its path within its file system).
	res = run(`grep ' /workspace ' /proc/self/mountinfo`)
	wantOutput(t, res, " / /workspace ", "tmpfs toolfold-workspace")
	if strings.Contains(res.Output, dir) {
		t.Errorf("the script's mountinfo shows the workspace's host path %s:\n%s", dir, res.Output)
	}
	if err := UnmountWorkspace(dir); err != nil {
		t.Fatal(err)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("after UnmountWorkspace the directory holds %d entries", len(entries))
	}
}
