// Command toolfold is a drop-in MCP proxy: it connects to the MCP servers
// in its config and advertises only search_tools and run_script.
//
//	toolfold serve   [-c proxy.yaml] [--http 127.0.0.1:8765]
//	toolfold check   [-c proxy.yaml]
//	toolfold search  [-c proxy.yaml] [--detail name|summary|full] QUERY
//	toolfold run     [-c proxy.yaml] SCRIPT.lua
//	toolfold login   [-c proxy.yaml] UPSTREAM
//	toolfold install CLIENT [--client-config FILE] [--config FILE] [--dry-run]
//	toolfold uninstall CLIENT
//	toolfold skills  [-c proxy.yaml] list | show NAME | add DIR | rm NAME | run NAME '{"x": 1}'
//	toolfold audit   [-c proxy.yaml] [--file F] [--since 1h] [--tool GLOB] [--session ID] [--follow]
//	toolfold tools   [-c proxy.yaml] pins | changed | approve NAME...
//	toolfold init [FILE]
//	toolfold completion bash|zsh|fish
//	toolfold version
//
// The lab (bench, eval-search, eval-pii, the replay server) is its own
// binary, cmd/toolfold-lab; this one links none of it.
//
// This is the only package that reads flags and the environment, and the
// only one that installs the OpenTelemetry SDK and exporters (telemetry.go).
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"runtime/debug"
	"strings"
	"syscall"
	"time"

	"github.com/toolfold/toolfold/config"
	"github.com/toolfold/toolfold/internal/cliflags"
	"github.com/toolfold/toolfold/proxy"
	"github.com/toolfold/toolfold/sandbox"
)

// version is set at build time with -ldflags "-X main.version=v1.2.3";
// otherwise the module version from the build info is used.
var version = ""

// Exit codes.
const (
	exitOK     = 0
	exitFailed = 1 // a run or check failed
	exitUsage  = 2 // bad flags or config
)

func main() {
	if sandbox.IsChild() {
		sandbox.ChildMain() // never returns
	}
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

const usage = `toolfold: one MCP server in front of many, advertising only search_tools and run_script.

Usage:
  toolfold serve   [-c FILE] [--http ADDR]   serve MCP on stdio, or streamable HTTP at http://ADDR/mcp
  toolfold check   [-c FILE]                 connect to every upstream and print what a client would load
  toolfold search  [-c FILE] [--detail name|summary|full] [--limit N] [--server NAME] [--language LANG] [--refresh] QUERY
                                             search_tools from a terminal, answered from the tool lists
                                             serve, check and --refresh cached in .toolfold/catalog.json
  toolfold run     [-c FILE] [--language LANG] SCRIPT
                                             run a script as run_script would ("-" reads stdin)
  toolfold login   [-c FILE] UPSTREAM        sign in to an http upstream with oauth: in its settings
                                             (opens the browser, or runs $TOOLFOLD_OAUTH_OPEN URL)
  toolfold install CLIENT [--client-config FILE] [--config FILE] [--dry-run]
                                             move CLIENT's servers into toolfold's file (FILE, default
                                             in your config directory) and leave one toolfold entry;
                                             CLIENT: claude-desktop, claude-code, cursor, vscode, windsurf
  toolfold uninstall CLIENT [--client-config FILE] [--config FILE] [--dry-run]
                                             put the servers back into CLIENT's file
  toolfold skills  [-c FILE] list | show NAME | add DIR [--overwrite] | rm NAME | run NAME '{"x": 1}'
                                             the saved skills (scripts saved to call by name)
  toolfold audit   [-c FILE] [--file F] [--since 1h] [--tool GLOB] [--session ID] [--args] [--follow]
                                             print the audit trail (audit: in the config) as a table;
                                             --follow goes on printing records as they are written
  toolfold tools   [-c FILE] pins | changed | approve NAME...
                                             tool pins: which tools changed since first seen; accept a change
  toolfold init [FILE]                       write a commented starter config (default proxy.yaml);
                                             never overwrites a file
  toolfold completion bash|zsh|fish          print a shell completion script: source <(toolfold completion bash),
                                             source <(toolfold completion zsh), toolfold completion fish | source
  toolfold version                           the module version and VCS revision of this binary

FILE defaults to $TOOLFOLD_CONFIG, else ./proxy.yaml. It may also be a client's
mcp.json (an "mcpServers" or "servers" map). Logs go to stderr; set the level
with --log-level debug|info|warn|error or $TOOLFOLD_LOG.

The measurements (bench, eval-search, eval-pii) are the lab's, a separate
binary: go run ./cmd/toolfold-lab bench from a toolfold clone.

serve exports OpenTelemetry traces and metrics only when the config's telemetry
section or the OTEL_* variables (OTEL_TRACES_EXPORTER, OTEL_EXPORTER_OTLP_ENDPOINT,
…) ask for it; check prints where they go.
`

func run(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return exitUsage
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	// Once the first signal has ended ctx (serve then drains), a second one
	// ends the process at once, as it would without toolfold's handler.
	context.AfterFunc(ctx, stop)
	cmd, rest := args[0], args[1:]
	switch cmd {
	case "serve":
		return cmdServe(ctx, rest, stderr)
	case "check":
		return cmdCheck(ctx, rest, stdout, stderr)
	case "search":
		return cmdSearch(ctx, rest, stdout, stderr)
	case "run":
		return cmdRun(ctx, rest, stdout, stderr)
	case "login":
		return cmdLogin(ctx, rest, stdout, stderr)
	case "skills":
		return cmdSkills(ctx, rest, stdout, stderr)
	case "audit":
		return cmdAudit(ctx, rest, stdout, stderr, time.Now())
	case "tools":
		return cmdTools(ctx, rest, stdout, stderr)
	case "install":
		return cmdInstall(rest, stdout, stderr, false)
	case "uninstall":
		return cmdInstall(rest, stdout, stderr, true)
	case "init":
		return cmdInit(rest, stdout, stderr)
	case "completion":
		return cmdCompletion(rest, stdout, stderr)
	case "version", "--version", "-v":
		bi, _ := debug.ReadBuildInfo()
		fmt.Fprintln(stdout, versionLine(bi))
		return exitOK
	case "help", "-h", "--help":
		fmt.Fprint(stdout, usage)
		return exitOK
	}
	if labCommands[cmd] {
		return cmdMovedToLab(cmd, stderr)
	}
	fmt.Fprintf(stderr, "toolfold: unknown command %q\n\n%s", cmd, usage)
	return exitUsage
}

// common holds the flags every command takes.
type common struct {
	config   string
	logLevel string
}

func newFlags(name string, stderr io.Writer, defLevel string) (*flag.FlagSet, *common) {
	fs := flag.NewFlagSet("toolfold "+name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	c := &common{}
	def := os.Getenv("TOOLFOLD_CONFIG")
	if def == "" {
		def = "proxy.yaml"
	}
	fs.StringVar(&c.config, "c", def, "config file: proxy.yaml, or a client's mcp.json")
	fs.StringVar(&c.config, "config", def, "same as -c")
	lvl := os.Getenv("TOOLFOLD_LOG")
	if lvl == "" {
		lvl = defLevel
	}
	fs.StringVar(&c.logLevel, "log-level", lvl, "debug, info, warn or error")
	return fs, c
}

// setup makes the logger and loads the config, printing any problem; ok
// is false when the command should exit with exitUsage.
func (c *common) setup(stderr io.Writer) (*slog.Logger, *config.Config, bool) {
	log, err := cliflags.Logger(c.logLevel, stderr)
	if err != nil {
		fail(stderr, "%v", err)
		return nil, nil, false
	}
	cfg, ok := c.load(stderr, log)
	if ok {
		// Nothing raw in the log: scripts' errors and children's stderr
		// quote what scripts typed.
		log = proxy.RedactLogger(cfg.PII, log)
	}
	return log, cfg, ok
}

// load reads the config, printing every problem.
func (c *common) load(stderr io.Writer, log *slog.Logger) (*config.Config, bool) {
	cfg, err := config.Load(c.config, nil)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			fmt.Fprintf(stderr, "toolfold: config %s not found: pass -c FILE (a proxy.yaml or a client's mcp.json) or set TOOLFOLD_CONFIG\n", c.config)
			return nil, false
		}
		fmt.Fprintf(stderr, "%v\n", err)
		return nil, false
	}
	for _, w := range cfg.Warnings {
		log.Warn("config: " + w)
	}
	cfg.PII.PhoneFromLocale(hostLocale(os.Getenv))
	return cfg, true
}

