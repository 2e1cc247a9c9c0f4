package upstream

import (
	"bytes"
	"context"
	"errors"
	"io"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/toolfold/toolfold/internal/testlog"
)

type nopCloser struct{ io.Writer }

func (nopCloser) Close() error { return nil }

// readAll reads messages until an error.
func readAll(c *lineConn) ([]jsonrpc.Message, error) {
	var out []jsonrpc.Message
	for {
		m, err := c.Read(context.Background())
		if err != nil {
			return out, err
		}
		out = append(out, m)
	}
}

// TestLineConnReads: what IOTransport reads, lineConn reads, in order.
func TestLineConnReads(t *testing.T) {
	in := `{"jsonrpc":"2.0","id":1,"result":{}}` + "\r\n" +
		"\n" +
		`  {"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"a"}}` + "\n" +
		"{\n  \"jsonrpc\": \"2.0\",\n  \"id\": 2,\n  \"result\": {\"text\": \"x\\ny\"}\n}\n" +
		`[{"jsonrpc":"2.0","id":3,"result":{}},{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"t","progress":1}}]` + "\n" +
		`{"jsonrpc":"2.0","id":4,"result":{}}` // no newline before EOF
	c := newLineConn(io.NopCloser(strings.NewReader(in)), nopCloser{io.Discard}, 1<<20)
	msgs, err := readAll(c)
	if err != io.EOF {
		t.Fatalf("ended with %v, want EOF", err)
	}
	var got []string
	for _, m := range msgs {
		switch m := m.(type) {
		case *jsonrpc.Response:
			got = append(got, "result "+strings.Join(strings.Fields(string(m.Result)), ""))
		case *jsonrpc.Request:
			got = append(got, m.Method)
		}
	}
	want := []string{"result {}", "notifications/message", `result {"text":"x\ny"}`, "result {}", "notifications/progress", "result {}"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("read\n%q\nwant\n%q", got, want)
	}
}

// TestLineConnFailures: a broken frame fails the connection with an error
// that says why; text that is not JSON gives encoding/json's message, which
// callers classify as a malformed upstream.
func TestLineConnFailures(t *testing.T) {
	for _, tc := range []struct {
		name, in string
		max      int
		check    func(error) bool
	}{
		{"not json", "{this is not json\n", 1 << 20, func(err error) bool { return malformed(err) }},
		{"cut at EOF", `{"jsonrpc":"2.0",`, 1 << 20, func(err error) bool { return err == io.ErrUnexpectedEOF }},
		{"long line", strings.Repeat(" ", 100) + "{}\n", 64, func(err error) bool { return errors.Is(err, errFrameTooLarge) }},
		{"long value over lines", "{\n" + strings.Repeat("\"a\": 1,\n", 20), 64, func(err error) bool { return errors.Is(err, errFrameTooLarge) }},
		{"empty batch", "[]\n", 1 << 20, func(err error) bool { return strings.Contains(err.Error(), "empty batch") }},
		{"not JSON-RPC", `{"foo":1}` + "\n", 1 << 20, func(err error) bool { return strings.Contains(err.Error(), "version") }},
		{"not an object", "123\n", 1 << 20, func(err error) bool { return err != nil }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := newLineConn(io.NopCloser(strings.NewReader(tc.in)), nopCloser{io.Discard}, tc.max)
			msgs, err := readAll(c)
			if len(msgs) > 0 || err == io.EOF || !tc.check(err) {
				t.Errorf("read %d messages, then %v", len(msgs), err)
			}
		})
	}
}

// TestLineConnBatchAnswers: the answers to the requests of a batch go back
// together, in the batch's order, once all are written.
func TestLineConnBatchAnswers(t *testing.T) {
	in := `[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","method":"notifications/initialized"},{"jsonrpc":"2.0","id":"b","method":"roots/list"}]` + "\n"
	var out bytes.Buffer
	c := newLineConn(io.NopCloser(strings.NewReader(in)), nopCloser{&out}, 1<<20)
	msgs, err := readAll(c)
	if err != io.EOF || len(msgs) != 3 {
		t.Fatalf("read %d messages, then %v", len(msgs), err)
	}
	ctx := context.Background()
	write := func(m jsonrpc.Message) {
		t.Helper()
		if err := c.Write(ctx, m); err != nil {
			t.Fatal(err)
		}
	}
	write(&jsonrpc.Response{ID: msgs[2].(*jsonrpc.Request).ID, Result: []byte(`{"roots":[]}`)})
	if out.Len() != 0 {
		t.Fatalf("an answer went before the batch's others: %s", out.String())
	}
	write(&jsonrpc.Request{Method: "notifications/progress", Params: []byte(`{}`)})
	write(&jsonrpc.Response{ID: msgs[0].(*jsonrpc.Request).ID, Result: []byte(`{}`)})
	lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	if len(lines) != 2 || !strings.Contains(lines[0], "notifications/progress") ||
		!strings.HasPrefix(lines[1], `[{"jsonrpc":"2.0","id":1,"result":{}},{"jsonrpc":"2.0","id":"b","result":{"roots":[]}}]`) {
		t.Errorf("wrote:\n%s", out.String())
	}
}

// TestLineConnCloseUnblocksRead: Close ends a Read waiting for input, which
// reports EOF, as the Connection contract asks.
func TestLineConnCloseUnblocksRead(t *testing.T) {
	pr, _ := io.Pipe()
	c := newLineConn(pr, nopCloser{io.Discard}, 1<<20)
	done := make(chan error, 1)
	go func() {
		_, err := c.Read(context.Background())
		done <- err
	}()
	time.Sleep(20 * time.Millisecond)
	c.Close()
	select {
	case err := <-done:
		if err != io.EOF {
			t.Errorf("Read after Close: %v, want EOF", err)
		}
	case <-time.After(testlog.Bound(time.Minute)):
		t.Fatal("Close did not unblock Read")
	}
}

// goroutineID is the id of the calling goroutine.
func goroutineID() string {
	buf := make([]byte, 64)
	buf = buf[:runtime.Stack(buf, false)]
	id, _, _ := strings.Cut(strings.TrimPrefix(string(buf), "goroutine "), " ")
	return id
}

// readerOf records the goroutine each Read of the upstream's stdout runs on.
type readerOf struct {
	io.Reader
	on []string
}

func (r *readerOf) Read(p []byte) (int, error) {
	r.on = append(r.on, goroutineID())
	return r.Reader.Read(p)
}

func (r *readerOf) Close() error { return nil }

// TestStdioConnReadsOnCallersGoroutine: the connection to a stdio upstream
// reads its stdout on the goroutine that asks for a message (the SDK's
// reader), not on one of its own that would hand each message over: that
// hand-off was a goroutine switch on every upstream answer.
func TestStdioConnReadsOnCallersGoroutine(t *testing.T) {
	r := &readerOf{Reader: strings.NewReader(`{"jsonrpc":"2.0","id":1,"result":{}}` + "\n")}
	c := stdioConn(r, nopCloser{io.Discard}, newNoteOrder())
	defer c.Close()
	if _, err := c.Read(context.Background()); err != nil {
		t.Fatal(err)
	}
	me := goroutineID()
	for _, g := range r.on {
		if g != me {
			t.Fatalf("stdout read on goroutine %s, the caller is %s", g, me)
		}
	}
}
