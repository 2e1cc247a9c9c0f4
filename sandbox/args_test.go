package sandbox

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// Request.Args and Request.Check in every language: the skill's way in.

// langRunners are the runners of the three languages (Python and
// JavaScript skipped where their interpreter is missing).
func langRunners(t *testing.T) map[string]func(t *testing.T) Runner {
	return map[string]func(t *testing.T) Runner{
		"lua":        func(t *testing.T) Runner { return newTestLua(t) },
		"python":     func(t *testing.T) Runner { return newTestPython(t) },
		"javascript": func(t *testing.T) Runner { return newTestNode(t) },
	}
}

func TestArgs(t *testing.T) {
	code := map[string]string{
		"lua":        `print("hi") return {sum = args.x + args.y[2], name = args.name}`,
		"python":     `print("hi")` + "\n" + `return {"sum": args["x"] + args["y"][1], "name": args["name"]}`,
		"javascript": `console.log("hi"); return {sum: args.x + args.y[1], name: args.name};`,
	}
	for lang, mk := range langRunners(t) {
		t.Run(lang, func(t *testing.T) {
			res, err := mk(t).Run(context.Background(), Request{Code: code[lang],
				Args: json.RawMessage(`{"x": 2, "y": [10, 40], "name": "ü"}`)}, &fakeHost{})
			if err != nil {
				t.Fatal(err)
			}
			if res.Err != nil {
				t.Fatalf("run failed: %v", res.Err)
			}
			var got map[string]any
			if err := json.Unmarshal(res.Value, &got); err != nil {
				t.Fatalf("value %s: %v", res.Value, err)
			}
			if diff := cmp.Diff(map[string]any{"sum": 42.0, "name": "ü"}, got); diff != "" {
				t.Errorf("value (-want +got):\n%s", diff)
			}
			if res.Output != "hi\n" {
				t.Errorf("output %q, want %q", res.Output, "hi\n")
			}
		})
	}
}

func TestArgsNotObject(t *testing.T) {
	_, err := newTestLua(t).Run(context.Background(), Request{Code: "return 1", Args: json.RawMessage(`[1]`)}, &fakeHost{})
	if err == nil {
		t.Fatal("Args [1] was accepted; want an error")
	}
}

func TestCheck(t *testing.T) {
	// Each good script would print and call a tool if it ran; each bad one
	// has its syntax error on line 3.
	good := map[string]string{
		"lua":        "print('ran')\ntools.x.y{}\nreturn 1",
		"python":     "print('ran')\ntools.x.y()\nif True:\n    return 1",
		"javascript": "console.log('ran');\nawait tools.x.y({});\nreturn 1;",
	}
	bad := map[string]string{
		"lua":        "local a = 1\nprint(a)\nlocal = 2\n",
		"python":     "a = 1\nprint(a)\ndef f(:\n    pass\n",
		"javascript": "const a = 1;\nconsole.log(a);\nconst = 2;\n",
	}
	for lang, mk := range langRunners(t) {
		t.Run(lang, func(t *testing.T) {
			r := mk(t)
			host := &fakeHost{}
			res, err := r.Run(context.Background(), Request{Code: good[lang], Check: true}, host)
			if err != nil {
				t.Fatal(err)
			}
			if res.Err != nil || res.Output != "" || res.Value != nil || len(host.received()) != 0 {
				t.Errorf("check of good code: err %v, output %q, value %s, calls %d; want nothing run",
					res.Err, res.Output, res.Value, len(host.received()))
			}
			res, err = r.Run(context.Background(), Request{Code: bad[lang], Check: true}, host)
			if err != nil {
				t.Fatal(err)
			}
			if res.Err == nil || res.Err.Kind != "syntax" || res.Err.Line != 3 {
				t.Errorf("check of bad code: %+v; want a syntax error on line 3", res.Err)
			}
		})
	}
}

