package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"path/filepath"
	"strings"
	"text/tabwriter"

	"github.com/toolfold/toolfold/config"
	"github.com/toolfold/toolfold/internal/cliflags"
	"github.com/toolfold/toolfold/proxy"
	"github.com/toolfold/toolfold/skillhost"
	"github.com/toolfold/toolfold/skills"
)

const skillsUsage = `usage: toolfold skills [-c FILE] COMMAND
  list                      the saved skills: name, language, description
  show NAME                 a skill's SKILL.md and code
  add DIR [--overwrite]     check a skill folder (SKILL.md + main.lua/py/js) and save it
  rm NAME                   remove a skill (kept in DIR/.versions)
  run NAME ['{"x": 1}']     run a skill with arguments, as a script's call would
`

func cmdSkills(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs, c := newFlags("skills", stderr, "warn")
	overwrite := fs.Bool("overwrite", false, "add: replace a skill of the same name (the old one is kept)")
	fs.Usage = func() { fmt.Fprint(stderr, skillsUsage) }
	pos, err := cliflags.Parse(fs, args)
	if err != nil {
		return exitUsage
	}
	if len(pos) == 0 {
		fmt.Fprint(stderr, skillsUsage)
		return exitUsage
	}
	want := map[string][2]int{"list": {0, 0}, "show": {1, 1}, "add": {1, 1}, "rm": {1, 1}, "run": {1, 2}}
	n, ok := want[pos[0]]
	if !ok || len(pos)-1 < n[0] || len(pos)-1 > n[1] {
		fmt.Fprintf(stderr, "toolfold skills: unknown command or wrong arguments: %s\n\n%s", strings.Join(pos, " "), skillsUsage)
		return exitUsage
	}
	log, cfg, ok := c.setup(stderr)
	if !ok {
		return exitUsage
	}
	st, _, done, err := skillsStore(cfg)
	if err != nil {
		fmt.Fprintf(stderr, "toolfold skills: %v\n", err)
		return exitFailed
	}
	defer done()
	switch pos[0] {
	case "list":
		return skillsList(ctx, st, stdout, stderr)
	case "show":
		return skillsShow(ctx, st, pos[1], stdout, stderr)
	case "add":
		return skillsAdd(ctx, cfg, log, st, pos[1], *overwrite, stdout, stderr)
	case "rm":
		if err := st.Remove(ctx, pos[1]); err != nil {
			return skillFailed(stderr, err)
		}
		fmt.Fprintf(stdout, "removed skills.%s (kept in %s)\n", pos[1], skillPlace(st, ".versions", pos[1]))
		return exitOK
	default:
		argv := "{}"
		if len(pos) == 3 {
			argv = pos[2]
		}
		return skillsRun(ctx, cfg, log, st, pos[1], argv, stdout, stderr)
	}
}

func skillFailed(stderr io.Writer, err error) int {
	fmt.Fprintf(stderr, "toolfold: %v\n", err)
	return exitFailed
}

func skillsList(ctx context.Context, st skills.Store, stdout, stderr io.Writer) int {
	list, err := st.List(ctx)
	if len(list) == 0 && err == nil {
		fmt.Fprintf(stdout, "no skills in %s\n", skillPlace(st))
		return exitOK
	}
	tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
	if len(list) > 0 {
		fmt.Fprintln(tw, "NAME\tLANGUAGE\tDESCRIPTION")
	}
	for _, s := range list {
		fmt.Fprintf(tw, "%s\t%s\t%s\n", s.Name, s.Language, s.Description)
	}
	tw.Flush()
	if err != nil {
		return skillFailed(stderr, err)
	}
	return exitOK
}

func skillsShow(ctx context.Context, st skills.Store, name string, stdout, stderr io.Writer) int {
	s, err := st.Get(ctx, name)
	if err != nil {
		return skillFailed(stderr, err)
	}
	fmt.Fprintf(stdout, "skills.%s (%s): %s\n", s.Name, s.Language, s.Description)
	if len(s.Parameters) > 0 {
		fmt.Fprintf(stdout, "parameters: %s\n", s.Parameters)
	}
	if len(s.Result) > 0 {
		fmt.Fprintf(stdout, "result: %s\n", s.Result)
	}
	if s.Notes != "" {
		fmt.Fprintf(stdout, "\n%s\n", s.Notes)
	}
	fmt.Fprintf(stdout, "\n--- %s\n%s", skillPlace(st, s.Name, skills.CodeFile(s.Language)), s.Code)
	if !strings.HasSuffix(s.Code, "\n") {
		fmt.Fprintln(stdout)
	}
	return exitOK
}

