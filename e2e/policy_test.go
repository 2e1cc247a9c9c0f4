package e2e

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The email the policy script stores; it must not reach the audit file.
const policyEmail = "erin.park@example.net"

// policyScript creates an entity whose observation holds an email, tries
// a delete inside pcall, and reads the graph.
const policyScript = `
tools.memory.create_entities{entities = {{name = "Erin Park", entityType = "person",
  observations = {"email ` + policyEmail + `"}}}}
local ok, err = pcall(function() return tools.memory.delete_entities{entityNames = {"Erin Park"}} end)
local g = tools.memory.read_graph{}
local names = {}
for _, e in ipairs(g.entities) do names[#names + 1] = e.name end
return {deleted = ok, err = tostring(err), names = names}`

// TestPolicyApprovals: with rules that ask before memory.create_entities
// and deny memory.delete_*, through the built binary and server-memory, a
// client that accepts the approval is asked once, naming the tool, and
// the entity is created, the delete refused naming the rule, the read
// passes, and the audit file holds the three calls with their decisions
// and not the raw email; a client that declines has nothing created; a
// client without elicitation fails closed with how to allow the tool.
func TestPolicyApprovals(t *testing.T) {
	for _, tc := range []struct {
		name    string
		answer  string // "": no elicitation capability; "decline"; else the choice accepted
		version string // "" for the go-sdk's latest (input requests), else an older protocol (elicitation/create)
	}{
		{"accepts", "allow_once", ""},
		{"accepts/2025-11-25", "allow_once", "2025-11-25"},
		{"declines", "decline", ""},
		{"cannot ask", "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			memFile := filepath.Join(t.TempDir(), "memory.jsonl")
			auditFile := filepath.Join(t.TempDir(), "audit.jsonl")
			mem := npmUpstream(t, "memory")
			mem.Env = map[string]string{"MEMORY_FILE_PATH": memFile}
			cfg := writeConfig(t, configYAML(map[string]upstream{"memory": mem})+`policy:
  rules:
    - match: memory.create_entities
      action: ask
    - match: "memory.delete_*"
      action: deny
audit:
  file: `+quote(auditFile)+"\n")
			var mu sync.Mutex
			var asked []string
			opts := &mcp.ClientOptions{}
			if tc.answer != "" {
				opts.ElicitationHandler = func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
					mu.Lock()
					asked = append(asked, req.Params.Message)
					mu.Unlock()
					if tc.answer == "decline" {
						return &mcp.ElicitResult{Action: "decline"}, nil
					}
					return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"decision": tc.answer}}, nil
				}
			}
			var sopts *mcp.ClientSessionOptions
			if tc.version != "" {
				sopts = &mcp.ClientSessionOptions{ProtocolVersion: tc.version}
			}
			proc := startStdioClient(t, cfg, opts, sopts)
			res := runScript(t, proc.cs, policyScript)
			out := text(res)
			disk, _ := os.ReadFile(memFile)
			mu.Lock()
			defer mu.Unlock()
			switch tc.answer {
			case "":
				if !res.IsError || !strings.Contains(out, "does not support MCP elicitation") ||
					!strings.Contains(out, "{match: memory.create_entities, action: allow}") {
					t.Errorf("without elicitation: want the create failed closed, saying how to allow it:\n%s", out)
				}
			case "decline":
				if !res.IsError || !strings.Contains(out, "declined") || len(asked) != 1 {
					t.Errorf("declined: want the create refused after one question (asked %d):\n%s", len(asked), out)
				}
			default:
				if res.IsError {
					t.Fatalf("script failed: %s", out)
				}
				if len(asked) != 1 || !strings.Contains(asked[0], "memory.create_entities") || strings.Contains(asked[0], policyEmail) {
					t.Errorf("elicitations %q: want one naming memory.create_entities, without the raw email", asked)
				}
				for _, want := range []string{`"deleted":false`, "denied by policy rule 2 (memory.delete_*)", `"names":["Erin Park"]`} {
					if !strings.Contains(out, want) {
						t.Errorf("result lacks %q:\n%s", want, out)
					}
				}
				checkPolicyAudit(t, auditFile)
			}
			if created := strings.Contains(string(disk), "Erin Park"); created != (tc.answer == "allow_once") {
				t.Errorf("entity created: %v, want %v; memory file:\n%s", created, !created, disk)
			}
		})
	}
}

// checkPolicyAudit: the audit holds the three calls with their decisions,
// then the run, and nowhere the raw email.
func checkPolicyAudit(t *testing.T, file string) {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatalf("audit file: %v", err)
	}
	if strings.Contains(string(b), policyEmail) {
		t.Errorf("the audit holds the raw email:\n%s", b)
	}
	var calls []string
	var runs int
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		var e struct{ Kind, Tool, Decision, Rule, Approval, Args string }
		if err := json.Unmarshal([]byte(line), &e); err != nil {
			t.Fatalf("audit line %q: %v", line, err)
		}
		switch e.Kind {
		case "call":
			calls = append(calls, strings.TrimSpace(e.Tool+" "+e.Decision+" "+e.Approval))
			if e.Tool == "memory.create_entities" && !strings.Contains(e.Args, "[EMAIL_") {
				t.Errorf("create's audited args %q: want the email as a token", e.Args)
			}
		case "run":
			runs++
		}
	}
	want := []string{"memory.create_entities ask allow_once", "memory.delete_entities deny", "memory.read_graph allow"}
	if !slices.Equal(calls, want) || runs != 1 {
		t.Errorf("audited calls %q and %d runs; want %q and one run:\n%s", calls, runs, want, b)
	}
}
