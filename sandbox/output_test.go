package sandbox

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"
	"time"
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

// OnOutput sees what a script prints while the script still runs: the
// host holds the script's tool call until OnOutput has had the line
// printed before it, so the run can end only if it did.
func TestOnOutputBeforeTheRunEnds(t *testing.T) {
	tests := []struct {
		name   string
		runner func(t *testing.T) Runner
		code   string
	}{
		{"lua", func(t *testing.T) Runner { return newTestLua(t) }, `print("early") tools.s.t{} print("late") return 1`},
		{"python", func(t *testing.T) Runner { return newTestPython(t) }, "print('early')\ntools.s.t()\nprint('late')\nreturn 1"},
		{"javascript", func(t *testing.T) Runner { return newTestNode(t) }, "console.log('early')\nawait tools.s.t()\nconsole.log('late')\nreturn 1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := tt.runner(t)
			var mu sync.Mutex
			var seen strings.Builder
			early := make(chan struct{})
			onOutput := func(p []byte) {
				mu.Lock()
				defer mu.Unlock()
				had := strings.Contains(seen.String(), "early\n")
				seen.Write(p)
				if !had && strings.Contains(seen.String(), "early\n") {
					close(early)
				}
			}
			host := &fakeHost{call: func(ctx context.Context, name string, args json.RawMessage) (json.RawMessage, error) {
				select {
				case <-early:
					return json.RawMessage(`true`), nil
				case <-ctx.Done():
					return nil, ctx.Err()
				}
			}}
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel()
			res, err := r.Run(ctx, Request{Code: tt.code, OnOutput: onOutput}, host)
			if err != nil {
				t.Fatalf("Run: %v", err)
			}
			if res.Err != nil {
				t.Fatalf("Err = %v; OnOutput saw %q", res.Err, seen.String())
			}
			mu.Lock()
			defer mu.Unlock()
			if got, want := seen.String(), "early\nlate\n"; got != want || res.Output != want {
				t.Errorf("OnOutput saw %q, Output %q; want both %q", got, res.Output, want)
			}
		})
	}
}

// OnOutput sees only the output kept, not what the cap cuts.
func TestOnOutputOnlyKept(t *testing.T) {
	var seen []byte
	o := newOutputBuffer(4)
	o.onKept = func(p []byte) { seen = append(seen, p...) }
	o.Write([]byte("abc"))
	o.Write([]byte("def"))
	o.Write([]byte("ghi"))
	if string(seen) != "abcd" {
		t.Errorf("onKept saw %q, want %q", seen, "abcd")
	}
}
