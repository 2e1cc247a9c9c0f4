package config

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/toolfold/toolfold/sandbox"
)

// env returns options whose environment is exactly vars.
func env(vars map[string]string) *LoadOptions {
	return &LoadOptions{LookupEnv: func(k string) (string, bool) {
		v, ok := vars[k]
		return v, ok
	}}
}

// mustParse parses src as name in dir, failing the test on error.
func mustParse(t *testing.T, name, src string, vars map[string]string) *Config {
	t.Helper()
	cfg, err := Parse(name, []byte(src), env(vars))
	if err != nil {
		t.Fatalf("Parse(%s): %v", name, err)
	}
	return cfg
}

func TestSampleConfig(t *testing.T) {
	t.Setenv("TOOLFOLD_MEMORY_FILE", "") // the default applies to an empty value too
	cfg, err := Load("../proxy.yaml", nil)
	if err != nil {
		t.Fatal(err)
	}
	repo, _ := filepath.Abs("..")
	if cfg.File != filepath.Join(repo, "proxy.yaml") || cfg.Dir != repo || cfg.Format != "toolfold" {
		t.Errorf("File, Dir, Format = %q, %q, %q", cfg.File, cfg.Dir, cfg.Format)
	}
	if len(cfg.Warnings) > 0 {
		t.Errorf("warnings: %q", cfg.Warnings)
	}
	type summary struct {
		Name, Transport, Command string
		Args                     []string
		Env                      map[string]string
		Cwd                      string
		Disabled                 bool
	}
	var got []summary
	for _, u := range cfg.Upstreams {
		if u.Description == "" || u.ConnectTimeout < time.Minute {
			t.Errorf("%s: description %q, connect timeout %v", u.Name, u.Description, u.ConnectTimeout)
		}
		got = append(got, summary{u.Name, u.Transport, u.Command, u.Args, u.Env, u.Cwd, u.Disabled})
	}
	want := []summary{
		{"everything", "stdio", "npx", []string{"-y", "@modelcontextprotocol/server-everything@2026.8.31", "stdio"}, nil, repo, false},
		{"filesystem", "stdio", "npx", []string{"-y", "@modelcontextprotocol/server-filesystem@2026.8.31", "."}, nil, repo, false},
		{"memory", "stdio", "npx", []string{"-y", "@modelcontextprotocol/server-memory@2026.8.31"},
			map[string]string{"MEMORY_FILE_PATH": "/tmp/toolfold-memory.jsonl"}, repo, false},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("upstreams (-want +got):\n%s", diff)
	}
	if !cmp.Equal(cfg.Sandbox, DefaultSandbox) || cfg.HTTP != (HTTP{}) {
		t.Errorf("sandbox %+v, http %+v: want the defaults", cfg.Sandbox, cfg.HTTP)
	}
	if diff := cmp.Diff(Telemetry{ServiceName: DefaultServiceName}, cfg.Telemetry); diff != "" {
		t.Errorf("telemetry (-want +got): the sample exports nothing unless asked\n%s", diff)
	}
	// The sample records an audit trail and asks before destructive tools.
	wantAudit := Audit{File: filepath.Join(repo, ".toolfold", "audit.jsonl"), MaxSizeMB: 100, MaxBackups: 10}
	if diff := cmp.Diff(wantAudit, cfg.Audit); diff != "" {
		t.Errorf("audit (-want +got):\n%s", diff)
	}
	// Its demo keeps what it reads from files in the memory server.
	if want := []PIIFlow{{From: "filesystem.*", To: "memory.*", Action: ActionAllow}}; !cmp.Equal(want, cfg.PII.Flows, cmpopts.IgnoreFields(PIIFlow{}, "Line")) {
		t.Errorf("pii.flows %+v, want %+v", cfg.PII.Flows, want)
	}
	wantPolicy := []PolicyRule{{Annotations: map[string]bool{"destructiveHint": true}, Action: ActionAsk}}
	if diff := cmp.Diff(wantPolicy, cfg.Policy.Rules, cmpopts.IgnoreFields(PolicyRule{}, "Line")); diff != "" {
		t.Errorf("policy rules (-want +got):\n%s", diff)
	}
}