// hostLocale is the first of config.LocaleVars set in the environment,
// and its value; "", "" when none is.
func hostLocale(getenv func(string) string) (name, value string) {
	for _, n := range config.LocaleVars {
		if v := getenv(n); v != "" {
			return n, v
		}
	}
	return "", ""
}

// buildVersion is what toolfold reports to clients and upstreams: the
// -ldflags version, else the module version, else "dev" (with the VCS
// revision when the build recorded one: "dev+0123456789ab").
func buildVersion() string {
	if version != "" {
		return version
	}
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "dev"
	}
	if v := bi.Main.Version; v != "" && v != "(devel)" {
		return v
	}
	if rev := buildSetting(bi, "vcs.revision"); rev != "" {
		return "dev+" + rev[:min(12, len(rev))]
	}
	return "dev"
}

// versionLine is what `toolfold version` prints: the module version and
// the VCS revision the binary was built from, as recorded in bi (nil: no
// build info).
//
//	toolfold v1.2.0 (revision 0123456789ab, modified, 2026-11-26T12:00:00Z; go1.26.8)
func versionLine(bi *debug.BuildInfo) string {
	if bi == nil {
		return "toolfold " + buildVersion() + " (no build information)"
	}
	v := version
	if v == "" {
		v = bi.Main.Version
	}
	if v == "" {
		v = "(devel)"
	}
	var parts []string
	if rev := buildSetting(bi, "vcs.revision"); rev != "" {
		parts = append(parts, "revision "+rev[:min(12, len(rev))])
		if buildSetting(bi, "vcs.modified") == "true" {
			parts = append(parts, "modified")
		}
		if t := buildSetting(bi, "vcs.time"); t != "" {
			parts = append(parts, t)
		}
	} else {
		parts = append(parts, "no VCS revision: built outside a git checkout or with -buildvcs=false")
	}
	return fmt.Sprintf("toolfold %s (%s; %s)", v, strings.Join(parts, ", "), bi.GoVersion)
}

// buildSetting is the value of key in bi's settings, or "".
func buildSetting(bi *debug.BuildInfo, key string) string {
	for _, s := range bi.Settings {
		if s.Key == key {
			return s.Value
		}
	}
	return ""
}

func fail(stderr io.Writer, format string, args ...any) int {
	fmt.Fprintf(stderr, "toolfold: "+strings.TrimSuffix(format, "\n")+"\n", args...)
	return exitUsage
}