// saverHost is a fakeHost that saves skills: it records what it got.
type saverHost struct {
	fakeHost
	saved []string
}

func (h *saverHost) SaveSkill(ctx context.Context, params json.RawMessage) (json.RawMessage, error) {
	var p struct {
		Name string `json:"name"`
	}
	json.Unmarshal(params, &p)
	if p.Name == "bad" {
		return nil, &ToolError{Tool: "skills.save", Msg: "skill bad was not saved: skill:2: oops"}
	}
	h.mu.Lock()
	h.saved = append(h.saved, string(params))
	h.mu.Unlock()
	return json.RawMessage(`{"saved":"skills.` + p.Name + `"}`), nil
}

func TestSkillsSave(t *testing.T) {
	code := map[string]string{
		"lua": `local ok, err = pcall(skills.save, {name = "bad"})
print(err)
return skills.save{name = "twice", language = "lua", code = "return args.x * 2", parameters = {type = "object"}}`,
		"python": `try:
    skills.save(name="bad")
except ToolError as e:
    print(e)
return skills.save(name="twice", language="lua", code="return args.x * 2", parameters={"type": "object"})`,
		"javascript": `try { await skills.save({name: "bad"}); } catch (e) { console.log(e.message); }
return await skills.save({name: "twice", language: "lua", code: "return args.x * 2", parameters: {type: "object"}});`,
	}
	for lang, mk := range langRunners(t) {
		t.Run(lang, func(t *testing.T) {
			h := &saverHost{}
			res, err := mk(t).Run(context.Background(), Request{Code: code[lang]}, h)
			if err != nil {
				t.Fatal(err)
			}
			if res.Err != nil {
				t.Fatalf("run failed: %v\n%s", res.Err, res.Output)
			}
			if string(res.Value) != `{"saved":"skills.twice"}` || res.Output != "skill bad was not saved: skill:2: oops\n" {
				t.Errorf("value %s, output %q", res.Value, res.Output)
			}
			var got map[string]any
			if len(h.saved) != 1 || json.Unmarshal([]byte(h.saved[0]), &got) != nil {
				t.Fatalf("saved %v; want one skill", h.saved)
			}
			want := map[string]any{"name": "twice", "language": "lua", "code": "return args.x * 2", "parameters": map[string]any{"type": "object"}}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("saved (-want +got):\n%s", diff)
			}
		})
	}
	// A host that cannot save says so.
	res, err := newTestLua(t).Run(context.Background(), Request{Code: `return skills.save{name = "x"}`}, &fakeHost{})
	if err != nil || res.Err == nil || !strings.Contains(res.Err.Msg, "skills cannot be saved here") {
		t.Errorf("save on a plain host: %v, %+v", err, res.Err)
	}
}

// TestCallOutput: what the host adds with CallOutput is printed where the
// call returns, between what the script printed before and after it.
func TestCallOutput(t *testing.T) {
	code := map[string]string{
		"lua":        "print('before')\nlocal v = tools.s.t{}\nprint('after', v)",
		"python":     "print('before')\nv = tools.s.t()\nprint('after', v)",
		"javascript": "console.log('before');\nconst v = await tools.s.t({});\nconsole.log('after', v);",
	}
	host := func() *fakeHost {
		return &fakeHost{call: func(ctx context.Context, name string, args json.RawMessage) (json.RawMessage, error) {
			CallOutput(ctx, "inside\n")
			return json.RawMessage(`7`), nil
		}}
	}
	for lang, mk := range langRunners(t) {
		t.Run(lang, func(t *testing.T) {
			res, err := mk(t).Run(context.Background(), Request{Code: code[lang]}, host())
			if err != nil {
				t.Fatal(err)
			}
			if want := "before\ninside\nafter" + map[bool]string{true: "\t", false: " "}[lang == "lua"] + "7\n"; res.Output != want || res.Err != nil {
				t.Errorf("output %q (err %v), want %q", res.Output, res.Err, want)
			}
		})
	}
}
