package config

import (
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestExpand(t *testing.T) {
	vars := map[string]string{"HOME": "/home/u", "EMPTY": "", "TOKEN": "t", "A_1": "a"}
	lookup := func(k string) (string, bool) { v, ok := vars[k]; return v, ok }
	sep := string(os.PathSeparator)
	for _, tc := range []struct {
		in     string
		client bool
		want   string
		errs   []string
	}{
		{in: "plain", want: "plain"},
		{in: "${HOME}/x", want: "/home/u/x"},
		{in: "${A_1}${TOKEN}", want: "at"},
		{in: "${env:TOKEN}", want: "t"},
		{in: "$$", want: "$"},
		{in: "$${HOME}", want: "${HOME}"},
		{in: "a$$$${HOME}", want: "a$${HOME}"},
		{in: "cost: $5, $HOME, trailing $", want: "cost: $5, $HOME, trailing $"},
		{in: "${NOPE:-fallback}", want: "fallback"},
		{in: "${EMPTY:-fallback}", want: "fallback"},
		{in: "${EMPTY-fallback}", want: ""},
		{in: "${NOPE-fallback}", want: "fallback"},
		{in: "${NOPE:-}", want: ""},
		{in: "${NOPE:-${HOME}/default}", want: "/home/u/default"},
		{in: "${NOPE:-a}b}", want: "ab}"},    // the first "}" closes
		{in: "${TOKEN:-${NOPE}}", want: "t"}, // a default is only expanded when used
		{in: "${NOPE:-${ALSO_NOPE}}", errs: []string{"environment variable ALSO_NOPE is not set; set it or write ${ALSO_NOPE:-default}"}},
		{in: "${NOPE}", errs: []string{"environment variable NOPE is not set; set it or write ${NOPE:-default}"}},
		{in: "${A} ${B}", want: " ", errs: []string{
			"environment variable A is not set; set it or write ${A:-default}",
			"environment variable B is not set; set it or write ${B:-default}"}},
		{in: strings.Repeat("${A:-", 9) + "x" + strings.Repeat("}", 9), errs: []string{"references nested too deeply in defaults"}},
		{in: strings.Repeat("${A:-", 8) + "x" + strings.Repeat("}", 8), want: "x"},
		{in: "${}", errs: []string{`invalid reference "${}": write ${NAME} or ${NAME:-default} (or "$$" for a literal "$")`}},
		{in: "${a b}", errs: []string{`invalid reference "${a b}": write ${NAME} or ${NAME:-default} (or "$$" for a literal "$")`}},
		{in: "x${HOME", want: "x${HOME", errs: []string{`unterminated "${": close it with "}", or write "$${" for a literal "${"`}},
		// VS Code and Cursor variables, in their files only.
		{in: "${userHome}/x", client: true, want: "/home/u/x"},
		{in: "${workspaceFolder}/src", client: true, want: "/ws/proj/src"},
		{in: "${workspaceFolderBasename}", client: true, want: "proj"},
		{in: "a${/}b${pathSeparator}c", client: true, want: "a" + sep + "b" + sep + "c"},
		{in: "${env:TOKEN}", client: true, want: "t"},
		{in: "${input:key}", client: true, errs: []string{"${input:key} asks VS Code to prompt for a value, and toolfold cannot prompt: put the value in an environment variable and write ${env:NAME}"}},
		{in: "${command:-dflt}", client: true, want: "dflt"},
		{in: "${userHome}", errs: []string{"environment variable userHome is not set; set it or write ${userHome:-default}"}},
	} {
		x := &expander{lookup: lookup, client: tc.client, workspace: "/ws/proj"}
		got, errs := x.expand(tc.in)
		if got != tc.want || !cmp.Equal(errs, tc.errs) {
			t.Errorf("expand(%q) = %q, %q; want %q, %q", tc.in, got, errs, tc.want, tc.errs)
		}
	}
}

func TestParseSize(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want int64
		ok   bool
	}{
		{"1048576", 1 << 20, true},
		{"64KiB", 64 << 10, true},
		{"512MiB", 512 << 20, true},
		{"512 mib", 512 << 20, true},
		{"1GiB", 1 << 30, true},
		{"10MB", 10_000_000, true},
		{"1.5GB", 1_500_000_000, true},
		{"1.5KiB", 1536, true},
		{"2TiB", 2 << 40, true},
		{"100B", 100, true},
		{"1.5", 0, false},
		{"512M", 0, false},
		{"-1KiB", 0, false},
		{"0", 0, false},
		{"", 0, false},
		{"MiB", 0, false},
		{".5MiB", 0, false},
		{"1e3", 0, false},
		{"99999999TiB", 0, false},
	} {
		got, msg := parseSize(tc.in)
		if got != tc.want || (msg == "") != tc.ok {
			t.Errorf("parseSize(%q) = %d, %q; want %d, ok %v", tc.in, got, msg, tc.want, tc.ok)
		}
	}
}

func TestSuggest(t *testing.T) {
	for _, tc := range []struct{ key, want string }{
		{"comand", "command"},
		{"Command", "command"},
		{"connectTimeout", "connect_timeout"},
		{"environment", "env"},
		{"cmd", "command"},
		{"type", "transport"},
		{"xyzzy", ""},
	} {
		if got := suggest(tc.key, upstreamKeys); got != tc.want {
			t.Errorf("suggest(%q) = %q, want %q", tc.key, got, tc.want)
		}
	}
}
