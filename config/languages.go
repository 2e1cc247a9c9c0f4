package config

import (
	"path/filepath"
	"strings"
)

// LanguageOff, as sandbox.python or sandbox.node, disables the language.
const LanguageOff = "off"

// languageKey decodes sandbox.python, sandbox.node and
// sandbox.workspace_size.
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
