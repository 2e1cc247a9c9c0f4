package sandbox

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"unicode/utf8"

	"golang.org/x/sys/unix"
)

// outputBuffer keeps the first max bytes of the script's output and counts
// the rest. onKept, when set, sees each piece kept, as it is written
// (Request.OnOutput).
type outputBuffer struct {
	max     int64
	kept    bytes.Buffer
	dropped int64
	onKept  func([]byte)
}

func newOutputBuffer(max int64) *outputBuffer { return &outputBuffer{max: max} }

// Write never fails: past the cap it only counts.
func (o *outputBuffer) Write(p []byte) (int, error) {
	room := o.max - int64(o.kept.Len())
	if room > 0 {
		n := min(room, int64(len(p)))
		o.kept.Write(p[:n])
		o.dropped += int64(len(p)) - n
		if o.onKept != nil && n > 0 {
			o.onKept(p[:n])
		}
	} else {
		o.dropped += int64(len(p))
	}
	return len(p), nil
}

// total is every byte written so far.
func (o *outputBuffer) total() int64 { return int64(o.kept.Len()) + o.dropped }

// String is the kept output; when some was cut it ends with a notice saying
// how much. The cut never splits a UTF-8 sequence.
func (o *outputBuffer) String() string {
	if o.dropped == 0 {
		return o.kept.String()
	}
	b := o.kept.Bytes()
	cut := len(trimPartialRune(b))
	more := o.dropped + int64(len(b)-cut)
	s := string(b[:cut])
	if s != "" && s[len(s)-1] != '\n' {
		s += "\n"
	}
	return s + fmt.Sprintf("[output truncated: %d more bytes not shown; print less or raise %s]", more, hintOutput)
}

// trimPartialRune drops an incomplete UTF-8 sequence at the end of b.
func trimPartialRune(b []byte) []byte {
	for i := len(b) - 1; i >= 0 && i >= len(b)-utf8.UTFMax; i-- {
		if utf8.RuneStart(b[i]) {
			if !utf8.FullRune(b[i:]) {
				return b[:i]
			}
			return b
		}
	}
	return b
}

// floodLimit is how much output a run may produce in total before the child
// is killed as endless: 16× the cap, at least 1 MiB.
func floodLimit(outputBytes int64) int64 { return max(16*outputBytes, 1<<20) }

// readStdout copies the child's stdout into out and kills the child when the
// output keeps flowing far past the cap. Stdout is never parsed.
func (c *child) readStdout(out *outputBuffer) {
	limit := floodLimit(c.lim.OutputBytes)
	buf := make([]byte, 32<<10)
	for {
		n, err := c.stdout.Read(buf)
		out.Write(buf[:n])
		if out.total() > limit {
			c.kill(floodError(limit))
			io.Copy(io.Discard, c.stdout) // until the group is dead
			return
		}
		if err != nil {
			return
		}
	}
}

// floodError is why a child that printed past limit was stopped.
func floodError(limit int64) *ScriptError {
	return &ScriptError{Kind: "output", Msg: fmt.Sprintf(
		"printed more than %s and kept printing, so the run was stopped; print less or raise %s",
		fmtBytes(limit), hintOutput)}
}

// readPiped reads, without waiting, what is in the stdout pipe now, after
// readStdout stopped: the output a script printed before its done frame.
// It stops at the flood limit as readStdout does, and at an empty pipe
// even if writers remain (they are being killed).
func (c *child) readPiped(out *outputBuffer) {
	rc, err := c.stdout.SyscallConn()
	if err != nil {
		return
	}
	limit := floodLimit(c.lim.OutputBytes)
	buf := make([]byte, 32<<10)
	rc.Control(func(fd uintptr) { // the parent's end is non-blocking: an empty pipe is EAGAIN
		for out.total() <= limit {
			n, err := unix.Read(int(fd), buf)
			if n <= 0 || err != nil {
				return
			}
			out.Write(buf[:n])
		}
		c.kill(floodError(limit))
	})
}

// stderrBuffer keeps the head and the tail of the child's stderr: a Go
// runtime fatal error is at the head, an interpreter's last words at the
// tail.
type stderrBuffer struct {
	max     int
	head    []byte
	tail    []byte
	skipped int64
}

func newStderrBuffer(max int) *stderrBuffer { return &stderrBuffer{max: max} }

func (s *stderrBuffer) readFrom(f *os.File) {
	buf := make([]byte, 8<<10)
	for {
		n, err := f.Read(buf)
		s.write(buf[:n])
		if err != nil {
			return
		}
	}
}

func (s *stderrBuffer) write(p []byte) {
	if room := s.max - len(s.head); room > 0 {
		n := min(room, len(p))
		s.head = append(s.head, p[:n]...)
		p = p[n:]
	}
	s.tail = append(s.tail, p...)
	if extra := len(s.tail) - s.max; extra > 0 {
		s.skipped += int64(extra)
		s.tail = append(s.tail[:0], s.tail[extra:]...)
	}
}

func (s *stderrBuffer) String() string {
	if s.skipped > 0 {
		return fmt.Sprintf("%s\n[... %d bytes ...]\n%s", s.head, s.skipped, s.tail)
	}
	return string(s.head) + string(s.tail)
}
