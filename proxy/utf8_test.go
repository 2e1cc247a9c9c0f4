package proxy

import "testing"

func TestUTF8Prefix(t *testing.T) {
	for _, tc := range []struct {
		in   string
		max  int
		want string
	}{
		{"héllo", 2, "h"}, // é is two bytes: never cut in half
		{"héllo", 3, "hé"},
		{"abc", 10, "abc"},
		{"日本", 4, "日"},
	} {
		if got := string(utf8Prefix([]byte(tc.in), tc.max)); got != tc.want {
			t.Errorf("utf8Prefix(%q, %d) = %q, want %q", tc.in, tc.max, got, tc.want)
		}
	}
}
