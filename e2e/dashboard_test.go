package e2e

import (
	"bufio"
	"bytes"
	"context"
	"image/png"
	"net/http"
	"net/http/cookiejar"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Personal data the dashboard test plants: one value in the upstream's
// data (server-memory's file), one in the script's code.
const (
	dashUpstreamEmail = "sam.roe@example.org"
	dashScriptEmail   = "kim.ito@example.net"
)

var dashURLRE = regexp.MustCompile(`toolfold: dashboard at (http://\S+)`)

// TestDashboardBrowser: `serve` over stdio with ui: 127.0.0.1:0 prints the
// dashboard's URL; headless Chromium opens it and every page. A go-sdk
// client without elicitation runs a script whose first call a policy rule
// asks about: the run appears live on the runs page, the approval on the
// approvals page, the browser clicks "Allow once" and the script goes on
// and tells the model a person was asked. Neither the pages' HTML nor the
// event stream holds a raw value planted in the upstream's data or the
// code, and a screenshot of the page is not blank.
func TestDashboardBrowser(t *testing.T) {
	b := startBrowser(t)
	memFile := filepath.Join(t.TempDir(), "memory.jsonl")
	seed := `{"type":"entity","name":"Sam Roe","entityType":"person","observations":["email ` + dashUpstreamEmail + `"]}` + "\n"
	if err := os.WriteFile(memFile, []byte(seed), 0o600); err != nil {
		t.Fatal(err)
	}
	mem := npmUpstream(t, "memory")
	mem.Env = map[string]string{"MEMORY_FILE_PATH": memFile}
	cfg := writeConfig(t, configYAML(map[string]upstream{"memory": mem})+`policy:
  approval_timeout: 5m
  rules:
    - match: memory.create_entities
      action: ask
ui: 127.0.0.1:0
`)
	proc := startStdioClient(t, cfg, nil, nil) // no elicitation: the page is the only way to ask
	ctx := testCtx(t, callTimeout)
	var m []string
	for m == nil { // printed before serving, but stderr is copied to the test by a goroutine
		if m = dashURLRE.FindStringSubmatch(proc.stderr.String()); m == nil {
			select {
			case <-ctx.Done():
				t.Fatalf("serve printed no dashboard URL; stderr:\n%s", proc.stderr)
			case <-time.After(50 * time.Millisecond):
			}
		}
	}
	url := m[1]
	base := strings.SplitN(url, "/?", 2)[0]

	stream := followEvents(t, url)
	b.open(ctx, url, "/")
	b.waitFor(ctx, "the upstream listed", `document.body.innerText.includes("memory")`)
	b.open(ctx, base+"/ui/runs", "/ui/runs")
	b.waitFor(ctx, "the page's event stream", `document.getElementById("live").textContent === "live"`)

	code := `local g = tools.memory.read_graph{}
tools.memory.create_entities{entities = {{name = "Kim Ito", entityType = "person", observations = {"email ` + dashScriptEmail + `"}}}}
return tools.memory.read_graph{}`
	type result struct {
		res *mcp.CallToolResult
		err error
	}
	done := make(chan result, 1)
	go func() {
		res, err := proc.cs.CallTool(ctx, &mcp.CallToolParams{Name: "run_script", Arguments: map[string]any{"code": code, "language": "lua"}})
		done <- result{res, err}
	}()
	// Live: the run and its first call reach the open page by the event
	// stream, without a reload.
	b.waitFor(ctx, "the run, live", `document.querySelector("#runs details.running") && document.querySelector("#runs").innerText.includes("memory.read_graph")`)
	runsHTML := b.html()

	b.open(ctx, base+"/ui/approvals", "/ui/approvals")
	b.waitFor(ctx, "the approval", `document.querySelector("form.approval button[value=allow_once]")`)
	approvalHTML := b.html()
	saveScreenshot(t, b, "approval-waiting")
	if !strings.Contains(approvalHTML, "memory.create_entities") || !strings.Contains(approvalHTML, "[EMAIL_") {
		t.Errorf("the approval does not show the call with its token:\n%s", approvalHTML)
	}
	select {
	case r := <-done:
		t.Fatalf("the script ended before the approval was answered: %+v %v", r.res, r.err)
	default:
	}
	b.eval(`document.querySelector("form.approval button[value=allow_once]").click(), true`, nil)

	r := <-done
	if r.err != nil {
		t.Fatalf("run_script: %v", r.err)
	}
	out := text(r.res)
	if r.res.IsError || strings.Count(out, `"entityType":"person"`) != 2 || !strings.Contains(out, "a person was asked about 1 call on the toolfold dashboard") {
		t.Fatalf("the script did not go on after the page's allow, or did not say a person was asked:\n%s", out)
	}
	b.waitFor(ctx, "the approval gone", `location.pathname === "/ui/approvals" && !document.querySelector("form.approval")`)

	pages := map[string]string{"runs (live)": runsHTML, "approval": approvalHTML}
	for path, want := range map[string]string{
		"/":             "Upstreams",
		"/ui/runs":      "tokens kept out of context",
		"/ui/audit":     "memory.create_entities",
		"/ui/economy":   "<svg",
		"/ui/approvals": "Nothing is waiting",
	} {
		b.open(ctx, base+path, path)
		h := b.html()
		if !strings.Contains(h, want) {
			t.Errorf("%s lacks %q:\n%s", path, want, h)
		}
		pages[path] = h
		saveScreenshot(t, b, strings.Trim(strings.ReplaceAll(path, "/ui/", ""), "/"))
	}
	if !strings.Contains(pages["/ui/audit"], "allow_once") {
		t.Errorf("the audit page does not show the page's answer:\n%s", pages["/ui/audit"])
	}
	pages["event stream"] = stream.String()
	for name, h := range pages {
		for _, raw := range []string{dashUpstreamEmail, dashScriptEmail} {
			if strings.Contains(h, raw) {
				t.Errorf("%s holds the raw value %s", name, raw)
			}
		}
	}
	if !strings.Contains(pages["/ui/runs"], "[EMAIL_") {
		t.Errorf("the runs page shows no token (the test plants emails):\n%s", pages["/ui/runs"])
	}

	b.open(ctx, base+"/ui/runs", "/ui/runs")
	b.eval(`document.querySelector("details.run").open = true`, nil) // the run's code, calls and answer
	shot := b.screenshot()
	checkNotBlank(t, shot)
	dir := os.Getenv("TOOLFOLD_SCREENSHOT_DIR")
	if dir == "" {
		dir = t.TempDir()
	}
	file := filepath.Join(dir, "dashboard-runs.png")
	if err := os.WriteFile(file, shot, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshot: %s", file)
}

// saveScreenshot saves the page as dashboard-NAME.png in
// $TOOLFOLD_SCREENSHOT_DIR, when it is set (to look at the pages).
func saveScreenshot(t *testing.T, b *browser, name string) {
	t.Helper()
	dir := os.Getenv("TOOLFOLD_SCREENSHOT_DIR")
	if dir == "" {
		return
	}
	if name == "" {
		name = "overview"
	}
	if err := os.WriteFile(filepath.Join(dir, "dashboard-"+name+".png"), b.screenshot(), 0o644); err != nil {
		t.Fatal(err)
	}
}

// checkNotBlank decodes a PNG and fails unless it has some variety of
// colours: a page that rendered nothing is one or two.
func checkNotBlank(t *testing.T, b []byte) {
	t.Helper()
	img, err := png.Decode(bytes.NewReader(b))
	if err != nil {
		t.Fatalf("screenshot: %v", err)
	}
	colours := map[[4]uint32]bool{}
	r := img.Bounds()
	for y := r.Min.Y; y < r.Max.Y; y += 2 {
		for x := r.Min.X; x < r.Max.X; x += 2 {
			cr, cg, cb, ca := img.At(x, y).RGBA()
			colours[[4]uint32{cr, cg, cb, ca}] = true
		}
	}
	if len(colours) < 16 {
		t.Errorf("screenshot %dx%d has %d colours: blank?", r.Dx(), r.Dy(), len(colours))
	}
}

// followEvents opens the dashboard's event stream from url (the printed
// one, token and all) and collects it until the test ends.
func followEvents(t *testing.T, url string) *syncBuffer {
	t.Helper()
	jar, _ := cookiejar.New(nil)
	client := &http.Client{Jar: jar}
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	resp, err := client.Get(url) // trades the token for the cookie
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("opening %s: %v %v", url, err, resp)
	}
	resp.Body.Close()
	base := strings.SplitN(url, "/?", 2)[0]
	req, _ := http.NewRequestWithContext(ctx, "GET", base+"/ui/events", nil)
	resp, err = client.Do(req)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("opening the event stream: %v %v", err, resp)
	}
	buf := &syncBuffer{}
	first := make(chan struct{})
	go func() {
		defer resp.Body.Close()
		sc := bufio.NewScanner(resp.Body)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		once := false
		for sc.Scan() {
			buf.Write([]byte(sc.Text() + "\n"))
			if !once {
				once = true
				close(first)
			}
		}
	}()
	select {
	case <-first:
	case <-time.After(callTimeout):
		t.Fatal("the event stream sent nothing")
	}
	return buf
}

