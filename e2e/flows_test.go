package e2e

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The contact the exfiltration test reads from one server.
const flowEmail = "dana.lee@example.org"

// flowScript reads a contact through server-filesystem (the script sees
// [EMAIL_1]) and, as a model steered by hostile text would, sends the
// token to another server's tool: server-everything's echo.
const flowScript = `
local text = tools.filesystem.read_text_file{path = CONTACTS}.content
local email = string.match(text, "%[EMAIL_%d+%]")
assert(email, "no token in: " .. text)
return tools.everything.echo{message = "send to " .. email}`

// TestFlowsExfiltration: through the built binary, server-filesystem and
// server-everything, a token minted from a file read is refused on its way
// to the other server's echo by default (the client cannot ask a person),
// naming the pii.flows rule to add; with that rule, or with a person's
// yes, the echo receives the real value (its answer, tokenized again,
// shows the session's own token, not a literal [TOKEN_n]); every decision
// is in the audit, and the raw value nowhere in it.
func TestFlowsExfiltration(t *testing.T) {
	for _, tc := range []struct {
		name   string
		flows  string // pii section
		answer string // elicitation answer; "": the client cannot ask
		want   string // in the run's text
		audit  string // the flow's decision and approval in the audit
	}{
		{"refused by default", "", "",
			`add {from: "filesystem.*", to: "everything.echo", types: [EMAIL], action: allow} to pii.flows in proxy.yaml`, "ask unavailable"},
		{"allowed by a rule", `pii:
  flows:
    - {from: "filesystem.*", to: "everything.echo", types: [EMAIL], action: allow}
`, "", "Echo: send to [EMAIL_1]", "allow "},
		{"allowed by a person", "", "allow_once", "Echo: send to [EMAIL_1]", "ask allow_once"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			contacts := filepath.Join(root, "contacts.txt")
			if err := os.WriteFile(contacts, []byte("Renewal contact: Dana Lee <"+flowEmail+">\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			auditFile := filepath.Join(t.TempDir(), "audit.jsonl")
			cfg := writeConfig(t, configYAML(map[string]upstream{
				"filesystem": npmUpstream(t, "filesystem", root),
				"everything": npmUpstream(t, "everything"),
			})+tc.flows+"audit:\n  file: "+quote(auditFile)+"\n")
			opts := &mcp.ClientOptions{}
			var asked []string
			if tc.answer != "" {
				opts.ElicitationHandler = func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
					asked = append(asked, req.Params.Message)
					return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"decision": tc.answer}}, nil
				}
			}
			proc := startStdioClient(t, cfg, opts, nil)
			res := runScript(t, proc.cs, strings.Replace(flowScript, "CONTACTS", quote(contacts), 1))
			out := text(res)
			if !strings.Contains(out, tc.want) || res.IsError != (tc.answer == "" && tc.flows == "") {
				t.Errorf("run (isError %v) lacks %q:\n%s", res.IsError, tc.want, out)
			}
			if strings.Contains(out, flowEmail) || strings.Contains(out, "[TOKEN_") {
				t.Errorf("the run shows the raw value or a literal token:\n%s", out)
			}
			if tc.answer != "" && (len(asked) != 1 || !strings.Contains(asked[0], "[EMAIL_1]: an address at example.org, from filesystem.read_text_file") ||
				strings.Contains(asked[0], flowEmail)) {
				t.Errorf("questions %q: want one, showing the token's domain and origin, not the value", asked)
			}
			checkFlowAudit(t, auditFile, tc.audit)
		})
	}
}

// checkFlowAudit: the audit holds the flow's line (token, type, origin,
// destination, decision) and nowhere the raw email.
func checkFlowAudit(t *testing.T, file, decision string) {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatalf("audit file: %v", err)
	}
	if strings.Contains(string(b), flowEmail) {
		t.Errorf("the audit holds the raw email:\n%s", b)
	}
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		var e struct {
			Kind, Tool, Token, Origin, Decision, Approval, Rule string
			TokenType                                           string `json:"token_type"`
		}
		if err := json.Unmarshal([]byte(line), &e); err != nil {
			t.Fatalf("audit line %q: %v", line, err)
		}
		if e.Kind == "flow" {
			got := e.Token + " " + e.TokenType + " " + e.Origin + " -> " + e.Tool + " " + e.Decision + " " + e.Approval
			if want := "[EMAIL_1] EMAIL filesystem.read_text_file -> everything.echo " + decision; strings.TrimSpace(got) != strings.TrimSpace(want) {
				t.Errorf("flow line %q, want %q (rule %s)", got, want, e.Rule)
			}
			return
		}
	}
	t.Errorf("no flow line in the audit:\n%s", b)
}
