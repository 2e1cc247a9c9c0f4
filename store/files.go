package store

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/toolfold/toolfold/internal/atomicfile"
)

// files is the Store of one machine: a file per key under dir, counters in
// memory.
type files struct {
	dir string

	mu       sync.Mutex
	counters map[string]*counter
}

type counter struct {
	n   int64
	end time.Time
}

// Files returns a Store that keeps each key in a file under dir, created
// 0700 when first written.
func Files(dir string) (Store, error) {
	if dir == "" {
		return nil, errors.New("store: no directory for the file store")
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("store: %w", err)
	}
	return &files{dir: abs, counters: map[string]*counter{}}, nil
}

func (f *files) path(key string) (string, error) {
	if err := checkKey(key); err != nil {
		return "", err
	}
	return filepath.Join(f.dir, filepath.FromSlash(key)), nil
}

func (f *files) Get(_ context.Context, key string) ([]byte, error) {
	p, err := f.path(key)
	if err != nil {
		return nil, err
	}
	b, err := os.ReadFile(p)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, ErrNotFound
	}
	return b, err
}

func (f *files) Set(_ context.Context, key string, val []byte) error {
	p, err := f.path(key)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		return fmt.Errorf("store: %w", err)
	}
	if err := atomicfile.Write(p, val, 0o600); err != nil {
		return fmt.Errorf("store: %s: %w", key, err)
	}
	return nil
}

func (f *files) Delete(_ context.Context, key string) error {
	p, err := f.path(key)
	if err != nil {
		return err
	}
	if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("store: %w", err)
	}
	return nil
}

func (f *files) Keys(_ context.Context, prefix string) ([]string, error) {
	var keys []string
	err := filepath.WalkDir(f.dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil
			}
			return err
		}
		if d.IsDir() || strings.HasPrefix(d.Name(), ".tmp-") {
			return nil
		}
		rel, _ := filepath.Rel(f.dir, p)
		if k := filepath.ToSlash(rel); strings.HasPrefix(k, prefix) {
			keys = append(keys, k)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("store: %w", err)
	}
	slices.Sort(keys)
	return keys, nil
}

func (f *files) Incr(_ context.Context, key string, window time.Duration) (int64, error) {
	if err := checkKey(key); err != nil {
		return 0, err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	now := time.Now()
	c := f.counters[key]
	if c == nil || !now.Before(c.end) {
		c = &counter{end: now.Add(window)}
		f.counters[key] = c
		if len(f.counters) > 10000 { // drop the ended ones now and then
			for k, v := range f.counters {
				if !now.Before(v.end) {
					delete(f.counters, k)
				}
			}
		}
	}
	c.n++
	return c.n, nil
}

func (f *files) Ping(context.Context) error { return nil }
func (f *files) Close() error               { return nil }
func (f *files) String() string             { return "files in " + f.dir }
