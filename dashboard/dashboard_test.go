package dashboard

import (
	"bufio"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/toolfold/toolfold/audit"
	"github.com/toolfold/toolfold/policy"
	"github.com/toolfold/toolfold/proxy"
	"github.com/toolfold/toolfold/store"
)

const testToken = "t0k3n"

// fakeSource is a proxy with one upstream and one session, and pins
// when pins is set.
type fakeSource struct{ pins *policy.Pins }

func (fakeSource) Status() []proxy.UpstreamStatus {
	return []proxy.UpstreamStatus{{Name: "crm", Transport: "stdio", State: "connected", Tools: []*mcp.Tool{{Name: "get"}}}}
}
func (fakeSource) Sessions() []proxy.SessionInfo {
	return []proxy.SessionInfo{{Tag: "s-0011aabb", Started: time.Now()}}
}
func (f fakeSource) Pins() *policy.Pins { return f.pins }

func newTest(t *testing.T) (*Dashboard, http.Handler) {
	t.Helper()
	d := New(fakeSource{}, &Options{Token: testToken})
	return d, d.Handler()
}

// get makes a request from this machine, with the page's cookie when
// cookie is set.
func request(method, target string, cookie bool, body io.Reader) *http.Request {
	r := httptest.NewRequest(method, target, body)
	r.RemoteAddr = "127.0.0.1:5555"
	r.Host = "127.0.0.1:8766"
	if cookie {
		r.AddCookie(&http.Cookie{Name: cookieName, Value: testToken})
	}
	return r
}

func serve(h http.Handler, r *http.Request) *httptest.ResponseRecorder {
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	return w
}

// TestNoTokenNoPage: without the token, from another machine, or through
// a foreign Host name, every path is 404 and shows nothing.
func TestNoTokenNoPage(t *testing.T) {
	_, h := newTest(t)
	for name, r := range map[string]*http.Request{
		"no token":    request("GET", "/", false, nil),
		"wrong token": request("GET", "/?token=nope", false, nil),
		"wrong cookie": func() *http.Request {
			r := request("GET", "/ui/runs", false, nil)
			r.AddCookie(&http.Cookie{Name: cookieName, Value: "x"})
			return r
		}(),
		"events":      request("GET", "/ui/events", false, nil),
		"remote peer": func() *http.Request { r := request("GET", "/", true, nil); r.RemoteAddr = "192.0.2.7:4000"; return r }(),
		"rebinding":   func() *http.Request { r := request("GET", "/", true, nil); r.Host = "evil.example:8766"; return r }(),
		"remote+token": func() *http.Request {
			r := request("GET", "/?token="+testToken, false, nil)
			r.RemoteAddr = "10.0.0.2:1"
			return r
		}(),
		"approve, none": request("POST", "/ui/approve", false, strings.NewReader("id=x")),
	} {
		w := serve(h, r)
		if w.Code != http.StatusNotFound || strings.Contains(w.Body.String(), "toolfold") {
			t.Errorf("%s: %d %q, want 404 and no page", name, w.Code, w.Body.String())
		}
	}
}

// TestTokenTradedForCookie: the printed URL's token becomes an HttpOnly,
// SameSite=Strict cookie and leaves the address; the cookie opens every
// page.
func TestTokenTradedForCookie(t *testing.T) {
	_, h := newTest(t)
	w := serve(h, request("GET", "/?token="+testToken, false, nil))
	if w.Code != http.StatusSeeOther || w.Header().Get("Location") != "/" {
		t.Fatalf("GET /?token=: %d to %q, want 303 to /", w.Code, w.Header().Get("Location"))
	}
	c := w.Result().Cookies()
	if len(c) != 1 || c[0].Value != testToken || !c[0].HttpOnly || c[0].SameSite != http.SameSiteStrictMode {
		t.Fatalf("cookies %+v, want one HttpOnly SameSite=Strict with the token", c)
	}
	for _, path := range []string{"/", "/ui/runs", "/ui/approvals", "/ui/audit", "/ui/economy", "/ui/assets/style.css", "/ui/assets/live.js"} {
		w := serve(h, request("GET", path, true, nil))
		if w.Code != http.StatusOK {
			t.Errorf("GET %s: %d %s", path, w.Code, w.Body.String())
		}
		if csp := w.Header().Get("Content-Security-Policy"); !strings.Contains(csp, "default-src 'self'") {
			t.Errorf("GET %s: Content-Security-Policy %q", path, csp)
		}
	}
	if body := serve(h, request("GET", "/", true, nil)).Body.String(); !strings.Contains(body, "crm") || !strings.Contains(body, "s-0011aabb") {
		t.Errorf("overview lacks the upstream or the session:\n%s", body)
	}
}

