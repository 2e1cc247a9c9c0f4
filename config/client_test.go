package config

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestClaudeDesktop(t *testing.T) {
	src := `{
  "globalShortcut": "Ctrl+Space",
  "mcpServers": {
    "filesystem": {
      "command": "npx",
      "args": ["-y", "@modelcontextprotocol/server-filesystem", "/Users/me/Desktop"],
      "env": {"DEBUG": "1"},
      "autoApprove": ["read_file"],
      "alwaysAllow": []
    },
    "My Server (v2)": {"command": "/usr/local/bin/srv", "timeout": 60, "autoApprove": []},
    "old": {"command": "legacy", "disabled": true},
    "on": {"command": "x", "disabled": false},
    "broken": {"type": "sse", "url": "http://h/sse", "disabled": true}
  }
}`
	dir := t.TempDir()
	file := filepath.Join(dir, "claude_desktop_config.json")
	cfg := mustParse(t, file, src, nil)
	std := func(u Upstream) Upstream {
		u.ConnectTimeout, u.CallTimeout = DefaultConnectTimeout, DefaultCallTimeout
		return u
	}
	want := &Config{
		File: file, Dir: dir, Format: "mcpServers",
		Upstreams: []Upstream{
			std(Upstream{Name: "filesystem", Transport: "stdio", Command: "npx", Cwd: dir,
				Args: []string{"-y", "@modelcontextprotocol/server-filesystem", "/Users/me/Desktop"},
				Env:  map[string]string{"DEBUG": "1"}}),
			std(Upstream{Name: "My-Server-v2", Transport: "stdio", Command: "/usr/local/bin/srv", Cwd: dir}),
			std(Upstream{Name: "old", Transport: "stdio", Command: "legacy", Cwd: dir, Disabled: true}),
			std(Upstream{Name: "on", Transport: "stdio", Command: "x", Cwd: dir}),
			std(Upstream{Name: "broken", URL: "http://h/sse", Disabled: true}),
		},
		Sandbox:   DefaultSandbox,
		Telemetry: Telemetry{ServiceName: DefaultServiceName},
		Expose:    DefaultExpose,
		Policy:    DefaultPolicy,
		Audit:     DefaultAudit,
		Warnings: []string{
			file + `:2:3: ignored top-level keys "globalShortcut": toolfold reads only "mcpServers" and proxy.yaml's keys (policy, audit, …)`,
			file + `:8:7: mcpServers.filesystem.autoApprove: ignored: toolfold does not use "autoApprove"`,
			file + `:9:7: mcpServers.filesystem.alwaysAllow: ignored: toolfold does not use "alwaysAllow"`,
			file + `:11:5: mcpServers["My Server (v2)"]: server name "My Server (v2)" is used as "My-Server-v2" (names hold only letters, digits, '_' and '-')`,
			file + `:11:57: mcpServers["My Server (v2)"].timeout: ignored: toolfold does not use "timeout"`,
			file + `:11:72: mcpServers["My Server (v2)"].autoApprove: ignored: toolfold does not use "autoApprove"`,
			file + `:14:24: mcpServers.broken.type: "sse" (the deprecated HTTP+SSE transport) is not supported by toolfold; if the server also speaks streamable HTTP (often at /mcp rather than /sse), use "http" and point url there; otherwise run it locally over stdio (ignored: the server is disabled)`,
		},
	}
	if diff := cmp.Diff(want, cfg); diff != "" {
		t.Errorf("Parse (-want +got):\n%s", diff)
	}
}

