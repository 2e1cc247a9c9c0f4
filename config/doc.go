// Package config loads toolfold's configuration: which MCP servers sit
// behind the proxy (the upstreams), the limits of run_script, the HTTP
// listener, and where telemetry goes. Load returns a *Config that is fully checked, with every
// default applied and every ${VAR} expanded, so the rest of toolfold never
// looks at a zero value or an unexpanded string.
//
// # proxy.yaml
//
// The toolfold format is YAML (JSON is YAML too). The commented proxy.yaml
// at the root of the repository is the reference; in short:
//
//	upstreams:                      # name → server; file order is kept
//	  filesystem:
//	    description: read and write project files   # optional, shown to the model
//	    command: npx                # stdio: run a child, speak MCP on its stdin/stdout
//	    args: ["-y", "@modelcontextprotocol/server-filesystem@2026.8.31", "."]
//	    env: {LOG_LEVEL: warn}      # added to toolfold's environment
//	    cwd: .                      # relative to this file's directory (the default)
//	    connect_timeout: 60s        # default 60s
//	    call_timeout: 2m            # default 2m
//	  github:
//	    url: https://api.example.com/mcp            # http: streamable HTTP
//	    headers: {Authorization: "Bearer ${GITHUB_TOKEN}"}
//	    disabled: true              # kept in the file, not started
//	sandbox:                        # run_script limits; see DefaultSandbox
//	  timeout: 30s
//	  memory: 512MiB
//	  python: python3               # run_script's python: a path or a name on PATH; off disables
//	  node: node                    # run_script's javascript, likewise
//	  workspace_size: 256MiB        # a session's workspace
//	  workspace_budget: 4GiB        # all sessions' workspaces together
//	  workspace_dir: .toolfold/ws   # keep the stdio session's workspace there (default: removed)
//	  require: degraded             # full | degraded | none: isolation layers a run needs
//	http:                           # for `toolfold serve --http`
//	  addr: 127.0.0.1:8765
//	  bearer_token: ${TOOLFOLD_TOKEN}
//	  max_sessions: 256             # live HTTP sessions; past it 503
//	pii:                            # tokenizing personal data; see PII (on by default)
//	  phone_regions: [US]
//	  allow: [support@example.com]
//	skills:                         # saved skills; see Skills
//	  dir: .toolfold/skills         # default, beside this file
//	  save: true                    # HTTP sessions may save too (default: stdio only)
//	policy:                         # which tool calls are made, asked about, refused; see Policy
//	  default: allow                # allow | ask | deny
//	  approval_timeout: 2m
//	  rules:                        # first match wins
//	    - {match: memory.delete_*, action: deny}
//	    - {annotations: {destructiveHint: true}, action: ask}
//	    - {match: "*.send_*", rate: 10/min, per: session}
//	audit:                          # a JSON line per upstream call and run; see Audit
//	  file: .toolfold/audit.jsonl
//	  max_size_mb: 100
//	  max_backups: 10
//	telemetry:                      # OpenTelemetry; see Telemetry
//	  traces_exporter: otlp         # otlp, console (stderr) or none
//	  metrics_exporter: none
//	  endpoint: http://127.0.0.1:4317
//	  protocol: grpc                # or http/protobuf
//	  headers: {x-api-key: "${OTLP_KEY}"}
//
// The transport is inferred (command → stdio, url → http) or written out as
// "transport: stdio|http". Durations use Go syntax (30s, 2m, 1h30m). Sizes
// are a number of bytes or a number with a unit: 64KiB, 512MiB, 1GiB
// (powers of 1024), 10MB, 1.5GB (powers of 1000).
//
// # Telemetry
//
// The "telemetry:" section says where OpenTelemetry traces and metrics go:
// service_name (default "toolfold"), traces_exporter and metrics_exporter
// (otlp, console or none), endpoint (an OTLP base URL: over http/protobuf,
// /v1/traces and /v1/metrics are appended), protocol (grpc or
// http/protobuf; "http" is short for the latter), headers (sent with
// every export) and capture_content (record arguments, results, script
// code and queries on spans; default false). Without the section nothing
// is exported. The standard OTEL_* environment variables override it;
// cmd/toolfold resolves the two and documents how.
//
// # Policy and audit
//
// The "policy:" section is decoded here and applied by package policy:
// rules match a qualified tool name with a glob (match) and/or the hints
// the tool declares (annotations); a rule without an action takes the
// default and only limits the rate. The "audit:" section names the file
// package audit writes; without it nothing is recorded. audit.file may
// use ${VAR}.
//
// # Environment variables
//
// command, args, env values, cwd, url, header values, http.bearer_token,
// telemetry.endpoint and telemetry.headers values may refer to the
// environment: ${VAR}, ${VAR:-default} (used when VAR is
// unset or empty), ${VAR-default} (when unset), ${env:VAR}; "$$" is a
// literal "$". A bare $VAR is left alone. An unset ${VAR} without a default
// is an error, except in a disabled upstream. Error messages name
// variables, never their values.
//
// # Clients' files
//
// A file with a top-level "mcpServers" (Claude Desktop, Claude Code's
// .mcp.json, Cursor, Continue's YAML list) or "servers" (VS Code's
// .vscode/mcp.json) is read as the client reads it, so
// `toolfold serve -c ~/.cursor/mcp.json` works unchanged: JSON with
// comments and trailing commas is accepted, keys clients use that toolfold
// does not become Config.Warnings, a near miss of a key toolfold reads
// ("comand") is an error with a did-you-mean, "disabled": true is honored,
// names are normalized to [A-Za-z0-9_-]+ (with a warning), and VS Code's
// ${workspaceFolder} and ${userHome} resolve. What toolfold cannot do is an
// error that says what to do instead: the deprecated SSE transport, and
// VS Code's ${input:…} prompts.
//
// # Errors
//
// proxy.yaml is decoded strictly: unknown keys (with a did-you-mean),
// wrong types, bad durations and sizes, duplicate keys and unset variables
// are all reported at once, as Errors, one per line, sorted by position:
//
//	proxy.yaml:3:5: upstreams.fs.comand: unknown key "comand"; did you mean "command"?
//	proxy.yaml:5:19: upstreams.fs.call_timeout: invalid duration "30 seconds"; use Go syntax like 30s or 2m
//
// Use errors.As with Errors to get each *Error's file, line, column and path.
package config
