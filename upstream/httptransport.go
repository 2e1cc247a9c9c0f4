package upstream

import (
	"fmt"
	"io"
	"net/http"
	"strings"
)

// headerTransport adds configured headers to every request to an HTTP
// upstream, and bounds what it reads back: a JSON response body over
// maxUpstreamFrame fails instead of being read into memory whole (the SDK
// bounds SSE events with MaxEventSize, not plain JSON bodies).
type headerTransport struct {
	headers map[string]string
	order   *noteOrder // counts notifications in event streams (order.go); nil: none
}

func (h headerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	if len(h.headers) > 0 {
		r = r.Clone(r.Context())
		for k, v := range h.headers {
			r.Header.Set(k, v)
		}
	}
	resp, err := http.DefaultTransport.RoundTrip(r)
	if err != nil {
		return nil, err
	}
	if !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		resp.Body = &cappedBody{ReadCloser: resp.Body, left: maxUpstreamFrame}
	} else if h.order != nil {
		resp.Body = &sseCounter{ReadCloser: resp.Body, o: h.order}
	}
	return resp, nil
}

// errBodyTooLarge is returned once an upstream response passes the cap.
var errBodyTooLarge = fmt.Errorf("upstream response larger than %d MiB; toolfold stopped reading it", maxUpstreamFrame>>20)

type cappedBody struct {
	io.ReadCloser
	left int64
}

func (b *cappedBody) Read(p []byte) (int, error) {
	if b.left <= 0 {
		return 0, errBodyTooLarge
	}
	if int64(len(p)) > b.left {
		p = p[:b.left]
	}
	n, err := b.ReadCloser.Read(p)
	b.left -= int64(n)
	return n, err
}