func TestVSCode(t *testing.T) {
	// .vscode/mcp.json is JSON with comments and trailing commas; servers
	// start in the workspace folder, the directory above .vscode.
	src := `{
  // secrets come from VS Code prompts
  "inputs": [
    {"type": "promptString", "id": "token", "description": "API token", "password": true},
  ],
  "servers": {
    "files": {
      "type": "stdio",
      "command": "npx",
      "args": ["-y", "server-filesystem", "${workspaceFolder}", "${userHome}/notes"], /* two roots */
      "envFile": "${workspaceFolder}/.env",
    },
    "api": {
      "type": "http",
      "url": "https://api.example.com/mcp",
      "headers": {"Authorization": "Bearer ${env:API_TOKEN}"},
    },
    "stream": {"type": "streamable-http", "url": "http://127.0.0.1:9000/mcp/"},
  },
}`
	ws := t.TempDir()
	file := filepath.Join(ws, ".vscode", "mcp.json")
	cfg := mustParse(t, file, src, map[string]string{"HOME": "/home/me", "API_TOKEN": "t0k"})
	if cfg.Format != "servers" || cfg.Dir != filepath.Join(ws, ".vscode") {
		t.Errorf("Format, Dir = %q, %q", cfg.Format, cfg.Dir)
	}
	got := map[string]Upstream{}
	for _, u := range cfg.Upstreams {
		got[u.Name] = u
	}
	files, api, stream := got["files"], got["api"], got["stream"]
	if diff := cmp.Diff([]string{"-y", "server-filesystem", ws, "/home/me/notes"}, files.Args); diff != "" {
		t.Errorf("files args (-want +got):\n%s", diff)
	}
	if files.Cwd != ws || files.Transport != "stdio" {
		t.Errorf("files: cwd %q transport %q; want the workspace %q, stdio", files.Cwd, files.Transport, ws)
	}
	if api.Transport != "http" || api.Headers["Authorization"] != "Bearer t0k" || api.Cwd != "" {
		t.Errorf("api = %+v", api)
	}
	if stream.Transport != "http" || stream.URL != "http://127.0.0.1:9000/mcp/" {
		t.Errorf("stream = %+v", stream)
	}
	wantWarn := []string{file + `:11:7: servers.files.envFile: envFile is not supported, so its variables will not be set: copy them into env`}
	if diff := cmp.Diff(wantWarn, cfg.Warnings); diff != "" {
		t.Errorf("warnings (-want +got):\n%s", diff)
	}
}

func TestClaudeCode(t *testing.T) {
	// .mcp.json: ${VAR} and ${VAR:-default} as Claude Code expands them.
	src := `{"mcpServers": {
  "api": {"type": "http", "url": "${API_BASE:-https://api.example.com}/mcp", "headers": {"X-Key": "${KEY}"}},
  "legacy": {"url": "https://old.example.com/sse"}
}}`
	cfg := mustParse(t, ".mcp.json", src, map[string]string{"KEY": "k"})
	api := cfg.Upstreams[0]
	if api.URL != "https://api.example.com/mcp" || api.Headers["X-Key"] != "k" {
		t.Errorf("api = %+v", api)
	}
	want := []string{`.mcp.json:3:21: mcpServers.legacy.url: ends in /sse, usually the deprecated HTTP+SSE transport, which toolfold does not speak; if connecting fails, use the server's streamable HTTP endpoint (often /mcp)`}
	if diff := cmp.Diff(want, cfg.Warnings); diff != "" {
		t.Errorf("warnings (-want +got):\n%s", diff)
	}
	wd, _ := os.Getwd()
	if cfg.Dir != wd {
		t.Errorf("Dir = %q, want %q", cfg.Dir, wd)
	}
}

func TestContinueYAML(t *testing.T) {
	// Continue's config.yaml lists servers with a name.
	src := `name: my assistant
mcpServers:
  - name: sqlite
    command: uvx
    args: [mcp-server-sqlite, --db-path, data.db]
  - name: web
    type: streamable-http
    url: https://example.com/mcp
`
	cfg := mustParse(t, "config.yaml", src, nil)
	var names []string
	for _, u := range cfg.Upstreams {
		names = append(names, u.Name+"/"+u.Transport)
	}
	if diff := cmp.Diff([]string{"sqlite/stdio", "web/http"}, names); diff != "" {
		t.Errorf("upstreams (-want +got):\n%s", diff)
	}
	if len(cfg.Warnings) != 1 {
		t.Errorf("warnings = %q; want one, for the top-level key name", cfg.Warnings)
	}
}

