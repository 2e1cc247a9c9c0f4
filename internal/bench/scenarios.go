package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/toolfold/toolfold/internal/tokens"
)

// Scenario is one task done both ways.
type Scenario struct {
	Name    string
	Data    string // what the data was
	Checked string // what was verified about both answers
	Classic Cost
	Code    Cost
}

// Saved is the fraction of context tokens code mode saves.
func (s Scenario) Saved() float64 {
	return 1 - float64(s.Code.Total())/float64(s.Classic.Total())
}

// DocCopyGoal is issue 8's goal for the document copy: at least this
// fraction of tokens saved.
const DocCopyGoal = 0.995

// sizes are the scenarios' data sizes.
type sizes struct {
	docTokens, rows, customers, orders int
	pollAfter, pollSleep               time.Duration
}

func (e *env) sizes() sizes {
	if e.opts.Quick {
		return sizes{docTokens: 5000, rows: 1000, customers: 10, orders: 200, pollAfter: 300 * time.Millisecond, pollSleep: 200 * time.Millisecond}
	}
	return sizes{docTokens: 50000, rows: 10000, customers: 40, orders: 2000, pollAfter: 1500 * time.Millisecond, pollSleep: 500 * time.Millisecond}
}

func (e *env) scenarios(ctx context.Context, rep *Report) error {
	schemasDirect, schemasProxy := rep.Schemas[0].DirectTokens, rep.Schemas[0].ProxyTokens
	for _, f := range []func(context.Context, sizes, *ledger, *ledger) (Scenario, error){
		e.docCopy, e.filterTable, e.join, e.poll,
	} {
		classic, code := &ledger{Cost{Schemas: schemasDirect}}, &ledger{Cost{Schemas: schemasProxy}}
		s, err := f(ctx, e.sizes(), classic, code)
		if err != nil {
			return fmt.Errorf("%s: %w", s.Name, err)
		}
		s.Classic, s.Code = classic.Cost, code.Cost
		rep.Scenarios = append(rep.Scenarios, s)
		e.progress("scenario %s: %d vs %d tokens", s.Name, s.Classic.Total(), s.Code.Total())
	}
	return nil
}

// cleanup makes a call that undoes a scenario's setup, even when ctx is
// done, for at most 10 s.
func cleanup(ctx context.Context, c *client, tool string, args any) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	c.call(ctx, tool, args)
}

// luaString quotes s for Lua source.
func luaString(s string) string {
	b, _ := json.Marshal(s) // a JSON string without \u escapes for our paths is a Lua string
	return string(b)
}

var words = strings.Fields(`the proxy server tool schema context token budget model agent call result
script sandbox search index upstream client request response latency memory graph entity relation
observation file directory table row column filter join aggregate region order customer amount
quarterly report revenue forecast policy review draft section appendix summary figure chart metric
owner deadline status pending approved refunded shipped archived north south east west`)

// document is about n tokens of deterministic prose.
func document(n int) string {
	r := rand.New(rand.NewPCG(1, 2))
	var b strings.Builder
	for got := 0; got < n; {
		var p strings.Builder
		for s := 0; s < 5; s++ {
			k := 8 + r.IntN(10)
			for i := 0; i < k; i++ {
				w := words[r.IntN(len(words))]
				if i == 0 {
					w = strings.ToUpper(w[:1]) + w[1:]
				}
				p.WriteString(w)
				if i < k-1 {
					p.WriteByte(' ')
				}
			}
			p.WriteString(". ")
		}
		p.WriteString("\n\n")
		got += tokens.Count(p.String())
		b.WriteString(p.String())
	}
	return b.String()
}

