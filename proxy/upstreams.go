package proxy

import (
	"github.com/toolfold/toolfold/upstream"
)

// The upstream pool is package upstream's; these are its names as the
// proxy's API (Status, ProvidedServer.State, call errors) has always
// given them.
type (
	// UpstreamStatus is one row of `toolfold check`.
	UpstreamStatus = upstream.Status
	// UnavailableError is a call to an upstream that cannot take it now;
	// its message tells the model whether to retry.
	UnavailableError = upstream.UnavailableError
)

// Upstream states, as `toolfold check` and search results show them.
const (
	StateConnecting = upstream.StateConnecting
	StateReady      = upstream.StateReady
	StateDown       = upstream.StateDown
	StateDisabled   = upstream.StateDisabled
)

// upstreamProvider is the upstream pool as the first provider.
type upstreamProvider struct{ *upstream.Pool }

var _ Provider = upstreamProvider{}

// Name is "upstreams".
func (upstreamProvider) Name() string { return "upstreams" }

// Servers lists the configured upstreams with their state and tools, an
// upstream not connected yet with its cached tools (upstream.Pool.Catalog).
func (u upstreamProvider) Servers() []ProvidedServer {
	st := u.Catalog()
	out := make([]ProvidedServer, len(st))
	for i, s := range st {
		out[i] = ProvidedServer{Name: s.Name, Description: s.Description, State: s.State, Err: s.Err, Tools: s.Tools}
	}
	return out
}
