package learn

import (
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolfold/toolfold/config"
	"github.com/toolfold/toolfold/index"
)

// TestLearnCorruptFile: a usage file that cannot be read is logged and
// learning starts afresh.
func TestLearnCorruptFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, ".toolfold", "usage.json")
	os.MkdirAll(filepath.Dir(path), 0o755)
	os.WriteFile(path, []byte("{not json"), 0o644)
	cfg := &config.Config{}
	cfg.File, cfg.Dir = filepath.Join(dir, "proxy.yaml"), dir
	var logs strings.Builder
	l := New(cfg, nil, slog.New(slog.NewTextHandler(&logs, nil)))
	if l.usage == nil || l.usage.Len() != 0 || !strings.Contains(logs.String(), "starting afresh") {
		t.Errorf("corrupt file: usage %v, log %q", l.usage, logs.String())
	}
}

// A script's tool call searches each earlier recent query at most once,
// and none it has taught the tool already: a session that asked the same
// search many times does not pay a search per repetition in every call.
func TestLearnSearchesEachQueryOnce(t *testing.T) {
	ix := index.New([]index.Tool{
		{Server: "calc", Name: "add", Description: "Add two numbers: the total of a and b."},
		{Server: "calc", Name: "echo_text", Description: "Echo some text back."},
	}, []index.ServerInfo{{Name: "calc", Available: true}})
	l := New(&config.Config{}, nil, slog.New(slog.DiscardHandler))
	var r Recent
	for range 5 {
		l.Searched(&r, "total of two numbers")
	}
	l.Searched(&r, "echo some text back")
	var searched []string
	findsProbe = func(q string) { searched = append(searched, q) }
	t.Cleanup(func() { findsProbe = nil })
	for range 3 {
		l.Called(ix, &r, nil, "calc.add")
	}
	// The latest query needs no search; the earlier one, asked five
	// times, is searched once, in the first call.
	if len(searched) != 1 || searched[0] != "total of two numbers" {
		t.Errorf("finds searched %q, want the earlier query once", searched)
	}
	if l.Usage().Len() == 0 {
		t.Error("nothing learned")
	}
}
