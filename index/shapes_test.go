package index

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

func TestShapesObserve(t *testing.T) {
	s := NewShapes()
	s.Observe("fs.list", json.RawMessage(`{"items":[{"name":"secret.txt","size":12}],"total":1,"next":null}`))
	s.Observe("fs.list", json.RawMessage(`{"items":[{"name":"b","dir":true}],"total":2,"next":"tok-XYZ","odd key":[1,"a"]}`))
	s.Observe("fs.list", json.RawMessage(`not json`))
	got := s.Shape("fs.list")
	want := `{items: {name: string, size: number, dir: boolean}[], next: null|string, total: number, "odd key": (number|string)[]}`
	if got != want {
		t.Errorf("Shape =\n %s\nwant\n %s", got, want)
	}
	for _, v := range []string{"secret", "tok-XYZ", "12"} {
		if strings.Contains(got, v) {
			t.Errorf("shape holds the value %q", v)
		}
	}
	if s.Shape("fs.other") != "" || (*Shapes)(nil).Shape("x") != "" {
		t.Error("a tool never observed has a shape")
	}
	// Bounds: fields per object and nesting depth.
	wide := map[string]any{}
	for i := range 100 {
		wide[fmt.Sprintf("f%03d", i)] = i
	}
	b, _ := json.Marshal(map[string]any{"a": map[string]any{"b": map[string]any{"c": map[string]any{"d": map[string]any{"e": 1}}}}, "w": wide})
	s.Observe("deep", b)
	if got := s.Shape("deep"); strings.Count(got, "f0") > shapeFields || !strings.Contains(got, "...") || strings.Contains(got, "e:") {
		t.Errorf("bounds not kept: %s", got)
	}
}

func TestRenderObserved(t *testing.T) {
	ix := renderIndex()
	s := NewShapes()
	s.Observe("calc.end", json.RawMessage(`{"ok":true}`))
	s.Observe("filesystem.read_text_file", json.RawMessage(`{"other":1}`))
	hits := allHits(t, ix, "calc.end", "filesystem.read_text_file")
	out := ix.RenderWith("", hits, DetailFull, "lua", RenderOptions{Shapes: s})
	if !strings.Contains(out, "Returns (observed, not declared): {ok: boolean}\n") {
		t.Errorf("no observed shape for calc.end:\n%s", out)
	}
	if strings.Contains(out, "other") {
		t.Errorf("an observed shape replaced a declared outputSchema:\n%s", out)
	}
}
