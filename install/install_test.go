package install

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/toolfold/toolfold/config"
)

const desktopFile = `{
  "globalShortcut": "Ctrl+Space",
  "mcpServers": {
    "memory": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-memory"], "env": {"MEMORY_FILE_PATH": "/tmp/m.jsonl"}},
    "files": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem", "/home/me"], "autoApprove": ["read_file"]}
  }
}
`

type setupFiles struct {
	o              Options
	client, tfFile string
}

func newSetup(t *testing.T, clientName, content string) setupFiles {
	t.Helper()
	dir := t.TempDir()
	c, ok := Lookup(clientName)
	if !ok {
		t.Fatalf("no client %q", clientName)
	}
	client := filepath.Join(dir, "client", "mcp.json")
	if content != "" {
		os.MkdirAll(filepath.Dir(client), 0o700)
		if err := os.WriteFile(client, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	tf := filepath.Join(dir, "toolfold", "servers.json")
	return setupFiles{
		o:      Options{Client: c, ClientFile: client, ToolfoldFile: tf, Exe: "/opt/bin/toolfold", Now: time.Date(2026, 11, 26, 13, 5, 1, 0, time.UTC)},
		client: client, tfFile: tf,
	}
}

func readObj(t *testing.T, path string) *object {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	o, err := parseObject(config.StandardJSON(data))
	if err != nil {
		t.Fatalf("%s: %v\n%s", path, err, data)
	}
	return o
}

func TestInstallMovesServersAndKeepsTheRest(t *testing.T) {
	s := newSetup(t, "claude-desktop", desktopFile)
	r, err := Install(s.o)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"memory", "files"}, r.Moved); diff != "" || !r.Changed {
		t.Errorf("moved (-want +got):\n%s (changed %v)", diff, r.Changed)
	}
	// The backup is the file as it was.
	wantBackup := s.client + ".toolfold-backup-20261126T130501Z"
	if b, err := os.ReadFile(wantBackup); err != nil || string(b) != desktopFile || r.Backup != wantBackup {
		t.Errorf("backup %q: %v %q", r.Backup, err, b)
	}
	// The client's file: the other key, and one toolfold entry.
	c := readObj(t, s.client)
	if v, _ := c.get("globalShortcut"); string(v) != `"Ctrl+Space"` {
		t.Errorf("globalShortcut = %s, want it kept", v)
	}
	servers, _ := c.sub("mcpServers")
	if diff := cmp.Diff([]string{"toolfold"}, servers.keys); diff != "" {
		t.Fatalf("client servers (-want +got):\n%s", diff)
	}
	entry, _ := servers.get("toolfold")
	if want := `{"args":["serve","-c","` + s.tfFile + `"],"command":"/opt/bin/toolfold"}`; !sameJSON(entry, json.RawMessage(want)) {
		t.Errorf("entry = %s, want %s", entry, want)
	}
	// toolfold's file: the servers as they were, and it loads.
	orig, _ := parseObject([]byte(desktopFile))
	origServers, _ := orig.sub("mcpServers")
	tf, _ := readObj(t, s.tfFile).sub("mcpServers")
	if !sameJSON(origServers.compact(), tf.compact()) {
		t.Errorf("toolfold's servers = %s, want %s", tf.compact(), origServers.compact())
	}
	cfg, err := config.Load(s.tfFile, nil)
	if err != nil || len(cfg.Upstreams) != 2 {
		t.Errorf("toolfold's file does not load: %v", err)
	}
	if st, _ := os.Stat(s.tfFile); st.Mode().Perm() != 0o600 {
		t.Errorf("toolfold's file mode %v, want 0600", st.Mode().Perm())
	}

	// Twice: nothing changes, no second backup.
	r, err = Install(s.o)
	if err != nil || r.Changed || r.Backup != "" {
		t.Errorf("second install: %+v, %v; want no change", r, err)
	}
	if backups, _ := filepath.Glob(s.client + ".toolfold-backup-*"); len(backups) != 1 {
		t.Errorf("backups after installing twice: %v", backups)
	}

	// Uninstall puts the servers back and toolfold's entry goes.
	r, err = Uninstall(s.o)
	if err != nil || !r.Changed {
		t.Fatalf("uninstall: %+v, %v", r, err)
	}
	c = readObj(t, s.client)
	servers, _ = c.sub("mcpServers")
	if !sameJSON(servers.compact(), origServers.compact()) {
		t.Errorf("client servers after uninstall = %s, want %s", servers.compact(), origServers.compact())
	}
	if v, _ := c.get("globalShortcut"); string(v) != `"Ctrl+Space"` {
		t.Errorf("globalShortcut = %s after uninstall", v)
	}
	// Uninstall's backup, at the same second, does not replace install's.
	if b, err := os.ReadFile(wantBackup); err != nil || string(b) != desktopFile {
		t.Errorf("install's backup after uninstall: %v %q", err, b)
	}
	if tf, _ := readObj(t, s.tfFile).sub("mcpServers"); len(tf.keys) != 0 {
		t.Errorf("toolfold's file still holds %v", tf.keys)
	}
	r, err = Uninstall(s.o)
	if err != nil || r.Changed {
		t.Errorf("second uninstall: %+v, %v; want no change", r, err)
	}
}

