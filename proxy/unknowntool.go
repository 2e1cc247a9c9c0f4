package proxy

import (
	"errors"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/toolfold/toolfold/config"
)

// unknownClientTool rewrites the go-sdk's bare `unknown tool "x"` for a
// client that calls a tool toolfold does not advertise, typically an
// upstream tool by its own name: in code mode (and hybrid, for a tool not
// pinned) it says how to reach the tool. Other errors pass unchanged.
func (p *Proxy) unknownClientTool(name string, err error) error {
	var werr *jsonrpc.Error
	if !errors.As(err, &werr) || werr.Code != jsonrpc.CodeInvalidParams ||
		!strings.HasPrefix(werr.Message, "unknown tool") || p.cfg.Expose.Mode == config.ExposePassthrough {
		return err
	}
	msg := fmt.Sprintf("unknown tool %q: this server's tools are called from scripts: find one with search_tools, then call it in run_script's code", name)
	if s := p.catalog.Load().Suggest(name, 3); len(s) > 0 {
		msg += " (matching tools: " + strings.Join(s, ", ") + ")"
	}
	return &jsonrpc.Error{Code: werr.Code, Message: msg}
}
