package index

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func rankOf(ix *Index, query, qname string, u *Usage) int {
	for i, h := range ix.search(query, "", evalDepth, u) {
		if h.QName == qname {
			return i + 1
		}
	}
	return 0 // not in the top 100
}

// TestUsageLearnsParaphrase: on the corpus, one script that called
// memory.create_entities after searching "remember a fact about my
// coworker" lifts that tool for a paraphrase; without Usage nothing
// changes.
func TestUsageLearnsParaphrase(t *testing.T) {
	ix := loadTestCorpus(t)
	const tool, paraphrase = "memory.create_entities", "store a fact about the user"
	before := rankOf(ix, paraphrase, tool, nil)
	u := NewUsage(0)
	if rankOf(ix, paraphrase, tool, u) != before {
		t.Fatal("an empty Usage changed the ranking")
	}
	if !u.Record(ix, "remember a fact about my coworker", tool) {
		t.Fatal("nothing learned")
	}
	after := rankOf(ix, paraphrase, tool, u)
	if after == 0 || after > 3 || before != 0 && after >= before {
		t.Errorf("%s for %q: rank %d before learning, %d after; want top 3", tool, paraphrase, before, after)
	}
	if got := rankOf(ix, paraphrase, tool, nil); got != before {
		t.Errorf("switched off (nil Usage): rank %d, want %d as before", got, before)
	}
	// Unrelated queries are not disturbed.
	if r := rankOf(ix, "read a text file", "filesystem.read_text_file", u); r != 1 {
		t.Errorf("unrelated query: rank %d", r)
	}
}

func TestLearnTermsKeepNoValues(t *testing.T) {
	ix := New(smallTools())
	got := ix.LearnTerms(`post "Hunter2 secret" to /home/alice/notes.txt about zorblax 42 message: deploy done`)
	for _, bad := range []string{"hunter2", "secret", "alic", "alice", "note", "notes", "zorblax", "42", "deploy", "done"} {
		if slices.Contains(got, bad) {
			t.Errorf("LearnTerms kept %q: %v", bad, got)
		}
	}
	if !slices.Contains(got, "post") {
		t.Errorf("LearnTerms dropped a known word: %v", got)
	}
}

func TestUsageBoundAndFile(t *testing.T) {
	ix := New(smallTools())
	u := NewUsage(3)
	u.Record(ix, "read file", "filesystem.read_text_file") // 2 pairs
	u.Record(ix, "list issues", "github.list_issues")      // 2 more: the oldest goes
	if u.Len() != 3 {
		t.Fatalf("Len = %d, want 3", u.Len())
	}
	path := filepath.Join(t.TempDir(), ".toolfold", "usage.json")
	if err := u.Save(path); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(path)
	if strings.Contains(string(data), `"read"`) || !strings.Contains(string(data), "github.list_issues") {
		t.Errorf("saved %s", data)
	}
	v, err := LoadUsage(path, 0)
	if err != nil || v.Len() != 3 {
		t.Fatalf("LoadUsage: %v, %d pairs", err, v.Len())
	}
	if w, err := LoadUsage(path, 2); err != nil || w.Len() != 2 {
		t.Errorf("LoadUsage bounded to 2: %v, %d pairs", err, w.Len())
	}
	if w, err := LoadUsage(filepath.Join(t.TempDir(), "none.json"), 0); err != nil || w.Len() != 0 {
		t.Errorf("missing file: %v, %d pairs", err, w.Len())
	}
	if err := os.WriteFile(path, []byte(`{"version": 1, "pairs": {`), 0o644); err != nil {
		t.Fatal(err)
	}
	w, err := LoadUsage(path, 0)
	if err == nil || w == nil || w.Len() != 0 || !strings.Contains(err.Error(), "starting afresh") {
		t.Errorf("corrupt file: %v, %v", err, w)
	}
	entries, _ := os.ReadDir(filepath.Dir(path))
	if len(entries) != 1 {
		t.Errorf("Save left files behind: %v", entries)
	}
}
