package proxy

import (
	"strings"
	"testing"
	"time"

	"github.com/toolfold/toolfold/skillhost"
	"github.com/toolfold/toolfold/store"
)

// TestSkillSavedOnOneReplicaSeenAtOnce: replicas on one shared store (a
// file store stands in for Redis, the same skills.KV path) see a skill saved
// or removed through another within about a second, by its version key,
// not after the full re-read (set to an hour here, so only the version key
// can explain the skill appearing).
func TestSkillSavedOnOneReplicaSeenAtOnce(t *testing.T) {
	full := skillhost.Poll
	skillhost.Poll = time.Hour
	t.Cleanup(func() { skillhost.Poll = full })
	st, err := store.Files(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	cfg := testConfig(stdioUpstream("calc"))
	cfg.Store.URL = "redis://127.0.0.1:1/0" // says "shared"; the store given is what is used
	_, cs1 := startProxyWith(t, cfg, &Options{Store: st})
	_, cs2 := startProxyWith(t, cfg, &Options{Store: st})
	runLua(t, cs1, `return skills.save{name = "triple_it", description = "Triple a number", code = "return args.x * 3"}`)
	seen := func() bool {
		out, _ := callText(t, cs2, "search_tools", map[string]any{"query": "triple a number", "server": "skills"})
		return strings.Contains(out, "triple_it")
	}
	waitFor(t, "the skill saved through replica 1 in replica 2's search", seen)
	if out, _ := runLua(t, cs2, `return tools.skills.triple_it{x = 2}`); !strings.Contains(out, "6") {
		t.Fatalf("replica 2 calling the skill: %s", out)
	}
}
