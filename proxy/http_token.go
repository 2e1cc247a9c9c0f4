package proxy

// BearerTokenEnv names the environment variable that supplies the HTTP
// bearer token when the config sets no http.bearer_token (a config can also
// take it from any variable: bearer_token: ${MY_TOKEN}).
const BearerTokenEnv = "TOOLFOLD_BEARER_TOKEN"

// BearerToken is the token `serve --http` requires: the config's, else
// $TOOLFOLD_BEARER_TOKEN, else none.
func BearerToken(configured string, getenv func(string) string) string {
	if configured != "" {
		return configured
	}
	return getenv(BearerTokenEnv)
}
