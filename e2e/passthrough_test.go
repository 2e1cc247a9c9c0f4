package e2e

import (
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// strictName is the tool and prompt name pattern strict clients (Claude)
// accept.
var strictName = regexp.MustCompile(`^[a-zA-Z0-9_-]{1,64}$`)

func toolNames(t *testing.T, cs *mcp.ClientSession) []string {
	t.Helper()
	var names []string
	for tool, err := range cs.Tools(testCtx(t, callTimeout), nil) {
		if err != nil {
			t.Fatal(err)
		}
		names = append(names, tool.Name)
	}
	slices.Sort(names)
	return names
}

func promptNames(t *testing.T, cs *mcp.ClientSession) []string {
	t.Helper()
	var names []string
	for p, err := range cs.Prompts(testCtx(t, callTimeout), nil) {
		if err != nil {
			t.Fatal(err)
		}
		names = append(names, p.Name)
	}
	slices.Sort(names)
	return names
}

// TestPassthroughEverything: with expose: passthrough, one wrapped npm
// everything server looks like itself: its tools, prompts and resources
// under their own names, all working through toolfold.
func TestPassthroughEverything(t *testing.T) {
	t.Parallel()
	ups := map[string]upstream{"everything": npmUpstream(t, "everything")}
	cs := startStdio(t, writeConfig(t, configYAML(ups)+"expose: passthrough\n"))
	ctx := testCtx(t, callTimeout)

	tools := toolNames(t, cs)
	if !slices.Contains(tools, "echo") || slices.Contains(tools, "search_tools") || slices.Contains(tools, "run_script") {
		t.Fatalf("passthrough tools: %v; want the upstream's own (echo, ...) and not toolfold's two", tools)
	}
	if got := text(callTool(t, cs, "echo", map[string]any{"message": "through toolfold"})); !strings.Contains(got, "through toolfold") {
		t.Errorf("echo: %q", got)
	}

	if prompts := promptNames(t, cs); !slices.Contains(prompts, "simple-prompt") {
		t.Fatalf("prompts: %v; want simple-prompt", prompts)
	}
	pr, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "simple-prompt"})
	if err != nil || len(pr.Messages) == 0 {
		t.Fatalf("prompts/get simple-prompt: %v, %+v", err, pr)
	}

	var templates []string
	for tmpl, err := range cs.ResourceTemplates(ctx, nil) {
		if err != nil {
			t.Fatal(err)
		}
		templates = append(templates, tmpl.URITemplate)
	}
	var textTemplate string
	for _, tmpl := range templates {
		if strings.HasPrefix(tmpl, "demo://resource/dynamic/text/") {
			textTemplate = tmpl
		}
	}
	if textTemplate == "" {
		t.Fatalf("resource templates: %v; want demo://resource/dynamic/text/{...}", templates)
	}
	uri := textTemplate[:strings.Index(textTemplate, "{")] + "1"
	rr, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri})
	if err != nil || len(rr.Contents) == 0 || rr.Contents[0].URI != uri {
		t.Fatalf("resources/read %s: %v, %+v", uri, err, rr)
	}
	if _, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "nowhere://x"}); err == nil {
		t.Errorf("resources/read of a URI no upstream serves succeeded")
	}
}

// TestPassthroughCollisions: two upstreams with the same tools and prompts
// get them namespaced, in names strict clients accept, each reaching its own
// upstream.
func TestPassthroughCollisions(t *testing.T) {
	t.Parallel()
	ups := map[string]upstream{"a": npmUpstream(t, "everything"), "b": npmUpstream(t, "everything")}
	cs := startStdio(t, writeConfig(t, configYAML(ups)+"expose: passthrough\n"))
	tools := toolNames(t, cs)
	if !slices.Contains(tools, "a__echo") || !slices.Contains(tools, "b__echo") || slices.Contains(tools, "echo") {
		t.Fatalf("tools: %v; want a__echo and b__echo, not echo", tools)
	}
	prompts := promptNames(t, cs)
	if !slices.Contains(prompts, "a__simple-prompt") || !slices.Contains(prompts, "b__simple-prompt") {
		t.Fatalf("prompts: %v; want a__simple-prompt and b__simple-prompt", prompts)
	}
	for _, n := range append(tools, prompts...) {
		if !strictName.MatchString(n) {
			t.Errorf("%q does not match %s", n, strictName)
		}
	}
	if got := text(callTool(t, cs, "b__echo", map[string]any{"message": "to b"})); !strings.Contains(got, "to b") {
		t.Errorf("b__echo: %q", got)
	}
	if _, err := cs.GetPrompt(testCtx(t, callTimeout), &mcp.GetPromptParams{Name: "a__simple-prompt"}); err != nil {
		t.Errorf("prompts/get a__simple-prompt: %v", err)
	}
}

// TestHybridPins: expose: hybrid advertises the two tools plus the pinned
// ones, which are called directly.
func TestHybridPins(t *testing.T) {
	t.Parallel()
	ups := map[string]upstream{"everything": npmUpstream(t, "everything")}
	cs := startStdio(t, writeConfig(t, configYAML(ups)+"expose: hybrid\npin: [everything.echo]\n"))
	if tools := toolNames(t, cs); !slices.Equal(tools, []string{"echo", "run_script", "search_tools"}) {
		t.Fatalf("hybrid tools: %v; want echo, run_script, search_tools", tools)
	}
	if got := text(callTool(t, cs, "echo", map[string]any{"message": "pinned"})); !strings.Contains(got, "pinned") {
		t.Errorf("echo: %q", got)
	}
	if out := scriptOK(t, cs, `return tools.everything.echo{message = "scripted"}`); !strings.Contains(out, "scripted") {
		t.Errorf("run_script: %q", out)
	}
}
