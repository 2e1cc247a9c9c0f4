package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/toolfold/toolfold/config"
	"github.com/toolfold/toolfold/internal/atomicfile"
	"github.com/toolfold/toolfold/proxy"
	"github.com/toolfold/toolfold/store"
)

// The catalog cache keeps each upstream's last tool list on disk, beside
// the usage file (.toolfold/catalog.json), or in the shared store when
// store: names one, so that `toolfold search`
// answers without starting a single upstream. serve, check and
// search --refresh write it from what the upstreams listed; an entry is
// used only while the upstream's settings (transport, command, args, cwd,
// url) are those it was listed with.

// catalogCache is the file's content.
type catalogCache struct {
	Servers map[string]cachedServer `json:"servers"`
}

type cachedServer struct {
	Settings string      `json:"settings"` // settingsHash of the upstream it was listed from
	Listed   time.Time   `json:"listed"`
	Tools    []*mcp.Tool `json:"tools"`
}

// catalogFile is where cfg's catalog cache lives, "" for a config without
// a file.
func catalogFile(cfg *config.Config) string {
	switch {
	case cfg.Search.UsageFile != "":
		return filepath.Join(filepath.Dir(cfg.Search.UsageFile), "catalog.json")
	case cfg.File != "":
		return filepath.Join(cfg.Dir, filepath.Dir(filepath.FromSlash(config.DefaultUsageFile)), "catalog.json")
	}
	return ""
}

// settingsHash identifies what an upstream runs or reaches; env and
// headers are left out (a rotated token lists the same tools).
func settingsHash(u config.Upstream) string {
	b, _ := json.Marshal([]any{u.Transport, u.Command, u.Args, u.Cwd, u.URL})
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:12])
}

// catalogKey is where replicas sharing a store (store: redis://…) keep
// the catalog cache.
const catalogKey = "catalog/servers.json"

// catalogPlace is where cfg's catalog cache lives: the shared store when
// store: names one (every replica's serve keeps it current), else the file
// beside the usage file. get returns nil data for an empty cache.
type catalogPlace struct {
	where string
	get   func() ([]byte, error)
	set   func([]byte) error
	close func()
}

func openCatalog(cfg *config.Config) (*catalogPlace, error) {
	if cfg.Store.URL != "" {
		st, err := openStore(cfg, nil)
		if err != nil {
			return nil, err
		}
		ctx := context.Background()
		return &catalogPlace{where: st.String(),
			get: func() ([]byte, error) {
				data, err := st.Get(ctx, catalogKey)
				if errors.Is(err, store.ErrNotFound) {
					return nil, nil
				}
				return data, err
			},
			set:   func(data []byte) error { return st.Set(ctx, catalogKey, data) },
			close: func() { st.Close() }}, nil
	}
	path := catalogFile(cfg)
	if path == "" {
		return nil, errors.New("no config file to keep a catalog cache beside")
	}
	return &catalogPlace{where: path,
		get: func() ([]byte, error) {
			data, err := os.ReadFile(path)
			if errors.Is(err, fs.ErrNotExist) {
				return nil, nil
			}
			return data, err
		},
		set: func(data []byte) error {
			if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
				return err
			}
			return atomicfile.Write(path, data, 0o600)
		},
		close: func() {}}, nil
}

func (cp *catalogPlace) read() (*catalogCache, error) {
	c := &catalogCache{Servers: map[string]cachedServer{}}
	data, err := cp.get()
	if err != nil || data == nil {
		return c, err
	}
	if err := json.Unmarshal(data, c); err != nil {
		return nil, fmt.Errorf("%s: %w", cp.where, err)
	}
	if c.Servers == nil {
		c.Servers = map[string]cachedServer{}
	}
	for name, e := range c.Servers {
		if err := e.check(); err != nil {
			delete(c.Servers, name) // listed again from the upstream instead
		}
	}
	return c, nil
}

// check is the shape of a cache entry as saveCatalog writes it. The cache
// is read back from a store others may write: an entry that is not so
// shaped (a tool name with control characters, text that is not UTF-8,
// no settings hash) is not used.
func (e cachedServer) check() error {
	if len(e.Settings) != 24 || strings.Trim(e.Settings, "0123456789abcdef") != "" {
		return errors.New("bad settings hash")
	}
	for _, t := range e.Tools {
		switch {
		case t == nil || t.Name == "" || len(t.Name) > 1024:
			return errors.New("a tool without a name, or with a name too long")
		case strings.ContainsFunc(t.Name+t.Title, unicode.IsControl):
			return fmt.Errorf("tool %q: control characters in its name or title", t.Name)
		case !utf8.ValidString(t.Name + t.Title + t.Description):
			return fmt.Errorf("tool %q: not UTF-8", t.Name)
		}
	}
	return nil
}

