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
	"time"

	"github.com/toolfold/toolfold/config"
	"github.com/toolfold/toolfold/proxy"
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
	pos, err := parse(fs, args)
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
	st := skills.NewFiles(cfg.SkillsDir())
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
		fmt.Fprintf(stdout, "removed skills.%s (kept in %s)\n", pos[1], filepath.Join(st.Dir(), ".versions", pos[1]))
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

func skillsList(ctx context.Context, st *skills.Files, stdout, stderr io.Writer) int {
	list, err := st.List(ctx)
	if len(list) == 0 && err == nil {
		fmt.Fprintf(stdout, "no skills in %s\n", st.Dir())
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

func skillsShow(ctx context.Context, st *skills.Files, name string, stdout, stderr io.Writer) int {
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
	fmt.Fprintf(stdout, "\n--- %s\n%s", filepath.Join(st.Dir(), s.Name, skills.CodeFile(s.Language)), s.Code)
	if !strings.HasSuffix(s.Code, "\n") {
		fmt.Fprintln(stdout)
	}
	return exitOK
}

func skillsAdd(ctx context.Context, cfg *config.Config, log *slog.Logger, st *skills.Files, dir string, overwrite bool, stdout, stderr io.Writer) int {
	s, err := skills.ReadFolder(dir)
	if err != nil {
		return skillFailed(stderr, err)
	}
	runners, _ := languages(cfg, log, false)
	opts := &skills.SaveOptions{Overwrite: overwrite, Compile: proxy.CompileCheck(cfg.Sandbox, runners)}
	if err := skills.Save(ctx, st, s, opts); err != nil {
		return skillFailed(stderr, err)
	}
	fmt.Fprintf(stdout, "saved skills.%s (%s) in %s\n", s.Name, s.Language, filepath.Join(st.Dir(), s.Name))
	return exitOK
}

func skillsRun(ctx context.Context, cfg *config.Config, log *slog.Logger, st *skills.Files, name, argv string, stdout, stderr io.Writer) int {
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
	p := startProxy(ctx, cfg, log, 24*time.Hour, nil)
	defer p.Close()
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
	list, err := skills.NewFiles(cfg.SkillsDir()).List(ctx)
	save := "saved by the stdio session's scripts; HTTP sessions may not (skills.save: true allows them)"
	switch {
	case cfg.Skills.NoSave:
		save = "no session saves (skills.save: false); add them with toolfold skills add"
	case cfg.Skills.SaveHTTP:
		save = "saved by any session's scripts, HTTP too (skills.save: true)"
	}
	line := fmt.Sprintf("%s in %s, %s", plural(len(list), "skill"), cfg.SkillsDir(), save)
	if err != nil {
		return line + "\n  error: " + strings.ReplaceAll(err.Error(), "\n", "\n  error: "), true
	}
	return line, false
}
