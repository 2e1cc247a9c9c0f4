package index

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestScriptIdent(t *testing.T) {
	tests := map[string]string{
		"read_file":     "read_file",
		"get-sum":       "get_sum",
		"API-post.x y":  "API_post_x_y",
		"365":           "_365",
		"3d-print":      "_3d_print",
		"café":          "caf_",
		"":              "_",
		"already_ok_42": "already_ok_42",
	}
	for in, want := range tests {
		if got := ScriptIdent(in); got != want {
			t.Errorf("ScriptIdent(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestAssignIdents(t *testing.T) {
	tests := []struct {
		names []string
		want  map[string]string
	}{
		{
			// A name that is its identifier keeps it, whatever the order.
			[]string{"get-sum", "get_sum"},
			map[string]string{"get_sum": "get_sum", "get-sum": "get_sum_2"},
		},
		{
			// Others take suffixes in sorted order.
			[]string{"get.sum", "get-sum", "get_sum"},
			map[string]string{"get_sum": "get_sum", "get-sum": "get_sum_2", "get.sum": "get_sum_3"},
		},
		{
			// Without the plain name, the first in sorted order takes the base.
			[]string{"my.server", "my-server"},
			map[string]string{"my-server": "my_server", "my.server": "my_server_2"},
		},
		{
			// A suffix that is itself a name is skipped.
			[]string{"a-b", "a_b", "a_b_2"},
			map[string]string{"a_b": "a_b", "a_b_2": "a_b_2", "a-b": "a_b_3"},
		},
		{
			[]string{"x", "x"},
			map[string]string{"x": "x"},
		},
	}
	for _, tt := range tests {
		if got := assignIdents(tt.names); !cmp.Equal(got, tt.want) {
			t.Errorf("assignIdents(%q) = %v, want %v", tt.names, got, tt.want)
		}
	}
}

// collisionIndex has tools and servers whose identifiers collide.
func collisionIndex() *Index {
	return New([]Tool{
		{Server: "my-server", Name: "get-sum", Description: "Sum with a dash."},
		{Server: "my-server", Name: "get_sum", Description: "Sum with an underscore."},
		{Server: "my_server", Name: "ping", Description: "Ping."},
		{Server: "calc", Name: "end", Description: "A Lua keyword."},
	}, []ServerInfo{
		{Name: "my-server", Available: true},
		{Name: "my_server", Available: true},
		{Name: "calc", Available: true},
		{Name: "down", Available: false, Error: "connection refused"},
	})
}

func TestIdentCollisions(t *testing.T) {
	ix := collisionIndex()
	var got []string
	for _, h := range ix.All() {
		got = append(got, h.QName+" → "+h.Ident)
	}
	want := []string{
		"calc.end → calc.end",
		"my-server.get-sum → my_server_2.get_sum_2",
		"my-server.get_sum → my_server_2.get_sum",
		"my_server.ping → my_server.ping",
	}
	if !cmp.Equal(got, want) {
		t.Errorf("idents:\n%s", cmp.Diff(want, got))
	}
	if got := ix.ServerIdent("my-server"); got != "my_server_2" {
		t.Errorf("ServerIdent(my-server) = %q", got)
	}
}

func TestResolve(t *testing.T) {
	ix := collisionIndex()
	tests := []struct {
		name, want string // want: the qualified name found, "" for none
	}{
		{"my-server.get-sum", "my-server.get-sum"},
		{"my_server_2.get_sum_2", "my-server.get-sum"},
		{"my-server.get_sum", "my-server.get_sum"},
		{"my_server_2.get_sum", "my-server.get_sum"},
		{"my_server.ping", "my_server.ping"},
		{"calc.end", "calc.end"},
		{"my_server.get_sum", ""},
		{"get_sum", ""},
		{"", ""},
	}
	for _, tt := range tests {
		h, ok := ix.Resolve(tt.name)
		if got := h.QName; ok != (tt.want != "") || got != tt.want {
			t.Errorf("Resolve(%q) = %q, %v; want %q", tt.name, got, ok, tt.want)
		}
		if ok && (h.Tool == nil || h.Tool.Server+"."+h.Tool.Name != h.QName) {
			t.Errorf("Resolve(%q): tool %+v does not match %q", tt.name, h.Tool, h.QName)
		}
	}
}

func TestServers(t *testing.T) {
	ix := New([]Tool{
		{Server: "b", Name: "x"}, {Server: "b", Name: "y"}, {Server: "extra", Name: "z"},
		{Server: "b", Name: "x", Description: "a duplicate, ignored"},
	}, []ServerInfo{{Name: "b", Available: true}, {Name: "a", Error: "down"}})
	var names []string
	for _, s := range ix.Servers() {
		names = append(names, s.Name)
	}
	if want := []string{"a", "b", "extra"}; !cmp.Equal(names, want) {
		t.Errorf("Servers = %q, want %q", names, want)
	}
	if ix.Len() != 3 || ix.ToolCount("b") != 2 || ix.ToolCount("a") != 0 || ix.ToolCount("extra") != 1 {
		t.Errorf("Len %d, ToolCount b=%d a=%d extra=%d", ix.Len(), ix.ToolCount("b"), ix.ToolCount("a"), ix.ToolCount("extra"))
	}
	if s := ix.Servers(); s[2].Available != true {
		t.Errorf("a server known only from its tools should count as available: %+v", s[2])
	}
	empty := New(nil, nil)
	if empty.Len() != 0 || len(empty.Search("anything", SearchOptions{})) != 0 {
		t.Error("an empty index should have no tools and no hits")
	}
}
