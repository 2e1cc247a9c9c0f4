package config

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestOAuthSettings(t *testing.T) {
	cfg := mustParse(t, "proxy.yaml", `upstreams:
  bare:
    url: https://a.example/mcp
    oauth:
  empty:
    url: https://b.example/mcp
    oauth: {}
  full:
    url: https://c.example/mcp
    oauth:
      client_id: my-app
      client_secret: ${SECRET}
      scopes: [read, "write admin"]
  none:
    url: https://d.example/mcp
`, map[string]string{"SECRET": "s3"})
	got := map[string]*OAuth{}
	for _, u := range cfg.Upstreams {
		got[u.Name] = u.OAuth
	}
	want := map[string]*OAuth{
		"bare":  {},
		"empty": {},
		"full":  {ClientID: "my-app", ClientSecret: "s3", Scopes: []string{"read", "write", "admin"}},
		"none":  nil,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("oauth settings (-want +got):\n%s", diff)
	}
}

func TestOAuthErrors(t *testing.T) {
	for _, tc := range []struct{ name, src, want string }{
		{"stdio", "upstreams:\n  s:\n    command: x\n    oauth: {}\n", "proxy.yaml:4:5: upstreams.s.oauth: not used by the stdio transport"},
		{"typo", "upstreams:\n  h:\n    url: https://a.example/mcp\n    oauth:\n      client_di: x\n", `upstreams.h.oauth.client_di: unknown key "client_di"; did you mean "client_id"?`},
		{"secret alone", "upstreams:\n  h:\n    url: https://a.example/mcp\n    oauth:\n      client_secret: x\n", "upstreams.h.oauth.client_id: required with client_secret"},
		{"with authorization header", "upstreams:\n  h:\n    url: https://a.example/mcp\n    headers: {authorization: Bearer x}\n    oauth: {}\n", "upstreams.h.oauth: headers.authorization sets the Authorization header"},
		{"not a map", "upstreams:\n  h:\n    url: https://a.example/mcp\n    oauth: yes\n", "upstreams.h.oauth: must be a map (client_id, client_secret, scopes), or {}"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse("proxy.yaml", []byte(tc.src), env(nil))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("got %v, want it to contain %q", err, tc.want)
			}
		})
	}
}

func TestOAuthInClientFileWarns(t *testing.T) {
	cfg := mustParse(t, "mcp.json", `{"mcpServers": {"h": {"url": "https://a.example/mcp", "oauth": {"clientId": "x"}}}}`, nil)
	if cfg.Upstreams[0].OAuth != nil || len(cfg.Warnings) == 0 {
		t.Errorf("a client file's oauth: OAuth=%v warnings=%q; want it ignored with a warning", cfg.Upstreams[0].OAuth, cfg.Warnings)
	}
}
