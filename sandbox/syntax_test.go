package sandbox

import "testing"

func syntaxOf(t *testing.T, lang string) Syntax {
	t.Helper()
	l, ok := LookupLanguage(lang)
	if !ok {
		t.Fatalf("no language %q", lang)
	}
	return l.Syntax
}

func TestSyntaxNames(t *testing.T) {
	tests := []struct {
		lang, server, tool, want string
	}{
		{"python", "calc", "end", "tools.calc.end"},
		{"python", "calc", "import", `tools["calc"]["import"]`},
		{"python", "None", "x", `tools["None"]["x"]`},
		{"javascript", "calc", "delete", `tools["calc"]["delete"]`},
		{"javascript", "calc", "end", "tools.calc.end"},
		{"lua", "calc", "end", `tools.calc["end"]`},
	}
	for _, tt := range tests {
		if got := syntaxOf(t, tt.lang).ToolExpr(tt.server, tt.tool); got != tt.want {
			t.Errorf("%s ToolExpr(%q, %q) = %s, want %s", tt.lang, tt.server, tt.tool, got, tt.want)
		}
	}
	args := []ExampleArg{{"to", "a@b.c"}, {"from", "x\n\"y\""}, {"x-y", nil}, {"n", 2.5}, {"ok", true},
		{"m", map[string]any{"in": []any{1.0, "<&>"}}}}
	py := syntaxOf(t, "python").Example("tools.mail.send", args)
	if want := `r = tools.mail.send(to="a@b.c", n=2.5, ok=True, m={"in": [1, "<&>"]}, **{"from": "x\n\"y\"", "x-y": None})`; py != want {
		t.Errorf("python example:\n got %s\nwant %s", py, want)
	}
	js := syntaxOf(t, "js").Example("tools.mail.send", args)
	if want := `const r = await tools.mail.send({to: "a@b.c", from: "x\n\"y\"", "x-y": null, n: 2.5, ok: true, m: {in: [1, "<&>"]}});`; js != want {
		t.Errorf("javascript example:\n got %s\nwant %s", js, want)
	}
}

func TestLuaString(t *testing.T) {
	tests := map[string]string{
		`plain`:       `"plain"`,
		`say "hi"`:    `"say \"hi\""`,
		`a\b`:         `"a\\b"`,
		"line\nbreak": `"line\nbreak"`,
		"\x01" + "2":  `"\0012"`,
		"获取":          `"获取"`,
	}
	for in, want := range tests {
		if got := luaString(in); got != want {
			t.Errorf("luaString(%q) = %s, want %s", in, got, want)
		}
	}
}
