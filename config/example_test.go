package config_test

import (
	"fmt"

	"github.com/toolfold/toolfold/config"
)

func ExampleParse() {
	src := `
upstreams:
  files:
    description: read and write project files
    command: npx
    args: ["-y", "@modelcontextprotocol/server-filesystem@2026.8.31", "."]
  remote:
    url: https://mcp.example.com/mcp
    headers: {Authorization: "Bearer ${TOKEN:-none}"}
`
	cfg, err := config.Parse("proxy.yaml", []byte(src), nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, u := range cfg.Upstreams {
		fmt.Println(u.Name, u.Transport, u.CallTimeout)
	}
	// Output:
	// files stdio 2m0s
	// remote http 2m0s
}

func ExampleErrors() {
	src := `
upstreams:
  github:
    comand: github-mcp-server
    call_timeout: 30 seconds
`
	_, err := config.Parse("proxy.yaml", []byte(src), nil)
	fmt.Println(err)
	// Output:
	// proxy.yaml:4:5: upstreams.github.comand: unknown key "comand"; did you mean "command"?
	// proxy.yaml:5:19: upstreams.github.call_timeout: invalid duration "30 seconds"; use Go syntax like 30s or 2m
}
