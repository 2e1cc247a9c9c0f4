package dashboard

import (
	"crypto/sha256"
	"crypto/subtle"
	"embed"
	"net"
	"net/http"
	"net/url"
	"strings"
)

//go:embed assets
var assets embed.FS

// cookieName holds the page token once the URL's ?token= was traded for it.
const cookieName = "toolfold_dashboard"

// Handler serves the page at / and everything else under /ui/, so that it
// can share the HTTP listener with /mcp and the health checks. See the
// package comment for who may reach it.
func (d *Dashboard) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /{$}", d.page("overview"))
	mux.HandleFunc("GET /ui/runs", d.page("runs"))
	mux.HandleFunc("GET /ui/approvals", d.page("approvals"))
	mux.HandleFunc("GET /ui/audit", d.page("audit"))
	mux.HandleFunc("GET /ui/economy", d.page("economy"))
	mux.HandleFunc("GET /ui/events", d.serveEvents)
	mux.HandleFunc("POST /ui/approve", d.approve)
	mux.Handle("GET /ui/assets/", http.StripPrefix("/ui/", http.FileServerFS(assets)))
	return d.guard(mux)
}

// IsPath reports whether path is one of the page's, for a listener that
// serves other things too.
func IsPath(path string) bool { return path == "/" || strings.HasPrefix(path, "/ui/") }

// guard lets through loopback peers that hold the token (see the package
// comment); everyone else gets 404, so that nothing tells a page is there.
func (d *Dashboard) guard(next http.Handler) http.Handler {
	want := sha256.Sum256([]byte(d.token))
	ok := func(tok string) bool {
		got := sha256.Sum256([]byte(tok))
		return tok != "" && subtle.ConstantTimeCompare(got[:], want[:]) == 1
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !loopbackPeer(r.RemoteAddr) || !loopbackHost(r.Host) {
			http.NotFound(w, r)
			return
		}
		setSecurityHeaders(w)
		if tok := r.URL.Query().Get("token"); tok != "" && ok(tok) {
			// Trade the URL's token for a cookie, and take it out of the
			// address bar (and of the history and Referer headers).
			http.SetCookie(w, &http.Cookie{Name: cookieName, Value: tok, Path: "/", HttpOnly: true, SameSite: http.SameSiteStrictMode})
			q := r.URL.Query()
			q.Del("token")
			u := url.URL{Path: r.URL.Path, RawQuery: q.Encode()}
			http.Redirect(w, r, u.String(), http.StatusSeeOther)
			return
		}
		if c, err := r.Cookie(cookieName); err != nil || !ok(c.Value) {
			http.NotFound(w, r)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// setSecurityHeaders keeps the page out of frames and other origins'
// reach, and its scripts to its own.
func setSecurityHeaders(w http.ResponseWriter) {
	h := w.Header()
	h.Set("Content-Security-Policy", "default-src 'self'; style-src 'self'; script-src 'self'; img-src 'self' data:; frame-ancestors 'none'; form-action 'self'; base-uri 'none'")
	h.Set("X-Frame-Options", "DENY")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "same-origin") // no-referrer would make a form's Origin "null"
	h.Set("Cache-Control", "no-store")
}

func loopbackPeer(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return false
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// loopbackHost reports whether a Host header names this machine: a page
// reached through a name that resolves elsewhere (DNS rebinding) is
// refused.
func loopbackHost(host string) bool {
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	host = strings.Trim(host, "[]")
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// approve answers a waiting approval from the page's form.
func (d *Dashboard) approve(w http.ResponseWriter, r *http.Request) {
	if !sameOrigin(r) {
		http.Error(w, "refused: this form must be sent from the dashboard's own page (Origin or Referer)", http.StatusForbidden)
		return
	}
	if err := r.ParseForm(); err != nil {
		http.Error(w, "bad form: "+err.Error(), http.StatusBadRequest)
		return
	}
	if subtle.ConstantTimeCompare([]byte(r.PostForm.Get("csrf")), []byte(d.csrf)) != 1 {
		http.Error(w, "refused: the form's token is missing or wrong; reload the page and answer again", http.StatusForbidden)
		return
	}
	if err := d.answer(r.PostForm.Get("id"), r.PostForm.Get("decision")); err != nil {
		http.Error(w, err.Error(), http.StatusConflict)
		return
	}
	http.Redirect(w, r, "/ui/approvals", http.StatusSeeOther)
}

// sameOrigin reports whether a form came from a page of this host: its
// Origin, or without one its Referer, must be http://<Host>. A request
// with neither is refused.
func sameOrigin(r *http.Request) bool {
	src := r.Header.Get("Origin")
	if src == "" || src == "null" {
		src = r.Header.Get("Referer")
	}
	u, err := url.Parse(src)
	if src == "" || err != nil {
		return false
	}
	return u.Scheme == "http" && strings.EqualFold(u.Host, r.Host)
}
