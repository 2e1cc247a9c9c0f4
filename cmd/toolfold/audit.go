package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/toolfold/toolfold/audit"
	"github.com/toolfold/toolfold/config"
	"github.com/toolfold/toolfold/internal/cliflags"
	"github.com/toolfold/toolfold/internal/glob"
)

const auditUsage = `usage: toolfold audit [-c FILE] [--file AUDIT.jsonl] [--since 1h] [--tool GLOB] [--session ID] [--args] [--follow]
  prints the audit trail as a table: one row per upstream call and per run, oldest
  first, from the audit file and its rotated backups. The file is the config's
  audit.file unless --file names one. --since takes a duration (1h, 30m) or a
  time (2026-11-26T09:00:00Z); --tool a glob over server.tool, where * spans
  any characters, / and . included (runs are left out); --session a client
  session's id; --args adds the (tokenized, shortened) arguments. --follow
  prints the rows so far, then each record as it is written (through
  rotation) until Ctrl-C.
`

func cmdAudit(ctx context.Context, args []string, stdout, stderr io.Writer, now time.Time) int {
	fs, c := newFlags("audit", stderr, "warn")
	file := fs.String("file", "", "the audit file (default: the config's audit.file)")
	since := fs.String("since", "", "only entries this recent: a duration (1h) or a time (RFC 3339)")
	tool := fs.String("tool", "", "only calls to tools matching this glob (memory.*)")
	session := fs.String("session", "", "only this client session's entries")
	showArgs := fs.Bool("args", false, "show the calls' arguments")
	follow := fs.Bool("follow", false, "go on printing records as they are written, until Ctrl-C")
	fs.Usage = func() { fmt.Fprint(stderr, auditUsage) }
	pos, err := cliflags.Parse(fs, args)
	if err != nil {
		return exitUsage
	}
	if len(pos) > 0 {
		fmt.Fprintf(stderr, "toolfold audit: unexpected arguments: %s\n\n%s", strings.Join(pos, " "), auditUsage)
		return exitUsage
	}
	if err := glob.Check(*tool); *tool != "" && err != nil {
		fmt.Fprintf(stderr, "toolfold audit: --tool: %v\n\n%s", err, auditUsage)
		return exitUsage
	}
	f := audit.Filter{Tool: *tool, Session: *session}
	if f.Since, err = parseSince(*since, now); err != nil {
		return fail(stderr, "%v", err)
	}
	if *file == "" {
		if *file, err = auditFile(c, stderr); err != nil {
			return fail(stderr, "%v", err)
		}
	}
	if *follow {
		return followAudit(ctx, *file, f, *showArgs, stdout, stderr)
	}
	files, err := audit.Files(*file)
	if err != nil {
		return fail(stderr, "%v", err)
	}
	if len(files) == 0 {
		fmt.Fprintf(stdout, "no audit records yet in %s\n", *file)
		return exitOK
	}
	entries, bad, err := audit.Read(files, f)
	printAudit(stdout, entries, *showArgs)
	if bad > 0 {
		fmt.Fprintf(stderr, "toolfold audit: skipped %d lines that are not audit records\n", bad)
	}
	if err != nil {
		fmt.Fprintf(stderr, "toolfold: %v\n", err)
		return exitFailed
	}
	return exitOK
}

// auditFile is the audit file the config names.
func auditFile(c *common, stderr io.Writer) (string, error) {
	cfg, err := config.Load(c.config, nil)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return "", fmt.Errorf("config %s not found: pass -c FILE, or --file with the audit file", c.config)
	case err != nil:
		fmt.Fprintln(stderr, err)
		return "", errors.New("the config has errors (above)")
	case cfg.Audit.File == "":
		return "", fmt.Errorf("the audit is off in %s: add audit: {file: .toolfold/audit.jsonl} to it (and restart serve), or pass --file", c.config)
	}
	return cfg.Audit.File, nil
}

// parseSince reads --since: a duration back from now, or a time.
func parseSince(s string, now time.Time) (time.Time, error) {
	if s == "" {
		return time.Time{}, nil
	}
	if d, err := time.ParseDuration(s); err == nil && d > 0 {
		return now.Add(-d), nil
	}
	for _, layout := range []string{time.RFC3339, "2006-01-02T15:04", "2006-01-02 15:04", "2006-01-02"} {
		if t, err := time.ParseInLocation(layout, s, time.Local); err == nil {
			return t, nil
		}
	}
	return time.Time{}, fmt.Errorf("--since %q: write a duration (1h, 30m) or a time (2026-11-26T09:00:00Z, 2026-11-26)", s)
}

// printAudit prints entries as a table.
func printAudit(w io.Writer, entries []audit.Entry, args bool) {
	if len(entries) == 0 {
		fmt.Fprintln(w, "no audit records match")
		return
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	head := "TIME (UTC)\tSESSION\tRUN\tWHAT\tDECISION\tAPPROVAL\tDURATION\tBYTES\tRESULT"
	if args {
		head += "\tARGS"
	}
	fmt.Fprintln(tw, head)
	for _, e := range entries {
		fmt.Fprintln(tw, auditRow(e, args))
	}
	tw.Flush()
}

// auditRow is e's row of the table, its cells separated by tabs.
func auditRow(e audit.Entry, args bool) string {
	result := "ok"
	if e.IsError {
		result = "error"
		if e.Error != "" {
			result += ": " + clip(e.Error, 40)
		}
	}
	what := e.Tool
	switch e.Kind {
	case audit.KindRun:
		what = strings.TrimSpace(fmt.Sprintf("run %s %s, %s", e.Language, e.CodeHash, plural(e.Calls, "call")))
	case audit.KindFlow: // a token restored into a call, or not
		what = fmt.Sprintf("flow %s %s from %s to %s", e.Token, e.TokenType, dash(e.Origin), e.Tool)
	}
	row := fmt.Sprintf("%s\t%s\t%s\t%s\t%s\t%s\t%s\t%d\t%s", e.Time.UTC().Format("2006-01-02 15:04:05"),
		dash(clip(e.Session, 12)), dash(e.RunID), what, dash(decision(e)), dash(e.Approval),
		time.Duration(e.DurationMS*float64(time.Millisecond)).Round(100*time.Microsecond), e.ResultBytes, result)
	if args {
		row += "\t" + e.Args
	}
	return row
}

// decision is "deny by rule 2 (memory.delete_*)", or the decision alone.
func decision(e audit.Entry) string {
	if e.Rule == "" {
		return e.Decision
	}
	return e.Decision + " by " + strings.TrimPrefix(e.Rule, "policy ")
}

// clip keeps the first n runes of s, marking a cut with "…".
func clip(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n]) + "…"
	}
	return s
}
