package config

import (
	"os"
	"path/filepath"
	"time"

	"github.com/toolfold/toolfold/sandbox"
	"gopkg.in/yaml.v3"
)

// Config is a validated toolfold configuration. Load returns it with every
// default applied, so callers never check for zero values.
type Config struct {
	File      string     // the path it was loaded from (absolute); empty when Parse got none
	Dir       string     // the directory of File: relative paths resolve against it
	Format    string     // "toolfold" (proxy.yaml), or "mcpServers" / "servers" (a client's file, read as is)
	Upstreams []Upstream // in file order; names are unique
	Sandbox   Sandbox
	HTTP      HTTP
	Telemetry Telemetry // OpenTelemetry exporters; without a section, nothing is exported
	Search    Search    // search_tools' learning from use; the zero value: on, beside File
	PII       PII       // tokenizing personal data and secrets; the zero value is the default (on)
	Expose    Expose    // what clients see as tools, and how names are namespaced (expose.go)
	Store     Store     // shared state: files beside the config, or Redis (store.go)
	Skills    Skills    // saved skills: where they live and who may save (skills.go)
	Policy    Policy    // which tool calls are made, asked about or refused (policy.go)
	Audit     Audit     // a JSON line per upstream call and run; off unless File is set (policy.go)
	// UI is the "ui:" key, the local dashboard (package dashboard): ""
	// (the default: at / of the HTTP listener, off with stdio), UIOff, or a
	// loopback host:port the dashboard listens on by itself.
	UI string
	// Warnings are non-fatal findings (unknown keys in a client's mcpServers
	// file, a server name that was normalized): the caller logs them.
	Warnings []string
}

// Upstream is one server behind the proxy. Every field is checked and
// every ${VAR} expanded. The fields of the other transport are empty.
//
// A Disabled upstream must not be started; it is listed so that `check`
// can show it. Its ${VAR}s need not be set, so its values may be
// incomplete.
type Upstream struct {
	Name        string // unique; [A-Za-z0-9_-]+, never contains '.'
	Description string // a few words of purpose, shown to the model; may be empty
	Transport   string // "stdio" or "http"
	// stdio
	Command string
	Args    []string
	Env     map[string]string // added to the proxy's environment for the child; may be nil
	// Cwd is absolute. It defaults to Config.Dir; a relative cwd resolves
	// against Config.Dir. For a client's file in .vscode/ or .cursor/ both
	// are the project above it instead (what those clients call
	// ${workspaceFolder}). A relative Command with a '/' (./server.sh)
	// resolves against Cwd, as os/exec does.
	Cwd string
	// http (streamable HTTP)
	URL     string            // http or https
	Headers map[string]string // sent with every request; may be nil
	// OAuth, when set, signs in to the upstream with OAuth 2.1 (the
	// oauth: key; package oauth). Nil: no OAuth.
	OAuth *OAuth
	// Timeouts
	ConnectTimeout time.Duration // to connect and list tools; default 60s
	CallTimeout    time.Duration // per tool call; default 120s
	Disabled       bool
	// Scope is ScopeShared ("" too, the default: one instance serves every
	// client session) or ScopeSession (stdio only: each client session that calls
	// the upstream gets an instance of its own, stopped when the session
	// ends, so one user's data in a stateful server is not another's).
	Scope string
	// Instances bounds the instances of a scope: session upstream running
	// at once; 0 means DefaultInstances (MaxInstances).
	Instances int
}

// OAuth holds an HTTP upstream's oauth settings. Every field is optional:
// the authorization server, its endpoints and the scopes are discovered,
// and toolfold registers itself when no client_id is given.
type OAuth struct {
	// ClientID is a client registered in advance with the authorization
	// server, or an https URL of a client ID metadata document.
	ClientID     string
	ClientSecret string   // the pre-registered client's secret; may be empty
	Scopes       []string // requested besides those the server asks for
}

