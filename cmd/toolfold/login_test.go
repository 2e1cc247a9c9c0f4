package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/toolfold/toolfold/oauth"
)

func TestLoginSaysWhatToDo(t *testing.T) {
	dir := t.TempDir()
	cfg := filepath.Join(dir, "proxy.yaml")
	os.WriteFile(cfg, []byte(`upstreams:
  local: {command: /nonexistent/x}
  plain: {url: "http://127.0.0.1:1/mcp"}
  hosted: {url: "http://127.0.0.1:1/mcp", oauth: {}}
`), 0o600)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{nil, "login needs one upstream: toolfold login hosted"},
		{[]string{"nope"}, `no upstream "nope" in ` + cfg + " (upstreams with oauth: hosted)"},
		{[]string{"local"}, `upstream "local" runs over stdio`},
		{[]string{"plain"}, "add `oauth: {}` under upstreams.plain in " + cfg},
	} {
		code, _, errs := runCLI(t, append([]string{"login", "-c", cfg}, tc.args...)...)
		if code == 0 || !strings.Contains(errs, tc.want) {
			t.Errorf("login %v: exit %d, %q; want %q", tc.args, code, errs, tc.want)
		}
	}
}

func TestCheckShowsOAuthState(t *testing.T) {
	dir := t.TempDir()
	cfg := filepath.Join(dir, "proxy.yaml")
	os.WriteFile(cfg, []byte(`upstreams:
  hosted: {url: "http://127.0.0.1:1/mcp", oauth: {}, connect_timeout: 1s}
  other: {url: "http://127.0.0.1:1/other", oauth: {}, connect_timeout: 1s}
`), 0o600)
	st := oauth.NewStore(filepath.Join(dir, ".toolfold", "oauth.json"))
	if err := st.Put("hosted", &oauth.Record{URL: "http://127.0.0.1:1/mcp", AccessToken: "secret-token", RefreshToken: "r",
		Expiry: time.Now().Add(-time.Hour), Saved: time.Now().Add(-2 * time.Hour)}); err != nil {
		t.Fatal(err)
	}
	_, out, _ := runCLI(t, "check", "-c", cfg)
	for _, want := range []string{
		"oauth (tokens in " + filepath.Join(dir, ".toolfold", "oauth.json") + "):",
		"  hosted: expired at ",
		// check's own connection tried the refresh, and it failed (the
		// record names no token endpoint): check says so, not "refreshable".
		", and refreshing it failed at ",
		" (the token endpoint failed): run `toolfold login hosted`",
		"  other: no token: run `toolfold login other`",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("check lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "secret-token") {
		t.Error("check printed the token")
	}
	if strings.Contains(out, "refreshable") {
		t.Errorf("check calls a token whose refresh failed refreshable:\n%s", out)
	}
}
