package e2e

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"net"
	"strings"
	"testing"

	"github.com/toolfold/toolfold/store"
)

// TestStoreTrustRoot: with store: on a real redis-server (password and
// key as deploy/k8s sets them), someone who can write Redis but lacks the
// store key cannot plant a skill (not listed, not callable) nor approve a
// changed tool by editing its pin; with Redis stopped, a tool whose pin
// cannot be read is held, and a 2/h per: all limit lets at most 2 of 4
// calls through.
func TestStoreTrustRoot(t *testing.T) {
	redisBin := needDebian(t, "redis-server", "redis-server")
	addr := freeAddr(t)
	_, port, _ := net.SplitHostPort(addr)
	redis := startDaemon(t, &syncBuffer{}, redisBin, "--port", port, "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
		"--dir", t.TempDir(), "--requirepass", testRedisPassword)
	waitListen(t, addr, startTimeout)
	ctx := context.Background()
	raw, err := store.Open("redis://:"+testRedisPassword+"@"+addr+"/0", "", nil) // the attacker: Redis, no key
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	ups := configYAML(map[string]upstream{"memory": npmUpstream(t, "memory")})
	cfg := writeConfig(t, ups+storeYAML(addr))

	// A skill written straight into Redis, in the shape toolfold writes.
	planted := `{"name":"daily_report","description":"Send the daily report","language":"lua","code":"return 'planted ran'"}`
	if err := raw.Set(ctx, "skills/daily_report", []byte(planted)); err != nil {
		t.Fatal(err)
	}
	p := startStdioProc(t, cfg)
	out := text(callTool(t, p.cs, "search_tools", map[string]any{"query": "daily report", "detail": "name"}))
	if strings.Contains(out, "skills.daily_report") || !strings.Contains(out, "not signed with the store key") {
		t.Errorf("search_tools lists the planted skill, or does not say it was refused:\n%s", out)
	}
	if out := scriptErr(t, p.cs, `return tools.skills.daily_report{}`); strings.Contains(out, "planted ran") {
		t.Errorf("the planted skill ran: %s", out)
	}
	scriptOK(t, p.cs, `return tools.memory.read_graph{}`) // pins memory's tools, signed
	p.close()

	// memory.read_graph changed since it was pinned (held); the attacker
	// writes a pin approving what it is now.
	pinKey := "pins/" + hexSum("memory.read_graph")
	b, err := raw.Get(ctx, pinKey)
	if err != nil || !bytes.HasPrefix(b, []byte("tfsig1 ")) {
		t.Fatalf("the pin toolfold wrote: %q, %v; want a signed entry", b, err)
	}
	var pin map[string]any
	if err := json.Unmarshal(b[bytes.IndexByte(b, '\n')+1:], &pin); err != nil {
		t.Fatal(err)
	}
	signed, _ := store.Signed(raw, []byte(testStoreKey), nil) // toolfold's own earlier write
	held := map[string]any{"name": "memory.read_graph", "pinned": "sha256:older", "seen": pin["seen"], "first_seen": pin["first_seen"], "changed_at": pin["first_seen"]}
	heldJSON, _ := json.Marshal(held)
	if err := signed.Set(ctx, pinKey, heldJSON); err != nil {
		t.Fatal(err)
	}
	pin["pinned"] = pin["seen"]
	forged, _ := json.Marshal(pin)
	if err := raw.Set(ctx, pinKey, forged); err != nil {
		t.Fatal(err)
	}
	p = startStdioProc(t, cfg)
	if out := scriptErr(t, p.cs, `return tools.memory.read_graph{}`); !strings.Contains(out, "approve") {
		t.Errorf("the tool whose pin was forged: %s; want it held until approved", out)
	}
	p.close()

	// Redis stopped: the pins cannot be read, so tools are held; a rate
	// limit counts in toolfold's memory.
	_ = redis.Process.Kill()
	_ = redis.Wait()
	p = startStdioProc(t, cfg)
	if out := scriptErr(t, p.cs, `return tools.memory.read_graph{}`); !strings.Contains(out, "memory.read_graph") {
		t.Errorf("a tool with Redis stopped: %s; want it held", out)
	}
	p.close()
	cfg = writeConfig(t, ups+storeYAML(addr)+"policy:\n  pin_tools: false\n  rules:\n    - {match: memory.read_graph, rate: 2/h, per: all}\n")
	p = startStdioProc(t, cfg)
	var n int
	returned(t, scriptOK(t, p.cs, `local n = 0
for i = 1, 4 do
  if pcall(function() return tools.memory.read_graph{} end) then n = n + 1 end
end
return n`), &n)
	if n > 2 {
		t.Errorf("%d of 4 calls passed a 2/h limit with Redis stopped; want at most 2", n)
	}
}

func hexSum(s string) string {
	h := sha256.Sum256([]byte(s))
	return hex.EncodeToString(h[:])
}
