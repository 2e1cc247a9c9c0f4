package main

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/toolfold/toolfold/config"
	"github.com/toolfold/toolfold/internal/cliflags"
	"github.com/toolfold/toolfold/policy"
)

const toolsUsage = `usage: toolfold tools [-c FILE] COMMAND
  pins               every pinned tool: its state and when it was first seen
  changed            the tools whose definition changed since they were pinned
                     (held: each call asks a person first)
  approve NAME...    accept the current definition of each tool (server.tool)
`

func cmdTools(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs, c := newFlags("tools", stderr, "warn")
	fs.Usage = func() { fmt.Fprint(stderr, toolsUsage) }
	pos, err := cliflags.Parse(fs, args)
	if err != nil {
		return exitUsage
	}
	if len(pos) == 0 {
		fmt.Fprint(stderr, toolsUsage)
		return exitUsage
	}
	if (pos[0] == "approve") != (len(pos) > 1) || !slices.Contains([]string{"pins", "changed", "approve"}, pos[0]) {
		fmt.Fprintf(stderr, "toolfold tools: unknown command or wrong arguments: %s\n\n%s", strings.Join(pos, " "), toolsUsage)
		return exitUsage
	}
	_, cfg, ok := c.setup(stderr)
	if !ok {
		return exitUsage
	}
	pins, closeStore, err := openPins(cfg)
	if err != nil {
		return fail(stderr, "%v", err)
	}
	defer closeStore()
	switch pos[0] {
	case "approve":
		return toolsApprove(ctx, pins, pos[1:], stdout, stderr)
	case "changed":
		return toolsList(ctx, pins, true, stdout, stderr)
	}
	return toolsList(ctx, pins, false, stdout, stderr)
}

// openPins opens the pins in the config's store.
func openPins(cfg *config.Config) (*policy.Pins, func(), error) {
	st, err := openStore(cfg, nil)
	if err != nil {
		return nil, nil, err
	}
	if st == nil {
		return nil, nil, fmt.Errorf("no store: pins live beside the config file, and this config was not read from one")
	}
	return policy.NewPins(st), func() { st.Close() }, nil
}

func toolsApprove(ctx context.Context, pins *policy.Pins, names []string, stdout, stderr io.Writer) int {
	code := exitOK
	for _, name := range names {
		changed, err := pins.Approve(ctx, name)
		switch {
		case err != nil:
			fmt.Fprintf(stderr, "toolfold: %v\n", err)
			code = exitFailed
		case changed:
			fmt.Fprintf(stdout, "approved the new definition of %s: its calls no longer ask first because it changed\n", name)
		default:
			fmt.Fprintf(stdout, "%s has not changed since it was pinned: nothing to approve\n", name)
		}
	}
	return code
}

func toolsList(ctx context.Context, pins *policy.Pins, changedOnly bool, stdout, stderr io.Writer) int {
	var list []policy.Pin
	var err error
	if changedOnly {
		list, err = pins.Changed(ctx)
	} else {
		list, err = pins.List(ctx)
	}
	switch {
	case len(list) == 0 && changedOnly:
		fmt.Fprintln(stdout, "no tool changed since it was pinned")
	case len(list) == 0:
		fmt.Fprintln(stdout, "no tools pinned yet: toolfold pins each tool the first time serve lists it")
	default:
		printPins(stdout, list)
	}
	if err != nil {
		fmt.Fprintf(stderr, "toolfold: %v\n", err)
		return exitFailed
	}
	return exitOK
}

func printPins(w io.Writer, list []policy.Pin) {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "TOOL\tSTATE\tFIRST SEEN (UTC)\tCHANGED (UTC)")
	for _, p := range list {
		changed := "-"
		if !p.ChangedAt.IsZero() {
			changed = p.ChangedAt.UTC().Format("2006-01-02 15:04")
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", p.Name, p.State(), p.FirstSeen.UTC().Format("2006-01-02 15:04"), changed)
	}
	tw.Flush()
}
