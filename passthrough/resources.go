package passthrough

import (
	"context"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Resources through the forwarder: reads, routing of URIs to upstreams,
// and subscriptions shared by the client sessions.

// readHandler serves resources/read through the SDK's lookup; the
// middleware normally answers first, for any URI.
func (f *Forwarder) readHandler(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
	res, err := f.read(ctx, req)
	if err != nil {
		return nil, err
	}
	return res.(*mcp.ReadResourceResult), nil
}

// read forwards resources/read to the upstream the URI belongs to.
func (f *Forwarder) read(ctx context.Context, req *mcp.ReadResourceRequest) (mcp.Result, error) {
	it, err := f.route(req.Params.URI)
	if err != nil {
		return nil, err
	}
	cs, err := f.pool.Session(it.up)
	if err != nil {
		return nil, err
	}
	params := *req.Params
	params.URI = it.orig
	params.Meta = f.outMeta(ctx, params.Meta)
	cctx, cancel := context.WithTimeout(ctx, f.timeout(it.up, true))
	defer cancel()
	res, err := cs.ReadResource(cctx, &params)
	if err != nil {
		return nil, f.upstreamErr(ctx, cctx, it.up, "resources/read", err)
	}
	res.Meta = resultMeta(res.Meta)
	if it.orig != req.Params.URI {
		for _, c := range res.Contents {
			if c != nil && c.URI == it.orig {
				c.URI = req.Params.URI
			}
		}
	}
	return res, nil
}

// route finds the upstream serving a URI a client sent: a namespaced URI
// names it; a listed URI is its lister's; a URI matching a template's
// literal prefix is the template's owner (the longest prefix wins); else
// the only upstream that serves resources.
func (f *Forwarder) route(uri string) (named, error) {
	if up, orig, ok := splitURI(uri, f.pool.Has); ok {
		return named{up, orig}, nil
	}
	if it, ok := f.mirror.owner("resource", uri); ok {
		return it, nil
	}
	var best named
	bestLen := -1
	for exp, it := range f.mirror.templateList() {
		prefix, _, _ := strings.Cut(exp, "{")
		if strings.HasPrefix(uri, prefix) && len(prefix) > bestLen {
			best, bestLen = named{it.up, uri}, len(prefix)
		}
	}
	if bestLen >= 0 {
		return best, nil
	}
	var serving []string
	for _, s := range f.pool.Status() {
		if cs, err := f.pool.Session(s.Name); err == nil {
			if init := cs.InitializeResult(); init != nil && init.Capabilities != nil && init.Capabilities.Resources != nil {
				serving = append(serving, s.Name)
			}
		}
	}
	if len(serving) == 1 {
		return named{serving[0], uri}, nil
	}
	return named{}, &jsonrpc.Error{Code: mcp.CodeResourceNotFound,
		Message: fmt.Sprintf("no upstream lists resource %q; see resources/list and resources/templates/list for the URIs served", uri)}
}

// subscribe subscribes upstream once per resource, however many client
// sessions subscribe; the SDK tracks which sessions get the updates.
func (f *Forwarder) subscribe(ctx context.Context, req *mcp.SubscribeRequest) error {
	it, err := f.route(req.Params.URI)
	if err != nil {
		return err
	}
	f.mu.Lock()
	s := f.subs[it]
	if s == nil {
		s = &subscription{exposed: req.Params.URI}
		f.subs[it] = s
	}
	s.count++
	first := s.count == 1
	f.mu.Unlock()
	if !first {
		return nil
	}
	err = f.upstreamSubscribe(ctx, it, true)
	if err != nil {
		f.mu.Lock()
		if s.count--; s.count <= 0 {
			delete(f.subs, it)
		}
		f.mu.Unlock()
	}
	return err
}

// unsubscribe ends the upstream subscription with the last client's.
func (f *Forwarder) unsubscribe(ctx context.Context, req *mcp.UnsubscribeRequest) error {
	it, err := f.route(req.Params.URI)
	if err != nil {
		return err
	}
	f.mu.Lock()
	s := f.subs[it]
	last := false
	if s != nil {
		s.count--
		if s.count <= 0 {
			delete(f.subs, it)
			last = true
		}
	}
	f.mu.Unlock()
	if !last {
		return nil
	}
	return f.upstreamSubscribe(ctx, it, false)
}

func (f *Forwarder) upstreamSubscribe(ctx context.Context, it named, on bool) error {
	cs, err := f.pool.Session(it.up)
	if err != nil {
		return err
	}
	cctx, cancel := context.WithTimeout(ctx, f.timeout(it.up, true))
	defer cancel()
	if on {
		err = cs.Subscribe(cctx, &mcp.SubscribeParams{URI: it.orig})
	} else {
		err = cs.Unsubscribe(cctx, &mcp.UnsubscribeParams{URI: it.orig})
	}
	if err != nil {
		return f.upstreamErr(ctx, cctx, it.up, "resources/subscribe", err)
	}
	return nil
}

// resourceUpdated passes an upstream's notifications/resources/updated to
// the client sessions subscribed to that resource.
func (f *Forwarder) resourceUpdated(ctx context.Context, up string, p *mcp.ResourceUpdatedNotificationParams) {
	if p == nil {
		return
	}
	f.mu.Lock()
	s := f.subs[named{up, p.URI}]
	uri := ""
	if s != nil {
		uri = s.exposed
	}
	f.mu.Unlock()
	if uri == "" {
		uri = f.mirror.exposedURI(up, p.URI)
	}
	cp := *p
	cp.URI = uri
	_ = f.server.ResourceUpdated(ctx, &cp)
}
