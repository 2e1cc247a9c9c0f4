package bench

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// npmServers are the reference servers the bench runs, by short name.
var npmServers = []string{"everything", "filesystem", "memory"}

// FindNPM locates the node_modules directory holding the pinned npm
// reference servers: dir if given, else the cache directory the e2e tests
// install into (<cache>/toolfold-e2e/npm-<hash of e2e/testdata/package*.json>,
// the cache being $TOOLFOLD_E2E_CACHE or the user cache directory), found
// from repo, a toolfold clone. The error says how to install them.
func FindNPM(dir, repo string) (string, error) {
	if dir != "" {
		nm := dir
		if filepath.Base(nm) != "node_modules" {
			nm = filepath.Join(dir, "node_modules")
		}
		if err := haveServers(nm); err != nil {
			return "", fmt.Errorf("--npm %s: %w", dir, err)
		}
		return nm, nil
	}
	root, _, _, err := npmCache(repo)
	if err != nil {
		return "", err
	}
	nm := filepath.Join(root, "node_modules")
	if err := haveServers(nm); err != nil {
		return "", fmt.Errorf("the npm reference servers are not installed in %s (%v). Install them with the e2e tests' setup:\n"+
			"  go run ./cmd/toolfold-lab bench --install-npm   # runs npm ci into that directory, as the e2e tests do\n"+
			"or by hand:\n"+
			"  mkdir -p %s && cp e2e/testdata/package.json e2e/testdata/package-lock.json %s && (cd %s && npm ci --ignore-scripts)\n"+
			"or pass --npm DIR", root, err, root, root, root)
	}
	return nm, nil
}

// npmCache is where the e2e tests install the npm servers pinned in repo's
// e2e/testdata/package*.json, and those two files.
func npmCache(repo string) (root string, pkg, lock []byte, err error) {
	pkg, err1 := os.ReadFile(filepath.Join(repo, "e2e", "testdata", "package.json"))
	lock, err2 := os.ReadFile(filepath.Join(repo, "e2e", "testdata", "package-lock.json"))
	if err := errors.Join(err1, err2); err != nil {
		return "", nil, nil, fmt.Errorf("the npm servers' pins (e2e/testdata/package*.json) are not in %s: run from a toolfold clone or pass --npm DIR (a directory with node_modules holding @modelcontextprotocol/server-everything, -filesystem and -memory 2026.8.31)", repo)
	}
	cache := os.Getenv("TOOLFOLD_E2E_CACHE")
	if cache == "" {
		base, err := os.UserCacheDir()
		if err != nil {
			return "", nil, nil, fmt.Errorf("no user cache directory (set TOOLFOLD_E2E_CACHE or pass --npm DIR): %w", err)
		}
		cache = filepath.Join(base, "toolfold-e2e")
	}
	sum := sha256.Sum256(append(append(pkg, 0), lock...))
	return filepath.Join(cache, "npm-"+hex.EncodeToString(sum[:8])), pkg, lock, nil
}

// InstallNPM installs the pinned npm servers where FindNPM looks for them
// (`npm ci` of repo's e2e/testdata/package*.json, into a fresh directory
// renamed into place, as the e2e tests do) unless they are there, and
// returns their node_modules.
func InstallNPM(ctx context.Context, repo string) (string, error) {
	if nm, err := FindNPM("", repo); err == nil {
		return nm, nil
	}
	root, pkg, lock, err := npmCache(repo)
	if err != nil {
		return "", err
	}
	npm, err := exec.LookPath("npm")
	if err != nil {
		return "", errors.New("npm is not on PATH: install Node.js 20 or later with npm")
	}
	if err := os.MkdirAll(filepath.Dir(root), 0o755); err != nil {
		return "", err
	}
	tmp, err := os.MkdirTemp(filepath.Dir(root), filepath.Base(root)+".tmp-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(tmp)
	if err := errors.Join(os.WriteFile(filepath.Join(tmp, "package.json"), pkg, 0o644),
		os.WriteFile(filepath.Join(tmp, "package-lock.json"), lock, 0o644)); err != nil {
		return "", err
	}
	ctx, cancel := context.WithTimeout(ctx, 10*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, npm, "ci", "--ignore-scripts", "--no-audit", "--no-fund", "--loglevel=error")
	cmd.Dir = tmp
	cmd.WaitDelay = 5 * time.Second
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("npm ci in %s: %w\n%s", tmp, err, out)
	}
	if err := os.Rename(tmp, root); err != nil {
		if _, serr := os.Stat(root); serr != nil { // another install did not win the race either
			return "", err
		}
	}
	return FindNPM("", repo)
}