// TestDashboardOnHTTPListener: `serve --http` offers the dashboard at / of
// its listener, printing its URL: without the token / is 404 and shows
// nothing; with it, the page lists the MCP client's session by its tag,
// never its Mcp-Session-Id, and its run.
func TestDashboardOnHTTPListener(t *testing.T) {
	cfg := writeConfig(t, configYAML(map[string]upstream{"memory": npmUpstream(t, "memory")}))
	proc, mcpURL := startHTTPProc(t, cfg)
	ctx := testCtx(t, callTimeout)
	var m []string
	for m == nil {
		if m = dashURLRE.FindStringSubmatch(proc.stderr.String()); m == nil {
			select {
			case <-ctx.Done():
				t.Fatalf("serve --http printed no dashboard URL; stderr:\n%s", proc.stderr)
			case <-time.After(50 * time.Millisecond):
			}
		}
	}
	url := m[1]
	base := strings.TrimSuffix(mcpURL, "/mcp")
	if !strings.HasPrefix(url, base+"/?token=") {
		t.Fatalf("dashboard URL %s: want it on the listener, %s/?token=…", url, base)
	}
	resp, err := http.Get(base + "/")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNotFound {
		t.Errorf("GET / without the token: %d, want 404", resp.StatusCode)
	}
	cs := connectHTTP(t, mcpURL)
	scriptOK(t, cs, `return tools.memory.read_graph{}`)

	jar, _ := cookiejar.New(nil)
	client := &http.Client{Jar: jar}
	resp, err = client.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	var page bytes.Buffer
	_, _ = page.ReadFrom(resp.Body)
	resp.Body.Close()
	for _, want := range []string{"Upstreams", "memory.read_graph", `<code>s-`} {
		if !strings.Contains(page.String(), want) {
			t.Errorf("the overview lacks %q:\n%s", want, page.String())
		}
	}
	if id := cs.ID(); id == "" || strings.Contains(page.String(), id) {
		t.Errorf("the page holds the session id %q (or the session has none)", id)
	}
}