// docCopy: copy a document from the filesystem server to the memory server.
func (e *env) docCopy(ctx context.Context, sz sizes, classic, code *ledger) (Scenario, error) {
	doc := document(sz.docTokens)
	s := Scenario{Name: "copy a document (filesystem → memory)",
		Data:    fmt.Sprintf("%s-token text file (%s)", num(tokens.Count(doc)), size(len(doc))),
		Checked: "the memory server holds the whole document, byte for byte, after each way"}
	path := filepath.Join(e.work, "report.txt")
	if err := os.WriteFile(path, []byte(doc), 0o600); err != nil {
		return s, err
	}
	fs, mem := e.direct["filesystem"], e.direct["memory"]
	defer cleanup(ctx, mem, "delete_entities", map[string]any{"entityNames": []string{"doc-classic", "doc-code"}})

	text, err := classic.call(ctx, fs, "read_text_file", map[string]any{"path": path})
	if err != nil {
		return s, err
	}
	if _, err := classic.call(ctx, mem, "create_entities", map[string]any{"entities": []any{
		map[string]any{"name": "doc-classic", "entityType": "document", "observations": []string{text}}}}); err != nil {
		return s, err
	}

	if err := code.search(ctx, e.pc, "read text file and create memory entities", 5,
		"filesystem.read_text_file", "memory.create_entities"); err != nil {
		return s, err
	}
	var got struct{ Copied int }
	script := fmt.Sprintf(`local doc = tools.filesystem.read_text_file{path = %s}.content
tools.memory.create_entities{entities = {{name = "doc-code", entityType = "document", observations = {doc}}}}
return {copied = #doc}`, luaString(path))
	if out, err := code.run(ctx, e.pc, script, &got); err != nil {
		return s, fmt.Errorf("%w\n%s", err, out)
	}
	if got.Copied != len(doc) {
		return s, fmt.Errorf("%w: the script copied %d bytes, the document has %d", errWrong, got.Copied, len(doc))
	}
	for _, name := range []string{"doc-classic", "doc-code"} {
		obs, err := e.observations(ctx, name)
		if err != nil {
			return s, err
		}
		if len(obs) != 1 || obs[0] != doc {
			return s, fmt.Errorf("%w: memory entity %s does not hold the document", errWrong, name)
		}
	}
	return s, nil
}

// observations reads an entity's observations from the memory server (a
// check: not counted).
func (e *env) observations(ctx context.Context, name string) ([]string, error) {
	text, err := e.direct["memory"].call(ctx, "open_nodes", map[string]any{"names": []string{name}})
	if err != nil {
		return nil, err
	}
	var g struct {
		Entities []struct {
			Name         string
			Observations []string
		}
	}
	if err := json.Unmarshal([]byte(text), &g); err != nil {
		return nil, fmt.Errorf("memory open_nodes: %w", err)
	}
	for _, en := range g.Entities {
		if en.Name == name {
			return en.Observations, nil
		}
	}
	return nil, fmt.Errorf("%w: memory has no entity %s", errWrong, name)
}