func TestInstallTwiceWithABinaryNotNamedToolfold(t *testing.T) {
	s := newSetup(t, "claude-code", desktopFile)
	s.o.Exe = "/tmp/go-build123/exe/tf"
	for i := range 2 {
		if _, err := Install(s.o); err != nil {
			t.Fatal(err)
		}
		tf, _ := readObj(t, s.tfFile).sub("mcpServers")
		if diff := cmp.Diff([]string{"memory", "files"}, tf.keys); diff != "" {
			t.Errorf("install %d: toolfold's servers (-want +got):\n%s", i+1, diff)
		}
	}
}

func TestInstallDryRunWritesNothing(t *testing.T) {
	s := newSetup(t, "cursor", desktopFile)
	s.o.DryRun = true
	r, err := Install(s.o)
	if err != nil || !r.Changed || len(r.Moved) != 2 {
		t.Fatalf("dry install: %+v, %v", r, err)
	}
	if b, _ := os.ReadFile(s.client); string(b) != desktopFile {
		t.Errorf("dry run changed the client's file:\n%s", b)
	}
	for _, p := range []string{s.tfFile, r.Backup} {
		if _, err := os.Stat(p); err == nil {
			t.Errorf("dry run wrote %s", p)
		}
	}
}

func TestInstallRefusesAConflict(t *testing.T) {
	s := newSetup(t, "windsurf", desktopFile)
	os.MkdirAll(filepath.Dir(s.tfFile), 0o700)
	os.WriteFile(s.tfFile, []byte(`{"mcpServers": {"memory": {"command": "other"}}}`), 0o600)
	_, err := Install(s.o)
	if err == nil || !strings.Contains(err.Error(), `server "memory" is in both`) {
		t.Errorf("err = %v, want a conflict on memory", err)
	}
	if b, _ := os.ReadFile(s.client); string(b) != desktopFile {
		t.Errorf("a refused install changed the client's file")
	}
}

func TestInstallRefusesNothingToServe(t *testing.T) {
	// A client without servers and an empty toolfold file: the entry would
	// run a toolfold with nothing behind it.
	s := newSetup(t, "cursor", "")
	_, err := Install(s.o)
	if err == nil || !strings.Contains(err.Error(), "no servers to move") {
		t.Errorf("err = %v, want nothing to move", err)
	}
	if _, err := os.Stat(s.client); err == nil {
		t.Error("a refused install wrote the client's file")
	}
	// With servers in toolfold's file (another client's), a client without
	// any of its own gets the entry.
	os.MkdirAll(filepath.Dir(s.tfFile), 0o700)
	os.WriteFile(s.tfFile, []byte(`{"mcpServers": {"memory": {"command": "npx"}}}`), 0o600)
	if r, err := Install(s.o); err != nil || !r.Changed || r.Backup != "" {
		t.Errorf("install into a new client file: %+v, %v", r, err)
	}
}

func TestInstallVSCode(t *testing.T) {
	// VS Code: JSONC, "servers", entries with a type, and "inputs" kept.
	src := `{
  // prompts
  "inputs": [{"type": "promptString", "id": "tok"}],
  "servers": {
    "files": {"type": "stdio", "command": "npx", "args": ["x"]},
  },
}`
	s := newSetup(t, "vscode", src)
	if _, err := Install(s.o); err != nil {
		t.Fatal(err)
	}
	c := readObj(t, s.client)
	if _, ok := c.get("inputs"); !ok {
		t.Error("inputs were dropped")
	}
	servers, _ := c.sub("servers")
	entry, _ := servers.get("toolfold")
	var e struct{ Type string }
	json.Unmarshal(entry, &e)
	if len(servers.keys) != 1 || e.Type != "stdio" {
		t.Errorf("servers = %s", servers.compact())
	}
}

