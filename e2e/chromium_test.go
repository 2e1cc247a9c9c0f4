package e2e

import (
	"bufio"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"sync"
	"syscall"
	"testing"
	"time"
)

// A real browser for the dashboard's tests: headless Chromium (the Debian
// package), driven over the Chrome DevTools Protocol on a pipe
// (--remote-debugging-pipe: the browser reads NUL-terminated JSON
// messages on fd 3 and writes its own on fd 4), so no Go dependency is
// needed.

// browser is one headless Chromium and the page it has open.
type browser struct {
	t       *testing.T
	cmd     *exec.Cmd
	out     *os.File // our end of the browser's fd 3
	session string   // the page's CDP session

	mu      sync.Mutex
	next    int
	waiting map[int]chan cdpReply
	dead    chan struct{} // closed when the browser's fd 4 ends
}

type cdpReply struct {
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Message string `json:"message"`
	} `json:"error"`
}

// needChromium is the path of chromium; outside CI a missing browser skips
// the test, saying how to install it, under CI=true it fails.
func needChromium(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("CI") == "true" {
		t.Fatal("chromium not found; CI must install it (apt-get install -y chromium)")
	}
	t.Skip("chromium not found: install it (apt-get install -y chromium) to test the dashboard in a real browser")
	return ""
}

// startBrowser starts headless Chromium with a page open; it is killed,
// with its helpers, at the test's end.
func startBrowser(t *testing.T) *browser {
	t.Helper()
	exe := needChromium(t)
	toBrowser, ours, err := os.Pipe() // the browser's fd 3
	if err != nil {
		t.Fatal(err)
	}
	theirs, fromBrowser, err := os.Pipe() // the browser's fd 4
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
		"--no-first-run", "--no-default-browser-check", "--hide-scrollbars", "--window-size=1200,900",
		"--remote-debugging-pipe", "--user-data-dir="+t.TempDir(), "about:blank")
	cmd.ExtraFiles = []*os.File{toBrowser, fromBrowser}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} // so its helpers die with it
	stderr := &syncBuffer{}
	cmd.Stderr = stderr
	if err := cmd.Start(); err != nil {
		t.Fatalf("starting chromium: %v", err)
	}
	toBrowser.Close()
	fromBrowser.Close()
	b := &browser{t: t, cmd: cmd, out: ours, waiting: map[int]chan cdpReply{}, dead: make(chan struct{})}
	t.Cleanup(func() {
		ours.Close()
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		_ = cmd.Wait()
		if t.Failed() {
			t.Logf("chromium stderr (last 4 KiB):\n%s", tail(stderr.String(), 4<<10))
		}
	})
	go b.read(theirs)
	var target struct{ TargetID string }
	b.call("", "Target.createTarget", map[string]any{"url": "about:blank"}, &target)
	var att struct{ SessionID string }
	b.call("", "Target.attachToTarget", map[string]any{"targetId": target.TargetID, "flatten": true}, &att)
	b.session = att.SessionID
	b.call(b.session, "Page.enable", nil, nil)
	return b
}

func tail(s string, n int) string {
	if len(s) > n {
		return s[len(s)-n:]
	}
	return s
}

// read hands the browser's replies to their callers; events are dropped.
func (b *browser) read(f *os.File) {
	defer close(b.dead)
	r := bufio.NewReaderSize(f, 1<<20)
	for {
		msg, err := r.ReadBytes(0)
		if err != nil {
			return
		}
		var m struct {
			ID int `json:"id"`
			cdpReply
		}
		if json.Unmarshal(msg[:len(msg)-1], &m) != nil || m.ID == 0 {
			continue
		}
		b.mu.Lock()
		ch := b.waiting[m.ID]
		delete(b.waiting, m.ID)
		b.mu.Unlock()
		if ch != nil {
			ch <- m.cdpReply
		}
	}
}

// call sends a CDP command (to session, "" for the browser) and decodes
// its result into out (nil: dropped). A failure fails the test.
func (b *browser) call(session, method string, params any, out any) {
	b.t.Helper()
	b.mu.Lock()
	b.next++
	id := b.next
	ch := make(chan cdpReply, 1)
	b.waiting[id] = ch
	b.mu.Unlock()
	msg := map[string]any{"id": id, "method": method}
	if params != nil {
		msg["params"] = params
	}
	if session != "" {
		msg["sessionId"] = session
	}
	raw, _ := json.Marshal(msg)
	if _, err := b.out.Write(append(raw, 0)); err != nil {
		b.t.Fatalf("CDP %s: %v", method, err)
	}
	select {
	case rep := <-ch:
		if rep.Error != nil {
			b.t.Fatalf("CDP %s: %s", method, rep.Error.Message)
		}
		if out != nil {
			if err := json.Unmarshal(rep.Result, out); err != nil {
				b.t.Fatalf("CDP %s: %v", method, err)
			}
		}
	case <-b.dead:
		b.t.Fatalf("CDP %s: chromium went away", method)
	case <-time.After(callTimeout):
		b.t.Fatalf("CDP %s: no answer within %v", method, callTimeout)
	}
}

// eval evaluates a JavaScript expression in the page and returns its
// value, decoded into out.
func (b *browser) eval(expr string, out any) {
	b.t.Helper()
	var r struct {
		Result struct {
			Value json.RawMessage `json:"value"`
		} `json:"result"`
		ExceptionDetails *struct {
			Text string `json:"text"`
		} `json:"exceptionDetails"`
	}
	b.call(b.session, "Runtime.evaluate", map[string]any{"expression": expr, "returnByValue": true}, &r)
	if r.ExceptionDetails != nil {
		b.t.Fatalf("evaluating %s: %s", expr, r.ExceptionDetails.Text)
	}
	if out != nil {
		if err := json.Unmarshal(r.Result.Value, out); err != nil {
			b.t.Fatalf("evaluating %s: value %s: %v", expr, r.Result.Value, err)
		}
	}
}

// waitFor polls the boolean expression until it holds or ctx ends.
func (b *browser) waitFor(ctx context.Context, what, expr string) {
	b.t.Helper()
	for {
		var ok bool
		b.eval("!!("+expr+")", &ok)
		if ok {
			return
		}
		select {
		case <-ctx.Done():
			var html string
			b.eval("document.documentElement.outerHTML", &html)
			b.t.Fatalf("waiting for %s (%s): %v; the page:\n%s", what, expr, ctx.Err(), html)
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// open navigates to url and waits until the page whose path is path has
// loaded.
func (b *browser) open(ctx context.Context, url, path string) {
	b.t.Helper()
	b.call(b.session, "Page.navigate", map[string]any{"url": url}, nil)
	b.waitFor(ctx, "page "+path, fmt.Sprintf("location.pathname === %q && document.readyState === 'complete'", path))
}

// html is the page's whole HTML as the browser has it now.
func (b *browser) html() string {
	b.t.Helper()
	var s string
	b.eval("document.documentElement.outerHTML", &s)
	return s
}

// screenshot is a PNG of the page.
func (b *browser) screenshot() []byte {
	b.t.Helper()
	var r struct{ Data string }
	b.call(b.session, "Page.captureScreenshot", map[string]any{"format": "png"}, &r)
	png, err := base64.StdEncoding.DecodeString(r.Data)
	if err != nil {
		b.t.Fatal(err)
	}
	return png
}
