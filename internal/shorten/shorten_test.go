package shorten

import (
	"strings"
	"testing"
)

func TestJSON(t *testing.T) {
	long := strings.Repeat("x", 100)
	tests := []struct {
		name, in string
		l        Limits
		want     string
	}{
		{"empty", "", Limits{}, ""},
		{"object in order", `{"b": 1, "a": [true, null, 1.50], "c": "<&>"}`, Limits{}, `{"b":1,"a":[true,null,1.50],"c":"<&>"}`},
		{"long string", `{"s": "` + long + `"}`, Limits{String: 5}, `{"s":"xxxxx…(+95)"}`},
		{"runes", `"héllo wörld"`, Limits{String: 4}, `"héll…(+7)"`},
		{"long list", `[1,2,3,4,5]`, Limits{Items: 2}, `[1,2,…+3]`},
		{"many keys", `{"a":1,"b":{"x":[1]},"c":3}`, Limits{Items: 1}, `{"a":1,…+2}`},
		{"deep", `{"a":{"b":{"c":[1]}}}`, Limits{Depth: 2}, `{"a":{"b":{…}}}`},
		{"deep list", `[[[1]],2]`, Limits{Depth: 1}, `[[…],2]`},
		{"total", `{"a":"` + long + `"}`, Limits{Total: 10}, `{"a":"xxxx…(+86 bytes)`},
		{"not json", `memory.x(` + long, Limits{Total: 12}, `memory.x(xxx…(+97 bytes)`},
		{"trailing", `{} {}`, Limits{}, `{} {}`},
		{"tokens stay", `{"email":"[EMAIL_1]"}`, Limits{}, `{"email":"[EMAIL_1]"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := JSON([]byte(tt.in), tt.l); got != tt.want {
				t.Errorf("JSON(%s) = %s, want %s", tt.in, got, tt.want)
			}
		})
	}
}

func TestText(t *testing.T) {
	if got := Text("añb", 2); got != "a…(+3 bytes)" {
		t.Errorf("Text cut inside a rune: %q", got)
	}
	if got := Text("abc", 3); got != "abc" {
		t.Errorf("Text = %q", got)
	}
}

func FuzzJSON(f *testing.F) {
	f.Add(`{"a":[1,{"b":"c"}]}`)
	f.Add(`[[[[[[1]]]]]]`)
	f.Fuzz(func(t *testing.T, s string) {
		out := JSON([]byte(s), Limits{Total: 200})
		if len(out) > 200+len("…(+99999999 bytes)") {
			t.Errorf("JSON gave %d bytes", len(out))
		}
	})
}
