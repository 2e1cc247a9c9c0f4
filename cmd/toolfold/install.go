package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"

	"github.com/toolfold/toolfold/config"
	"github.com/toolfold/toolfold/install"
	"github.com/toolfold/toolfold/internal/cliflags"
)

// cmdInstall runs `toolfold install CLIENT` and `toolfold uninstall CLIENT`.
func cmdInstall(args []string, stdout, stderr io.Writer, uninstall bool) int {
	name := "install"
	if uninstall {
		name = "uninstall"
	}
	fs := flag.NewFlagSet("toolfold "+name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	clientFile := fs.String("client-config", "", "the client's file (default: where the client keeps it)")
	tfFile := fs.String("config", "", "where toolfold keeps the moved servers (default: "+defaultServersFile()+")")
	fs.StringVar(tfFile, "c", "", "same as --config")
	dry := fs.Bool("dry-run", false, "print what would change, write nothing")
	pos, err := cliflags.Parse(fs, args)
	if err != nil {
		return exitUsage
	}
	if len(pos) != 1 {
		return fail(stderr, "%s needs one client: %s", name, strings.Join(install.Names(), ", "))
	}
	client, ok := install.Lookup(pos[0])
	if !ok {
		return fail(stderr, "unknown client %q: use one of %s", pos[0], strings.Join(install.Names(), ", "))
	}
	o, err := installOptions(client, *clientFile, *tfFile, *dry)
	if err != nil {
		return fail(stderr, "%v", err)
	}
	run := install.Install
	if uninstall {
		run = install.Uninstall
	}
	r, err := run(o)
	if err != nil {
		return fail(stderr, "%s %s: %v", name, client.Name, err)
	}
	printInstall(stdout, o, r, uninstall)
	if !uninstall && r.Changed && !o.DryRun {
		warnUnloadable(stdout, o.ToolfoldFile)
	}
	return exitOK
}

// installOptions fills in the defaults: the client's usual file, toolfold's
// servers file in the user's config directory, this binary's absolute path.
func installOptions(c install.Client, clientFile, tfFile string, dry bool) (install.Options, error) {
	o := install.Options{Client: c, ClientFile: clientFile, ToolfoldFile: tfFile, DryRun: dry}
	if o.ClientFile == "" {
		home, err := os.UserHomeDir()
		if err != nil {
			return o, fmt.Errorf("cannot find %s's file: %v; name it with --client-config", c.Name, err)
		}
		o.ClientFile = c.Path(runtime.GOOS, home, os.Getenv)
	}
	if o.ToolfoldFile == "" {
		o.ToolfoldFile = defaultServersFile()
	}
	exe, err := os.Executable()
	if err != nil {
		return o, fmt.Errorf("cannot find toolfold's own path: %v", err)
	}
	if e, err := filepath.EvalSymlinks(exe); err == nil {
		exe = e
	}
	for _, p := range []*string{&o.ClientFile, &o.ToolfoldFile, &exe} {
		if *p, err = filepath.Abs(*p); err != nil {
			return o, err
		}
	}
	o.Exe = exe
	return o, nil
}

// defaultServersFile is where install keeps the servers it moves.
func defaultServersFile() string {
	dir, err := os.UserConfigDir()
	if err != nil {
		dir = "~/.config"
	}
	return filepath.Join(dir, "toolfold", "servers.json")
}

func printInstall(w io.Writer, o install.Options, r *install.Report, uninstall bool) {
	would := func(s string) string {
		if o.DryRun {
			return "would " + s
		}
		return s
	}
	fmt.Fprintf(w, "%s: %s\n", o.Client.Name, o.ClientFile)
	if !r.Changed {
		if uninstall {
			fmt.Fprintln(w, "  toolfold is not installed here; nothing to change")
		} else {
			fmt.Fprintln(w, "  already installed; nothing to change")
		}
		return
	}
	if r.Backup != "" {
		fmt.Fprintf(w, "  %s the file to %s\n", would("back up"), r.Backup)
	}
	if uninstall {
		fmt.Fprintf(w, "  %s the toolfold entry\n", would("remove"))
		if len(r.Put) > 0 {
			fmt.Fprintf(w, "  %s from %s: %s\n", would("put back"), o.ToolfoldFile, strings.Join(r.Put, ", "))
		}
		if len(r.Skipped) > 0 {
			fmt.Fprintf(w, "  left in %s (the client's file has servers of the same name): %s\n", o.ToolfoldFile, strings.Join(r.Skipped, ", "))
		}
	} else {
		if len(r.Moved) > 0 {
			fmt.Fprintf(w, "  %s to %s: %s\n", would("move"), o.ToolfoldFile, strings.Join(r.Moved, ", "))
		}
		fmt.Fprintf(w, "  %s one entry %q: %s\n", would("leave"), install.EntryName, r.Entry)
		for _, key := range r.Added {
			fmt.Fprintf(w, "  %s to %s: %s\n", would("add"), o.ToolfoldFile, addedSetting(key))
		}
		if !o.DryRun {
			fmt.Fprintf(w, "restart %s to use it; `toolfold check -c %s` shows what it will serve; `toolfold uninstall %s` undoes this\n", o.Client.Name, o.ToolfoldFile, o.Client.Name)
		}
	}
	if o.DryRun {
		fmt.Fprintln(w, "dry run: nothing written")
	}
}

// addedSetting says what one of install.DefaultSettings does, and how to
// change it.
func addedSetting(key string) string {
	switch key {
	case "policy":
		return `"policy", asking you before any tool its server declares destructive (edit its rules there)`
	case "audit":
		return `"audit", a log of every call and run (` + "`toolfold audit`" + ` prints it; set "audit": null to record nothing)`
	}
	return strconv.Quote(key)
}

// warnUnloadable prints what toolfold will not like in the moved servers,
// the same errors and warnings serve and check would print.
func warnUnloadable(w io.Writer, file string) {
	cfg, err := config.Load(file, nil)
	if err != nil {
		fmt.Fprintf(w, "warning: toolfold cannot load the moved servers yet; fix these in %s:\n%v\n", file, err)
		return
	}
	for _, warn := range cfg.Warnings {
		fmt.Fprintf(w, "  warning: %s\n", warn)
	}
}
