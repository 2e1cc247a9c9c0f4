package glob

import (
	"errors"
	"path"
	"strings"
	"testing"
)

func TestMatch(t *testing.T) {
	long := "evil." + strings.Repeat("x/", 150) // 305 bytes, 150 slashes
	tests := []struct {
		pattern, name string
		want          bool
	}{
		// The hole: path.Match's * stopped at "/".
		{"evil.*", "evil.admin/wipe", true},
		{"evil.*", "evil.a/b/c/", true},
		{"*", "evil.admin/wipe", true},
		{"*", "", true},
		{"*.send_*", "mail.send_now/batch", true},
		{"*.send_*", "mail/x.send_", true},
		{"*.send_*", "mail.send", false},
		{"*/wipe", "evil.admin/wipe", true},
		{"evil.admin?wipe", "evil.admin/wipe", true},
		{"evil.?", "evil./", true},
		// Dots are characters like any other.
		{"evil.*", "evil.a.b.c", true},
		{"evil.*", "evilx.a", false},
		{"*.*", "nodot", false},
		{"a.*.c", "a.b.d.c", true},
		// Spaces.
		{"evil.*", "evil.rm -rf /", true},
		{"evil.rm *", "evil.rm -rf", true},
		{"evil.rm?-rf", "evil.rm -rf", true},
		// Non-ASCII: ? is one character, not one byte.
		{"mail.?", "mail.é", true},
		{"mail.??", "mail.é", false},
		{"mail.*", "mail.送信/全部", true},
		{"mail.送?", "mail.送信", true},
		{"*.送*", "mail.送信/全部", true},
		{"mail.[à-ü]", "mail.é", true},
		{"mail.[^é]", "mail.é", false},
		{"x.\xff", "x.\xfe", false}, // invalid UTF-8 is compared byte for byte
		{"x.?", "x.\xfe", true},
		// 300 characters and more.
		{"evil.*", long, true},
		{"evil.*/", long, true},
		{"*x/x/", long, true},
		{"evil.*y*", long, false},
		{strings.Repeat("?", len(long)), long, true},
		{strings.Repeat("?", len(long)-1), long, false},
		{"evil." + strings.Repeat("x/", 150), long, true},
		// Anchored at both ends.
		{"evil.wipe", "evil.wiped", false},
		{"evil.wipe", "xevil.wipe", false},
		{"*wipe", "evil.wiped", false},
		// Classes and escapes as in path.Match.
		{"db.[a-c]*", "db.b/x", true},
		{"db.[^a-c]*", "db.b", false},
		{"db.[^a-c]*", "db.d/x", true},
		{`db.\*`, "db.*", true},
		{`db.\*`, "db.x", false},
		{`db.\?`, "db.x", false},
		{`db.\[x]`, "db.[x]", true},
		{"db.[]]", "db.]", false}, // bad pattern: matches nothing
		// Stars in runs, backtracking.
		{"**", "a/b", true},
		{"a*b*c", "a/b/x/b/c", true},
		{"a*b*c", "a/b/x/b/cd", false},
		{"*a*a*a*a*b", strings.Repeat("a", 300), false},
	}
	for _, tc := range tests {
		if got := Match(tc.pattern, tc.name); got != tc.want {
			t.Errorf("Match(%q, %q) = %v, want %v", tc.pattern, tc.name, got, tc.want)
		}
	}
}

// TestAgreesWithPathMatch checks that names without "/" match as
// path.Match matched them, so no existing rule changes meaning there.
func TestAgreesWithPathMatch(t *testing.T) {
	patterns := []string{"*", "evil.*", "*.send_*", "memory.delete_*", "a?c.*", "db.[a-c]*", "db.[^a-c]?", `x.\*`, "*.*.*"}
	names := []string{"", "evil.x", "evil.", "mail.send_now", "memory.delete_all", "abc.q", "db.b", "db.dz", "x.*", "a.b.c", "é.send_é"}
	for _, p := range patterns {
		for _, n := range names {
			want, err := path.Match(p, n)
			if err != nil {
				t.Fatalf("path.Match(%q): %v", p, err)
			}
			if got := Match(p, n); got != want {
				t.Errorf("Match(%q, %q) = %v, path.Match says %v", p, n, got, want)
			}
		}
	}
}

func TestCheck(t *testing.T) {
	tests := []struct {
		pattern string
		bad     string // a part of the error, "" for none
	}{
		{"evil.*", ""},
		{"db.[a-z]?", ""},
		{`db.\[`, ""},
		{"db.[a-z", "without its ]"},
		{"db.[", "without its ]"},
		{"db.[]", "where a class needs"},
		{"db.[-a]", "where a class needs"},
		{"db.[z-a]", "empty range"},
		{`db.\`, `lone \`},
	}
	for _, tc := range tests {
		err := Check(tc.pattern)
		switch {
		case tc.bad == "" && err != nil:
			t.Errorf("Check(%q) = %v, want nil", tc.pattern, err)
		case tc.bad != "" && (err == nil || !strings.Contains(err.Error(), tc.bad) || !errors.Is(err, ErrBadPattern)):
			t.Errorf("Check(%q) = %v, want an ErrBadPattern saying %q", tc.pattern, err, tc.bad)
		}
		if tc.bad != "" {
			if _, perr := path.Match(tc.pattern, ""); perr == nil && !strings.Contains(tc.pattern, "z-a") {
				t.Errorf("path.Match accepts %q that Check refuses", tc.pattern)
			}
		}
	}
}

func FuzzMatch(f *testing.F) {
	f.Add("evil.*", "evil.admin/wipe")
	f.Add("*.send_*", "mail.send_x")
	f.Fuzz(func(t *testing.T, pattern, name string) {
		p, err := Compile(pattern)
		if err != nil {
			return
		}
		p.Match(name) // must not panic nor hang
		if !strings.ContainsAny(pattern, `*?[\`) && p.Match(name) != (pattern == name) {
			t.Errorf("literal %q vs %q", pattern, name)
		}
	})
}