// saveCatalog records the tools of every ready upstream in cfg's catalog
// cache, keeping the entries of the others. Failures are logged: the cache
// is an optimization.
func saveCatalog(cfg *config.Config, st []proxy.UpstreamStatus, log *slog.Logger) {
	cp, err := openCatalog(cfg)
	if err != nil {
		return
	}
	defer cp.close()
	c, err := cp.read()
	if err != nil {
		c = &catalogCache{Servers: map[string]cachedServer{}} // unreadable: start again
	}
	byName := map[string]config.Upstream{}
	for _, u := range cfg.Upstreams {
		byName[u.Name] = u
	}
	changed := false
	for _, s := range st {
		u, ok := byName[s.Name]
		if !ok || s.State != proxy.StateReady {
			continue
		}
		c.Servers[s.Name] = cachedServer{Settings: settingsHash(u), Listed: time.Now().UTC(), Tools: s.Tools}
		changed = true
	}
	if !changed {
		return
	}
	data, err := json.Marshal(c)
	if err == nil {
		err = cp.set(data)
	}
	if err != nil {
		log.Warn("catalog cache: not saved", "where", cp.where, "err", err)
	}
}

// cachedServers returns the cached tools of every enabled upstream of cfg,
// or ok false when one is missing or was listed with other settings.
func cachedServers(cfg *config.Config) (servers []proxy.ProvidedServer, listed time.Time, ok bool) {
	cp, err := openCatalog(cfg)
	if err != nil {
		return nil, time.Time{}, false
	}
	defer cp.close()
	c, err := cp.read()
	if err != nil {
		return nil, time.Time{}, false
	}
	for _, u := range cfg.Upstreams {
		if u.Disabled {
			continue
		}
		e, found := c.Servers[u.Name]
		if !found || e.Settings != settingsHash(u) {
			return nil, time.Time{}, false
		}
		if listed.IsZero() || e.Listed.Before(listed) {
			listed = e.Listed
		}
		servers = append(servers, proxy.ProvidedServer{Name: u.Name, Description: u.Description, State: proxy.StateReady, Tools: e.Tools})
	}
	return servers, listed, true
}

// cachedTools returns the cached tool list of each enabled upstream whose
// entry was listed with its present settings, for serve to search before
// the upstream has connected (proxy.Options.CachedTools); nil for none.
func cachedTools(cfg *config.Config) map[string][]*mcp.Tool {
	cp, err := openCatalog(cfg)
	if err != nil {
		return nil
	}
	defer cp.close()
	c, err := cp.read()
	if err != nil {
		return nil
	}
	var out map[string][]*mcp.Tool
	for _, u := range cfg.Upstreams {
		if e, ok := c.Servers[u.Name]; ok && !u.Disabled && e.Settings == settingsHash(u) && e.Tools != nil {
			if out == nil {
				out = map[string][]*mcp.Tool{}
			}
			out[u.Name] = e.Tools
		}
	}
	return out
}

// servedFromCache is cachedTools for serve: nil unless clients see only
// search_tools and run_script (expose: code).
func servedFromCache(cfg *config.Config) map[string][]*mcp.Tool {
	if cfg.Expose.Mode != config.ExposeCode && cfg.Expose.Mode != "" {
		return nil
	}
	return cachedTools(cfg)
}

// cachedProvider offers the cached tools to the catalog. Its tools cannot
// be called: only search uses it.
type cachedProvider []proxy.ProvidedServer

var _ proxy.Provider = cachedProvider(nil)

func (cachedProvider) Name() string                      { return "catalog cache" }
func (c cachedProvider) Servers() []proxy.ProvidedServer { return c }
func (cachedProvider) Watch(func())                      {}
func (cachedProvider) CallTool(_ context.Context, server string, _ *mcp.CallToolParams) (*mcp.CallToolResult, error) {
	return nil, &proxy.UnavailableError{Server: server, Reason: "only its cached tool list is loaded"}
}
