package e2e

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// leakyPlanted are the values the leaky fixture (testdata/leaky) plants in
// everything it offers (a tool's description and schema too) and in its
// stderr.
var leakyPlanted = []string{"ann.lee@example.com", "+44 20 7946 0958", "4111 1111 1111 1111", "erin.desc@example.com"}

var leaky struct {
	once sync.Once
	bin  string
	err  error
}

// needLeaky builds the leaky fixture server once.
func needLeaky(t *testing.T) string {
	t.Helper()
	leaky.once.Do(func() {
		root, err := moduleRoot()
		if err != nil {
			leaky.err = err
			return
		}
		leaky.bin = filepath.Join(setup.dir, "leaky")
		leaky.err = run(root, 5*time.Minute, "go", "build", "-o", leaky.bin, "./e2e/testdata/leaky")
	})
	if leaky.err != nil {
		t.Fatalf("building the leaky fixture: %v", leaky.err)
	}
	return leaky.bin
}

// TestPIIOnEveryPath: an upstream plants an email, a phone number and a
// card number in a tool result, a resource, a resource template, a prompt,
// completions, log and progress notifications, and its stderr. Through the
// built binary, in code, passthrough and hybrid modes, over stdio and
// HTTP, no frame the go-sdk client receives holds a planted value, each
// path shows tokens instead, and toolfold's stderr holds none either.
func TestPIIOnEveryPath(t *testing.T) {
	bin := needLeaky(t)
	for _, mode := range []string{"code", "passthrough", "hybrid"} {
		for _, transport := range []string{"stdio", "http"} {
			t.Run(mode+"/"+transport, func(t *testing.T) {
				cfg := writeConfig(t, configYAML(map[string]upstream{"crm": {Command: bin}})+"expose: "+mode+"\n")
				frames := &frameLog{}
				var cs *mcp.ClientSession
				var proc *toolfoldProc
				switch transport {
				case "stdio":
					proc, frames = startStdioRecordedProc(t, cfg, "TOOLFOLD_LOG=debug")
					cs = proc.cs
				case "http":
					var url string
					proc, url = startHTTPProc(t, cfg, "TOOLFOLD_LOG=debug")
					cs = connectHTTPRecorded(t, url, frames)
				}
				exercise(t, cs, mode)
				got := strings.Join(frames.all(), "\n")
				for _, v := range leakyPlanted {
					if strings.Contains(got, v) {
						t.Errorf("%q reached the client in a frame", v)
					}
				}
				// Token numbers depend on what the session tokenized first
				// (in code mode the servers/ tree's descriptions mint theirs
				// when the session's tree is written), so any number counts.
				for _, tok := range []string{"[EMAIL_", "[PHONE_", "[CREDIT_CARD_"} {
					if !strings.Contains(got, tok) {
						t.Errorf("no %s in any frame", tok)
					}
				}
				for _, path := range []string{`"resources":[`, `"resourceTemplates":[`, `"prompts":[`, `"completion":`, `"contents":[`, `"messages":[`} {
					if !framesWithTokens(frames.all(), path) {
						t.Errorf("no frame with %s shows a token", path)
					}
				}
				// Log and progress notifications are relayed as the
				// upstream sends them, not always before the test looks
				// (and a script's calls carry no progress token): they are
				// checked above for raw values, and logged here.
				for _, f := range frames.all() {
					if strings.Contains(f, "notifications/message") || strings.Contains(f, "notifications/progress") {
						t.Logf("notification: %.200s", f)
					}
				}
				if !strings.Contains(proc.stderr.String(), "[EMAIL]") {
					t.Errorf("the upstream's stderr line was not logged (redacted) at debug level")
				}
				checkNoPlanted(t, "toolfold's stderr", proc.stderr.String())
			})
		}
	}
}

// framesWithTokens reports a frame holding marker and a token.
// anyToken matches a vault token of any type and number.
var anyToken = regexp.MustCompile(`\[[A-Z_]+_[0-9]+\]`)

func framesWithTokens(frames []string, marker string) bool {
	for _, f := range frames {
		if strings.Contains(f, marker) && anyToken.MatchString(f) {
			return true
		}
	}
	return false
}

func checkNoPlanted(t *testing.T, where, s string) {
	t.Helper()
	for _, v := range leakyPlanted {
		if strings.Contains(s, v) {
			t.Errorf("%q in %s", v, where)
		}
	}
}