// filterTable: find the few rows of a large CSV that matter.
func (e *env) filterTable(ctx context.Context, sz sizes, classic, code *ledger) (Scenario, error) {
	r := rand.New(rand.NewPCG(3, 4))
	regions := []string{"north", "south", "east", "west"}
	products := []string{"widget", "gadget", "gizmo", "doohickey", "sprocket"}
	statuses := []string{"shipped", "shipped", "shipped", "pending", "archived"}
	var b strings.Builder
	var want []string
	b.WriteString("id,date,region,product,units,unit_price,status\n")
	for i := 1; i <= sz.rows; i++ {
		status := statuses[r.IntN(len(statuses))]
		if r.IntN(50) == 0 {
			status = "refunded"
		}
		units := 1 + r.IntN(100)
		if i == sz.rows && len(want) < 2 { // at least a couple of matches at any size
			status, units = "refunded", 99
		}
		line := fmt.Sprintf("%d,2026-%02d-%02d,%s,%s,%d,%d.%02d,%s", i, 1+r.IntN(12), 1+r.IntN(28),
			regions[r.IntN(4)], products[r.IntN(5)], units, 1+r.IntN(200), r.IntN(100), status)
		if status == "refunded" && units >= 95 {
			want = append(want, line)
		}
		b.WriteString(line + "\n")
	}
	s := Scenario{Name: "filter a table (filesystem CSV)",
		Data:    fmt.Sprintf("%s-row CSV, %s tokens; %d rows match (refunded, ≥ 95 units)", num(sz.rows), num(tokens.Count(b.String())), len(want)),
		Checked: "the script returns exactly the matching rows"}
	path := filepath.Join(e.work, "sales.csv")
	if err := os.WriteFile(path, []byte(b.String()), 0o600); err != nil {
		return s, err
	}
	if _, err := classic.call(ctx, e.direct["filesystem"], "read_text_file", map[string]any{"path": path}); err != nil {
		return s, err
	}
	if err := code.search(ctx, e.pc, "read a text file", 3, "filesystem.read_text_file"); err != nil {
		return s, err
	}
	script := fmt.Sprintf(`local csv = tools.filesystem.read_text_file{path = %s}.content
local rows = {}
for line in string.gmatch(csv, "[^\n]+") do
  local units, status = string.match(line, "^[^,]*,[^,]*,[^,]*,[^,]*,([^,]*),[^,]*,([^,]*)$")
  if status == "refunded" and tonumber(units) >= 95 then rows[#rows + 1] = line end
end
return rows`, luaString(path))
	var got []string
	if out, err := code.run(ctx, e.pc, script, &got); err != nil {
		return s, fmt.Errorf("%w\n%s", err, out)
	}
	if !slices.Equal(got, want) {
		return s, fmt.Errorf("%w: the script returned %d rows %q, want %d %q", errWrong, len(got), got, len(want), want)
	}
	return s, nil
}

// join: orders from a file, customers' regions from the memory graph,
// revenue per region.
func (e *env) join(ctx context.Context, sz sizes, classic, code *ledger) (Scenario, error) {
	r := rand.New(rand.NewPCG(5, 6))
	regions := []string{"north", "south", "east", "west"}
	region := make(map[string]string)
	var ents []any
	var names []string
	for i := 1; i <= sz.customers; i++ {
		name := fmt.Sprintf("cust-%03d", i)
		region[name] = regions[r.IntN(4)]
		names = append(names, name)
		ents = append(ents, map[string]any{"name": name, "entityType": "customer",
			"observations": []string{"region: " + region[name], fmt.Sprintf("since: %d", 2015+r.IntN(11))}})
	}
	mem := e.direct["memory"]
	if _, err := mem.call(ctx, "create_entities", map[string]any{"entities": ents}); err != nil {
		return Scenario{Name: "join two servers"}, err
	}
	defer cleanup(ctx, mem, "delete_entities", map[string]any{"entityNames": names})
	want := make(map[string]int)
	var b strings.Builder
	b.WriteString("order_id,customer,amount\n")
	for i := 1; i <= sz.orders; i++ {
		c := names[r.IntN(len(names))]
		amt := 5 + r.IntN(995)
		want[region[c]] += amt
		fmt.Fprintf(&b, "o%05d,%s,%d\n", i, c, amt)
	}
	s := Scenario{Name: "join two servers (file + memory graph)",
		Data:    fmt.Sprintf("%s orders in a CSV (%s tokens) × %d customers in the graph; revenue per region", num(sz.orders), num(tokens.Count(b.String())), sz.customers),
		Checked: "the script's per-region totals equal the bench's own sums"}
	path := filepath.Join(e.work, "orders.csv")
	if err := os.WriteFile(path, []byte(b.String()), 0o600); err != nil {
		return s, err
	}
	if _, err := classic.call(ctx, e.direct["filesystem"], "read_text_file", map[string]any{"path": path}); err != nil {
		return s, err
	}
	if _, err := classic.call(ctx, mem, "read_graph", map[string]any{}); err != nil {
		return s, err
	}
	if err := code.search(ctx, e.pc, "read a text file; read the whole knowledge graph", 6,
		"filesystem.read_text_file", "memory.read_graph"); err != nil {
		return s, err
	}
	script := fmt.Sprintf(`local region = {}
for _, e in ipairs(tools.memory.read_graph{}.entities) do
  for _, o in ipairs(e.observations) do
    local r = string.match(o, "^region: (%%a+)$")
    if r then region[e.name] = r end
  end
end
local total = {}
for c, a in string.gmatch(tools.filesystem.read_text_file{path = %s}.content, "\n[^,]+,([^,]+),(%%d+)") do
  local r = region[c] or "unknown"
  total[r] = (total[r] or 0) + tonumber(a)
end
return total`, luaString(path))
	got := make(map[string]int)
	if out, err := code.run(ctx, e.pc, script, &got); err != nil {
		return s, fmt.Errorf("%w\n%s", err, out)
	}
	if !maps.Equal(got, want) {
		return s, fmt.Errorf("%w: the script's totals %v, want %v", errWrong, got, want)
	}
	return s, nil
}