func TestClientPaths(t *testing.T) {
	env := func(k string) string { return map[string]string{"APPDATA": `C:\Users\me\AppData\Roaming`}[k] }
	for _, tc := range []struct{ client, goos, want string }{
		{"claude-desktop", "darwin", "/home/me/Library/Application Support/Claude/claude_desktop_config.json"},
		{"claude-desktop", "linux", "/home/me/.config/Claude/claude_desktop_config.json"},
		{"claude-desktop", "windows", filepath.Join(`C:\Users\me\AppData\Roaming`, "Claude", "claude_desktop_config.json")},
		{"claude-code", "linux", "/home/me/.claude.json"},
		{"cursor", "darwin", "/home/me/.cursor/mcp.json"},
		{"vscode", "linux", "/home/me/.config/Code/User/mcp.json"},
		{"vscode", "darwin", "/home/me/Library/Application Support/Code/User/mcp.json"},
		{"windsurf", "linux", "/home/me/.codeium/windsurf/mcp_config.json"},
	} {
		c, _ := Lookup(tc.client)
		if got := c.Path(tc.goos, "/home/me", env); got != tc.want {
			t.Errorf("%s on %s: %q, want %q", tc.client, tc.goos, got, tc.want)
		}
	}
}

func TestInstallAddsPolicyAndAudit(t *testing.T) {
	s := newSetup(t, "claude-desktop", desktopFile)
	r, err := Install(s.o)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"policy", "audit"}, r.Added); diff != "" {
		t.Errorf("added (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"mcpServers", "policy", "audit"}, readObj(t, s.tfFile).keys); diff != "" {
		t.Errorf("toolfold's file keys (-want +got):\n%s", diff)
	}
	// serve -c reads them: an ask before destructive tools, an audit log
	// beside the file.
	cfg, err := config.Load(s.tfFile, nil)
	if err != nil {
		t.Fatal(err)
	}
	if rs := cfg.Policy.Rules; len(rs) != 1 || rs[0].Action != config.ActionAsk || !rs[0].Annotations["destructiveHint"] {
		t.Errorf("policy rules = %+v, want one ask for destructive tools", rs)
	}
	if want := filepath.Join(filepath.Dir(s.tfFile), "audit.jsonl"); cfg.Audit.File != want {
		t.Errorf("audit file = %q, want %q", cfg.Audit.File, want)
	}

	// A person's edit stays through uninstall and a second install.
	tf := readObj(t, s.tfFile)
	tf.set("policy", json.RawMessage(`{"default": "deny"}`))
	tf.set("audit", json.RawMessage(`null`))
	if err := os.WriteFile(s.tfFile, tf.indented(), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := Uninstall(s.o); err != nil {
		t.Fatal(err)
	}
	if r, err = Install(s.o); err != nil || len(r.Added) != 0 {
		t.Fatalf("install after uninstall: %+v, %v; want nothing added", r, err)
	}
	cfg, err = config.Load(s.tfFile, nil)
	if err != nil || cfg.Policy.Default != config.ActionDeny || cfg.Audit.File != "" || len(cfg.Upstreams) != 2 {
		t.Errorf("after the edit and a reinstall: %v, policy %+v, audit %+v", err, cfg.Policy, cfg.Audit)
	}
}

func TestInstallAddsSettingsToAnOlderInstall(t *testing.T) {
	// A toolfold file written before install added settings gets them on
	// the next install, though no server moves.
	s := newSetup(t, "claude-desktop", desktopFile)
	if _, err := Install(s.o); err != nil {
		t.Fatal(err)
	}
	tf := readObj(t, s.tfFile)
	tf.remove("policy")
	tf.remove("audit")
	os.WriteFile(s.tfFile, tf.indented(), 0o600)
	r, err := Install(s.o)
	if err != nil || !r.Changed || len(r.Moved) != 0 {
		t.Fatalf("install: %+v, %v; want a change that moves nothing", r, err)
	}
	if diff := cmp.Diff([]string{"policy", "audit"}, r.Added); diff != "" {
		t.Errorf("added (-want +got):\n%s", diff)
	}
	if r, err := Install(s.o); err != nil || r.Changed {
		t.Errorf("third install: %+v, %v; want no change", r, err)
	}
}
