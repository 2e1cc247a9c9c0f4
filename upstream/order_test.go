package upstream

import (
	"context"
	"io"
	"strings"
	"testing"
	"testing/iotest"
	"time"
)

// TestSSECounter counts relayable notifications in an event stream however
// it is cut into reads, as the SDK will deliver them, and nothing else.
func TestSSECounter(t *testing.T) {
	long := strings.Repeat("x", orderScanMax)
	events := []string{
		"event: message\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{\"level\":\"info\",\"data\":\"a\"}}", // 1
		`data: {"method":"notifications/progress","params":{"progressToken":1,"progress":1},"jsonrpc":"2.0"}`,                             // 2
		"data: {\"jsonrpc\":\"2.0\",\ndata: \"method\":\"notifications/message\",\"params\":{\"level\":\"debug\",\"data\":1}}",            // 3: data over two lines
		`data:{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"no space"}}`,                             // 4
		`data: {"jsonrpc":"2.0","id":7,"method":"notifications/message","params":{"level":"info"}}`,                                       // a request id: not a notification
		`data: {"jsonrpc":"2.0","method":"notifications/resources/updated","params":{"uri":"x"}}`,                                         // not relayed by the order
		`data: {"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":1,"progress":"half"}}`,                        // the SDK rejects its params
		`data: {"jsonrpc":"2.0","method":"notifications/message"}`,                                                                        // no params: rejected too
		"event: ping\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{\"level\":\"info\"}}",                   // not a message event
		`data: {"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"` + long + `"}}`,                        // over the scan bound
		": data: {\"method\":\"notifications/message\",\"params\":{\"level\":\"info\"}}\nid: 5",                                           // a comment
		`data: {"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"{\"method\":\"notifications/message\"}"}]}}`,           // the response
		`data: {"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"after"}}`,                               // after it: drained unread
	}
	for _, eol := range []string{"\n", "\r\n", "\r"} {
		stream := strings.ReplaceAll(strings.Join(events, "\n\n")+"\n\n", "\n", eol)
		readers := map[string]func(io.Reader) io.Reader{
			"whole":     func(r io.Reader) io.Reader { return r },
			"bytewise":  iotest.OneByteReader,
			"half":      iotest.HalfReader,
			"data-only": iotest.DataErrReader,
		}
		for name, wrap := range readers {
			o := newNoteOrder()
			s := &sseCounter{ReadCloser: io.NopCloser(wrap(strings.NewReader(stream))), o: o}
			if _, err := io.Copy(io.Discard, s); err != nil {
				t.Fatal(err)
			}
			if o.read != 4 {
				t.Errorf("%s, line ends %q: counted %d relayable notifications, want 4", name, eol, o.read)
			}
		}
	}
}

// TestNoteOrderWait: wait returns at once when every read notification has
// been handled, blocks until the handler catches up otherwise, and past
// orderWait gives up and syncs the counts, so one lost notification cannot
// slow every later call.
func TestNoteOrderWait(t *testing.T) {
	o := newNoteOrder()
	o.wait(context.Background()) // nothing read: no wait

	o.sawRead()
	done := make(chan struct{})
	go func() { o.wait(context.Background()); close(done) }()
	select {
	case <-done:
		t.Fatal("wait returned before the notification was handled")
	case <-time.After(50 * time.Millisecond):
	}
	o.sawHandled()
	<-done

	// handled never runs ahead of read.
	o.sawHandled()
	if o.handled != o.read {
		t.Fatalf("handled %d, read %d", o.handled, o.read)
	}

	// A notification that is never handled: one bounded wait, then synced.
	o.sawRead()
	start := time.Now()
	o.wait(context.Background())
	if waited := time.Since(start); waited < orderWait/2 {
		t.Fatalf("waited %v for an unhandled notification, want about %v", waited, orderWait)
	}
	if o.handled != o.read {
		t.Fatalf("after the timeout: handled %d, read %d", o.handled, o.read)
	}

	// A cancelled context ends the wait.
	o.sawRead()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	o.wait(ctx)
}
