package install

import (
	"path/filepath"
	"slices"
)

// A Client is an MCP client whose configuration file toolfold can edit.
type Client struct {
	Name string // as on the command line: "claude-desktop"
	// Key is the file's top-level key holding servers: "mcpServers", or
	// VS Code's "servers".
	Key string
	// path is where the client keeps its user-level file.
	path func(goos, home string, getenv func(string) string) string
	// stdioType is set for clients whose entries name their transport
	// ("type": "stdio"): VS Code.
	stdioType bool
}

// clients lists the supported clients, by name.
var clients = []Client{
	{Name: "claude-desktop", Key: "mcpServers", path: func(goos, home string, getenv func(string) string) string {
		return filepath.Join(appConfigDir(goos, home, getenv), "Claude", "claude_desktop_config.json")
	}},
	{Name: "claude-code", Key: "mcpServers", path: func(_, home string, _ func(string) string) string {
		return filepath.Join(home, ".claude.json") // user scope: servers for every project
	}},
	{Name: "cursor", Key: "mcpServers", path: func(_, home string, _ func(string) string) string {
		return filepath.Join(home, ".cursor", "mcp.json")
	}},
	{Name: "vscode", Key: "servers", stdioType: true, path: func(goos, home string, getenv func(string) string) string {
		return filepath.Join(appConfigDir(goos, home, getenv), "Code", "User", "mcp.json")
	}},
	{Name: "windsurf", Key: "mcpServers", path: func(_, home string, _ func(string) string) string {
		return filepath.Join(home, ".codeium", "windsurf", "mcp_config.json")
	}},
}

// Lookup returns the client called name.
func Lookup(name string) (Client, bool) {
	i := slices.IndexFunc(clients, func(c Client) bool { return c.Name == name })
	if i < 0 {
		return Client{}, false
	}
	return clients[i], true
}

// Names lists the supported clients' names.
func Names() []string {
	var out []string
	for _, c := range clients {
		out = append(out, c.Name)
	}
	return out
}

// Path is where c keeps its user-level file on goos, for a user whose home
// directory is home; getenv reads APPDATA and XDG_CONFIG_HOME.
func (c Client) Path(goos, home string, getenv func(string) string) string {
	return c.path(goos, home, getenv)
}

// appConfigDir is where desktop applications keep their settings: what
// os.UserConfigDir returns, for any goos.
func appConfigDir(goos, home string, getenv func(string) string) string {
	switch goos {
	case "darwin":
		return filepath.Join(home, "Library", "Application Support")
	case "windows":
		if d := getenv("APPDATA"); d != "" {
			return d
		}
		return filepath.Join(home, "AppData", "Roaming")
	}
	if d := getenv("XDG_CONFIG_HOME"); d != "" && filepath.IsAbs(d) {
		return d
	}
	return filepath.Join(home, ".config")
}
