package proxy

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/toolfold/toolfold/internal/testlog"
)

// initializeRequest starts an HTTP session by hand.
func initializeRequest(url string) *http.Request {
	req, _ := http.NewRequest("POST", url+"/mcp", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	return req
}

// TestHTTPMaxSessions: with http.max_sessions 3, a fourth session is
// refused with 503, Retry-After and a JSON-RPC error saying what to do;
// once one session is ended by its client (DELETE), a new one is taken.
func TestHTTPMaxSessions(t *testing.T) {
	cfg := testConfig()
	cfg.HTTP.MaxSessions = 3
	p := New(cfg, nil)
	defer p.Close()
	ts := httptest.NewServer(p.HTTPHandler(""))
	defer ts.Close()
	ctx, cancel := context.WithTimeout(context.Background(), testlog.Bound(2*time.Minute))
	defer cancel()
	connect := func() (*mcp.ClientSession, error) {
		return mcp.NewClient(&mcp.Implementation{Name: "c"}, nil).Connect(ctx, &mcp.StreamableClientTransport{Endpoint: ts.URL + "/mcp"}, nil)
	}
	var css []*mcp.ClientSession
	for i := range 3 {
		cs, err := connect()
		if err != nil {
			t.Fatalf("session %d: %v", i+1, err)
		}
		defer cs.Close()
		css = append(css, cs)
	}
	resp, err := http.DefaultClient.Do(initializeRequest(ts.URL))
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	var rpc struct {
		Error struct {
			Code    int
			Message string
		}
	}
	json.Unmarshal(body, &rpc)
	if resp.StatusCode != http.StatusServiceUnavailable || resp.Header.Get("Retry-After") == "" ||
		!strings.Contains(rpc.Error.Message, "maximum of 3 sessions (http.max_sessions)") || !strings.Contains(rpc.Error.Message, "DELETE") {
		t.Fatalf("a fourth session: %d Retry-After=%q %s; want 503 with Retry-After and a JSON-RPC error saying what to do",
			resp.StatusCode, resp.Header.Get("Retry-After"), body)
	}
	if _, err := connect(); err == nil {
		t.Fatal("a fourth session through the SDK's client was taken")
	}
	// The sessions that are in still work.
	if _, err := css[1].ListTools(ctx, nil); err != nil {
		t.Errorf("a live session after the refusal: %v", err)
	}
	css[0].Close() // DELETE; the client need not wait for its answer
	var cs *mcp.ClientSession
	for deadline := time.Now().Add(testlog.Bound(time.Minute)); ; time.Sleep(20 * time.Millisecond) {
		if cs, err = connect(); err == nil || time.Now().After(deadline) {
			break
		}
	}
	if err != nil {
		t.Fatalf("a new session once one was deleted: %v", err)
	}
	cs.Close()
}

// TestHTTPTricklingBodyCut: a request body that trickles in is cut off
// at its deadline; the server-to-client stream (a GET, no body) and a
// response written after the body was read are not bound by it.
func TestHTTPTricklingBodyCut(t *testing.T) {
	p := New(testConfig(), nil)
	defer p.Close()
	p.bodyTimeout = time.Second // a body sent at once arrives within it on a loaded machine too
	ts := httptest.NewServer(p.HTTPHandler(""))
	defer ts.Close()

	conn, err := net.Dial("tcp", ts.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	const body = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}`
	fmt.Fprintf(conn, "POST /mcp HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: %d\r\n\r\n",
		ts.Listener.Addr(), len(body)+3000)
	cut := make(chan error, 1)
	go func() { // the server answers or hangs up; either way the trickle is over
		_, err := bufio.NewReader(conn).ReadByte()
		cut <- err
	}()
	// 3,000 bytes one every 10 ms: 30 s if it were let through.
	sent := 0
	for ; sent < 3000; sent++ {
		select {
		case <-cut:
			if sent >= 3000 {
				t.Fatal("the whole trickled body was read")
			}
			goto live
		default:
		}
		if _, err := conn.Write([]byte(" ")); err != nil {
			goto live
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatal("a trickling body was never cut off")
live:
	// A session whose requests take longer than the body deadline still
	// works: its bodies arrive at once.
	ctx, cancel := context.WithTimeout(context.Background(), testlog.Bound(2*time.Minute))
	defer cancel()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "c"}, nil).Connect(ctx, &mcp.StreamableClientTransport{Endpoint: ts.URL + "/mcp"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	text, failed := callText(t, cs, "run_script", map[string]any{"language": "lua", "code": "local n = 0 for i = 1, 1e6 do n = n + i end return 'slow'"})
	if failed || !strings.Contains(text, "slow") {
		t.Errorf("a run longer than the body deadline: %s", text)
	}
}
