package e2e

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/toolfold/toolfold/internal/testlog"
)

// A cluster is what docs/replicas.md describes, on loopback: a real
// redis-server, toolfold replicas sharing it through store:, and a real
// HAProxy in front sticking sessions by Mcp-Session-Id (deploy/haproxy.cfg,
// with its addresses replaced).
type cluster struct {
	t        *testing.T
	redis    string // HOST:PORT
	front    string // http://HOST:PORT/mcp through HAProxy
	replicas []*replica
	cfgFile  string // the replicas' proxy.yaml
}

type replica struct {
	name string
	addr string
	cmd  *exec.Cmd
	out  *syncBuffer
	done chan struct{}
	tmp  string // its TMPDIR, where its workspaces are
}

// needDebian finds a Debian package's program, or skips (fails under CI,
// where .ci/test installs it).
func needDebian(t *testing.T, prog, pkg string) string {
	t.Helper()
	for _, p := range []string{prog, "/usr/sbin/" + prog, "/usr/bin/" + prog} {
		if path, err := exec.LookPath(p); err == nil {
			return path
		}
	}
	if os.Getenv("CI") == "true" {
		t.Fatalf("%s not found; .ci/test installs it (apt-get install %s)", prog, pkg)
	}
	t.Skipf("%s not found: apt-get install %s (.ci/test does)", prog, pkg)
	return ""
}

// waitListen waits until addr accepts connections.
func waitListen(t *testing.T, addr string, d time.Duration) {
	t.Helper()
	for deadline := time.Now().Add(d); ; time.Sleep(20 * time.Millisecond) {
		if c, err := net.Dial("tcp", addr); err == nil {
			c.Close()
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("nothing listens on %s after %v", addr, d)
		}
	}
}

// startDaemon runs a helper server (redis, haproxy) until the test ends.
func startDaemon(t *testing.T, out *syncBuffer, bin string, args ...string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Stdout, cmd.Stderr = out, out
	cmd.SysProcAttr = dieWithTest()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		if t.Failed() {
			t.Logf("%s output:\n%s", filepath.Base(bin), out)
		}
	})
	return cmd
}

// The cluster's Redis password and store key, as deploy/k8s keeps them in
// a Secret.
const (
	testRedisPassword = "e2e-redis-password"
	testStoreKey      = "e2e-store-key-0123456789abcdef"
)

// storeYAML is the store: section for the Redis at addr: its password in
// the URL, the key that signs every entry.
func storeYAML(addr string) string {
	return fmt.Sprintf("store:\n  url: redis://:%s@%s/0\n  key: %s\n", testRedisPassword, addr, testStoreKey)
}

// startCluster starts redis, n replicas of toolfold on cfg (its store:
// pointed at that redis) and HAProxy in front.
func startCluster(t *testing.T, n int, cfg string) *cluster {
	t.Helper()
	redisBin := needDebian(t, "redis-server", "redis-server")
	haproxyBin := needDebian(t, "haproxy", "haproxy")
	c := &cluster{t: t, redis: freeAddr(t)}
	_, port, _ := net.SplitHostPort(c.redis)
	startDaemon(t, &syncBuffer{}, redisBin, "--port", port, "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--dir", t.TempDir(),
		"--requirepass", testRedisPassword)
	waitListen(t, c.redis, startTimeout)
	cfgFile := writeConfig(t, cfg+storeYAML(c.redis))
	c.cfgFile = cfgFile
	for i := range n {
		c.replicas = append(c.replicas, c.startReplica(fmt.Sprintf("r%d", i+1), cfgFile))
	}
	front := freeAddr(t)
	hcfg := filepath.Join(t.TempDir(), "haproxy.cfg")
	if err := os.WriteFile(hcfg, []byte(c.haproxyConfig(t, front)), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command(haproxyBin, "-c", "-f", hcfg).CombinedOutput(); err != nil {
		t.Fatalf("haproxy -c: %v\n%s", err, out)
	}
	startDaemon(t, &syncBuffer{}, haproxyBin, "-db", "-f", hcfg)
	waitListen(t, front, startTimeout)
	c.front = "http://" + front + "/mcp"
	return c
}

// haproxyConfig is deploy/haproxy.cfg with this cluster's addresses, and a
// header naming the replica that answered, for the test to see the spread.
func (c *cluster) haproxyConfig(t *testing.T, front string) string {
	t.Helper()
	b, err := os.ReadFile("../deploy/haproxy.cfg")
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, line := range strings.Split(string(b), "\n") {
		trimmed := strings.TrimSpace(line)
		switch {
		case strings.HasPrefix(trimmed, "bind "):
			line = "    bind " + front
		case strings.HasPrefix(trimmed, "server "):
			continue
		}
		out = append(out, line)
	}
	out = append(out, "    http-response set-header X-Toolfold-Replica %[srv_name]")
	for _, r := range c.replicas {
		out = append(out, fmt.Sprintf("    server %s %s check", r.name, r.addr))
	}
	return strings.Join(out, "\n") + "\n"
}

func (c *cluster) startReplica(name, cfgFile string) *replica {
	t := c.t
	t.Helper()
	r := &replica{name: name, addr: freeAddr(t), out: &syncBuffer{}, done: make(chan struct{})}
	r.cmd, r.tmp = toolfoldCmd(t, context.Background(), "serve", "-c", cfgFile, "--http", r.addr)
	r.cmd.Stderr = r.out
	if err := r.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { _ = r.cmd.Wait(); close(r.done) }()
	t.Cleanup(func() {
		_ = r.cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-r.done:
		case <-time.After(exitGrace):
			t.Errorf("replica %s did not exit within %v of SIGTERM", name, exitGrace)
			_ = r.cmd.Process.Kill()
			<-r.done
		}
		if m := crashRE.FindString(r.out.String()); m != "" {
			t.Errorf("replica %s: stderr shows %q", name, m)
		}
		if t.Failed() {
			t.Logf("replica %s stderr:\n%s", name, r.out)
		}
	})
	for deadline := time.Now().Add(startTimeout); ; time.Sleep(50 * time.Millisecond) {
		if code, _ := httpGetQuiet(r.addr, "/readyz"); code == 200 {
			return r
		}
		select {
		case <-r.done:
			t.Fatalf("replica %s exited:\n%s", name, r.out)
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("replica %s not ready after %v:\n%s", name, startTimeout, r.out)
		}
	}
}

