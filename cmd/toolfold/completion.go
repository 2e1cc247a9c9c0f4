package main

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/toolfold/toolfold/install"
)

// command is one subcommand as shell completion knows it.
type command struct {
	name  string
	help  string   // a few words, shown by zsh and fish
	flags []string // its flags, without dashes
	words []string // what its first argument may be
}

// commonFlags are the flags of every command built on newFlags.
var commonFlags = []string{"c", "config", "log-level"}

// commands lists the subcommands and their flags for completion;
// TestCompletionKnowsEveryFlag checks it against each command's -h.
func commands() []command {
	clients := install.Names()
	return []command{
		{"serve", "serve MCP on stdio or streamable HTTP", append([]string{"http"}, commonFlags...), nil},
		{"check", "connect to every upstream and print what a client would load", commonFlags, nil},
		{"search", "search the tools from a terminal", append([]string{"detail", "limit", "server", "language", "refresh"}, commonFlags...), nil},
		{"run", "run a script as run_script would", append([]string{"language"}, commonFlags...), nil},
		{"login", "sign in to an http upstream with oauth", commonFlags, nil},
		{"install", "move a client's servers into toolfold's file", []string{"client-config", "config", "c", "dry-run"}, clients},
		{"uninstall", "put the servers back into a client's file", []string{"client-config", "config", "c", "dry-run"}, clients},
		{"skills", "the saved skills", append([]string{"overwrite"}, commonFlags...), []string{"list", "show", "add", "rm", "run"}},
		{"audit", "print the audit trail", append([]string{"file", "since", "tool", "session", "args", "follow"}, commonFlags...), nil},
		{"tools", "tool pins: changed tools and approvals", commonFlags, []string{"pins", "changed", "approve"}},
		{"init", "write a commented starter config", nil, nil},
		{"completion", "print a shell completion script", nil, shells},
		{"version", "print the version", nil, nil},
		{"help", "print the usage", nil, nil},
	}
}

var shells = []string{"bash", "zsh", "fish"}

// fileFlags take a file or directory; the other flags that take a value
// either have flagValues or complete nothing.
var fileFlags = []string{"c", "config", "client-config", "file"}

// flagValues are the values a flag may take, where they are few.
var flagValues = map[string][]string{
	"detail":    {"name", "summary", "full"},
	"log-level": {"debug", "info", "warn", "error"},
	"language":  {"lua", "python", "javascript"},
}

// dashed is a flag as completion offers it: -c, else --name.
func dashed(f string) string {
	if len(f) == 1 {
		return "-" + f
	}
	return "--" + f
}

// cmdCompletion runs `toolfold completion bash|zsh|fish`.
func cmdCompletion(args []string, stdout, stderr io.Writer) int {
	if len(args) != 1 || !slices.Contains(shells, args[0]) {
		return fail(stderr, "completion needs one shell: bash, zsh or fish; e.g. `source <(toolfold completion bash)` in ~/.bashrc")
	}
	switch args[0] {
	case "bash":
		fmt.Fprint(stdout, bashCompletion(commands()))
	case "zsh":
		fmt.Fprint(stdout, zshCompletion(commands()))
	case "fish":
		fmt.Fprint(stdout, fishCompletion(commands()))
	}
	return exitOK
}

func names(cs []command) string {
	var s []string
	for _, c := range cs {
		s = append(s, c.name)
	}
	return strings.Join(s, " ")
}

func dashedAll(fs []string) string {
	var s []string
	for _, f := range fs {
		s = append(s, dashed(f))
	}
	return strings.Join(s, " ")
}

// shellCases are the case arms shared by bash and zsh: what the word
// after a flag may be, and each command's flags and first words.
func shellCases(cs []command, files, values func(string) string, flagsThen func(flags, words string) string) string {
	var b strings.Builder
	b.WriteString("  case \"$prev\" in\n")
	var ff []string
	for _, f := range fileFlags {
		ff = append(ff, dashed(f), "-"+f)
	}
	fmt.Fprintf(&b, "    %s) %s; return ;;\n", strings.Join(slices.Compact(ff), "|"), files(""))
	for _, f := range []string{"detail", "log-level", "language"} {
		fmt.Fprintf(&b, "    --%s|-%s) %s; return ;;\n", f, f, values(strings.Join(flagValues[f], " ")))
	}
	b.WriteString("  esac\n  case \"$sub\" in\n")
	for _, c := range cs {
		if len(c.flags) == 0 && len(c.words) == 0 {
			continue
		}
		fmt.Fprintf(&b, "    %s) %s ;;\n", c.name, flagsThen(dashedAll(c.flags), strings.Join(c.words, " ")))
	}
	b.WriteString("  esac\n")
	return b.String()
}

