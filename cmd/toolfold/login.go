package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/toolfold/toolfold/config"
	"github.com/toolfold/toolfold/internal/cliflags"
	"github.com/toolfold/toolfold/oauth"
	"github.com/toolfold/toolfold/upstream"
)

// oauthEnv names a command that shows the user an authorization URL instead
// of the browser (headless hosts, tests). It gets the URL as its last
// argument. Set, it also lets serve, check, run and search sign in by
// themselves when an upstream asks; unset, only `toolfold login` does.
const oauthEnv = "TOOLFOLD_OAUTH_OPEN"

// loginTimeout bounds a sign-in in toolfold login: a person is reading a
// page and perhaps typing a password.
const loginTimeout = 5 * time.Minute

// oauthFile is where cfg's OAuth tokens are kept: oauth.json beside the
// usage file and the catalog cache (.toolfold/ beside proxy.yaml by
// default), else in the user's config directory.
func oauthFile(cfg *config.Config) string {
	if f := catalogFile(cfg); f != "" {
		return filepath.Join(filepath.Dir(f), "oauth.json")
	}
	dir, err := os.UserConfigDir()
	if err != nil {
		dir = os.TempDir()
	}
	return filepath.Join(dir, "toolfold", "oauth.json")
}

// oauthOptions are the OAuth settings of a command; interactive commands
// (login) open the browser when TOOLFOLD_OAUTH_OPEN is unset.
func oauthOptions(cfg *config.Config, log *slog.Logger, stderr io.Writer, interactive bool) *oauth.Options {
	return &oauth.Options{Store: oauth.NewStore(oauthFile(cfg)), Open: opener(stderr, interactive, log), Log: log}
}

// opener shows the authorization URL: TOOLFOLD_OAUTH_OPEN's command, else
// (interactive only) the browser, with the URL printed for when none opens.
func opener(stderr io.Writer, interactive bool, log *slog.Logger) func(context.Context, string) error {
	if cmdline := strings.Fields(os.Getenv(oauthEnv)); len(cmdline) > 0 {
		return func(ctx context.Context, url string) error {
			cmd := exec.CommandContext(ctx, cmdline[0], append(cmdline[1:], url)...)
			cmd.Stdout, cmd.Stderr = stderr, stderr
			cmd.WaitDelay = 2 * time.Second
			if err := cmd.Run(); err != nil && ctx.Err() == nil {
				return fmt.Errorf("%s command %q: %w", oauthEnv, cmdline[0], err)
			}
			return nil
		}
	}
	if !interactive {
		return nil
	}
	return func(ctx context.Context, url string) error {
		fmt.Fprintf(stderr, "toolfold: sign in on the page opening in your browser; if none opens, visit:\n\n  %s\n\n", url)
		name, args := browserCommand(url)
		cmd := exec.CommandContext(ctx, name, args...)
		cmd.WaitDelay = 2 * time.Second
		if err := cmd.Run(); err != nil && ctx.Err() == nil {
			log.Debug("no browser opened; the URL is printed above", "err", err)
		}
		return nil // the printed URL still works
	}
}

func browserCommand(url string) (string, []string) {
	switch runtime.GOOS {
	case "darwin":
		return "open", []string{url}
	case "windows":
		return "rundll32", []string{"url.dll,FileProtocolHandler", url}
	}
	return "xdg-open", []string{url}
}

func cmdLogin(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs, c := newFlags("login", stderr, "warn")
	pos, err := cliflags.Parse(fs, args)
	if err != nil {
		return exitUsage
	}
	log, cfg, ok := c.setup(stderr)
	if !ok {
		return exitUsage
	}
	var names []string
	for _, u := range cfg.Upstreams {
		if u.OAuth != nil {
			names = append(names, u.Name)
		}
	}
	if len(pos) != 1 {
		if len(names) == 0 {
			return fail(stderr, "login needs an upstream with oauth: settings; %s has none (add `oauth: {}` to an http upstream that signs in with OAuth)", c.config)
		}
		return fail(stderr, "login needs one upstream: toolfold login %s (with oauth: in %s: %s)", names[0], c.config, strings.Join(names, ", "))
	}
	var up *config.Upstream
	for i := range cfg.Upstreams {
		if cfg.Upstreams[i].Name == pos[0] {
			up = &cfg.Upstreams[i]
		}
	}
	switch {
	case up == nil:
		return fail(stderr, "no upstream %q in %s%s", pos[0], c.config, oneOf(names))
	case up.Transport != "http":
		return fail(stderr, "upstream %q runs over stdio; only http upstreams sign in with OAuth", up.Name)
	case up.OAuth == nil:
		return fail(stderr, "upstream %q has no oauth: settings; add `oauth: {}` under upstreams.%s in %s, then run toolfold login %s again", up.Name, up.Name, c.config, up.Name)
	}
	u := *up
	u.Disabled = false
	u.ConnectTimeout = max(u.ConnectTimeout, loginTimeout)
	opts := oauthOptions(cfg, log, stderr, true)
	opts.Fresh = true // a new sign-in, whatever is stored
	start := time.Now()
	pool := upstream.New([]config.Upstream{u}, &upstream.Options{Logger: log, Version: buildVersion()})
	pool.SetOAuth(opts)
	pool.Start(ctx)
	pool.WaitReady(ctx)
	st := pool.Status()[0]
	pool.Close()
	if st.State != upstream.StateReady {
		return fail(stderr, "signing in to %s failed: %s", u.Name, st.Err)
	}
	rec, err := opts.Store.Get(u.Name)
	if err != nil {
		return fail(stderr, "%v", err)
	}
	if rec == nil || rec.Saved.Before(start) {
		fmt.Fprintf(stdout, "%s answered without asking for a sign-in (%d tools); nothing was stored\n", u.Name, len(st.Tools))
		return exitOK
	}
	state, _ := oauth.Status(rec, u.Name, u.URL, time.Now())
	fmt.Fprintf(stdout, "signed in to %s: %d tools; token %s; kept in %s\n", u.Name, len(st.Tools), state, opts.Store.Path())
	return exitOK
}

func oneOf(names []string) string {
	if len(names) == 0 {
		return ""
	}
	return " (upstreams with oauth: " + strings.Join(names, ", ") + ")"
}

// printOAuth prints each oauth upstream's sign-in for check.
func printOAuth(w io.Writer, cfg *config.Config) {
	st := oauth.NewStore(oauthFile(cfg))
	first := true
	for _, u := range cfg.Upstreams {
		if u.OAuth == nil || u.Disabled {
			continue
		}
		if first {
			fmt.Fprintf(w, "oauth (tokens in %s):\n", st.Path())
			first = false
		}
		rec, err := st.Get(u.Name)
		if err != nil {
			fmt.Fprintf(w, "  %s: %v\n", u.Name, err)
			continue
		}
		state, _ := oauth.Status(rec, u.Name, u.URL, time.Now())
		fmt.Fprintf(w, "  %s: %s\n", u.Name, state)
	}
	if !first {
		fmt.Fprintln(w)
	}
}