func TestToolfoldFormat(t *testing.T) {
	dir := t.TempDir()
	src := `
upstreams:
  fs:
    description: "  read   files "
    command: ${BIN:-npx}
    args: ["-y", "server@1.0", 8080, true]
    env: {FOO: "${HOME}/x", LITERAL: "$$HOME"}
    cwd: sub
    connect_timeout: 5s
    call_timeout: 1m30s
  remote:
    transport: http
    url: https://example.com/mcp
    headers: {Authorization: "Bearer ${TOKEN}"}
  off:
    command: run-${UNSET_IS_FINE_WHEN_DISABLED}
    disabled: true
  home:
    command: x
    cwd: ~/proj
sandbox:
  timeout: 1m
  memory: 1GiB
  output: 1.5MB
  max_tool_calls: 10
  max_concurrency: 2
  max_frame: 1048576
  open_files: 32
  file_size: 10MB
  processes: 4
  workspace_budget: 2GiB
http:
  addr: 127.0.0.1:9000
  bearer_token: ${TOKEN}
  max_sessions: 2000
`
	file := filepath.Join(dir, "proxy.yaml")
	cfg := mustParse(t, file, src, map[string]string{"HOME": "/home/u", "TOKEN": "s3cret"})
	want := &Config{
		File: file, Dir: dir, Format: "toolfold",
		Upstreams: []Upstream{
			{Name: "fs", Description: "read files", Transport: "stdio", Command: "npx",
				Args: []string{"-y", "server@1.0", "8080", "true"},
				Env:  map[string]string{"FOO": "/home/u/x", "LITERAL": "$HOME"},
				Cwd:  filepath.Join(dir, "sub"), ConnectTimeout: 5 * time.Second, CallTimeout: 90 * time.Second},
			{Name: "remote", Transport: "http", URL: "https://example.com/mcp",
				Headers:        map[string]string{"Authorization": "Bearer s3cret"},
				ConnectTimeout: DefaultConnectTimeout, CallTimeout: DefaultCallTimeout},
			{Name: "off", Transport: "stdio", Command: "run-", Cwd: dir, Disabled: true,
				ConnectTimeout: DefaultConnectTimeout, CallTimeout: DefaultCallTimeout},
			{Name: "home", Transport: "stdio", Command: "x", Cwd: "/home/u/proj",
				ConnectTimeout: DefaultConnectTimeout, CallTimeout: DefaultCallTimeout},
		},
		Sandbox: Sandbox{Limits: sandbox.Limits{Timeout: time.Minute, CPUTime: time.Minute, MemoryBytes: 1 << 30,
			OutputBytes: 1_500_000, MaxToolCalls: 10, MaxConcurrency: 2, MaxFrameBytes: 1 << 20,
			OpenFiles: 32, FileBytes: 10_000_000, Processes: 4}, WorkspaceBytes: 256 << 20,
			WorkspaceBudget: 2 << 30, Require: "degraded", Warm: true},
		HTTP:      HTTP{Addr: "127.0.0.1:9000", BearerToken: "s3cret", MaxSessions: 2000},
		Telemetry: Telemetry{ServiceName: "toolfold"},
		Expose:    DefaultExpose,
		Policy:    DefaultPolicy,
		Audit:     DefaultAudit,
	}
	if diff := cmp.Diff(want, cfg); diff != "" {
		t.Errorf("Parse (-want +got):\n%s", diff)
	}
}

func TestDefaults(t *testing.T) {
	cfg := mustParse(t, "", "upstreams: {a: {command: x}}", nil)
	wd, _ := os.Getwd()
	u := cfg.Upstreams[0]
	if u.Cwd != wd || u.ConnectTimeout != 60*time.Second || u.CallTimeout != 120*time.Second {
		t.Errorf("upstream defaults: cwd %q, timeouts %v %v", u.Cwd, u.ConnectTimeout, u.CallTimeout)
	}
	if !cmp.Equal(cfg.Sandbox, DefaultSandbox) {
		t.Errorf("sandbox = %+v, want %+v", cfg.Sandbox, DefaultSandbox)
	}
	// cpu_time follows timeout unless set.
	cfg = mustParse(t, "", "upstreams: {a: {command: x}}\nsandbox: {timeout: 10s}", nil)
	if cfg.Sandbox.CPUTime != 10*time.Second {
		t.Errorf("cpu_time = %v, want timeout's 10s", cfg.Sandbox.CPUTime)
	}
}

func TestOrderKept(t *testing.T) {
	cfg := mustParse(t, "", "upstreams:\n  zeta: {command: z}\n  alpha: {command: a}\n  mid: {command: m}\n", nil)
	var names []string
	for _, u := range cfg.Upstreams {
		names = append(names, u.Name)
	}
	if diff := cmp.Diff([]string{"zeta", "alpha", "mid"}, names); diff != "" {
		t.Errorf("order (-want +got):\n%s", diff)
	}
}

func TestAnchorsAndMerge(t *testing.T) {
	src := `
upstreams:
  a: &base
    command: npx
    env: &env {K: v}
    call_timeout: 5s
  b:
    <<: *base
    args: [b]
    call_timeout: 7s
`
	cfg := mustParse(t, "", src, nil)
	b := cfg.Upstreams[1]
	if b.Command != "npx" || b.CallTimeout != 7*time.Second || b.Env["K"] != "v" || len(b.Args) != 1 {
		t.Errorf("merged upstream = %+v", b)
	}
}

func TestLoadMissingFile(t *testing.T) {
	_, err := Load(filepath.Join(t.TempDir(), "nope.yaml"), nil)
	if !errors.Is(err, os.ErrNotExist) {
		t.Errorf("Load of a missing file: %v, want os.ErrNotExist", err)
	}
}

