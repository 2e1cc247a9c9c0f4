package skills

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/toolfold/toolfold/sandbox"
)

// Skill is one saved skill.
type Skill struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`          // one line
	Language    string          `json:"language"`             // a sandbox.Language's Name: "lua", "python", "javascript"
	Parameters  json.RawMessage `json:"parameters,omitempty"` // JSON Schema of args (an object); nil: any object
	Result      json.RawMessage `json:"result,omitempty"`     // JSON Schema of the return value; nil: not declared
	Notes       string          `json:"notes,omitempty"`      // SKILL.md's body: notes for the model
	Code        string          `json:"code"`
}

// A skill may be written in any run_script language (sandbox.Languages),
// named by its Name; its code file is main and the language's usual
// extension.

// CodeFile is the name of the code file of a skill in language, or "" for
// an unknown language.
func CodeFile(language string) string {
	l, ok := sandbox.LookupLanguage(language)
	if !ok || l.Name != language || len(l.Extensions) == 0 {
		return ""
	}
	return "main" + l.Extensions[0]
}

// codeFiles lists the code files a skill folder may hold, in prose:
// "main.lua, main.py or main.js".
func codeFiles() string {
	var files []string
	for _, l := range sandbox.Languages() {
		if f := CodeFile(l.Name); f != "" {
			files = append(files, f)
		}
	}
	if len(files) < 2 {
		return strings.Join(files, "")
	}
	return strings.Join(files[:len(files)-1], ", ") + " or " + files[len(files)-1]
}

// Size caps.
const (
	MaxNameLen         = 64
	MaxDescriptionLen  = 300
	MaxCodeBytes       = 256 << 10
	MaxNotesBytes      = 16 << 10
	MaxSchemaBytes     = 16 << 10
	maxSkillFileBytes  = MaxNotesBytes + 2*MaxSchemaBytes + 4<<10 // SKILL.md with its front matter
	identifierExamples = "circle_area, fetchReport"
)

// ErrNotFound is returned (wrapped) for a skill that does not exist.
var ErrNotFound = errors.New("no such skill")

// ErrExists is returned (wrapped) when saving a name that is taken without
// Overwrite.
var ErrExists = errors.New("skill exists")

// CodeError is a skill's code that does not compile: "skill:LINE: message".
type CodeError struct {
	Line int // 0 when unknown
	Msg  string
}

func (e *CodeError) Error() string {
	if e.Line > 0 {
		return "skill:" + strconv.Itoa(e.Line) + ": " + e.Msg
	}
	return "skill: " + e.Msg
}

var identRE = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// keywordIn is the language in which name is a reserved word (a skill so
// named could not be written tools.skills.NAME there), or "".
func keywordIn(name string) string {
	for _, l := range sandbox.Languages() {
		if !l.Syntax.Ident(name) {
			return l.Title
		}
	}
	return ""
}

// reserved are names the skills table of a script uses itself.
var reserved = []string{"save", "list", "get", "remove", "run"}

// NameProblem says why name cannot name a skill, or "".
func NameProblem(name string) string {
	switch {
	case name == "":
		return "a skill needs a name: an identifier like " + identifierExamples
	case len(name) > MaxNameLen:
		return fmt.Sprintf("the name is %d characters; use at most %d", len(name), MaxNameLen)
	case !identRE.MatchString(name):
		return fmt.Sprintf("name %q is not an identifier: use letters, digits and _, not starting with a digit (like %s)", name, identifierExamples)
	case keywordIn(name) != "":
		return fmt.Sprintf("name %q is a keyword in %s (scripts call tools.skills.NAME); choose another", name, keywordIn(name))
	case slices.Contains(reserved, name):
		return fmt.Sprintf("name %q is taken by skills.%s itself; choose another", name, name)
	}
	return ""
}

// Validate checks everything about s that needs neither its language's
// compiler nor a store: name, description, language, sizes, schemas.
func (s *Skill) Validate() error {
	if msg := NameProblem(s.Name); msg != "" {
		return errors.New(msg)
	}
	d := s.Description
	switch {
	case strings.TrimSpace(d) == "":
		return fmt.Errorf("skill %s needs a description: one line saying what it does, for search_tools to find it by", s.Name)
	case strings.ContainsAny(d, "\r\n"):
		return fmt.Errorf("skill %s: the description must be one line; put details in the notes", s.Name)
	case utf8.RuneCountInString(d) > MaxDescriptionLen:
		return fmt.Errorf("skill %s: the description is %d characters; keep it under %d and put details in the notes", s.Name, utf8.RuneCountInString(d), MaxDescriptionLen)
	case !utf8.ValidString(d) || !utf8.ValidString(s.Notes) || !utf8.ValidString(s.Code):
		return fmt.Errorf("skill %s is not valid UTF-8 text", s.Name)
	}
	if CodeFile(s.Language) == "" {
		return fmt.Errorf("skill %s: language %q is not one of %s", s.Name, s.Language, sandbox.LanguageList())
	}
	switch {
	case strings.TrimSpace(s.Code) == "":
		return fmt.Errorf("skill %s has no code", s.Name)
	case len(s.Code) > MaxCodeBytes:
		return fmt.Errorf("skill %s: the code is %d bytes, over the %d KiB cap; keep a skill to one task", s.Name, len(s.Code), MaxCodeBytes>>10)
	case len(s.Notes) > MaxNotesBytes:
		return fmt.Errorf("skill %s: the notes are %d bytes, over the %d KiB cap", s.Name, len(s.Notes), MaxNotesBytes>>10)
	}
	if err := checkSchema(s.Parameters, "parameters", true); err != nil {
		return fmt.Errorf("skill %s: %w", s.Name, err)
	}
	if err := checkSchema(s.Result, "result", false); err != nil {
		return fmt.Errorf("skill %s: %w", s.Name, err)
	}
	return nil
}

// checkSchema checks that raw, when set, is a JSON Schema object within
// the cap; params must describe an object.
func checkSchema(raw json.RawMessage, what string, params bool) error {
	if len(bytes.TrimSpace(raw)) == 0 || string(bytes.TrimSpace(raw)) == "null" {
		return nil
	}
	if len(raw) > MaxSchemaBytes {
		return fmt.Errorf("%s: the schema is %d bytes, over the %d KiB cap", what, len(raw), MaxSchemaBytes>>10)
	}
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		return fmt.Errorf(`%s must be a JSON Schema object, like {"type": "object", "properties": {"x": {"type": "number"}}}`, what)
	}
	if t, ok := m["type"]; params && ok && t != "object" {
		return fmt.Errorf(`parameters must describe an object (type "object"): a skill's args are named, got type %v`, t)
	}
	return nil
}

// CheckArgs checks args against the skill's parameters: an object (or
// null, read as {}), holding each required property. It returns the args
// to run with ({} for null).
func (s *Skill) CheckArgs(args json.RawMessage) (json.RawMessage, error) {
	args = bytes.TrimSpace(args)
	if len(args) == 0 || string(args) == "null" {
		args = json.RawMessage("{}")
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(args, &m); err != nil {
		return nil, fmt.Errorf("skills.%s: arguments must be an object with named fields", s.Name)
	}
	var schema struct {
		Required []string `json:"required"`
	}
	if len(s.Parameters) > 0 {
		json.Unmarshal(s.Parameters, &schema)
	}
	var missing []string
	for _, r := range schema.Required {
		if _, ok := m[r]; !ok {
			missing = append(missing, r)
		}
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("skills.%s: missing required argument %s (parameters: %s)", s.Name, strings.Join(missing, ", "), compact(s.Parameters))
	}
	return args, nil
}

func compact(raw json.RawMessage) string {
	var b bytes.Buffer
	if json.Compact(&b, raw) != nil {
		return string(raw)
	}
	return b.String()
}