// kill ends the replica at once, as a crash would. Running as root, its
// session workspaces were tmpfs mounts, which a crash leaves mounted (a
// known limit, docs/sandbox.md): they are detached here, as an
// operator would, so the test's temporary directory can be removed.
func (r *replica) kill() {
	_ = r.cmd.Process.Kill()
	<-r.done
	unmountLeftovers(r.tmp)
}

func httpGetQuiet(addr, path string) (int, error) {
	resp, err := http.Get("http://" + addr + path)
	if err != nil {
		return 0, err
	}
	resp.Body.Close()
	return resp.StatusCode, nil
}

// replicaRecorder notes which replica created a session (answered its
// initialize) and which others answered it successfully since.
type replicaRecorder struct {
	mu     sync.Mutex
	home   string
	others map[string]bool
}

func (r *replicaRecorder) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := http.DefaultTransport.RoundTrip(req)
	if err != nil {
		return resp, err
	}
	name := resp.Header.Get("X-Toolfold-Replica")
	r.mu.Lock()
	defer r.mu.Unlock()
	switch {
	case resp.Header.Get("Mcp-Session-Id") != "" && req.Header.Get("Mcp-Session-Id") == "":
		r.home = name // the session was created here
	case req.Header.Get("Mcp-Session-Id") != "" && resp.StatusCode < 300 && name != r.home:
		r.others[name] = true // a request of the session served elsewhere
	}
	// Requests outside a session (the 2026-07-28 server/discover probe) may
	// go anywhere.
	return resp, nil
}

// session is one client session through the front, remembering which
// replicas served it.
type session struct {
	cs  *mcp.ClientSession
	rec *replicaRecorder
}

func (c *cluster) connect(ctx context.Context) (*session, error) {
	rec := &replicaRecorder{others: map[string]bool{}}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "cluster-e2e"}, nil).Connect(ctx,
		&mcp.StreamableClientTransport{Endpoint: c.front, HTTPClient: &http.Client{Transport: rec}, MaxRetries: -1}, nil)
	if err != nil {
		return nil, err
	}
	return &session{cs: cs, rec: rec}, nil
}

// openSessions opens n sessions through the front, all at once.
func (c *cluster) openSessions(n int) []*session {
	c.t.Helper()
	out := make([]*session, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			ctx, cancel := context.WithTimeout(context.Background(), startTimeout)
			defer cancel()
			out[i], errs[i] = c.connect(ctx)
		})
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			c.t.Fatalf("session %d: connect: %v", i, err)
		}
		c.t.Cleanup(func() { _ = out[i].cs.Close() })
	}
	return out
}

// runScripts runs scripts trivial Lua scripts in each session, the
// sessions at once, and returns each session's errors.
func runScripts(sessions []*session, scripts int) [][]error {
	errs := make([][]error, len(sessions))
	var wg sync.WaitGroup
	for i, s := range sessions {
		wg.Go(func() {
			ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
			defer cancel()
			for j := range scripts {
				res, err := s.cs.CallTool(ctx, &mcp.CallToolParams{Name: "run_script", Arguments: map[string]any{
					"language": "lua", "code": fmt.Sprintf("return %d * %d", i+1, j+7)}})
				switch {
				case err != nil:
					errs[i] = append(errs[i], err)
				case res.IsError || !strings.Contains(text(res), fmt.Sprint((i+1)*(j+7))):
					errs[i] = append(errs[i], fmt.Errorf("script %d: %s", j, text(res)))
				}
			}
		})
	}
	wg.Wait()
	return errs
}

// replicaOf is the replica that created s; a request of s answered by
// another is a test error (stickiness broken).
func replicaOf(t *testing.T, i int, s *session) string {
	t.Helper()
	s.rec.mu.Lock()
	defer s.rec.mu.Unlock()
	if len(s.rec.others) > 0 {
		t.Errorf("session %d, created on %s, was also served by %v", i, s.rec.home, s.rec.others)
	}
	return s.rec.home
}

