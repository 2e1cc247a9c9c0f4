// Package oauth signs toolfold in to HTTP upstreams that use MCP's OAuth 2.1
// authorization (an upstream's oauth: settings in proxy.yaml).
//
// A Handler is the go-sdk's auth.OAuthHandler for one upstream: the
// streamable HTTP transport asks it for a token before each request and
// calls its Authorize on a 401, or a 403 with insufficient_scope. The
// protocol itself is the go-sdk's (auth.AuthorizationCodeHandler, package
// oauthex) and golang.org/x/oauth2's: protected-resource and
// authorization-server metadata discovery (with the 2025-03-26 fallbacks),
// client ID metadata documents, pre-registered clients or dynamic client
// registration, PKCE (S256), the resource parameter. This package adds
// what a proxy needs around it:
//
//   - tokens that outlive the process, in a Store (a 0600 JSON file), and
//     refreshed with the refresh token a minute before they expire (sooner
//     for short-lived ones);
//   - the authorization code arriving on a loopback redirect listener
//     (http://127.0.0.1:PORT/callback, a new port per sign-in) while
//     Options.Open shows the user the authorization URL;
//   - step-up: a 403 insufficient_scope signs in again asking for the
//     union of the scopes already granted and those the server names, and
//     gives up when the server names nothing new or after three sign-ins
//     in ten minutes, so a server that is never satisfied does not loop;
//   - no Open (serve without TOOLFOLD_OAUTH_OPEN): the handler never starts
//     a sign-in by itself; Authorize fails with a *LoginNeededError that
//     names `toolfold login UPSTREAM`.
//
// Tokens, client secrets and codes never appear in errors or logs.
package oauth
