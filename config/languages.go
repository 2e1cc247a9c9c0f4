package config

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/toolfold/toolfold/sandbox"
	"gopkg.in/yaml.v3"
)

// LanguageOff, as a language's interpreter key (sandbox.python,
// sandbox.node), disables the language.
const LanguageOff = sandbox.InterpreterOff

// Interpreter is the configured interpreter of run_script language lang:
// a path, a command on PATH, LanguageOff, or "" for the default.
func (s Sandbox) Interpreter(lang string) string { return s.Interpreters[lang] }

// The keys of the sandbox section besides the languages' (sandboxKeys).
var (
	limitKeys = []string{"timeout", "cpu_time", "memory", "output", "max_tool_calls",
		"max_concurrency", "max_frame", "open_files", "file_size", "processes"}
	workspaceKeys = []string{"workspace_size", "workspace_budget", "workspace_dir", "require", "warm", "prestart"}
)

// sandboxKeys are the keys of the sandbox section: the limits, the
// languages' interpreter keys (python, node), the workspace's.
func sandboxKeys() []string {
	keys := slices.Clone(limitKeys)
	for _, l := range sandbox.Languages() {
		if l.ConfigKey != "" {
			keys = append(keys, l.ConfigKey)
		}
	}
	return append(keys, workspaceKeys...)
}

// languageKeys are the sandbox keys that name a language's interpreter,
// by key: one per sandbox.Language with a ConfigKey.
func languageKeys() map[string]sandbox.Language {
	keys := map[string]sandbox.Language{}
	for _, l := range sandbox.Languages() {
		if l.ConfigKey != "" {
			keys[l.ConfigKey] = l
		}
	}
	return keys
}

// languageKey decodes a language's interpreter key (sandbox.python,
// sandbox.node), sandbox.workspace_size and sandbox.workspace_dir.
func (d *decoder) languageKey(f field, p string, sb *Sandbox, dir string) {
	if f.name == "workspace_size" {
		setIf(&sb.WorkspaceBytes)(d.size(f.val, p))
		return
	}
	s, ok := d.str(f.val, p)
	if !ok {
		return
	}
	s = strings.TrimSpace(s)
	if f.name == "workspace_dir" {
		if s == "" {
			d.errorf(f.val, p, "must be a directory for the sessions' workspaces to persist in; remove the key to keep them in a temporary directory removed when each session ends")
			return
		}
		if !filepath.IsAbs(s) {
			s = filepath.Join(dir, s)
		}
		sb.WorkspaceDir = filepath.Clean(s)
		return
	}
	switch {
	case s == "":
		d.errorf(f.val, p, `must be the path of the interpreter, a command name looked up on PATH, or "off"; remove the key to look up the default`)
		return
	case s == LanguageOff, !strings.ContainsRune(s, '/'), filepath.IsAbs(s):
	default:
		s = filepath.Join(dir, s)
	}
	if sb.Interpreters == nil {
		sb.Interpreters = map[string]string{}
	}
	sb.Interpreters[languageKeys()[f.name].Name] = s
}

// prestart decodes sandbox.prestart: a list of run_script language names.
func (d *decoder) prestart(n *yaml.Node, p string, sb *Sandbox) {
	items, ok := d.strList(n, p)
	if !ok {
		return
	}
	var names []string
	for _, l := range sandbox.Languages() {
		names = append(names, l.Name)
	}
	sb.Prestart = []string{}
	for i, item := range items {
		if !slices.Contains(names, item.Value) {
			msg := fmt.Sprintf("unknown language %q; languages: %s", item.Value, strings.Join(names, ", "))
			if s := suggest(item.Value, names); s != "" {
				msg = fmt.Sprintf("unknown language %q; did you mean %q?", item.Value, s)
			}
			d.errorf(item, fmt.Sprintf("%s[%d]", p, i), "%s", msg)
			continue
		}
		if !slices.Contains(sb.Prestart, item.Value) {
			sb.Prestart = append(sb.Prestart, item.Value)
		}
	}
}