// TestReplicas: 20 sessions × 5 scripts through HAProxy to two replicas on
// one Redis, with no error; each session stays on one replica and both
// replicas get some. Then replica 1 is killed: 10 new sessions × 3 scripts
// still have no error.
func TestReplicas(t *testing.T) {
	t.Parallel()
	c := startCluster(t, 2, configYAML(map[string]upstream{"go-everything": {Command: needGoEverything(t)}})+
		"skills: {save: true}\npolicy:\n  rules:\n    - {match: skills.shout, rate: 3/h, per: all}\n")

	sessions := c.openSessions(20)
	errs := runScripts(sessions, 5)
	count := map[string]int{}
	for i, s := range sessions {
		if len(errs[i]) > 0 {
			t.Errorf("session %d: %v", i, errs[i])
		}
		count[replicaOf(t, i, s)]++
	}
	if count["r1"] == 0 || count["r2"] == 0 {
		t.Fatalf("sessions per replica %v: want both replicas used", count)
	}

	// A skill saved through r1 is found and run through r2: skills live
	// in the shared store.
	var on1, on2 *session
	for i, s := range sessions {
		switch replicaOf(t, i, s) {
		case "r1":
			on1 = s
		case "r2":
			on2 = s
		}
	}
	saved := callTool(t, on1.cs, "run_script", map[string]any{"language": "lua", "code": `return skills.save{name = "shout",
		description = "Upper-case a text and add an exclamation mark", code = "return string.upper(args.text) .. '!'",
		parameters = {type = "object", properties = {text = {type = "string"}}, required = {"text"}}}`})
	if saved.IsError {
		t.Fatalf("saving a skill through r1: %s", text(saved))
	}
	deadline := time.Now().Add(testlog.Bound(time.Minute))
	for {
		found := text(callTool(t, on2.cs, "search_tools", map[string]any{"query": "make a text uppercase", "limit": 3}))
		if strings.Contains(found, "skills.shout") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("r2's search_tools did not find the skill saved through r1 within %v:\n%s", testlog.Bound(time.Minute), found)
		}
		time.Sleep(500 * time.Millisecond)
	}
	if out := text(callTool(t, on2.cs, "run_script", map[string]any{"language": "lua", "code": `return tools.skills.shout{text = "hi"}`})); !strings.Contains(out, `=> "HI!"`) {
		t.Errorf("running r1's skill through r2: %s", out)
	}

	// The replicas keep the upstreams' tool lists in the shared store:
	// toolfold search with the same config answers from it, starting no
	// upstream, in a directory of its own.
	if r := runCLI(t, "search", "-c", c.cfgFile, "--log-level", "info", "echo"); r.code != 0 || !strings.Contains(r.stderr, "answering from the catalog cache") || !strings.Contains(r.stdout, "go_everything.") {
		t.Errorf("toolfold search beside the replicas: exit %d, want an answer from the shared catalog cache:\n%s%s", r.code, r.stdout, r.stderr)
	}

	// A rate limit with per: all is counted in the shared store: three
	// calls an hour across both replicas (an hour, so that a loaded
	// machine's slow steps cannot carry the first call out of the window),
	// the fourth refused wherever it lands.
	shout := func(s *session) string {
		return text(callTool(t, s.cs, "run_script", map[string]any{"language": "lua",
			"code": `local ok, err = pcall(tools.skills.shout, {text = "x"}) return ok and "ok" or tostring(err)`}))
	}
	for i, s := range []*session{on1, on2} {
		if out := shout(s); !strings.Contains(out, `=> "ok"`) {
			t.Errorf("call %d of 3 within the shared rate: %s", i+2, out)
		}
	}
	if out := shout(on1); !strings.Contains(out, "retry in") {
		t.Errorf("the 4th call across replicas within the hour was not refused by the shared rate: %s", out)
	}

	// r1 dies while every session runs scripts: only its own sessions fail.
	killed := make(chan struct{})
	go func() {
		time.Sleep(100 * time.Millisecond)
		c.replicas[0].kill()
		close(killed)
	}()
	errs = runScripts(sessions, 8)
	<-killed
	var lost int
	for i, s := range sessions {
		switch replicaOf(t, i, s) {
		case "r2":
			if len(errs[i]) > 0 {
				t.Errorf("session %d on r2 failed when r1 was killed: %v", i, errs[i])
			}
		case "r1":
			if len(errs[i]) > 0 {
				lost++
			}
		}
	}
	if lost == 0 {
		t.Errorf("no session of the killed replica saw an error: was it really killed?")
	}

	// New sessions after the kill: no error, all on r2.
	fresh := c.openSessions(10)
	errs = runScripts(fresh, 3)
	for i, s := range fresh {
		if len(errs[i]) > 0 {
			t.Errorf("after r1 was killed, new session %d: %v", i, errs[i])
		}
		if r := replicaOf(t, i, s); r != "r2" {
			t.Errorf("after r1 was killed, new session %d was served by %s", i, r)
		}
	}
}
