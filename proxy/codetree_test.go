package proxy

import (
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolfold/toolfold/codeapi"
	"github.com/toolfold/toolfold/sandbox"
)

// TestCodeTreeTokenized: where an upstream described a tool with personal
// data, the session's servers/ tree shows tokens, as search_tools does,
// and the tree of a catalog without any is shared.
func TestCodeTreeTokenized(t *testing.T) {
	py, err := sandbox.NewPython(nil)
	if err != nil {
		t.Skip(err)
	}
	p, cs := startProxyWith(t, testConfig(), &Options{Providers: []Provider{plantedProvider()}, Runners: []sandbox.Runner{py}})
	if !p.trees.on() {
		t.Skip("no mount namespace: runs get no servers/ tree here")
	}
	if d := p.AdvertisedTools()[1].Description; !strings.Contains(d, "servers/ and skills/") {
		t.Errorf("run_script's description does not say the trees exist: %s", d)
	}
	text, failed := runPython(t, cs, `import os
texts = []
for root, dirs, files in os.walk("servers"):
    for f in files:
        texts.append(open(os.path.join(root, f)).read())
all = "\n".join(texts)
return ["find_owner" in all, "@example.com" in all, "[EMAIL_" in all, "7946" in all]`)
	if failed || valueLine(text) != "[true,false,true,false]" {
		t.Errorf("want the tool's files with tokens and no raw value: %s", text)
	}
	p.trees.mu.Lock()
	shared, base, private := p.trees.shared, p.trees.base, p.trees.private
	var own *codeTree
	for _, tr := range private {
		own = tr
	}
	n := len(private)
	p.trees.mu.Unlock()
	if shared != nil || base == nil || n != 1 {
		t.Fatalf("a catalog with personal data: shared tree %v, base %v, %d private ones; want none, one and 1", shared, base, n)
	}
	// The session's files without personal data are the base tree's.
	a, err1 := os.Stat(filepath.Join(base.dir, "servers", "package.json"))
	b, err2 := os.Stat(filepath.Join(own.dir, "servers", "package.json"))
	if err1 != nil || err2 != nil || !os.SameFile(a, b) {
		t.Errorf("servers/package.json is not linked to the base tree's: %v %v", err1, err2)
	}
}

// TestCodeTreesVersions: a run gets the newest version, waiting for it;
// an older one is removed once no run holds it, not before.
func TestCodeTreesVersions(t *testing.T) {
	ct := &codeTrees{root: t.TempDir(), log: slog.New(slog.DiscardHandler), private: map[*Session]*codeTree{}, waiting: map[*Session]bool{}}
	job := func(name string) func(*Session, string) treeJob {
		return func(*Session, string) treeJob {
			return func(dir string) (codeapi.Stats, error) {
				return codeapi.Write(dir, codeapi.Catalog{Servers: []codeapi.Server{{Name: name, Ident: name}}}, nil)
			}
		}
	}
	ctx := context.Background()
	ct.changed(job("v1"), false)
	dir1, release1 := ct.acquire(ctx, nil)
	if _, err := os.Stat(filepath.Join(dir1, "servers", "v1", "README.md")); err != nil {
		t.Fatalf("first version: %v", err)
	}
	ct.changed(job("v2"), false)
	ct.changed(job("v3"), false) // v2 is superseded before it is written
	dir3, release3 := ct.acquire(ctx, nil)
	if _, err := os.Stat(filepath.Join(dir3, "servers", "v3")); err != nil {
		t.Fatalf("newest version: %v", err)
	}
	if _, err := os.Stat(dir1); err != nil {
		t.Errorf("a tree a run holds was removed: %v", err)
	}
	release1()
	waitGone(t, dir1)
	release3()
	if _, err := os.Stat(dir3); err != nil {
		t.Errorf("the current tree was removed: %v", err)
	}
	if got, ok := ct.ready(nil); !ok || got != dir3 {
		t.Errorf("ready = %q, %v; want %q", got, ok, dir3)
	}
	// A session waiting for its tree (its warm children) hears of each
	// version once it is written.
	heard := make(chan *Session, 4)
	ct.mu.Lock()
	ct.onReady = func(s *Session) { heard <- s }
	ct.mu.Unlock()
	s := &Session{}
	ct.ready(s)
	ct.changed(job("v4"), false)
	if got := <-heard; got != s && got != nil {
		t.Errorf("onReady(%p), want the waiting session %p", got, s)
	}
	ct.forget(s)
	ct.close()
	waitGone(t, ct.root)
}