func bashCompletion(cs []command) string {
	body := shellCases(cs,
		func(string) string { return `COMPREPLY=($(compgen -f -- "$cur"))` },
		func(v string) string { return `COMPREPLY=($(compgen -W "` + v + `" -- "$cur"))` },
		func(flags, words string) string {
			s := `if [[ $cur == -* ]]; then COMPREPLY=($(compgen -W "` + flags + `" -- "$cur"))`
			if words != "" {
				s += `; elif (( COMP_CWORD == 2 )); then COMPREPLY=($(compgen -W "` + words + `" -- "$cur"))`
			}
			return s + `; fi` // nothing: complete -o default offers files
		})
	return `# bash completion for toolfold; load it with: source <(toolfold completion bash)
_toolfold() {
  local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]} sub=${COMP_WORDS[1]}
  COMPREPLY=()
  if (( COMP_CWORD == 1 )); then
    COMPREPLY=($(compgen -W "` + names(cs) + `" -- "$cur"))
    return
  fi
` + body + `}
complete -o default -F _toolfold toolfold
`
}

func zshCompletion(cs []command) string {
	var desc []string
	for _, c := range cs {
		desc = append(desc, fmt.Sprintf("    '%s:%s'", c.name, strings.ReplaceAll(c.help, "'", "")))
	}
	body := shellCases(cs,
		func(string) string { return `_files` },
		func(v string) string { return `compadd -- ` + v },
		func(flags, words string) string {
			s := `if [[ $cur == -* ]]; then compadd -- ` + flags
			if words != "" {
				s += `; elif (( CURRENT == 3 )); then compadd -- ` + words
			}
			return s + `; else _files; fi`
		})
	return `#compdef toolfold
# zsh completion for toolfold; load it with: source <(toolfold completion zsh)
# (after compinit), or save it as _toolfold in a directory of $fpath.
_toolfold() {
  local cur=${words[CURRENT]} prev=${words[CURRENT-1]} sub=${words[2]}
  if (( CURRENT == 2 )); then
    local -a cmds
    cmds=(
` + strings.Join(desc, "\n") + `
    )
    _describe 'command' cmds
    return
  fi
` + body + `}
if [ "$funcstack[1]" = "_toolfold" ]; then
  _toolfold "$@"
else
  compdef _toolfold toolfold
fi
`
}

func fishCompletion(cs []command) string {
	var b strings.Builder
	b.WriteString("# fish completion for toolfold; load it with: toolfold completion fish | source\n")
	b.WriteString("# (or save it as ~/.config/fish/completions/toolfold.fish)\n")
	b.WriteString("complete -c toolfold -f\n")
	for _, c := range cs {
		fmt.Fprintf(&b, "complete -c toolfold -n __fish_use_subcommand -a %s -d %s\n", c.name, fishQuote(c.help))
	}
	for _, c := range cs {
		cond := fishQuote("__fish_seen_subcommand_from " + c.name)
		for _, f := range c.flags {
			opt := "-l " + f
			if len(f) == 1 {
				opt = "-s " + f
			}
			switch {
			case slices.Contains(fileFlags, f):
				opt += " -r -F"
			case flagValues[f] != nil:
				opt += " -x -a " + fishQuote(strings.Join(flagValues[f], " "))
			}
			fmt.Fprintf(&b, "complete -c toolfold -n %s %s\n", cond, opt)
		}
		if c.name == "run" {
			fmt.Fprintf(&b, "complete -c toolfold -n %s -F\n", cond) // SCRIPT
		}
		if len(c.words) > 0 {
			first := fishQuote("__fish_seen_subcommand_from " + c.name + "; and test (count (commandline -opc)) -eq 2")
			fmt.Fprintf(&b, "complete -c toolfold -n %s -a %s\n", first, fishQuote(strings.Join(c.words, " ")))
		}
	}
	return b.String()
}

func fishQuote(s string) string {
	return "'" + strings.ReplaceAll(strings.ReplaceAll(s, `\`, `\\`), "'", `\'`) + "'"
}
