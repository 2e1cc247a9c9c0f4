package config

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestErrors pins the exact messages: each case is a file and the lines
// Parse must report for it, all at once and in order.
func TestErrors(t *testing.T) {
	vars := map[string]string{"HOME": "/home/u", "SECRET": "hunter2"}
	for _, tc := range []struct {
		name, file, src string
		want            []string
	}{{
		name: "typo with suggestion",
		src: `upstreams:
  fs:
    comand: npx
`,
		want: []string{`test.yaml:3:5: upstreams.fs.comand: unknown key "comand"; did you mean "command"?`},
	}, {
		name: "many at once",
		src: `upstreams:
  fs:
    command: npx
    args: -y
    connect_timeout: 30 seconds
    env: {A: "${NOPE}"}
  "a.b":
    url: https://x/mcp
sandbox:
  memory: 12 megs
  max_tool_calls: -1
  timout: 3s
http:
  addr: nope
`,
		want: []string{
			`test.yaml:4:11: upstreams.fs.args: must be a list of strings, like ["-y", "some-package"]`,
			`test.yaml:5:22: upstreams.fs.connect_timeout: invalid duration "30 seconds"; use Go syntax like 30s or 2m`,
			`test.yaml:6:14: upstreams.fs.env.A: environment variable NOPE is not set; set it or write ${NOPE:-default}`,
			`test.yaml:7:3: upstreams["a.b"]: name "a.b" must not contain "." (it separates server and tool in qualified names like server.tool); try "a-b"`,
			`test.yaml:10:11: sandbox.memory: invalid size "12 megs"; use bytes (65536) or a number with a unit: 64KiB, 512MiB, 1GiB, 10MB, 1.5GB`,
			`test.yaml:11:19: sandbox.max_tool_calls: must be a positive whole number, got "-1"`,
			`test.yaml:12:3: sandbox.timout: unknown key "timout"; did you mean "timeout"?`,
			`test.yaml:14:9: http.addr: invalid address "nope": write host:port, like 127.0.0.1:8765`,
		},
	}, {
		name: "store, drain and prometheus",
		src: `upstreams:
  fs: {command: npx}
store: memcached://h:1
http:
  drain_timeout: soon
  max_sessions: 0
telemetry:
  prometheus: nope
`,
		want: []string{
			`test.yaml:3:8: store: scheme "memcached" is not supported: use redis:// or rediss:// (Redis 7 or later), or leave store out for files on this machine`,
			`test.yaml:5:18: http.drain_timeout: invalid duration "soon"; use Go syntax like 30s or 2m`,
			`test.yaml:6:17: http.max_sessions: must be a positive whole number, got "0"`,
			`test.yaml:8:15: telemetry.prometheus: invalid address "nope": write host:port, like 127.0.0.1:8765`,
		},
	}, {
		name: "missing command",
		file: "proxy.yaml",
		src: `upstreams:
  github:
    transport: stdio
    args: [serve]
`,
		want: []string{`proxy.yaml:2:3: upstreams.github.command: required for stdio`},
	}, {
		name: "neither command nor url",
		src:  "upstreams:\n  a:\n    args: [x]\n",
		want: []string{`test.yaml:2:3: upstreams.a: needs command (to run the server over stdio) or url (to reach it over http)`},
	}, {
		name: "both command and url",
		src:  "upstreams:\n  a:\n    command: x\n    url: http://h/mcp\n",
		want: []string{`test.yaml:2:3: upstreams.a: has both command and url: keep command to run the server over stdio, or url to reach it over http`},
	}, {
		name: "fields of the other transport",
		src:  "upstreams:\n  a:\n    transport: http\n    url: http://h/mcp\n    args: [x]\n  b:\n    command: x\n    headers: {A: b}\n",
		want: []string{
			`test.yaml:5:5: upstreams.a.args: not used by the http transport`,
			`test.yaml:8:5: upstreams.b.headers: not used by the stdio transport`,
		},
	}, {
		name: "bad durations and sizes",
		src: `upstreams:
  a: {command: x, call_timeout: 0s, connect_timeout: 60}
sandbox: {output: 1.5, file_size: 0, max_frame: 3GiB, timeout: -1s, open_files: lots, cpu_time: [1]}
`,
		want: []string{
			`test.yaml:2:33: upstreams.a.call_timeout: must be positive, got "0s"`,
			`test.yaml:2:54: upstreams.a.connect_timeout: invalid duration "60"; use Go syntax like 30s or 2m`,
			`test.yaml:3:19: sandbox.output: size "1.5" is not a whole number of bytes`,
			`test.yaml:3:35: sandbox.file_size: must be positive, got "0"`,
			`test.yaml:3:49: sandbox.max_frame: must be under 2GiB`,
			`test.yaml:3:64: sandbox.timeout: must be positive, got "-1s"`,
			`test.yaml:3:81: sandbox.open_files: must be a positive whole number, got "lots"`,
			`test.yaml:3:97: sandbox.cpu_time: must be a duration like 30s or 2m`,
		},
	}, {
		name: "unknown env vars, value never shown",
		src: `upstreams:
  a:
    url: https://h/mcp?key=${SECRET}
    headers: {Authorization: "Bearer ${TOKEN}", X: "${A}${B:-}${C-}"}
http:
  bearer_token: ${TOOLFOLD_TOKEN}
`,
		want: []string{
			`test.yaml:4:30: upstreams.a.headers.Authorization: environment variable TOKEN is not set; set it or write ${TOKEN:-default}`,
			`test.yaml:4:52: upstreams.a.headers.X: environment variable A is not set; set it or write ${A:-default}`,
			`test.yaml:6:17: http.bearer_token: environment variable TOOLFOLD_TOKEN is not set; set it or write ${TOOLFOLD_TOKEN:-default}`,
		},
	}, {
		name: "bad references",
		src:  "upstreams:\n  a:\n    command: x\n    args: [\"${1X}\", \"${X:?err}\", \"${OPEN\"]\n",
		want: []string{
			`test.yaml:4:12: upstreams.a.args[0]: invalid reference "${1X}": write ${NAME} or ${NAME:-default} (or "$$" for a literal "$")`,
			`test.yaml:4:21: upstreams.a.args[1]: invalid reference "${X:?err}": write ${NAME} or ${NAME:-default} (or "$$" for a literal "$")`,
			`test.yaml:4:34: upstreams.a.args[2]: unterminated "${": close it with "}", or write "$${" for a literal "${"`,
		},
	}, {
		name: "url must be http",
		src:  "upstreams:\n  a: {url: \"ftp://h/${SECRET}\"}\n  b: {url: /relative}\n",
		want: []string{
			`test.yaml:2:12: upstreams.a.url: must be an http:// or https:// URL`,
			`test.yaml:3:12: upstreams.b.url: must be an http:// or https:// URL`,
		},
	}, {
		name: "wrong types",
		src: `upstreams:
  a:
    command: [npx]
    args: [ok, {k: v}]
    env: [A=b]
    disabled: maybe
    description: {}
`,
		want: []string{
			`test.yaml:3:14: upstreams.a.command: must be a string`,
			`test.yaml:4:16: upstreams.a.args[1]: must be a string`,
			`test.yaml:5:10: upstreams.a.env: must be a map of names to strings`,
			`test.yaml:6:15: upstreams.a.disabled: must be true or false`,
			`test.yaml:7:18: upstreams.a.description: must be a string`,
		},
	}, {
		name: "control characters",
		src:  "upstreams:\n  a:\n    url: http://h/mcp\n    headers: {X: \"a\\r\\nInjected: 1\"}\n  b: {command: \"x\\0\"}\n",
		want: []string{
			`test.yaml:4:18: upstreams.a.headers.X: a header value cannot contain line breaks`,
			`test.yaml:5:16: upstreams.b.command: contains a NUL character`,
		},
	}, {
		name: "empty command",
		src:  "upstreams:\n  a: {command: \"\"}\n  b: {command: \"${EMPTY:-}\"}\n",
		want: []string{
			`test.yaml:2:16: upstreams.a.command: must not be empty`,
			`test.yaml:3:16: upstreams.b.command: is empty once ${...} are expanded`,
		},
	}, {
		name: "transport values",
		src:  "upstreams:\n  a: {transport: sse, url: http://h/sse}\n  b: {transport: streamable-http, url: http://h/mcp}\n  c: {transport: grpc, command: x}\n",
		want: []string{
			`test.yaml:2:18: upstreams.a.transport: "sse" (the deprecated HTTP+SSE transport) is not supported by toolfold; if the server also speaks streamable HTTP (often at /mcp rather than /sse), use "http" and point url there; otherwise run it locally over stdio`,
			`test.yaml:3:18: upstreams.b.transport: "streamable-http": write "http" (toolfold's http transport is streamable HTTP)`,
			`test.yaml:4:18: upstreams.c.transport: must be "stdio" or "http", got "grpc"`,
		},
	}, {
		name: "duplicate keys",
		src:  "upstreams:\n  a: {command: x, command: y}\n  a: {command: z}\n",
		want: []string{
			`test.yaml:2:19: upstreams.a.command: duplicate key "command" (first at line 2)`,
			`test.yaml:3:3: upstreams.a: duplicate key "a" (first at line 2)`,
		},
	}, {
		name: "bad names",
		src:  "upstreams:\n  \"my server\": {command: x}\n  \"\": {command: x}\n",
		want: []string{
			`test.yaml:2:3: upstreams["my server"]: name "my server" may hold only letters, digits, '_' and '-'; try "my-server"`,
			`test.yaml:3:3: upstreams[""]: an upstream name must not be empty`,
		},
	}, {
		name: "empty file",
		src:  "# nothing yet\n",
		want: []string{`test.yaml: the file is empty; no upstreams: add an "upstreams:" map (see proxy.yaml in the toolfold repo) or point -c at a client config with "mcpServers"`},
	}, {
		name: "no upstreams key",
		src:  "sandbox: {timeout: 5s}\n",
		want: []string{`test.yaml: no upstreams: add an "upstreams:" map (see proxy.yaml in the toolfold repo) or point -c at a client config with "mcpServers"`},
	}, {
		name: "empty upstreams",
		src:  "upstreams:\n",
		want: []string{`test.yaml:1:1: upstreams: no upstreams: add an "upstreams:" map (see proxy.yaml in the toolfold repo) or point -c at a client config with "mcpServers"`},
	}, {
		name: "misspelt upstreams",
		src:  "upstream:\n  a: {command: x}\n",
		want: []string{`test.yaml:1:1: upstream: unknown key "upstream"; did you mean "upstreams"?`},
	}, {
		name: "upstreams as a list",
		src:  "upstreams:\n  - command: x\n",
		want: []string{`test.yaml:2:3: upstreams: must be a map from a server name to its settings (command, args, … or url)`},
	}, {
		name: "not a map",
		src:  "- a\n- b\n",
		want: []string{`test.yaml:1:1: must be a map with an "upstreams:" key`},
	}, {
		name: "yaml syntax",
		src:  "upstreams:\n  a: [x\n",
		want: []string{`test.yaml:2: invalid YAML: did not find expected ',' or ']'`},
	}, {
		name: "bad indent under a key two lines up",
		src:  "upstreams:\n  a:\n    command: x\n   bad: 1\n",
		want: []string{`test.yaml:4: invalid YAML: did not find expected key`},
	}, {
		name: "tab indentation",
		src:  "upstreams:\n\ta: {command: x}\n",
		want: []string{`test.yaml:2: invalid YAML: found character that cannot start any token (tabs cannot indent YAML: use spaces)`},
	}, {
		name: "two documents",
		src:  "upstreams: {a: {command: x}}\n---\nupstreams: {b: {command: y}}\n",
		want: []string{`test.yaml:2:1: a second YAML document: a config is one document; remove the "---" and what follows, or merge them`},
	}, {
		name: "json syntax",
		file: "mcp.json",
		src:  "{\n  \"mcpServers\": {\n    \"a\": {\"command\": \"x\" \"args\": []}\n  }\n}\n",
		want: []string{`mcp.json:3:26: invalid JSON: invalid character '"' after object key:value pair`},
	}, {
		name: "json truncated",
		file: "mcp.json",
		src:  "{\"mcpServers\": {\"a\": {\"command\": \"x\"}",
		want: []string{`mcp.json:1:38: invalid JSON: unexpected end of file`},
	}, {
		name: "aliases and merge keys",
		src:  "x: &x {command: y}\nupstreams:\n  a:\n    <<: [*x, 5]\n",
		want: []string{
			`test.yaml:1:1: x: unknown key "x"; known keys: upstreams, sandbox, http, telemetry, search, pii, expose, pin, namespace, store, skills, policy, audit, ui`,
			`test.yaml:4:5: upstreams.a: << must merge a mapping or a list of mappings`,
		},
	}, {
		name: "unknown sections and keys",
		src:  "upstreams: {a: {command: x, timeout: 5s, type: stdio}}\nhttp: {address: x, token: y}\nsandbox: {memory_bytes: 5}\n",
		want: []string{
			`test.yaml:1:29: upstreams.a.timeout: unknown key "timeout"; did you mean "call_timeout"?`,
			`test.yaml:1:42: upstreams.a.type: unknown key "type"; did you mean "transport"?`,
			`test.yaml:2:8: http.address: unknown key "address"; did you mean "addr"?`,
			`test.yaml:2:20: http.token: unknown key "token"; did you mean "bearer_token"?`,
			`test.yaml:3:11: sandbox.memory_bytes: unknown key "memory_bytes"; did you mean "memory"?`,
		},
	}, {
		name: "client: sse and name collisions",
		file: "mcp.json",
		src: `{"mcpServers": {
  "remote": {"type": "sse", "url": "https://h/sse"},
  "a.b": {"command": "x"},
  "a b": {"command": "y"},
  "日本": {"command": "z"},
  "vs": {"command": "x", "args": ["${input:token}", "${config:x}"]}
}}`,
		want: []string{
			`mcp.json:2:22: mcpServers.remote.type: "sse" (the deprecated HTTP+SSE transport) is not supported by toolfold; if the server also speaks streamable HTTP (often at /mcp rather than /sse), use "http" and point url there; otherwise run it locally over stdio`,
			`mcp.json:4:3: mcpServers["a b"]: server name "a b" becomes "a-b", which the server at line 3 already uses: rename one of them`,
			`mcp.json:5:3: mcpServers["日本"]: server name "日本" has no letters or digits toolfold can use: rename it`,
			`mcp.json:6:35: mcpServers.vs.args[0]: ${input:token} asks VS Code to prompt for a value, and toolfold cannot prompt: put the value in an environment variable and write ${env:NAME}`,
			`mcp.json:6:53: mcpServers.vs.args[1]: ${config:x}: toolfold does not support VS Code's "config:" variables; use an environment variable and write ${env:NAME}`,
		},
	}, {
		name: "client: empty",
		file: "mcp.json",
		src:  `{"mcpServers": {}}`,
		want: []string{`mcp.json:1:2: mcpServers: no servers: add one, like "name": {"command": "npx", "args": ["-y", "some-mcp-server"]}`},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			file := tc.file
			if file == "" {
				file = "test.yaml"
			}
			_, err := Parse(file, []byte(tc.src), env(vars))
			if err == nil {
				t.Fatal("Parse succeeded; want errors")
			}
			got := strings.Split(err.Error(), "\n")
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("errors (-want +got):\n%s", diff)
			}
			if strings.Contains(err.Error(), vars["SECRET"]) {
				t.Errorf("an error shows the value of an environment variable")
			}
		})
	}
}
