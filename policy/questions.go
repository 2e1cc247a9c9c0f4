package policy

import (
	"context"
	"fmt"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Questions carries a run's approval questions to a client that answers
// them as multi round-trip input requests (protocol 2026-07-28 and later,
// where a server may not send elicitation/create while it serves a
// request). Its Ask is the Asker such a run uses: it parks the question
// and waits. The tools/call handler that started the run watches Asked;
// when a question is parked it returns Requests as the result's
// InputRequests (with a RequestState that finds the run again), and when
// the client retries the call with InputResponses it passes them to
// Answer and goes on waiting for the run. The zero value is ready; it is
// safe for concurrent use.
type Questions struct {
	mu    sync.Mutex
	next  int
	open  map[string]*question
	asked chan struct{} // buffered 1: "a question was parked"
}

type question struct {
	params *mcp.ElicitParams
	answer chan *mcp.ElicitResult // buffered 1
}

// Asked is signalled when a question is parked: the handler should then
// return Requests to the client.
func (q *Questions) Asked() <-chan struct{} {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.signal()
}

// signal is the Asked channel; q.mu is held.
func (q *Questions) signal() chan struct{} {
	if q.asked == nil {
		q.asked = make(chan struct{}, 1)
	}
	return q.asked
}

// Ask parks p and waits for Answer to bring the person's answer, or for
// ctx to end (then it returns ctx's error and the question is withdrawn).
// It is an Asker.
func (q *Questions) Ask(ctx context.Context, p *mcp.ElicitParams) (*mcp.ElicitResult, error) {
	q.mu.Lock()
	if q.open == nil {
		q.open = map[string]*question{}
	}
	q.next++
	id := fmt.Sprintf("approval-%d", q.next)
	qu := &question{params: p, answer: make(chan *mcp.ElicitResult, 1)}
	q.open[id] = qu
	asked := q.signal()
	q.mu.Unlock()
	select { // tell the handler, without waiting for it
	case asked <- struct{}{}:
	default:
	}
	select {
	case res := <-qu.answer:
		if res == nil {
			return nil, fmt.Errorf("the client answered %s with something other than an elicitation result", id)
		}
		return res, nil
	case <-ctx.Done():
		q.mu.Lock()
		delete(q.open, id)
		q.mu.Unlock()
		return nil, ctx.Err()
	}
}

// Requests are the questions waiting for an answer, as a tools/call
// result's InputRequests; nil when none is.
func (q *Questions) Requests() mcp.InputRequestMap {
	q.mu.Lock()
	defer q.mu.Unlock()
	if len(q.open) == 0 {
		return nil
	}
	m := make(mcp.InputRequestMap, len(q.open))
	for id, qu := range q.open {
		m[id] = qu.params
	}
	return m
}

// Answer hands the client's responses (a retried call's InputResponses)
// to the questions they answer, and returns how many it answered.
// Responses to questions no longer open (withdrawn, or answered before)
// are ignored.
func (q *Questions) Answer(responses mcp.InputResponseMap) int {
	q.mu.Lock()
	defer q.mu.Unlock()
	n := 0
	for id, r := range responses {
		qu := q.open[id]
		if qu == nil {
			continue
		}
		delete(q.open, id)
		res, _ := r.(*mcp.ElicitResult)
		qu.answer <- res
		n++
	}
	return n
}