func skillsAdd(ctx context.Context, cfg *config.Config, log *slog.Logger, st skills.Store, dir string, overwrite bool, stdout, stderr io.Writer) int {
	s, err := skills.ReadFolder(dir)
	if err != nil {
		return skillFailed(stderr, err)
	}
	runners, _ := languages(cfg, log, false)
	opts := &skills.SaveOptions{Overwrite: overwrite, Compile: skillhost.CompileCheck(cfg.Sandbox, runners),
		Refuse: proxy.SkillRefusal(cfg.PII)} // no raw personal data in the store every session reads
	if err := skills.Save(ctx, st, s, opts); err != nil {
		return skillFailed(stderr, err)
	}
	fmt.Fprintf(stdout, "saved skills.%s (%s) in %s\n", s.Name, s.Language, skillPlace(st, s.Name))
	return exitOK
}

func skillsRun(ctx context.Context, cfg *config.Config, log *slog.Logger, st skills.Store, name, argv string, stdout, stderr io.Writer) int {
	s, err := st.Get(ctx, name)
	if err != nil {
		return skillFailed(stderr, err)
	}
	if !json.Valid([]byte(argv)) {
		return fail(stderr, `the arguments must be a JSON object, like '{"x": 1}'`)
	}
	args, err := s.CheckArgs(json.RawMessage(argv))
	if err != nil {
		return fail(stderr, "%v", err)
	}
	p, ctx, done, err := startRunProxy(ctx, cfg, log)
	if err != nil {
		return fail(stderr, "%v", err)
	}
	defer done()
	text, failed, err := p.RunScriptArgs(ctx, s.Code, s.Language, args)
	if err != nil {
		fmt.Fprintf(stderr, "toolfold: %v\n", err)
		return exitUsage
	}
	fmt.Fprintln(stdout, text)
	if failed {
		return exitFailed
	}
	return exitOK
}

// skillsStatus is check's line about skills: where, how many, who saves.
func skillsStatus(ctx context.Context, cfg *config.Config) (string, bool) {
	st, where, done, err := skillsStore(cfg)
	if err != nil {
		return "skills: " + err.Error(), true
	}
	defer done()
	list, err := st.List(ctx)
	save := "saved by the stdio session's scripts; HTTP sessions may not (skills.save: true allows them)"
	switch {
	case cfg.Skills.NoSave:
		save = "no session saves (skills.save: false); add them with toolfold skills add"
	case cfg.Skills.SaveHTTP:
		save = "saved by any session's scripts, HTTP too (skills.save: true)"
	}
	line := fmt.Sprintf("%s %s, %s", plural(len(list), "skill"), where, save)
	if err != nil {
		return line + "\n  error: " + strings.ReplaceAll(err.Error(), "\n", "\n  error: "), true
	}
	return line, false
}

// skillsStore is where the config keeps skills: the shared store when
// store: names one (replicas share their skills), else the files of
// skills.dir. where says which, for check; done releases the store.
func skillsStore(cfg *config.Config) (st skills.Store, where string, done func(), err error) {
	if cfg.Store.URL == "" {
		return skills.NewFiles(cfg.SkillsDir()), "in " + cfg.SkillsDir(), func() {}, nil
	}
	shared, err := openStore(cfg, nil)
	if err != nil {
		return nil, "", nil, err
	}
	kv := skills.NewKV(shared)
	return kv, kv.String(), func() { shared.Close() }, nil
}

// skillPlace names a path in a skills store: a file under skills.dir, or
// the shared store.
func skillPlace(st skills.Store, parts ...string) string {
	if f, ok := st.(*skills.Files); ok {
		return filepath.Join(append([]string{f.Dir()}, parts...)...)
	}
	return "the shared store"
}
