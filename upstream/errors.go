package upstream

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// UnavailableError is returned for a call to an upstream that is not
// connected. Its message tells the model what is going on.
type UnavailableError struct {
	Server string
	Reason string
}

func (e *UnavailableError) Error() string {
	if strings.Contains(e.Reason, "toolfold login ") {
		// Waiting will not help: the user must sign in first.
		return fmt.Sprintf("upstream %q is unavailable (%s); tell the user, then retry once they have", e.Server, e.Reason)
	}
	if cannotStart(e.Reason) {
		// Waiting will not help either: the command is missing or not runnable.
		return fmt.Sprintf("upstream %q is unavailable (%s): its command cannot start, so retrying will not help; "+
			"tell the user to fix upstreams.%s in the config (toolfold check shows why)", e.Server, e.Reason, e.Server)
	}
	return fmt.Sprintf("upstream %q is unavailable (%s); toolfold reconnects it automatically, retry shortly", e.Server, e.Reason)
}

// ErrorType names the error for telemetry's error.type.
func (*UnavailableError) ErrorType() string { return "unavailable" }

// cannotStart reports whether reason is os/exec's failure to start a
// command that does not exist or may not be run: a config mistake that no
// reconnection mends.
func cannotStart(reason string) bool {
	if strings.Contains(reason, "executable file not found") || strings.Contains(reason, "exec format error") {
		return true
	}
	return strings.Contains(reason, "fork/exec ") &&
		(strings.Contains(reason, "no such file or directory") || strings.Contains(reason, "permission denied"))
}

// Disconnected reports errors that mean the connection to the upstream
// broke (a crash mid-call reads as EOF on its stdout; an HTTP server that
// went away, as a request the transport could not deliver).
func Disconnected(err error) bool {
	return errors.Is(err, mcp.ErrConnectionClosed) || errors.Is(err, io.EOF) ||
		errors.Is(err, io.ErrUnexpectedEOF) || strings.HasSuffix(err.Error(), ": EOF") ||
		unreachable(err)
}

// malformed reports a failure to parse what an upstream sent.
func malformed(err error) bool {
	msg := err.Error()
	return strings.Contains(msg, "invalid character") || strings.Contains(msg, "unexpected end of JSON input") ||
		strings.Contains(msg, "cannot unmarshal")
}

// codeRejected is the go-sdk's "rejected by transport": an HTTP request
// that did not reach the server or got no usable answer (connection
// refused, 502, 503, 504, 429).
const codeRejected = -32005

// unreachable reports a request the HTTP transport could not deliver. A
// server's own JSON-RPC error in a non-2xx answer is wrapped the same way
// but comes first in the chain, so it is not taken for one.
func unreachable(err error) bool {
	var werr *jsonrpc.Error
	return errors.As(err, &werr) && werr.Code == codeRejected
}
