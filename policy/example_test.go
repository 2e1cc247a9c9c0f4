package policy_test

import (
	"context"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/toolfold/toolfold/config"
	"github.com/toolfold/toolfold/policy"
)

// The proxy calls Authorize on the upstream edge for every tool call; a
// refusal's message is what the model (or a script's pcall) sees.
func ExamplePolicy_Authorize() {
	src := `
upstreams:
  memory: {command: npx}
policy:
  rules:
    - match: memory.create_entities
      action: ask
    - match: memory.delete_*
      action: deny
`
	cfg, err := config.Parse("proxy.yaml", []byte(src), nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	p := policy.New(cfg.Policy, nil)
	var approvals policy.Approvals // the client session's
	person := func(ctx context.Context, params *mcp.ElicitParams) (*mcp.ElicitResult, error) {
		return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"decision": "allow_session"}}, nil
	}
	for _, name := range []string{"memory.create_entities", "memory.create_entities", "memory.delete_entities", "memory.read_graph"} {
		v, err := p.Authorize(context.Background(), policy.Call{Tool: policy.Tool{Name: name}, Session: "s1"}, &approvals, person)
		if err != nil {
			fmt.Println(err)
			continue
		}
		fmt.Printf("%s: %s by %s, approval %q\n", name, v.Action, v.Rule, v.Approval)
	}
	// Output:
	// memory.create_entities: ask by policy rule 1 (memory.create_entities), approval "allow_session"
	// memory.create_entities: ask by policy rule 1 (memory.create_entities), approval "session"
	// memory.delete_entities: denied by policy rule 2 (memory.delete_*) at line 8; the call was not made. To allow it, put {match: memory.delete_entities, action: allow} before rule 2 in policy.rules of proxy.yaml, or change that rule
	// memory.read_graph: allow by the policy default (allow), approval ""
}
