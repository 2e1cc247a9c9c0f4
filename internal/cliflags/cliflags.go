// Package cliflags holds what toolfold's two binaries (cmd/toolfold and
// the lab, cmd/toolfold-lab) share in reading their command lines: flags
// after positional arguments, and the logger --log-level names.
package cliflags

import (
	"flag"
	"fmt"
	"io"
	"log/slog"
)

// Parse parses flags, allowing them after positional arguments too
// ("toolfold search read a file --detail full"); "--" ends the flags. It
// returns the positional arguments in order.
func Parse(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		args = fs.Args()
		if len(args) == 0 {
			return pos, nil
		}
		if args[0] == "--" {
			return append(pos, args[1:]...), nil
		}
		pos = append(pos, args[0])
		args = args[1:]
	}
}

// Logger is a text logger to w at level ("debug", "info", "warn" or
// "error"); another level is an error saying which to use.
func Logger(level string, w io.Writer) (*slog.Logger, error) {
	var lvl slog.Level
	if err := lvl.UnmarshalText([]byte(level)); err != nil {
		return nil, fmt.Errorf("--log-level %q: use debug, info, warn or error", level)
	}
	return slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{Level: lvl})), nil
}