// poll: wait for a file to appear, sleeping with the everything server's
// long-running operation between polls, then read it.
func (e *env) poll(ctx context.Context, sz sizes, classic, code *ledger) (Scenario, error) {
	s := Scenario{Name: "poll until a file appears",
		Data: fmt.Sprintf("the file appears %s after the start; %s sleeps (everything's trigger-long-running-operation) between polls",
			sz.pollAfter, sz.pollSleep),
		Checked: "both ways read the file's nonce"}
	sleep := map[string]any{"duration": sz.pollSleep.Seconds(), "steps": 1}
	drop := func(dir string) (nonce string, err error) {
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return "", err
		}
		nonce = fmt.Sprintf("job finished: %x", rand.Uint64())
		time.AfterFunc(sz.pollAfter, func() { os.WriteFile(filepath.Join(dir, "ready.txt"), []byte(nonce), 0o600) })
		return nonce, nil
	}
	dir := filepath.Join(e.work, "inbox-classic")
	nonce, err := drop(dir)
	if err != nil {
		return s, err
	}
	fs, ev := e.direct["filesystem"], e.direct["everything"]
	for i := 0; ; i++ {
		if i == 60 {
			return s, fmt.Errorf("%w: the file never appeared after 60 polls", errWrong)
		}
		ls, err := classic.call(ctx, fs, "list_directory", map[string]any{"path": dir})
		if err != nil {
			return s, err
		}
		if strings.Contains(ls, "ready.txt") {
			break
		}
		if _, err := classic.call(ctx, ev, "trigger-long-running-operation", sleep); err != nil {
			return s, err
		}
	}
	text, err := classic.call(ctx, fs, "read_text_file", map[string]any{"path": filepath.Join(dir, "ready.txt")})
	if err != nil {
		return s, err
	}
	if text != nonce {
		return s, fmt.Errorf("%w: classic read %q, want %q", errWrong, text, nonce)
	}

	dir = filepath.Join(e.work, "inbox-code")
	if nonce, err = drop(dir); err != nil {
		return s, err
	}
	if err := code.search(ctx, e.pc, "list a directory, read a text file, run a long running operation", 5,
		"filesystem.list_directory", "filesystem.read_text_file", "everything.trigger_long_running_operation"); err != nil {
		return s, err
	}
	script := fmt.Sprintf(`local dir = %s
for i = 1, 60 do
  if string.find(tools.filesystem.list_directory{path = dir}.content, "ready.txt", 1, true) then
    return {polls = i, text = tools.filesystem.read_text_file{path = dir .. "/ready.txt"}.content}
  end
  tools.everything.trigger_long_running_operation{duration = %g, steps = 1}
end
error("the file never appeared")`, luaString(dir), sz.pollSleep.Seconds())
	var got struct {
		Polls int
		Text  string
	}
	if out, err := code.run(ctx, e.pc, script, &got); err != nil {
		return s, fmt.Errorf("%w\n%s", err, out)
	}
	if got.Text != nonce {
		return s, fmt.Errorf("%w: the script read %q, want %q", errWrong, got.Text, nonce)
	}
	return s, nil
}
