package casegen

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestSetSplitWrite(t *testing.T) {
	s := New(rand.New(rand.NewPCG(1, 2)), "t")
	for i := 0; i < 4; i++ {
		s.Add("email", "EMAIL", "a@b.co", "write to %s, 100%s sure")
		s.Add("version", "", "1.2."+s.Digits(2), "v%s")
	}
	if s.Cases[0].ID != "t-0001" || s.Cases[0].Text != "write to a@b.co, 100%s sure" || s.Cases[1].Tags[1] != "hard-negative" {
		t.Fatalf("cases: %+v", s.Cases[:2])
	}
	dev, hold := Split(s.Cases, rand.New(rand.NewPCG(3, 3)))
	if len(dev) != 4 || len(hold) != 4 || dev[0].Tags[0] != "email" || dev[2].Tags[0] != "version" || hold[0].Tags[0] != "email" {
		t.Fatalf("split per group in name order: dev %+v hold %+v", dev, hold)
	}
	SortByID(dev)
	path := filepath.Join(t.TempDir(), "x.cases.jsonl")
	if err := Write(path, dev); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(path)
	if lines := strings.Split(strings.TrimSpace(string(b)), "\n"); len(lines) != 4 || !strings.Contains(string(b), `"spans":[]`) {
		t.Fatalf("written:\n%s", b)
	}
	back, err := Read(path)
	if err != nil || len(back) != 4 || back[0].ID != dev[0].ID {
		t.Fatalf("read back: %v %+v", err, back)
	}
}
