package skills

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/toolfold/toolfold/config"
	"github.com/toolfold/toolfold/sandbox"
)

// SkillFile is the name of a skill's description file in its folder.
const SkillFile = "SKILL.md"

// frontMatter is what SKILL.md's front matter says. Keys toolfold does not
// use (license, allowed-tools, metadata, ...) are ignored, so a skill
// written for a client reads here too.
type frontMatter struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Language    string          `json:"language"`
	Parameters  json.RawMessage `json:"parameters"`
	Result      json.RawMessage `json:"result"`
}

// plainRE matches a description YAML reads back as the same string
// without quotes.
var plainRE = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9 ,.()'/_+-]*[A-Za-z0-9.)]$`)

// markdown renders s's SKILL.md: front matter and notes.
func (s *Skill) markdown() []byte {
	var b bytes.Buffer
	b.WriteString("---\nname: " + s.Name + "\ndescription: ")
	if plainRE.MatchString(s.Description) && strings.Contains(s.Description, " ") {
		b.WriteString(s.Description)
	} else {
		q, _ := json.Marshal(s.Description) // a JSON string is a YAML double-quoted one
		b.Write(q)
	}
	b.WriteString("\nlanguage: " + s.Language + "\n")
	for _, f := range []struct {
		key string
		raw json.RawMessage
	}{{"parameters", s.Parameters}, {"result", s.Result}} {
		if v := bytes.TrimSpace(f.raw); len(v) > 0 && string(v) != "null" {
			b.WriteString(f.key + ": " + compact(v) + "\n") // JSON is YAML's flow style
		}
	}
	b.WriteString("---\n")
	if n := strings.TrimSpace(s.Notes); n != "" {
		b.WriteString(n + "\n")
	}
	return b.Bytes()
}

// parseMarkdown reads SKILL.md into s (all but Code); file names it in
// errors.
func parseMarkdown(data []byte, file string, s *Skill) error {
	text := strings.ReplaceAll(string(bytes.TrimPrefix(data, []byte("\ufeff"))), "\r\n", "\n")
	rest, ok := strings.CutPrefix(text, "---\n")
	if !ok {
		return fmt.Errorf("%s: must start with a --- line and YAML front matter (name, description, language)", file)
	}
	front, body, ok := strings.Cut(rest, "\n---\n")
	if !ok {
		if front, ok = strings.CutSuffix(rest, "\n---"); !ok {
			return fmt.Errorf("%s: the front matter has no closing --- line", file)
		}
	}
	raw, err := config.YAMLToJSON([]byte(front))
	if err != nil {
		var ce *config.Error
		if errors.As(err, &ce) && ce.Line > 0 {
			return fmt.Errorf("%s:%d: %s", file, ce.Line+1, ce.Msg) // +1: the opening ---
		}
		return fmt.Errorf("%s: %w", file, err)
	}
	var fm frontMatter
	if err := json.Unmarshal(raw, &fm); err != nil {
		return fmt.Errorf("%s: the front matter must be a map of name, description, language, parameters: %v", file, err)
	}
	*s = Skill{Name: fm.Name, Description: strings.TrimSpace(fm.Description), Language: fm.Language,
		Parameters: nullToNil(fm.Parameters), Result: nullToNil(fm.Result), Notes: strings.TrimSpace(body)}
	return nil
}

func nullToNil(raw json.RawMessage) json.RawMessage {
	if string(bytes.TrimSpace(raw)) == "null" {
		return nil
	}
	return raw
}

// ReadFolder reads a skill folder: SKILL.md and its code file. A SKILL.md
// without a language takes it from the folder's one main.* file; without
// a name, the folder's name. The skill is not validated.
func ReadFolder(dir string) (*Skill, error) {
	return readFolder(pathFolder(dir), dir)
}

// folder is where readFolder finds a skill's files, by base name.
type folder interface {
	// read returns the file's bytes, refusing one over max.
	read(name string, max int64) ([]byte, error)
	// has reports whether the file exists.
	has(name string) bool
}

// readFolder is ReadFolder over fd; dir names the folder in messages.
func readFolder(fd folder, dir string) (*Skill, error) {
	data, err := fd.read(SkillFile, maxSkillFileBytes)
	if err != nil {
		return nil, err
	}
	s := new(Skill)
	if err := parseMarkdown(data, filepath.Join(dir, SkillFile), s); err != nil {
		return nil, err
	}
	if s.Name == "" {
		s.Name = filepath.Base(dir)
	}
	if s.Language == "" {
		if s.Language, err = codeLanguage(fd, dir); err != nil {
			return nil, err
		}
	}
	file := CodeFile(s.Language)
	if file == "" {
		return nil, fmt.Errorf("%s: language %q is not one of %s", filepath.Join(dir, SkillFile), s.Language, sandbox.LanguageList())
	}
	code, err := fd.read(file, MaxCodeBytes)
	if err != nil {
		return nil, err
	}
	s.Code = string(code)
	return s, nil
}

// codeLanguage is the language of the one main.* file in fd.
func codeLanguage(fd folder, dir string) (string, error) {
	var found []string
	for _, l := range sandbox.Languages() {
		if f := CodeFile(l.Name); f != "" && fd.has(f) {
			found = append(found, l.Name)
		}
	}
	if len(found) != 1 {
		return "", fmt.Errorf("%s: say language: %s in the front matter (the folder has %d main.* files)",
			filepath.Join(dir, SkillFile), sandbox.LanguageList(), len(found))
	}
	return found[0], nil
}

// pathFolder is a folder read by path, as a person names it.
type pathFolder string

func (d pathFolder) read(name string, max int64) ([]byte, error) {
	file := filepath.Join(string(d), name)
	f, err := os.Open(file)
	if err != nil {
		return nil, missing(file, err)
	}
	defer f.Close()
	return readCapped(f, file, max)
}

func (d pathFolder) has(name string) bool {
	_, err := os.Stat(filepath.Join(string(d), name))
	return err == nil
}

// missing says what a skill folder holds when file is not there.
func missing(file string, err error) error {
	if errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("%s: missing: a skill folder holds %s and %s", file, SkillFile, codeFiles())
	}
	return err
}

// readCapped reads the open file f (named file), refusing one over max
// bytes.
func readCapped(f *os.File, file string, max int64) ([]byte, error) {
	data, err := io.ReadAll(io.LimitReader(f, max+1))
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", file, err)
	}
	if int64(len(data)) > max {
		return nil, fmt.Errorf("%s is over the %d KiB cap", file, max>>10)
	}
	return data, nil
}