func TestErrorsType(t *testing.T) {
	_, err := Parse("p.yaml", []byte("upstreams:\n  a: {command: x, bad: 1}\n"), nil)
	var es Errors
	if !errors.As(err, &es) || len(es) != 1 {
		t.Fatalf("error %v (%T): want Errors of one", err, err)
	}
	want := &Error{File: "p.yaml", Line: 2, Col: 19, Path: "upstreams.a.bad", Msg: `unknown key "bad"; known keys: ` + strings.Join(upstreamKeys, ", ")}
	if diff := cmp.Diff(want, es[0]); diff != "" {
		t.Errorf("error (-want +got):\n%s", diff)
	}
}

func TestErrorRendering(t *testing.T) {
	for _, tc := range []struct {
		err  Error
		want string
	}{
		{Error{File: "proxy.yaml", Line: 14, Col: 7, Path: "upstreams.github.command", Msg: "required for stdio"},
			"proxy.yaml:14:7: upstreams.github.command: required for stdio"},
		{Error{File: "p.yaml", Line: 3, Msg: "invalid YAML: x"}, "p.yaml:3: invalid YAML: x"},
		{Error{File: "p.yaml", Msg: "no upstreams"}, "p.yaml: no upstreams"},
	} {
		if got := tc.err.Error(); got != tc.want {
			t.Errorf("Error() = %q, want %q", got, tc.want)
		}
	}
}

func TestAliasBomb(t *testing.T) {
	// Each level merges the one above eight times: 8^8 fields once expanded.
	src := "a: &a {command: x}\n"
	prev := "a"
	for _, l := range "bcdefgh" {
		src += string(l) + ": &" + string(l) + " {<<: [" + strings.Repeat("*"+prev+", ", 7) + "*" + prev + "]}\n"
		prev = string(l)
	}
	src += "upstreams: {x: {<<: [" + strings.Repeat("*h, ", 7) + "*h]}}\n"
	_, err := Parse("bomb.yaml", []byte(src), nil)
	if err == nil || !strings.Contains(err.Error(), "bomb.yaml: document too large once aliases are expanded") {
		t.Errorf("Parse of an alias bomb: %v", err)
	}
}

func TestLoadNamesFileAsGiven(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "bad.yaml"), []byte("upstreams:\n  a: {}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Chdir(dir)
	_, err := Load("bad.yaml", nil)
	want := "bad.yaml:2:3: upstreams.a: needs command (to run the server over stdio) or url (to reach it over http)"
	if err == nil || err.Error() != want {
		t.Errorf("Load: %v\nwant %s", err, want)
	}
}

func TestSandboxLanguages(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "proxy.yaml")
	cfg := mustParse(t, file, "upstreams: {a: {command: x}}\nsandbox:\n  python: ./venv/bin/python\n  node: off\n  workspace_size: 1MiB\n  workspace_dir: .toolfold/workspaces/\n", nil)
	want := Sandbox{Interpreters: map[string]string{"python": filepath.Join(dir, "venv/bin/python"), "javascript": "off"},
		WorkspaceBytes: 1 << 20, WorkspaceDir: filepath.Join(dir, ".toolfold", "workspaces")}
	got := Sandbox{Interpreters: cfg.Sandbox.Interpreters, WorkspaceBytes: cfg.Sandbox.WorkspaceBytes, WorkspaceDir: cfg.Sandbox.WorkspaceDir}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("sandbox (-want +got):\n%s", diff)
	}
	cfg = mustParse(t, file, "upstreams: {a: {command: x}}\nsandbox: {python: python3.12, node: /opt/node/bin/node}\n", nil)
	if cfg.Sandbox.Interpreter("python") != "python3.12" || cfg.Sandbox.Interpreter("javascript") != "/opt/node/bin/node" {
		t.Errorf("sandbox = %+v", cfg.Sandbox)
	}
	for src, want := range map[string]string{
		"sandbox: {python: ''}":          `sandbox.python: must be the path of the interpreter`,
		"sandbox: {node: [a]}":           `sandbox.node: must be a string`,
		"sandbox: {workspace_size: big}": `sandbox.workspace_size`,
		"sandbox: {workspace_dir: ' '}":  `sandbox.workspace_dir: must be a directory`,
	} {
		_, err := Parse(file, []byte("upstreams: {a: {command: x}}\n"+src+"\n"), nil)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: err = %v, want %q", src, err, want)
		}
	}
}

// TestSandboxLimitsAreSandboxs: the run limits of the sandbox section are
// sandbox.Limits itself, embedded, so that their fields and defaults are
// written once, in package sandbox; a field of the same name declared here
// would shadow it and be a second copy.
func TestSandboxLimitsAreSandboxs(t *testing.T) {
	lim := reflect.TypeFor[sandbox.Limits]()
	sb := reflect.TypeFor[Sandbox]()
	for i := range lim.NumField() {
		name := lim.Field(i).Name
		if f, ok := sb.FieldByName(name); !ok || len(f.Index) != 2 {
			t.Errorf("config.Sandbox.%s is not sandbox.Limits.%s: embed sandbox.Limits rather than copy its fields", name, name)
		}
	}
	if DefaultSandbox.Limits != sandbox.DefaultLimits {
		t.Errorf("DefaultSandbox.Limits = %+v, want sandbox.DefaultLimits %+v", DefaultSandbox.Limits, sandbox.DefaultLimits)
	}
}
