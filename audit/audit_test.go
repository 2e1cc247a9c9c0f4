package audit

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/toolfold/toolfold/config"
)

func TestOffWithoutFile(t *testing.T) {
	l, err := Open(config.Audit{}, nil)
	if err != nil || l != nil {
		t.Fatalf("Open without a file = %v, %v; want nil, nil", l, err)
	}
	if err := l.Write(Record{Kind: KindCall}); err != nil || l.File() != "" || l.Close() != nil {
		t.Error("a nil Log is not a no-op")
	}
}

func TestWriteAndRead(t *testing.T) {
	file := filepath.Join(t.TempDir(), "logs", "audit.jsonl")
	t0 := time.Date(2026, 11, 26, 12, 0, 0, 0, time.UTC)
	l, err := Open(config.Audit{File: file, MaxSizeMB: 1, MaxBackups: 3}, &Options{Now: func() time.Time { return t0 }})
	if err != nil {
		t.Fatal(err)
	}
	recs := []Record{
		{Kind: KindCall, Session: "s1", RunID: "r1", Tool: "memory.create_entities", Decision: "ask",
			Rule: "policy rule 1 (memory.create_*)", Approval: "allow_once", Duration: 12500 * time.Microsecond,
			ResultBytes: 240, TraceID: "abc", Args: json.RawMessage(`{"observations":["[EMAIL_1]","` + strings.Repeat("y", 100) + `"]}`)},
		{Kind: KindCall, Session: "s1", RunID: "r1", Tool: "memory.delete_entities", Decision: "deny",
			Rule: "policy rule 2 (memory.delete_*)", IsError: true, Error: "denied by policy rule 2", Time: t0.Add(time.Second)},
		{Kind: KindRun, Session: "s1", RunID: "r1", Language: "lua", CodeHash: CodeHash("print(1)"), Calls: 2,
			Duration: time.Second, ResultBytes: 10, Time: t0.Add(2 * time.Second)},
	}
	for _, r := range recs {
		if err := l.Write(r); err != nil {
			t.Fatal(err)
		}
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	if err := l.Write(recs[0]); err == nil {
		t.Error("Write after Close succeeded")
	}
	if fi, err := os.Stat(file); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("audit file: %v, %v; want mode 0600", fi.Mode(), err)
	}
	files, err := Files(file)
	if err != nil {
		t.Fatal(err)
	}
	got, bad, err := Read(files, Filter{})
	if err != nil || bad != 0 {
		t.Fatalf("Read: %v, %d bad lines", err, bad)
	}
	want := []Entry{
		{Time: t0, Kind: "call", Session: "s1", RunID: "r1", Tool: "memory.create_entities", Decision: "ask",
			Rule: "policy rule 1 (memory.create_*)", Approval: "allow_once", DurationMS: 12.5, ResultBytes: 240, TraceID: "abc",
			Args: `{"observations":["[EMAIL_1]","` + strings.Repeat("y", 100) + `"]}`},
		{Time: t0.Add(time.Second), Kind: "call", Session: "s1", RunID: "r1", Tool: "memory.delete_entities", Decision: "deny",
			Rule: "policy rule 2 (memory.delete_*)", IsError: true, Error: "denied by policy rule 2"},
		{Time: t0.Add(2 * time.Second), Kind: "run", Session: "s1", RunID: "r1", Language: "lua", CodeHash: CodeHash("print(1)"),
			DurationMS: 1000, ResultBytes: 10, Calls: 2},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("entries (-want +got):\n%s", diff)
	}
}

// TestArgsWholeUpToCap: an entry keeps a call's arguments whole (the
// eleventh recipient too), and past MaxArgs cuts them saying how much.
func TestArgsWholeUpToCap(t *testing.T) {
	var to []string
	for i := 1; i <= 11; i++ {
		to = append(to, fmt.Sprintf("[EMAIL_%d]", i))
	}
	args, _ := json.Marshal(map[string]any{"to": to, "body": strings.Repeat("z", 300) + " pay [IBAN_1]"})
	e := entry(Record{Kind: KindCall, Args: args})
	if e.Args != string(args) {
		t.Errorf("args\n got %s\nwant %s", e.Args, args)
	}
	big, _ := json.Marshal(map[string]string{"body": strings.Repeat("z", MaxArgs)})
	e = entry(Record{Kind: KindCall, Args: big})
	if len(e.Args) > MaxArgs+32 || !strings.HasSuffix(e.Args, fmt.Sprintf("…(+%d bytes)", len(big)-MaxArgs)) {
		t.Errorf("args of %d bytes kept as %d bytes ending %q; want cut at %d with a notice", len(big), len(e.Args), e.Args[len(e.Args)-20:], MaxArgs)
	}
}

func TestFilter(t *testing.T) {
	t0 := time.Date(2026, 11, 26, 12, 0, 0, 0, time.UTC)
	call := Entry{Time: t0, Kind: KindCall, Session: "s1", Tool: "memory.create_entities"}
	run := Entry{Time: t0, Kind: KindRun, Session: "s2"}
	tests := []struct {
		f         Filter
		call, run bool
	}{
		{Filter{}, true, true},
		{Filter{Since: t0}, true, true},
		{Filter{Since: t0.Add(time.Nanosecond)}, false, false},
		{Filter{Tool: "memory.*"}, true, false},
		{Filter{Tool: "*.delete_*"}, false, false},
		{Filter{Session: "s2"}, false, true},
	}
	for _, tt := range tests {
		if got := tt.f.Match(call); got != tt.call {
			t.Errorf("%+v.Match(call) = %v", tt.f, got)
		}
		if got := tt.f.Match(run); got != tt.run {
			t.Errorf("%+v.Match(run) = %v", tt.f, got)
		}
	}
}