// BuildToolfold builds the toolfold binary, and toolfold-sandbox beside it
// as `go install ./cmd/...` places them, from repo (a toolfold clone) into
// dir, and returns the toolfold binary's path.
func BuildToolfold(ctx context.Context, repo, dir string) (string, error) {
	if _, err := os.Stat(filepath.Join(repo, "cmd", "toolfold", "main.go")); err != nil {
		return "", fmt.Errorf("%s is not a toolfold clone (no cmd/toolfold/main.go): run from one, or pass --toolfold BIN", repo)
	}
	ctx, cancel := context.WithTimeout(ctx, 10*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "go", "build", "-o", dir+string(filepath.Separator), "./cmd/toolfold", "./cmd/toolfold-sandbox")
	cmd.Dir = repo
	cmd.WaitDelay = 5 * time.Second
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("go build ./cmd/toolfold in %s: %w\n%s", repo, err, out)
	}
	return filepath.Join(dir, "toolfold"), nil
}

func haveServers(nm string) error {
	for _, s := range npmServers {
		if _, err := os.Stat(filepath.Join(nm, "@modelcontextprotocol", "server-"+s, "package.json")); err != nil {
			return fmt.Errorf("no @modelcontextprotocol/server-%s", s)
		}
	}
	return nil
}

// npmEntry is the bin script of server-<name> in nm.
func npmEntry(nm, name string) (string, error) {
	dir := filepath.Join(nm, "@modelcontextprotocol", "server-"+name)
	data, err := os.ReadFile(filepath.Join(dir, "package.json"))
	if err != nil {
		return "", err
	}
	var pkg struct {
		Version string
		Bin     json.RawMessage
	}
	if err := json.Unmarshal(data, &pkg); err != nil {
		return "", fmt.Errorf("%s/package.json: %w", dir, err)
	}
	var s string
	if json.Unmarshal(pkg.Bin, &s) == nil && s != "" {
		return filepath.Join(dir, s), nil
	}
	var m map[string]string
	if err := json.Unmarshal(pkg.Bin, &m); err != nil || len(m) != 1 {
		return "", fmt.Errorf("%s/package.json: want one bin entry, got %s", dir, pkg.Bin)
	}
	for _, v := range m {
		return filepath.Join(dir, v), nil
	}
	return "", nil
}

// upstream is one server as both sides start it: the command line for a
// direct client and the same for toolfold's config.
type upstream struct {
	Name, Description string
	Command           string
	Args              []string
	Env               map[string]string
	URL               string // http upstreams
}

// sampleUpstreams are the sample config's three servers, run with node
// from nm: the filesystem server rooted at work, memory storing in
// work/memory.jsonl.
func sampleUpstreams(nm, work string) ([]upstream, error) {
	node, err := exec.LookPath("node")
	if err != nil {
		return nil, errors.New("node is not on PATH: install Node.js 20 or later")
	}
	desc := map[string]string{
		"everything": "MCP feature demo and test tools",
		"filesystem": "read, write and search files in this repository",
		"memory":     "a knowledge graph of entities and relations that persists",
	}
	var ups []upstream
	for _, s := range npmServers {
		entry, err := npmEntry(nm, s)
		if err != nil {
			return nil, err
		}
		u := upstream{Name: s, Description: desc[s], Command: node, Args: []string{entry}}
		switch s {
		case "everything":
			u.Args = append(u.Args, "stdio")
		case "filesystem":
			u.Args = append(u.Args, work)
		case "memory":
			u.Env = map[string]string{"MEMORY_FILE_PATH": filepath.Join(work, "memory.jsonl")}
		}
		ups = append(ups, u)
	}
	return ups, nil
}