// MaxInstances is the bound on a scope: session upstream's instances.
func (u Upstream) MaxInstances() int {
	if u.Instances > 0 {
		return u.Instances
	}
	return DefaultInstances
}

// Upstream scopes.
const (
	ScopeShared  = "shared"
	ScopeSession = "session"
)

// DefaultInstances bounds the instances of a scope: session upstream.
const DefaultInstances = 16

// Sandbox is proxy.yaml's sandbox section: run_script's limits, the
// languages' interpreters, the workspaces.
type Sandbox struct {
	// Limits are the limits of one run (timeout, cpu_time, memory, output,
	// max_tool_calls, max_concurrency, max_frame, open_files, file_size,
	// processes). Package sandbox owns them and their defaults
	// (sandbox.DefaultLimits); cpu_time defaults to the timeout.
	sandbox.Limits

	// Interpreters are the interpreters of run_script's interpreter
	// languages, by language name (sandbox.Language.Name), as the sandbox
	// keys of their ConfigKey set them (sandbox: {python: ..., node: ...}):
	// a path or a command on PATH; "off" disables the language; a relative
	// path with a slash is relative to the config file's directory. A
	// language absent here looks its default interpreter up on PATH when
	// toolfold starts. Nil when the config names none.
	Interpreters map[string]string
	// WorkspaceBytes bounds a client session's workspace (all its files,
	// each counted as at least 4 KiB); default 256 MiB.
	WorkspaceBytes int64
	// WorkspaceBudget bounds the workspaces of all sessions together
	// (sandbox.workspace_budget); default 4 GiB. A run that would start
	// with the total at the budget, or that grows it past, fails saying so.
	WorkspaceBudget int64
	// WorkspaceDir, when set, keeps the stdio session's workspace in
	// DIR/stdio, so it carries over to the next start (HTTP sessions keep
	// temporary ones). "" (default): removed when toolfold exits. A relative
	// path is relative to the config file's directory.
	WorkspaceDir string
	// Require is which isolation layers a run needs: "full", "degraded"
	// (default: Lua anywhere, Python and JavaScript only with namespaces
	// and Landlock) or "none". See sandbox.Require.
	Require string
	// Warm keeps, for each session and language, the child of the session's
	// next run started ahead of time, so a run pays for its script and not
	// for starting an interpreter in a new sandbox; default true. See
	// sandbox.Warmer.
	Warm bool
	// Prestart names the languages whose child a session starts for its
	// first run (with Warm): the stdio session when it connects, an HTTP
	// session on its first search_tools; so that its first run is as fast as the
	// next ones: nil (not set) means lua and python (whose waiting children
	// hold 17 MiB each; node's 46 MiB), an empty list none. A runner keeps at most a few children at once (sandbox's
	// maxSpares), which bounds their memory whatever the sessions.
	Prestart []string
}

// HTTP configures `serve --http`.
type HTTP struct {
	Addr        string // default "" (stdio); the --http flag overrides
	BearerToken string // required to bind a non-loopback address
	// DrainTimeout bounds a graceful stop (SIGTERM): new sessions are
	// refused at once, requests in flight get this long to finish before
	// they are cancelled. 0 means DefaultDrainTimeout.
	DrainTimeout time.Duration
	// MaxSessions bounds the live HTTP sessions (http.max_sessions); 0
	// means DefaultMaxSessions. Past it a new session gets 503 with
	// Retry-After until one ends (DELETE, or 30 idle minutes).
	MaxSessions int
}

// UIOff is the ui key's value that turns the dashboard off.
const UIOff = "off"

// DefaultMaxSessions is HTTP.MaxSessions unless the file sets one: sized
// for one machine (each session may hold a workspace and warm children).
const DefaultMaxSessions = 256

// DefaultDrainTimeout is HTTP.DrainTimeout unless the file sets one.
const DefaultDrainTimeout = 30 * time.Second

