package config

import (
	"path/filepath"
	"strings"
)

// LanguageOff, as sandbox.python or sandbox.node, disables the language.
const LanguageOff = "off"

// languageKey decodes sandbox.python, sandbox.node, sandbox.workspace_size
// and sandbox.workspace_dir.
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
	if f.name == "python" {
		sb.Python = s
	} else {
		sb.Node = s
	}
}