func TestAllDisabledWarns(t *testing.T) {
	cfg := mustParse(t, "m.json", `{"mcpServers": {"a": {"command": "x", "disabled": true}}}`, nil)
	if diff := cmp.Diff([]string{"m.json: every upstream is disabled"}, cfg.Warnings); diff != "" {
		t.Errorf("warnings (-want +got):\n%s", diff)
	}
}

func TestClientTypos(t *testing.T) {
	// A near miss of a key the entry needs is an error with its line, as in
	// proxy.yaml; keys clients use that toolfold does not stay warnings.
	src := `{"mcpServers": {
  "a": {"comand": "npx", "args": ["-y", "x"]},
  "b": {"command": "npx", "arg": ["-y", "x"], "enviroment": {"K": "v"}},
  "c": {"args": ["x"]},
  "d": {"comand": "npx", "disabled": true},
  "e": {"serverUrl": "https://example.com/mcp", "alwaysAllow": [], "trust": true}
}}`
	_, err := Parse("m.json", []byte(src), &LoadOptions{LookupEnv: func(string) (string, bool) { return "", false }})
	want := []string{
		`m.json:2:9: mcpServers.a.comand: unknown key "comand"; did you mean "command"?`,
		`m.json:3:27: mcpServers.b.arg: unknown key "arg"; did you mean "args"?`,
		`m.json:3:47: mcpServers.b.enviroment: unknown key "enviroment"; did you mean "env"?`,
		`m.json:4:3: mcpServers.c: needs command (to run the server over stdio) or url (to reach it over http)`,
	}
	var got []string
	var es Errors
	if errors.As(err, &es) {
		for _, e := range es {
			got = append(got, e.Error())
		}
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("errors (-want +got):\n%s", diff)
	}
}

func TestClientFileSettings(t *testing.T) {
	// proxy.yaml's keys beside "mcpServers" are read as in proxy.yaml, so
	// the file `toolfold install` writes can carry a policy and an audit
	// log; their mistakes are errors with a line, as there.
	src := `{
  "mcpServers": {"files": {"command": "npx"}},
  "policy": {"default": "allow", "approval_timeout": "2m",
    "rules": [{"annotations": {"destructiveHint": true}, "action": "ask"}]},
  "audit": {"file": "audit.jsonl", "max_size_mb": 5},
  "globalShortcut": "Ctrl+Space"
}`
	dir := t.TempDir()
	cfg := mustParse(t, filepath.Join(dir, "servers.json"), src, nil)
	if got := cfg.Policy.Rules; len(got) != 1 || got[0].Action != ActionAsk || !got[0].Annotations["destructiveHint"] {
		t.Errorf("policy rules = %+v; want one asking before destructive tools", got)
	}
	wantAudit := Audit{File: filepath.Join(dir, "audit.jsonl"), MaxSizeMB: 5, MaxBackups: DefaultAuditMaxBackups}
	if diff := cmp.Diff(wantAudit, cfg.Audit); diff != "" {
		t.Errorf("audit (-want +got):\n%s", diff)
	}
	if len(cfg.Warnings) != 1 {
		t.Errorf("warnings = %q; want one, for globalShortcut", cfg.Warnings)
	}

	bad := `{"mcpServers": {"files": {"command": "npx"}},
 "policy": {"rules": [{"match": "nope.*", "action": "ask"}]},
 "audit": {"fiel": "a.jsonl"}}`
	_, err := Parse("servers.json", []byte(bad), nil)
	var es Errors
	if !errors.As(err, &es) || len(es) < 2 {
		t.Fatalf("Parse = %v; want errors for the policy rule's server and audit.fiel", err)
	}
}
