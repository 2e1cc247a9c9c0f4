package e2e

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The values the test hides; none may reach the client.
const (
	piiEmail = "dana.lee@example.org"
	piiPhone = "+44 20 7946 0958"
)

// TestPIIThroughMemory: a script reads a file holding an email through
// server-filesystem (it sees a token), stores an entity whose observation
// holds that token in server-memory, and reads it back. The memory file on
// disk holds the real email; what the client sees holds only the token;
// no frame the client received holds a raw value.
func TestPIIThroughMemory(t *testing.T) {
	root := t.TempDir()
	contacts := filepath.Join(root, "contacts.txt")
	body := "Renewal contact: Dana Lee <" + piiEmail + ">, phone " + piiPhone + ".\n"
	if err := os.WriteFile(contacts, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	memFile := filepath.Join(t.TempDir(), "memory.jsonl")
	mem := npmUpstream(t, "memory")
	mem.Env = map[string]string{"MEMORY_FILE_PATH": memFile}
	cfg := writeConfig(t, configYAML(map[string]upstream{
		"filesystem": npmUpstream(t, "filesystem", root),
		"memory":     mem,
	})+`pii:
  flows:   # the file's values may go to the memory server (by default a person is asked)
    - {from: "filesystem.*", to: "memory.*", action: allow}
`)
	cs, frames := startStdioRecorded(t, cfg)

	res := runScript(t, cs, `
local text = tools.filesystem.read_text_file{path = `+quote(contacts)+`}.content
local email = string.match(text, "%[EMAIL_%d+%]")
local phone = string.match(text, "%[PHONE_%d+%]")
assert(email and phone, "no tokens in: " .. text)
tools.memory.create_entities{entities = {{name = "Dana Lee", entityType = "person",
  observations = {"email " .. email, "call on " .. phone .. " after 5pm"}}}}
local g = tools.memory.open_nodes{names = {"Dana Lee"}}
return {read = text, stored = g.entities[1].observations}`)
	out := text(res)
	if res.IsError {
		t.Fatalf("script failed: %s", out)
	}
	for _, want := range []string{`[NAME_1] <[EMAIL_1]>, phone [PHONE_1]`, `"email [EMAIL_1]"`, `"call on [PHONE_1] after 5pm"`} {
		if !strings.Contains(out, want) {
			t.Errorf("script result lacks %q:\n%s", want, out)
		}
	}

	// A later call in the same session: the token the model saw goes back
	// into a script literally, and is restored on its way upstream.
	res = runScript(t, cs, `
tools.memory.add_observations{observations = {{entityName = "Dana Lee", contents = {"backup address [EMAIL_1]", "not ours: [EMAIL_42]"}}}}
return tools.memory.read_graph{}`)
	out = text(res)
	if res.IsError {
		t.Fatalf("second script failed: %s", out)
	}
	// [EMAIL_42] is no token of this session: it reached the memory
	// server as written, and coming back it is text that looks like a
	// token, which toolfold vaults too ([TOKEN_n]) so that it can never
	// be turned into somebody's value.
	for _, want := range []string{"backup address [EMAIL_1]", "not ours: [TOKEN_1]"} {
		if !strings.Contains(out, want) {
			t.Errorf("read_graph lacks %q:\n%s", want, out)
		}
	}

	disk, err := os.ReadFile(memFile)
	if err != nil {
		t.Fatalf("memory file: %v", err)
	}
	for _, want := range []string{"email " + piiEmail, "call on " + piiPhone + " after 5pm", "backup address " + piiEmail, "not ours: [EMAIL_42]"} {
		if !strings.Contains(string(disk), want) {
			t.Errorf("memory file lacks %q:\n%s", want, disk)
		}
	}
	if strings.Contains(string(disk), "[EMAIL_1]") || strings.Contains(string(disk), "[PHONE_1]") {
		t.Errorf("memory file holds a token of ours, not the value:\n%s", disk)
	}

	all := frames.all()
	if n := len(all); n < 3 || !strings.Contains(strings.Join(all, "\n"), "[EMAIL_1]") {
		t.Fatalf("recorded %d frames, none with a token: the recorder is broken", n)
	}
	for i, f := range all {
		for _, raw := range []string{piiEmail, "dana.lee", "7946 0958", "79460958"} {
			if strings.Contains(f, raw) {
				t.Errorf("frame %d the client received holds %q: %.300s", i, raw, f)
			}
		}
	}
}

// startStdioRecorded is startStdio with every frame the client receives
// recorded (re-encoded from the decoded message, so any string in it is
// there in full).
func startStdioRecorded(t *testing.T, cfg string) (*mcp.ClientSession, *frameLog) {
	t.Helper()
	p, log := startStdioRecordedProc(t, cfg)
	return p.cs, log
}

// startStdioRecordedProc is startStdioRecorded that also returns the
// process, for its stderr; env is added to toolfold's environment.
func startStdioRecordedProc(t *testing.T, cfg string, env ...string) (*toolfoldProc, *frameLog) {
	t.Helper()
	p := &toolfoldProc{t: t, stderr: &syncBuffer{}}
	p.cmd, p.tmp = toolfoldCmd(t, context.Background(), "serve", "-c", cfg)
	p.cmd.Env = append(p.cmd.Env, env...)
	p.cmd.Stderr = p.stderr
	log := &frameLog{}
	transport := &recordingTransport{inner: &mcp.CommandTransport{Command: p.cmd, TerminateDuration: exitGrace}, log: log}
	client := mcp.NewClient(&mcp.Implementation{Name: "toolfold-e2e", Version: "0"}, nil)
	cs, err := client.Connect(testCtx(t, startTimeout), transport, nil)
	if err != nil {
		if p.cmd.Process != nil {
			_ = p.cmd.Process.Kill()
		}
		t.Fatalf("connecting to toolfold serve -c %s: %v\nstderr:\n%s", cfg, err, p.stderr)
	}
	p.cs = cs
	t.Cleanup(p.close)
	return p, log
}

// frameLog holds the frames a client received.
type frameLog struct {
	mu     sync.Mutex
	frames []string
}

func (l *frameLog) add(msg jsonrpc.Message) {
	data, err := jsonrpc.EncodeMessage(msg)
	if err != nil {
		data = []byte("unencodable: " + err.Error())
	}
	l.mu.Lock()
	l.frames = append(l.frames, string(data))
	l.mu.Unlock()
}

func (l *frameLog) all() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]string(nil), l.frames...)
}