// writeConfig writes a toolfold config (JSON is YAML) for ups to path.
func writeConfig(path string, ups []upstream) error {
	type entry struct {
		Description    string            `json:"description,omitempty"`
		Command        string            `json:"command,omitempty"`
		Args           []string          `json:"args,omitempty"`
		Env            map[string]string `json:"env,omitempty"`
		URL            string            `json:"url,omitempty"`
		ConnectTimeout string            `json:"connect_timeout"`
	}
	// upstreams is a map: JSON objects keep the order written, which is the
	// order toolfold lists the servers in.
	var b strings.Builder
	b.WriteString(`{"upstreams": {`)
	for i, u := range ups {
		if i > 0 {
			b.WriteString(",")
		}
		e, _ := json.Marshal(entry{u.Description, u.Command, u.Args, u.Env, u.URL, "60s"})
		fmt.Fprintf(&b, "\n  %q: %s", u.Name, e)
	}
	b.WriteString("\n}}\n")
	return os.WriteFile(path, []byte(b.String()), 0o600)
}

// client is a direct MCP client of one server.
type client struct {
	name string
	cs   *mcp.ClientSession
}

func (c *client) Close() { c.cs.Close() }

// dial connects a client to u directly, as an MCP client would without
// toolfold.
func dial(ctx context.Context, u upstream) (*client, error) {
	ctx, cancel := context.WithTimeout(ctx, 60*time.Second)
	defer cancel()
	cl := mcp.NewClient(&mcp.Implementation{Name: "toolfold-bench", Version: "1"}, nil)
	var t mcp.Transport
	if u.URL != "" {
		t = &mcp.StreamableClientTransport{Endpoint: u.URL}
	} else {
		cmd := exec.Command(u.Command, u.Args...)
		cmd.Env = os.Environ()
		for k, v := range u.Env {
			cmd.Env = append(cmd.Env, k+"="+v)
		}
		t = &mcp.CommandTransport{Command: cmd, TerminateDuration: 2 * time.Second}
	}
	cs, err := cl.Connect(ctx, t, nil)
	if err != nil {
		return nil, fmt.Errorf("connect to %s: %w", u.Name, err)
	}
	return &client{name: u.Name, cs: cs}, nil
}

// listTools lists every tool (all pages).
func (c *client) listTools(ctx context.Context) ([]*mcp.Tool, error) {
	var out []*mcp.Tool
	for t, err := range c.cs.Tools(ctx, nil) {
		if err != nil {
			return nil, fmt.Errorf("%s: tools/list: %w", c.name, err)
		}
		out = append(out, t)
	}
	return out, nil
}

// call calls a tool and returns its text as a client puts it in context.
func (c *client) call(ctx context.Context, tool string, args any) (string, error) {
	res, err := c.cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		return "", fmt.Errorf("%s.%s: %w", c.name, tool, err)
	}
	text := resultText(res)
	if res.IsError {
		return text, fmt.Errorf("%s.%s failed: %s", c.name, tool, text)
	}
	return text, nil
}

// resultText is what a client shows the model of a result: its text
// blocks, else its structured content as JSON.
func resultText(res *mcp.CallToolResult) string {
	var parts []string
	for _, c := range res.Content {
		if t, ok := c.(*mcp.TextContent); ok {
			parts = append(parts, t.Text)
		}
	}
	if len(parts) == 0 && res.StructuredContent != nil {
		b, _ := json.Marshal(res.StructuredContent)
		return string(b)
	}
	return strings.Join(parts, "\n")
}
