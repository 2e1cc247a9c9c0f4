package sandbox

import (
	"strings"
	"testing"
)

func TestOutputBuffer(t *testing.T) {
	tests := []struct {
		name   string
		max    int64
		writes []string
		want   string
	}{
		{"under", 10, []string{"abc", "def"}, "abcdef"},
		{"exact", 6, []string{"abc", "def"}, "abcdef"},
		{"cut mid write", 4, []string{"abc", "def\n"}, "abcd\n[output truncated: 3 more bytes not shown; print less or raise sandbox.output]"},
		{"cut at newline", 4, []string{"abc\n", "def"}, "abc\n[output truncated: 3 more bytes not shown; print less or raise sandbox.output]"},
		{"cut in a rune", 3, []string{"aé", "b"}, "aé\n[output truncated: 1 more bytes not shown; print less or raise sandbox.output]"},
		{"cut splits a rune", 2, []string{"aé", "b"}, "a\n[output truncated: 3 more bytes not shown; print less or raise sandbox.output]"},
		{"cut splits a 4-byte rune", 3, []string{"😀x"}, "[output truncated: 5 more bytes not shown; print less or raise sandbox.output]"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := newOutputBuffer(tt.max)
			for _, w := range tt.writes {
				o.Write([]byte(w))
			}
			if got := o.String(); got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

func TestStderrBuffer(t *testing.T) {
	s := newStderrBuffer(4)
	s.write([]byte("head"))
	s.write([]byte(strings.Repeat("m", 100)))
	s.write([]byte("tail"))
	if got, want := s.String(), "head\n[... 100 bytes ...]\ntail"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}
