package sandbox

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/google/go-cmp/cmp"
)

func TestFrameReader(t *testing.T) {
	long := strings.Repeat("x", 100<<10) // longer than the reader's buffer
	tests := []struct {
		name  string
		input string
		max   int
		want  []string
		err   error
	}{
		{"frames", "a\nbb\n\nccc\n", 10, []string{"a", "bb", "", "ccc"}, io.EOF},
		{"exactly max", "12345\n", 5, []string{"12345"}, io.EOF},
		{"over max", "12345\n123456\n", 5, []string{"12345"}, errFrameTooLarge},
		{"unterminated", "a\nbc", 10, []string{"a"}, io.ErrUnexpectedEOF},
		{"long frame", long + "\nz\n", len(long), []string{long, "z"}, io.EOF},
		{"long frame over max", long + "\n", len(long) - 1, nil, errFrameTooLarge},
		{"endless line", strings.Repeat("y", 1<<20), 1000, nil, errFrameTooLarge},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fr := newFrameReader(iotest.HalfReader(strings.NewReader(tt.input)), tt.max)
			var got []string
			var err error
			for {
				var line []byte
				if line, err = fr.next(); err != nil {
					break
				}
				got = append(got, string(line))
			}
			if !errors.Is(err, tt.err) {
				t.Errorf("error %v, want %v", err, tt.err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("frames (-want +got):\n%s", diff)
			}
		})
	}
}

// FuzzFrameReader: frames come back as written and never over the cap.
func FuzzFrameReader(f *testing.F) {
	f.Add([]byte("a\nbb\n"), 3)
	f.Add([]byte("\n\n\n"), 0)
	f.Fuzz(func(t *testing.T, input []byte, max int) {
		if max < 0 || max > 1<<20 {
			return
		}
		fr := newFrameReader(bytes.NewReader(input), max)
		var rebuilt []byte
		for {
			line, err := fr.next()
			if err != nil {
				if errors.Is(err, io.EOF) && !bytes.Equal(rebuilt, input) {
					t.Fatalf("frames %q do not rebuild input %q", rebuilt, input)
				}
				return
			}
			if len(line) > max {
				t.Fatalf("frame of %d bytes over the cap of %d", len(line), max)
			}
			rebuilt = append(append(rebuilt, line...), '\n')
		}
	})
}

func TestMarshalCompactsWithoutHTMLEscaping(t *testing.T) {
	got, err := marshal(&frame{ID: 1, Result: []byte("{\n  \"html\": \"<a & b>\"\n}")})
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"id":1,"result":{"html":"<a & b>"}}`; string(got) != want {
		t.Errorf("got %s, want %s", got, want)
	}
}