type recordingTransport struct {
	inner mcp.Transport
	log   *frameLog
}

func (r *recordingTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	c, err := r.inner.Connect(ctx)
	if err != nil {
		return nil, err
	}
	return &recordingConn{Connection: c, log: r.log}, nil
}

type recordingConn struct {
	mcp.Connection
	log *frameLog
}

func (c *recordingConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	msg, err := c.Connection.Read(ctx)
	if err == nil {
		c.log.add(msg)
	}
	return msg, err
}

// TestPIITableColumn: a CSV file read through server-filesystem holds
// national phone numbers that only their column's header names; the
// client sees tokens, and no frame it received holds a raw number.
func TestPIITableColumn(t *testing.T) {
	root := t.TempDir()
	csv := filepath.Join(root, "contacts.csv")
	// Far enough below the header that no phone word is near the last
	// row's number, even where the newlines are written as escapes.
	body := "Name,Phone,City\nDana Lee,612 34 56 78,Madrid\n" +
		"Alexandra Konstantinopoulou,612 34 56 79,Thessaloniki\n" +
		"Maximilian Oberhausen-Wertheim,612 34 56 80,Mönchengladbach\n" +
		"Sam Roe,85 75 12 34,Oslo\n"
	if err := os.WriteFile(csv, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg := writeConfig(t, configYAML(map[string]upstream{"filesystem": npmUpstream(t, "filesystem", root)}))
	cs, frames := startStdioRecorded(t, cfg)
	res := runScript(t, cs, `return tools.filesystem.read_text_file{path = `+quote(csv)+`}.content`)
	out := text(res)
	if res.IsError {
		t.Fatalf("script failed: %s", out)
	}
	for _, want := range []string{"[NAME_1],[PHONE_1],Madrid", "[NAME_4],[PHONE_4],Oslo"} {
		if !strings.Contains(out, want) {
			t.Errorf("script result lacks %q:\n%s", want, out)
		}
	}
	for i, f := range frames.all() {
		for _, raw := range []string{"612 34 56", "85 75 12 34", "Dana Lee", "Sam Roe"} {
			if strings.Contains(f, raw) {
				t.Errorf("frame %d the client received holds %q: %.300s", i, raw, f)
			}
		}
	}
}
