package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/toolfold/toolfold/internal/tokens"
)

// Cost is what one way of doing a task puts in the model's context, in
// tokens: the tool schemas it loaded, the calls it wrote (tool name and
// arguments; for code mode the search query and the script) and the
// results it read.
type Cost struct {
	Schemas     int
	Requests    int
	Results     int
	ClientCalls int // tool calls the model made
	ToolCalls   int // upstream tool calls made (by the model, or by the script)
}

// Total is every token that entered the context.
func (c Cost) Total() int { return c.Schemas + c.Requests + c.Results }

// ledger makes calls for one way of doing a task and counts their cost.
type ledger struct {
	Cost
}

// request counts a tools/call request as the model writes it.
func requestTokens(tool string, args any) int {
	b, _ := json.Marshal(map[string]any{"name": tool, "arguments": args})
	return tokens.Count(string(b))
}

// call makes a direct call; its request and result enter the context.
func (l *ledger) call(ctx context.Context, c *client, tool string, args any) (string, error) {
	l.Requests += requestTokens(tool, args)
	text, err := c.call(ctx, tool, args)
	l.Results += tokens.Count(text)
	l.ClientCalls++
	l.ToolCalls++
	return text, err
}

// search calls toolfold's search_tools and checks that the answer names
// every tool in need (the script then calls them as the answer shows).
func (l *ledger) search(ctx context.Context, pc *client, query string, limit int, need ...string) error {
	args := map[string]any{"query": query, "limit": limit}
	l.Requests += requestTokens("search_tools", args)
	text, err := pc.call(ctx, "search_tools", args)
	l.Results += tokens.Count(text)
	l.ClientCalls++
	if err != nil {
		return err
	}
	for _, n := range need {
		if !strings.Contains(text, n) {
			return fmt.Errorf("search_tools %q did not surface %s, which the script calls:\n%s", query, n, text)
		}
	}
	return nil
}

var footerRE = regexp.MustCompile(`\[toolfold: (\d+) tool calls?,`)

// run calls run_script with code and decodes the value the script
// returned (the "=> " line) into v.
func (l *ledger) run(ctx context.Context, pc *client, code string, v any) (string, error) {
	args := map[string]any{"code": code}
	l.Requests += requestTokens("run_script", args)
	text, err := pc.call(ctx, "run_script", args)
	l.Results += tokens.Count(text)
	l.ClientCalls++
	if m := footerRE.FindStringSubmatch(text); m != nil {
		n, _ := strconv.Atoi(m[1])
		l.ToolCalls += n
	}
	if err != nil {
		return text, err
	}
	for line := range strings.SplitSeq(text, "\n") {
		if val, ok := strings.CutPrefix(line, "=> "); ok {
			if err := json.Unmarshal([]byte(val), v); err != nil {
				return text, fmt.Errorf("run_script returned %s: %w", val, err)
			}
			return text, nil
		}
	}
	return text, fmt.Errorf("run_script returned no value:\n%s", text)
}
