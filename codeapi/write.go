package codeapi

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/toolfold/toolfold/skills"
)

// WriteOptions tune Write.
type WriteOptions struct {
	// Language is the run_script language whose signatures the READMEs
	// show (its search_tools summary lines); "" is Python.
	Language string
	// Tokenize, when set, replaces personal data in the texts of the
	// servers and tools marked PII (and the top README), as the session
	// whose tree it is sees them.
	Tokenize func(string) string
	// LinkFrom, when set, is a tree Write wrote from the same Catalog
	// without Tokenize: each file Tokenize would not touch is a hard link
	// to that tree's, so a tree per session costs only its tokenized files.
	LinkFrom string
}

// Stats says what Write wrote.
type Stats struct {
	Files int
	Bytes int64
}

// Write writes c as dir/servers and dir/skills. dir must not exist: it is
// made, written, and the caller then hands it to runs whole (files are
// read-only, 0444). On error dir is removed.
func Write(dir string, c Catalog, o *WriteOptions) (st Stats, err error) {
	if o == nil {
		o = &WriteOptions{}
	}
	w := &writer{o: o, st: &st, root: dir}
	if err := os.Mkdir(dir, 0o755); err != nil {
		return st, fmt.Errorf("codeapi: %w", err)
	}
	defer func() {
		if err != nil {
			os.RemoveAll(dir)
			err = fmt.Errorf("codeapi: write %s: %w", dir, err)
		}
	}()
	w.servers(filepath.Join(dir, "servers"), c.Servers)
	w.skills(filepath.Join(dir, "skills"), c.Skills)
	return st, w.err
}

// writer writes files, keeping the first error.
type writer struct {
	o    *WriteOptions
	st   *Stats
	root string
	err  error
}

func (w *writer) mkdir(dir string) {
	if w.err == nil {
		w.err = os.Mkdir(dir, 0o755)
	}
}

// put writes a read-only file, its text tokenized when pii.
func (w *writer) put(path, text string, pii bool) {
	if w.err != nil {
		return
	}
	if pii && w.o.Tokenize != nil {
		text = w.o.Tokenize(text)
	} else if w.o.LinkFrom != "" {
		rel, err := filepath.Rel(w.root, path)
		if err == nil {
			err = os.Link(filepath.Join(w.o.LinkFrom, rel), path)
		}
		if err == nil {
			w.st.Files++
			return
		}
	}
	if err := os.WriteFile(path, []byte(text), 0o444); err != nil {
		w.err = err
		return
	}
	w.st.Files++
	w.st.Bytes += int64(len(text))
}

func (w *writer) lang() string {
	if w.o.Language == "" {
		return "python"
	}
	return w.o.Language
}

// servers writes servers/.
func (w *writer) servers(root string, servers []Server) {
	w.mkdir(root)
	w.put(filepath.Join(root, "README.md"), serversReadme(servers), true)
	w.put(filepath.Join(root, "package.json"), packageJSON, false)
	for i := range servers {
		s := &servers[i]
		dir := filepath.Join(root, s.Ident)
		w.mkdir(dir)
		w.put(filepath.Join(dir, "README.md"), serverReadme(s, w.lang()), s.PII)
		if len(s.Tools) == 0 {
			continue
		}
		py := pyToolNames(s.Tools)
		w.put(filepath.Join(dir, "__init__.py"), pythonIndex(s, py), s.PII)
		js, dts := javascriptIndex(s)
		w.put(filepath.Join(dir, "index.js"), js, s.PII)
		w.put(filepath.Join(dir, "index.d.ts"), dts, s.PII)
		w.put(filepath.Join(dir, "init.lua"), luaIndex(s), s.PII)
		for j := range s.Tools {
			t := &s.Tools[j]
			w.put(filepath.Join(dir, py[j]+".py"), pythonTool(t, py[j]), t.PII)
			js, dts := javascriptTool(t)
			w.put(filepath.Join(dir, t.Ident+".js"), js, t.PII)
			w.put(filepath.Join(dir, t.Ident+".d.ts"), dts, t.PII)
			w.put(filepath.Join(dir, t.Ident+".lua"), luaTool(s, t), t.PII)
		}
	}
}

// skills writes skills/.
func (w *writer) skills(root string, list []Skill) {
	w.mkdir(root)
	w.put(filepath.Join(root, "README.md"), skillsReadme(list), false)
	w.put(filepath.Join(root, "__init__.py"), pythonSkills, false)
	w.put(filepath.Join(root, "package.json"), packageJSON, false)
	for i := range list {
		s := &list[i]
		if !isIdent(s.Name) || strings.HasPrefix(s.Name, ".") {
			continue // skills.Save refuses such names; a hand-made folder may not
		}
		dir := filepath.Join(root, s.Name)
		w.mkdir(dir)
		w.put(filepath.Join(dir, "SKILL.md"), skillMD(s), false)
		if f := skills.CodeFile(s.Language); f != "" {
			w.put(filepath.Join(dir, f), s.Code, false)
		}
		w.put(filepath.Join(dir, "__init__.py"), pythonSkill(s), false)
		w.put(filepath.Join(dir, "index.js"), javascriptSkill(s), false)
		w.put(filepath.Join(dir, "init.lua"), luaSkill(s), false)
	}
}

// Remove removes a tree Write wrote.
func Remove(dir string) error {
	err := os.RemoveAll(dir)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	return err
}