// TestFilterToolSlash: --tool's * spans "/" and "." in a tool's name,
// as a policy rule's does, so `audit --tool 'evil.*'` shows every call
// a deny rule "evil.*" refused.
func TestFilterToolSlash(t *testing.T) {
	for _, name := range []string{"evil.admin/wipe", "evil.a/b.c", "evil.rm -rf /", "evil.送信/全部"} {
		e := Entry{Kind: KindCall, Tool: name}
		if !(Filter{Tool: "evil.*"}).Match(e) {
			t.Errorf("--tool evil.* misses %q", name)
		}
		if !(Filter{Tool: "*"}).Match(e) {
			t.Errorf("--tool * misses %q", name)
		}
	}
	if (Filter{Tool: "evil.*"}).Match(Entry{Kind: KindCall, Tool: "good.admin/wipe"}) {
		t.Error("--tool evil.* matches good.admin/wipe")
	}
}

// TestRotation writes past max_size_mb from many goroutines: the file
// rotates, every line stays whole, and Files and Read find them all, in
// the rotated file and the current one.
func TestRotation(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "audit.jsonl")
	l, err := Open(config.Audit{File: file, MaxSizeMB: 1, MaxBackups: 5}, nil)
	if err != nil {
		t.Fatal(err)
	}
	const writers, each = 8, 400
	pad := json.RawMessage(fmt.Sprintf(`{"a":%q,"b":%q,"c":%q,"d":%q}`, strings.Repeat("a", 75), strings.Repeat("b", 75), strings.Repeat("c", 75), strings.Repeat("d", 75)))
	var wg sync.WaitGroup
	for w := range writers {
		wg.Go(func() {
			for i := range each {
				if err := l.Write(Record{Kind: KindCall, Session: fmt.Sprint(w), Tool: "x.y", Calls: i, Args: pad}); err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	files, err := Files(file)
	if err != nil {
		t.Fatal(err)
	}
	if len(files) < 2 || files[len(files)-1] != file {
		t.Fatalf("Files = %q, want a rotated file and then %s", files, file)
	}
	got, bad, err := Read(files, Filter{Tool: "x.*"})
	if err != nil || bad != 0 || len(got) != writers*each {
		t.Fatalf("Read: %d entries, %d bad, %v; want %d", len(got), bad, err, writers*each)
	}
	next := map[string]int{} // each writer's lines stay in its order
	for _, e := range got {
		if e.Calls != next[e.Session] {
			t.Fatalf("writer %s: line %d after %d", e.Session, e.Calls, next[e.Session]-1)
		}
		next[e.Session]++
	}
	// A line cut short (a crash mid-write) is skipped and counted.
	os.WriteFile(file, []byte(`{"kind":"call","tool":"x.y"}`+"\n"+`{"kind":"ca`), 0o600)
	if got, bad, _ := Read([]string{file}, Filter{}); len(got) != 1 || bad != 1 {
		t.Errorf("a cut line: %d entries, %d bad; want 1, 1", len(got), bad)
	}
}

func TestFilesIgnoresOthers(t *testing.T) {
	dir := t.TempDir()
	for _, n := range []string{"audit.jsonl", "audit-2026-11-26T10-00-00.000.jsonl", "audit-2026-11-25T10-00-00.000.jsonl",
		"audit-notes.jsonl", "other-2026-11-26T10-00-00.000.jsonl", "audit-2026-11-26T10-00-00.000.log"} {
		os.WriteFile(filepath.Join(dir, n), nil, 0o600)
	}
	got, err := Files(filepath.Join(dir, "audit.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, f := range got {
		names = append(names, filepath.Base(f))
	}
	want := []string{"audit-2026-11-25T10-00-00.000.jsonl", "audit-2026-11-26T10-00-00.000.jsonl", "audit.jsonl"}
	if diff := cmp.Diff(want, names); diff != "" {
		t.Errorf("Files (-want +got):\n%s", diff)
	}
	if got, err := Files(filepath.Join(dir, "none", "audit.jsonl")); err != nil || len(got) != 0 {
		t.Errorf("Files of a missing directory = %q, %v", got, err)
	}
}

func TestCodeHash(t *testing.T) {
	a, b := CodeHash("print(1)"), CodeHash("print(2)")
	if a == b || len(a) != len("sha256:")+16 || !strings.HasPrefix(a, "sha256:") || a != CodeHash("print(1)") {
		t.Errorf("CodeHash: %q, %q", a, b)
	}
}

func TestCaptureCode(t *testing.T) {
	// A run's code reaches the line only with audit.capture_code.
	for _, capture := range []bool{false, true} {
		file := filepath.Join(t.TempDir(), "audit.jsonl")
		l, err := Open(config.Audit{File: file, CaptureCode: capture}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if l.CapturesCode() != capture {
			t.Errorf("CapturesCode = %v, want %v", l.CapturesCode(), capture)
		}
		l.Write(Record{Kind: KindRun, Language: "lua", CodeHash: CodeHash("print(1)"), Code: "print(1)"})
		l.Close()
		files, _ := Files(file)
		entries, _, _ := Read(files, Filter{})
		want := ""
		if capture {
			want = "print(1)"
		}
		if len(entries) != 1 || entries[0].Code != want {
			t.Errorf("capture_code %v: entries %+v, want code %q", capture, entries, want)
		}
	}
	var off *Log
	if off.CapturesCode() {
		t.Error("a nil Log captures code")
	}
}