// ask parks an approval and returns its answer's channel and id.
func ask(t *testing.T, d *Dashboard, ctx context.Context) (<-chan *mcp.ElicitResult, string) {
	t.Helper()
	out := make(chan *mcp.ElicitResult, 1)
	go func() {
		res, _ := d.Ask(ctx, proxy.Approval{Tool: "crm.delete", RunID: "run-1", Session: "s-0011aabb",
			Args: []byte(`{"who":"[EMAIL_1]"}`), Why: "policy rule 1 (crm.delete) asks a person first", Tokens: []string{"[EMAIL_1]: EMAIL, from crm.get"}})
		out <- res
	}()
	for {
		if s := d.snapshot(); len(s.Approvals) == 1 {
			return out, s.Approvals[0].ID
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func postForm(v url.Values, origin string) *http.Request {
	r := request("POST", "/ui/approve", true, strings.NewReader(v.Encode()))
	r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	if origin != "" {
		r.Header.Set("Origin", origin)
	}
	return r
}

// TestApproveFromPage: the parked call is on the page with its form; the
// page's POST answers it.
func TestApproveFromPage(t *testing.T) {
	d, h := newTest(t)
	res, id := ask(t, d, context.Background())
	body := serve(h, request("GET", "/ui/approvals", true, nil)).Body.String()
	for _, want := range []string{"crm.delete", "run-1", "[EMAIL_1]", `value="` + id + `"`, `value="` + d.csrf + `"`, "allow_once"} {
		if !strings.Contains(body, want) {
			t.Errorf("approvals page lacks %q:\n%s", want, body)
		}
	}
	w := serve(h, postForm(url.Values{"id": {id}, "decision": {"allow_session"}, "csrf": {d.csrf}}, "http://127.0.0.1:8766"))
	if w.Code != http.StatusSeeOther {
		t.Fatalf("POST /ui/approve: %d %s", w.Code, w.Body.String())
	}
	got := <-res
	if out, _ := policy.ParseApproval(got); out != policy.OutcomeAllowSession {
		t.Errorf("answer %+v: outcome %s, want allow_session", got, out)
	}
}

// TestApproveCSRF: a form from elsewhere, without its token, or by GET
// answers nothing.
func TestApproveCSRF(t *testing.T) {
	d, h := newTest(t)
	ctx, cancel := context.WithCancel(context.Background())
	res, id := ask(t, d, ctx)
	ok := url.Values{"id": {id}, "decision": {"allow_once"}, "csrf": {d.csrf}}
	noCSRF := url.Values{"id": {id}, "decision": {"allow_once"}}
	for name, r := range map[string]*http.Request{
		"no origin":      postForm(ok, ""),
		"foreign origin": postForm(ok, "http://evil.example"),
		"null origin":    postForm(ok, "null"),
		"no csrf":        postForm(noCSRF, "http://127.0.0.1:8766"),
		"wrong csrf":     postForm(url.Values{"id": {id}, "decision": {"allow_once"}, "csrf": {"x"}}, "http://127.0.0.1:8766"),
		"get":            request("GET", "/ui/approve?"+ok.Encode(), true, nil),
	} {
		if w := serve(h, r); w.Code < 400 {
			t.Errorf("%s: %d, want refused", name, w.Code)
		}
	}
	select {
	case r := <-res:
		t.Fatalf("answered %+v by a refused form", r)
	default:
	}
	cancel()
	if r := <-res; r != nil {
		t.Errorf("cancelled ask answered %+v", r)
	}
}

// TestEventsLive: a run that starts, its calls and its end reach an open
// event stream as rendered sections, and audit rows as they are
// recorded, filtered as the stream asked.
func TestEventsLive(t *testing.T) {
	d, h := newTest(t)
	srv := httptest.NewServer(h)
	defer srv.Close()
	req, _ := http.NewRequest("GET", srv.URL+"/ui/events?tool=crm.*", nil)
	req.AddCookie(&http.Cookie{Name: cookieName, Value: testToken})
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "text/event-stream" {
		t.Fatalf("events: %d %s", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	lines := bufio.NewScanner(resp.Body)
	lines.Scan() // the comment that opens the stream: subscribed by now
	d.RunStarted(proxy.RunStart{RunID: "run-7", Language: "lua", Code: "return tools.crm.get{}"})
	d.Recorded(audit.Record{Kind: audit.KindCall, RunID: "run-7", Tool: "other.x", Decision: "allow"})
	d.Recorded(audit.Record{Kind: audit.KindCall, RunID: "run-7", Tool: "crm.get", Decision: "allow", Duration: 3 * time.Millisecond})
	d.RunEnded(proxy.RunEnd{RunID: "run-7", Output: "=> 1", ResultTokens: 1500})
	want := []string{"event: runs", "run-7", "event: audit-row", "crm.get", "1.5k tokens kept out of context"}
	var seen strings.Builder
	current := ""
	for _, w := range want {
		for !strings.Contains(seen.String(), w) {
			if !lines.Scan() {
				t.Fatalf("stream ended before %q; got:\n%s", w, seen.String())
			}
			seen.WriteString(lines.Text() + "\n")
			if e, ok := strings.CutPrefix(lines.Text(), "event: "); ok {
				current = e
			}
			if current == eventAuditRow && strings.Contains(lines.Text(), "other.x") {
				t.Errorf("the stream filtered on crm.* sent another tool's row: %s", lines.Text())
			}
		}
	}
}

// TestAuditFilter: the audit page shows the records the filter takes.
func TestAuditFilter(t *testing.T) {
	d, h := newTest(t)
	d.Recorded(audit.Record{Kind: audit.KindCall, Tool: "crm.get", Decision: "allow", Session: "s-1"})
	d.Recorded(audit.Record{Kind: audit.KindCall, Tool: "mail.send", Decision: "ask", Session: "s-2"})
	d.Recorded(audit.Record{Kind: audit.KindRun, Session: "s-2"})
	for q, want := range map[string][]string{
		"tool=crm.*":     {"crm.get"},
		"decision=ask":   {"mail.send"},
		"session=s-2":    {"mail.send", "run"},
		"kind=run":       {"run"},
		"":               {"crm.get", "mail.send", "run"},
		"tool=nothing.*": nil,
	} {
		body := serve(h, request("GET", "/ui/audit?"+q, true, nil)).Body.String()
		rows := strings.Count(body, `<tr class="kind-`)
		if rows != len(want) {
			t.Errorf("?%s: %d rows, want %d", q, rows, len(want))
		}
		for _, w := range want {
			if !strings.Contains(body, w) {
				t.Errorf("?%s: lacks %q", q, w)
			}
		}
	}
}

// TestEconomyChart: the economy page draws both lines and the totals.
func TestEconomyChart(t *testing.T) {
	d, h := newTest(t)
	d.RunEnded(proxy.RunEnd{RunID: "a", ResultTokens: 4000, Output: strings.Repeat("x", 400)})
	d.RunEnded(proxy.RunEnd{RunID: "b", ResultTokens: 2000, Output: strings.Repeat("x", 40)})
	body := serve(h, request("GET", "/ui/economy", true, nil)).Body.String()
	for _, want := range []string{"<svg", "<polyline", "6.0k", "110", "2 runs"} {
		if !strings.Contains(body, want) {
			t.Errorf("economy page lacks %q:\n%s", want, body)
		}
	}
}

// TestCloseEndsStreams: Close ends the open event streams, so that the
// server's shutdown need not wait for them.
func TestCloseEndsStreams(t *testing.T) {
	d, h := newTest(t)
	srv := httptest.NewServer(h)
	defer srv.Close()
	req, _ := http.NewRequest("GET", srv.URL+"/ui/events", nil)
	req.AddCookie(&http.Cookie{Name: cookieName, Value: testToken})
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	d.Close()
	if _, err := io.ReadAll(resp.Body); err != nil {
		t.Errorf("reading the stream to its end: %v", err)
	}
}

// TestEventsStartWithNow: a stream opens with the live sections as they
// are, so that an approval parked between a page's rendering and its
// stream's opening still reaches it.
func TestEventsStartWithNow(t *testing.T) {
	d, h := newTest(t)
	_, id := ask(t, d, t.Context())
	srv := httptest.NewServer(h)
	defer srv.Close()
	req, _ := http.NewRequest("GET", srv.URL+"/ui/events", nil)
	req.AddCookie(&http.Cookie{Name: cookieName, Value: testToken})
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	lines := bufio.NewScanner(resp.Body)
	for lines.Scan() {
		if strings.Contains(lines.Text(), `value="`+id+`"`) {
			return
		}
	}
	t.Fatal("the stream ended without the waiting approval")
}

// TestBounds: the page keeps what it shows bounded: the newest runs
// shown, a long answer cut on a character boundary, no arguments kept.
func TestBounds(t *testing.T) {
	d, h := newTest(t)
	for i := range maxShownRuns + 3 {
		id := "run-" + strings.Repeat("x", i+1)
		d.RunStarted(proxy.RunStart{RunID: id})
		d.RunEnded(proxy.RunEnd{RunID: id, Output: strings.Repeat("é", maxOutput)})
	}
	d.Recorded(audit.Record{Kind: audit.KindCall, Tool: "crm.get", Args: []byte(`{"a":1}`)})
	s := d.snapshot()
	if len(s.Runs) != maxShownRuns || s.OlderRuns != 3 {
		t.Errorf("%d runs shown, %d older; want %d and 3", len(s.Runs), s.OlderRuns, maxShownRuns)
	}
	if out := s.Runs[0].End.Output; len(out) > maxOutput+64 || !strings.HasSuffix(out, "[… cut on the dashboard]") || !utf8.ValidString(out) {
		t.Errorf("answer of %d bytes, valid UTF-8 %v: want it cut at %d", len(out), utf8.ValidString(out), maxOutput)
	}
	if s.Records[0].Args != nil {
		t.Errorf("a record kept its arguments")
	}
	if body := serve(h, request("GET", "/ui/runs", true, nil)).Body.String(); !strings.Contains(body, "3 older runs") {
		t.Errorf("the runs page does not say older runs are not shown")
	}
}

// TestPinsShown: the overview lists pinned tools and says how to approve
// one whose definition changed.
func TestPinsShown(t *testing.T) {
	st, err := store.Files(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	pins := policy.NewPins(st)
	ctx := t.Context()
	for _, c := range []struct{ name, hash string }{{"crm.get", "h1"}, {"crm.delete", "h1"}, {"crm.delete", "h2"}} {
		if _, err := pins.Check(ctx, c.name, c.hash); err != nil {
			t.Fatal(err)
		}
	}
	h := New(fakeSource{pins: pins}, &Options{Token: testToken}).Handler()
	body := serve(h, request("GET", "/", true, nil)).Body.String()
	for _, want := range []string{`<tr class="pin-unchanged"><td>crm.get</td><td>pinned`, `<tr class="pin-changed"><td>crm.delete</td>`, "toolfold tools approve crm.delete"} {
		if !strings.Contains(body, want) {
			t.Errorf("overview lacks %q:\n%s", want, body)
		}
	}
	if off := serve(newTestHandler(t), request("GET", "/", true, nil)).Body.String(); !strings.Contains(off, "Pinning is off") {
		t.Errorf("without pins the overview does not say pinning is off")
	}
}

func newTestHandler(t *testing.T) http.Handler {
	_, h := newTest(t)
	return h
}
