package upstream

import (
	"bufio"
	"io"
	"log/slog"
	"strings"
	"testing"

	"github.com/toolfold/toolfold/rewrite"
)

// TestStderrCutKeepsNoPartialValue: a stderr line over the cap is cut,
// and a personal value across the cut (or across the read window) must
// not reach the log or the quoted tail in part, where the scrubber, given
// only the half, might not recognize it.
func TestStderrCutKeepsNoPartialValue(t *testing.T) {
	det, err := rewrite.NewDetector(rewrite.Defaults())
	if err != nil {
		t.Fatal(err)
	}
	const email, card = "ann.lee@example.com", "4111 1111 1111 1111"
	// filler is words with no digits and nothing the scrubber replaces.
	filler := func(n int) string { return strings.Repeat("abc ", n/4+1)[:n-1] + " " }
	across := func(v string, at int) string { // v starts 6 bytes before at
		return filler(at-6) + v + " and more " + filler(300)
	}
	// Many emails shrink when scrubbed ("[EMAIL]"), so the end of the read
	// window lands under the cap after scrubbing; a card straddles it.
	var emails strings.Builder
	for emails.Len() < 2*stderrLineCap-10 {
		emails.WriteString(email + " ")
	}
	windowEdge := emails.String()[:2*stderrLineCap-10] // ends mid-email
	windowEdge = windowEdge[:strings.LastIndexByte(windowEdge, ' ')+1]
	windowEdge += filler(2*stderrLineCap - 6 - len(windowEdge))

	cases := map[string]string{
		"email across the cap":    across(email, stderrLineCap),
		"card across the cap":     across(card, stderrLineCap),
		"card across the window":  windowEdge + card + " tail " + filler(100),
		"email across the window": windowEdge + email + " tail " + filler(100),
	}
	for name, line := range cases {
		t.Run(name, func(t *testing.T) {
			tr := &stdioTransport{log: slog.New(slog.DiscardHandler), tail: &lineTail{max: stderrTail}, scrub: det.Redact}
			tr.logStderr(strings.NewReader(line + "\nnext line\n"))
			tr.tail.mu.Lock()
			lines := append([]string(nil), tr.tail.lines...)
			tr.tail.mu.Unlock()
			if len(lines) != 2 || lines[1] != "next line" {
				t.Fatalf("want the cut line and %q; got %d lines", "next line", len(lines))
			}
			got := lines[0]
			if !strings.HasSuffix(got, cutMark) {
				t.Errorf("the cut line does not end with %q: …%s", cutMark, got[max(0, len(got)-40):])
			}
			if len(got) > stderrLineCap+len(cutMark)+1 {
				t.Errorf("the cut line is %d bytes, over the cap %d", len(got), stderrLineCap)
			}
			for _, frag := range []string{"ann.l", "ann", "lee@", "example", "4111", "111", "11 1"} {
				if strings.Contains(got, frag) {
					i := strings.Index(got, frag)
					t.Errorf("part of a raw value, %q, was kept: …%s…", frag, got[max(0, i-30):min(len(got), i+30)])
				}
			}
		})
	}
}

// TestStderrShortLineKept: a line under the cap is scrubbed, not cut.
func TestStderrShortLineKept(t *testing.T) {
	det, _ := rewrite.NewDetector(rewrite.Defaults())
	tr := &stdioTransport{log: slog.New(slog.DiscardHandler), tail: &lineTail{max: stderrTail}, scrub: det.Redact}
	line, err := tr.readStderrLine(bufio.NewReader(strings.NewReader("  fatal: no account for ann.lee@example.com  \n")))
	if err != nil || line != "fatal: no account for [EMAIL]" {
		t.Fatalf("got %q, %v", line, err)
	}
	_, err = tr.readStderrLine(bufio.NewReader(strings.NewReader("")))
	if err != io.EOF {
		t.Fatalf("at the end: %v, want EOF", err)
	}
}