// DefaultSandbox is the Sandbox of a config that sets nothing in it: the
// limits are sandbox.DefaultLimits, the one place they are written.
var DefaultSandbox = Sandbox{
	Limits:          sandbox.DefaultLimits,
	WorkspaceBytes:  256 << 20,
	WorkspaceBudget: 4 << 30,
	Require:         "degraded",
	Warm:            true,
}

// LoadOptions changes how a config is read. The zero value (or nil) is
// what the CLI wants.
type LoadOptions struct {
	// LookupEnv resolves ${VAR}; nil means os.LookupEnv.
	LookupEnv func(string) (string, bool)
}

// Load reads and validates a config file: proxy.yaml, or a client's
// mcpServers / servers file. All problems are reported at once, as Errors.
// A file that cannot be read gives the *fs.PathError of os.ReadFile.
func Load(path string, opts *LoadOptions) (*Config, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return Parse(path, data, opts)
}

// Parse is Load on bytes already read; filename is used in error messages
// as given, and made absolute for Config.File (relative paths in the
// config resolve against its directory). An empty filename stands for
// "<input>" in the current directory.
func Parse(filename string, data []byte, opts *LoadOptions) (*Config, error) {
	lookup := os.LookupEnv
	if opts != nil && opts.LookupEnv != nil {
		lookup = opts.LookupEnv
	}
	cfg := &Config{Sandbox: DefaultSandbox, Telemetry: Telemetry{ServiceName: DefaultServiceName}, Expose: DefaultExpose,
		Policy: DefaultPolicy, Audit: DefaultAudit}
	display := filename
	if display == "" {
		display = "<input>"
	}
	cfg.File, cfg.Dir = locate(filename)
	root, perr := parseDocument(data)
	if perr != nil {
		perr.File = display
		return nil, Errors{perr}
	}
	d := &decoder{file: display, budget: maxNodes}
	x := &expander{lookup: lookup}
	switch format := detectFormat(root); {
	case root == nil:
		d.errs = append(d.errs, &Error{File: display, Msg: "the file is empty; " + noUpstreams})
	case format == "toolfold":
		d.toolfold(root, cfg, x)
	default:
		x.client, x.workspace = true, workspaceDir(cfg.Dir)
		d.client(root, format, cfg, x)
	}
	if len(d.errs) > 0 {
		sortErrors(d.errs)
		return nil, Errors(d.errs)
	}
	if allDisabled(cfg.Upstreams) {
		d.warns = append(d.warns, &Error{File: display, Msg: "every upstream is disabled"})
	}
	sortErrors(d.warns)
	for _, w := range d.warns {
		cfg.Warnings = append(cfg.Warnings, w.Error())
	}
	return cfg, nil
}

// locate returns the absolute path of filename and its directory.
func locate(filename string) (file, dir string) {
	if filename == "" {
		dir, err := os.Getwd()
		if err != nil {
			dir = "."
		}
		return "", dir
	}
	file, err := filepath.Abs(filename)
	if err != nil {
		file = filepath.Clean(filename)
	}
	return file, filepath.Dir(file)
}

// detectFormat names the format of a document by its top-level keys:
// "upstreams" wins, then "mcpServers", then VS Code's "servers"; a file
// with none is taken as proxy.yaml, whose errors then say what to write.
func detectFormat(root *yaml.Node) string {
	if root == nil || root.Kind != yaml.MappingNode {
		return "toolfold"
	}
	has := map[string]bool{}
	for i := 0; i+1 < len(root.Content); i += 2 {
		has[root.Content[i].Value] = true
	}
	switch {
	case has["upstreams"]:
		return "toolfold"
	case has["mcpServers"]:
		return "mcpServers"
	case has["servers"]:
		return "servers"
	}
	return "toolfold"
}

func allDisabled(us []Upstream) bool {
	for _, u := range us {
		if !u.Disabled {
			return false
		}
	}
	return len(us) > 0
}