// exercise takes every path a planted value can travel to the client.
func exercise(t *testing.T, cs *mcp.ClientSession, mode string) {
	t.Helper()
	ctx := testCtx(t, callTimeout)
	must := func(what string, err error) {
		t.Helper()
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
	}
	must("logging/setLevel", cs.SetLoggingLevel(ctx, &mcp.SetLoggingLevelParams{Level: "debug"}))
	progress := &mcp.CallToolParams{Meta: mcp.Meta{"progressToken": "p1"}}
	if mode == "code" || mode == "hybrid" {
		progress.Name = "run_script"
		progress.Arguments = map[string]any{"code": `local r = tools.crm.whois{} print(r) return r`}
	} else {
		progress.Name = "whois"
		progress.Arguments = map[string]any{}
	}
	if mode == "hybrid" {
		_, err := cs.CallTool(ctx, progress)
		must("run_script", err)
		progress = &mcp.CallToolParams{Meta: mcp.Meta{"progressToken": "p2"}, Name: "whois", Arguments: map[string]any{}}
		if _, err := cs.CallTool(ctx, progress); err != nil {
			progress.Name = "crm_whois" // hybrid exposes only pinned tools; a miss is fine
		}
	} else {
		_, err := cs.CallTool(ctx, progress)
		must("tools/call", err)
	}
	_, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "crm://people/ann"})
	must("resources/read static", err)
	_, err = cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "crm://people/bob"})
	must("resources/read templated", err)
	_, err = cs.ListResources(ctx, nil)
	must("resources/list", err)
	_, err = cs.ListResourceTemplates(ctx, nil)
	must("resources/templates/list", err)
	_, err = cs.ListPrompts(ctx, nil)
	must("prompts/list", err)
	_, err = cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "greet"})
	must("prompts/get", err)
	_, err = cs.Complete(ctx, &mcp.CompleteParams{Ref: &mcp.CompleteReference{Type: "ref/prompt", Name: "greet"},
		Argument: mcp.CompleteParamsArgument{Name: "who", Value: "a"}})
	must("completion/complete", err)
}

// connectHTTPRecorded connects the go-sdk client to url, recording every
// frame it receives in log.
func connectHTTPRecorded(t *testing.T, url string, log *frameLog) *mcp.ClientSession {
	t.Helper()
	client := mcp.NewClient(&mcp.Implementation{Name: "toolfold-e2e", Version: "0"}, nil)
	transport := &recordingTransport{inner: &mcp.StreamableClientTransport{Endpoint: url}, log: log}
	cs, err := client.Connect(testCtx(t, startTimeout), transport, nil)
	if err != nil {
		t.Fatalf("connecting to %s: %v", url, err)
	}
	t.Cleanup(func() { _ = cs.Close() })
	return cs
}

// TestNoRawValueInDescriptionsSkillsSpansLogs: the paths that do not carry
// an upstream's results. An upstream's tool description and schema hold
// planted values; a script searches for it, tries to save a skill with a
// planted value in its description, notes and code, and, with
// telemetry.capture_content on and spans written to stderr, types planted
// values into a search, a tool call's arguments and its error. No frame
// the client receives, no span and no log line (at debug level) holds a
// planted value, and no skill is written.
func TestNoRawValueInDescriptionsSkillsSpansLogs(t *testing.T) {
	bin := needLeaky(t)
	cfg := writeConfig(t, configYAML(map[string]upstream{"crm": {Command: bin}})+"telemetry:\n  capture_content: true\n")
	proc, frames := startStdioRecordedProc(t, cfg, "TOOLFOLD_LOG=debug", "OTEL_TRACES_EXPORTER=console")
	cs := proc.cs
	for _, detail := range []string{"summary", "full"} {
		out := text(callTool(t, cs, "search_tools", map[string]any{"query": "find the owner of a record", "detail": detail}))
		if !strings.Contains(out, "find_owner") {
			t.Fatalf("search_tools %s does not find the tool:\n%s", detail, out)
		}
		if detail == "full" && !strings.Contains(out, "[EMAIL_1]") {
			t.Errorf("search_tools full shows no token for the description's address:\n%s", out)
		}
	}
	for _, part := range []string{`description = "Mail erin.desc@example.com", code = "return 1"`,
		`description = "Notes", notes = "Call +44 20 7946 0958", code = "return 1"`,
		`description = "Code", code = "return 'erin.desc@example.com'"`} {
		out := scriptOK(t, cs, `local ok, err = pcall(skills.save, {name = "planted", `+part+`}) print(ok, err)`)
		if !strings.Contains(out, "false") || !strings.Contains(out, "holds personal data (") {
			t.Errorf("skills.save {%s} was not refused:\n%s", part, out)
		}
	}
	scriptErr(t, cs, `
print(search_tools("erin.desc@example.com owner", "full"))
print(tools.crm.find_owner{record = "erin.desc@example.com"})
error("no answer from +44 20 7946 0958")`)
	proc.close()
	got := strings.Join(frames.all(), "\n")
	checkNoPlanted(t, "a frame", got)
	stderr := proc.stderr.String()
	for _, want := range []string{`"Name":"execute_script"`, `"Name":"search_tools"`, `"Name":"tools/call find_owner"`, `"Key":"toolfold.script.code"`} {
		if !strings.Contains(stderr, want) {
			t.Errorf("no %s among the spans on stderr:\n%.3000s", want, stderr)
		}
	}
	checkNoPlanted(t, "toolfold's stderr (spans and log)", stderr)
	if _, err := os.Stat(filepath.Join(filepath.Dir(cfg), ".toolfold", "skills", "planted")); !os.IsNotExist(err) {
		t.Errorf("a refused skill was written (%v)", err)
	}
}
