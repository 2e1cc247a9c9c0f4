package proxy

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/toolfold/toolfold/config"
	"github.com/toolfold/toolfold/internal/testlog"
	"github.com/toolfold/toolfold/skills"
)

// Planted personal data in what an upstream writes about its tools: the
// description, the title, the annotations' title, the schemas.
const (
	plantedEmail = "erin.desc@example.com"
	plantedPhone = "+44 20 7946 0958"
)

// plantedProvider is a fake provider whose tool's description, titles and
// schemas hold plantedEmail and plantedPhone.
func plantedProvider() *fakeProvider {
	fp := newFakeProvider("crm")
	fp.tools = []*mcp.Tool{{
		Name:        "find_owner",
		Title:       "Owner lookup (" + plantedEmail + ")",
		Description: "Find the owner of a record. Contact the owner at " + plantedEmail + " or " + plantedPhone + ".",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"record":{"type":"string","description":"the record id, or ask ` + plantedPhone + `","default":"` + plantedEmail + `"}}}`),
		OutputSchema: map[string]any{"type": "object", "properties": map[string]any{
			"owner": map[string]any{"type": "string", "description": "e.g. " + plantedEmail}}},
		Annotations: &mcp.ToolAnnotations{Title: "Owner lookup, mail " + plantedEmail, ReadOnlyHint: true},
	}}
	return fp
}

// assertNoPlanted fails when text holds a planted value.
func assertNoPlanted(t *testing.T, where, text string) {
	t.Helper()
	for _, raw := range []string{plantedEmail, plantedPhone, "7946 0958"} {
		if strings.Contains(text, raw) {
			t.Errorf("%s shows %q raw:\n%s", where, raw, text)
		}
	}
}

// TestToolDescriptionsAreTokenizedInSearch: search_tools, from the client
// and from a script, shows an upstream's description and schemas with
// tokens, at every detail level, the same tokens the session's results get.
func TestToolDescriptionsAreTokenizedInSearch(t *testing.T) {
	_, cs := startProxyWith(t, testConfig(), &Options{Providers: []Provider{plantedProvider()}})
	for _, detail := range []string{"name", "summary", "full"} {
		text, isErr := callText(t, cs, "search_tools", map[string]any{"query": "find the owner of a record", "detail": detail})
		if isErr || !strings.Contains(text, "find_owner") {
			t.Fatalf("detail %s: isError=%v\n%s", detail, isErr, text)
		}
		assertNoPlanted(t, "search_tools detail "+detail, text)
		if detail == "full" && !strings.Contains(text, "[EMAIL_1]") {
			t.Errorf("detail %s: no [EMAIL_1] where the description had the address:\n%s", detail, text)
		}
	}
	out, failed := runLua(t, cs, `print(search_tools("find the owner of a record", "full"))`)
	if failed || !strings.Contains(out, "find_owner") {
		t.Fatalf("search_tools in a script: failed=%v\n%s", failed, out)
	}
	assertNoPlanted(t, "search_tools in a script", out)
}

// TestToolDescriptionsAreTokenizedInToolsList: in passthrough, tools/list
// shows an upstream tool's title, description, annotations and schema
// descriptions with tokens; the names and the schema's structure stay.
func TestToolDescriptionsAreTokenizedInToolsList(t *testing.T) {
	cfg := testConfig()
	cfg.Expose.Mode = config.ExposePassthrough
	_, cs := startProxyWith(t, cfg, &Options{Providers: []Provider{plantedProvider()}})
	ctx, cancel := context.WithTimeout(context.Background(), testlog.Bound(2*time.Minute))
	defer cancel()
	lt, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(lt)
	assertNoPlanted(t, "tools/list", string(b))
	if len(lt.Tools) != 1 || lt.Tools[0].Name != "find_owner" {
		t.Fatalf("tools/list: %s", b)
	}
	tool := lt.Tools[0]
	if !strings.Contains(tool.Description, "[EMAIL_1] or [PHONE_1]") {
		t.Errorf("description = %q, want the address and number as tokens", tool.Description)
	}
	if !strings.Contains(string(b), `"record":{"default":"[EMAIL_1]"`) {
		t.Errorf("the schema's property or its default is lost: %s", b)
	}
}

// BenchmarkSearchTokenized: search_tools' cost with and without the
// per-session tokenization of what it renders, over 300 tools of which one
// description holds personal data. before is the search as it was (no
// vault); after tokenizes with a session's vault, which costs only where
// the hits show the planted tool (query "owner"), the catalog having been
// scanned once as it was built; tokenize is that cost alone.
func BenchmarkSearchTokenized(b *testing.B) {
	fp := plantedProvider()
	for i := range 300 {
		fp.tools = append(fp.tools, &mcp.Tool{Name: fmt.Sprintf("tool_%d_records", i),
			Description: fmt.Sprintf("Read the records of table %d, filtered by owner and date, and return them as rows. Pages of 100.", i),
			InputSchema: json.RawMessage(`{"type":"object","properties":{"owner":{"type":"string","description":"the owner's id"},"since":{"type":"string"}}}`)})
	}
	p, _ := startProxyWith(b, testConfig(), &Options{Providers: []Provider{fp}})
	plain := context.Background()
	vaulted := p.pii.withVault(plain, p.pii.newVault())
	for _, q := range []struct{ name, query string }{{"owner", "find the owner of a record"}, {"clean", "read the rows of table 7"}} {
		for _, detail := range []string{"summary", "full"} {
			name := q.name + "/" + detail
			b.Run(name+"/before", func(b *testing.B) {
				for b.Loop() {
					p.searchCatalog(plain, q.query, detail, 10, "", "")
				}
			})
			b.Run(name+"/after", func(b *testing.B) {
				for b.Loop() {
					p.searchCatalog(vaulted, q.query, detail, 10, "", "")
				}
			})
			text, _, _ := p.searchCatalog(plain, q.query, detail, 10, "", "")
			v := p.pii.newVault()
			b.Run(name+"/tokenize", func(b *testing.B) {
				b.SetBytes(int64(len(text)))
				for b.Loop() {
					v.Tokenize(text)
				}
			})
		}
	}
}

// TestSkillSaveRefusesRawPersonalData: a skill whose description, notes or
// code holds a value the detector finds is not saved, and the refusal
// names the value's type and place, never the value; nothing reaches the
// store.
func TestSkillSaveRefusesRawPersonalData(t *testing.T) {
	store := skills.NewFiles(filepath.Join(t.TempDir(), "skills"))
	_, cs := startProxyWith(t, testConfig(), &Options{Skills: store})
	out, failed := runLua(t, cs, `
local ok, err = pcall(skills.save, {name = "d", description = "Mail `+plantedEmail+` about it", code = "return 1"})
print(err)
ok, err = pcall(skills.save, {name = "n", description = "Notes", notes = "Call `+plantedPhone+` first", code = "return 1"})
print(err)
ok, err = pcall(skills.save, {name = "c", description = "Code", code = "local x = 1\nreturn '`+plantedEmail+`'"})
print(err)`)
	if failed {
		t.Fatalf("script failed:\n%s", out)
	}
	for _, want := range []string{
		"skills.save: skill d: the description holds personal data (EMAIL at line 1, column 6)",
		"skills.save: skill n: the notes holds personal data (PHONE at line 1, column 6)",
		"skills.save: skill c: the code holds personal data (EMAIL at line 2, column 9)",
		"make the value an argument (parameters)",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	assertNoPlanted(t, "the refusals", out)
	if list, err := store.List(context.Background()); err != nil || len(list) != 0 {
		t.Errorf("store holds %+v (%v); want nothing", list, err)
	}
}

// TestCapturedContentHoldsNoPersonalData: with CaptureContent, what a
// script typed (its code, a tool call's arguments, a search query) and
// the run's error reach spans as tokens or types, never raw.
func TestCapturedContentHoldsNoPersonalData(t *testing.T) {
	up := newPIIServer()
	rig := newTelemetryRig(t, true)
	_, cs := startProxyWith(t, testConfig(httpUpstream(t, "crm", up.srv)), rig.opts)
	out, failed := runLua(t, cs, `
search_tools("mail `+plantedEmail+`")
tools.crm.save{to = "`+plantedEmail+`", body = "call `+plantedPhone+`"}
error("no answer from `+plantedEmail+`")`)
	if !failed {
		t.Fatalf("the script did not fail:\n%s", out)
	}
	spans := rig.spans.GetSpans()
	var seen []string
	for _, s := range spans {
		texts := []string{s.Name, s.Status.Description}
		for _, a := range s.Attributes {
			texts = append(texts, a.Value.Emit())
		}
		for _, e := range s.Events {
			for _, a := range e.Attributes {
				texts = append(texts, a.Value.Emit())
			}
		}
		for _, x := range texts {
			assertNoPlanted(t, "span "+s.Name, x)
		}
		seen = append(seen, s.Name)
	}
	for _, want := range []string{"execute_script", "search_tools", "tools/call save"} {
		if !slices.Contains(seen, want) {
			t.Errorf("no span %q among %v", want, seen)
		}
	}
	if got := up.saved(); len(got) != 1 || !strings.Contains(got[0], plantedEmail) {
		t.Errorf("the upstream got %v; want the address the script typed, as typed", got)
	}
}
