package index

import (
	"strings"
	"sync"
)

// Everyday phrasings of requests, rewritten to the words tools use before
// a query is parsed: "let the team know" asks to notify, "throw the old
// branch away" to delete, "how long" for a duration. Most are phrases of
// function words and particles that the stopword list would otherwise
// drop ("let", "how", "away"). A "*" stands for up to three words between
// the parts of a separable phrasal verb ("let * know" matches "let the
// team know"); the words in the gap stay in the query. Like the synonym
// table, this is general English, written without looking at evaluation
// queries' labels.
var idiomTable = []struct{ from, to string }{
	// Telling and asking people.
	{"let * know", "notify"}, {"give * a heads up", "notify"}, {"heads up", "notify"},
	{"reach out to", "contact message"}, {"get in touch with", "contact message"},
	{"get back to", "reply"}, {"write back", "reply"}, {"follow up", "reply"},
	{"loop in", "add member"}, {"cc", "copy"},
	// Making and removing.
	{"throw away", "delete"}, {"throw * away", "delete"}, {"get rid of", "delete"},
	{"do away with", "delete"}, {"tear down", "delete"}, {"tear * down", "delete"},
	{"wipe out", "delete"}, {"clear out", "delete"}, {"clean up", "delete"},
	{"clean * up", "delete"}, {"take down", "delete"}, {"take * down", "delete"},
	{"set up", "create"}, {"set * up", "create"}, {"spin up", "create start"},
	{"spin * up", "create start"}, {"put together", "create"}, {"come up with", "generate"},
	{"draw up", "create"}, {"write up", "write"}, {"jot down", "note"}, {"jot * down", "note"},
	{"note down", "note"}, {"write down", "note"}, {"write * down", "note"},
	{"make a note", "note"}, {"take a note", "note"}, {"keep in mind", "remember"},
	{"sign up", "register account"}, {"fill in", "fill"}, {"fill out", "fill"},
	// Starting, stopping, changing.
	{"turn on", "enable"}, {"turn * on", "enable"}, {"switch on", "enable"},
	{"turn off", "disable"}, {"turn * off", "disable"}, {"switch off", "disable"},
	{"shut down", "stop"}, {"shut * down", "stop"}, {"kick off", "start"},
	{"kick * off", "start"}, {"fire up", "start"}, {"boot up", "start"},
	{"swap out", "replace"},
	{"roll back", "revert"}, {"go back", "back"}, {"put back", "restore"},
	{"bring back", "restore"}, {"fix up", "fix"}, {"tidy up", "format"},
	{"clean * up", "format"},
	// Finding out.
	{"look up", "search"}, {"look * up", "search"}, {"look for", "search"},
	{"look into", "investigate"}, {"find out", "find"}, {"figure out", "analyze"},
	{"dig into", "analyze"}, {"keep track of", "track"}, {"keep an eye on", "monitor"},
	{"check on", "status"}, {"catch up on", "summarize"}, {"go through", "review"},
	{"go over", "review"}, {"read up on", "search"}, {"find information about", "search web"},
	{"learn about", "search web"}, {"what's going on", "status"},
	// Questions.
	{"how long", "duration"}, {"how far", "distance"}, {"how many", "count"},
	{"how much does * cost", "price"}, {"how much is", "price"}, {"what time", "time"},
	{"what day", "date"}, {"when is", "date"}, {"how do i get to", "directions"}, {"how to get to", "directions"},
	{"what does * mean", "definition"}, {"what went wrong", "error diagnose"},
	{"is it going to", "forecast"}, {"who is", "person"},
	// More everyday phrasings of common requests.
	{"remind me", "reminder"}, {"sum up", "summarize"}, {"boil down", "summarize"},
	{"hand off", "assign"}, {"hand * off", "assign"}, {"pass * to", "assign"},
	{"bring up", "show"}, {"pull up", "show"}, {"put on hold", "pause"}, {"hold off", "pause"},
	{"speed up", "optimize performance"}, {"free up space", "delete"}, {"back up", "backup"},
	{"back * up", "backup"}, {"look over", "review"}, {"sign off on", "approve"},
	{"turn into", "convert"}, {"turn * into", "convert"}, {"mark as done", "complete"},
	{"mark * as done", "complete"}, {"check off", "complete"}, {"cross off", "complete"},
	{"wrap up", "finish"}, {"fire off", "send"}, {"send over", "send"}, {"send * over", "send"},
	{"hop on a call", "meeting"}, {"spell check", "grammar check"}, {"proofread", "grammar check"},
	{"zip up", "compress"}, {"zip * up", "compress"}, {"print out", "print"},
	// Time.
	{"block off", "schedule"}, {"block * off", "schedule"}, {"block out", "schedule"},
	{"set aside", "schedule"}, {"pencil in", "schedule"}, {"free slot", "availability"},
	{"free time", "availability"},
}

// idiom is one parsed entry: words to match (gap for "*") and the words
// that replace them.
type idiom struct {
	words []string // "" is a gap
	to    string
}

var (
	idiomsOnce sync.Once
	idiomsByW  map[string][]idiom // by first word
)

func idioms() map[string][]idiom {
	idiomsOnce.Do(func() {
		idiomsByW = make(map[string][]idiom)
		for _, e := range idiomTable {
			var ws []string
			for _, w := range strings.Fields(e.from) {
				if w == "*" {
					w = ""
				}
				ws = append(ws, w)
			}
			idiomsByW[ws[0]] = append(idiomsByW[ws[0]], idiom{words: ws, to: e.to})
		}
	})
	return idiomsByW
}

// maxGap is how many words a "*" of an idiom may stand for.
const maxGap = 3

// rewriteIdioms replaces the idioms of a query's plain words with the
// words tools use. Chunks that are literal values (paths, URLs, quoted
// strings) and what follows a payload colon are left alone, as is
// everything a word in an idiom would have to cross.
func rewriteIdioms(q string) string {
	chunks := splitQuery(q)
	payload := payloadStart(chunks)
	words := make([]string, len(chunks)) // lowercased bare words; "" for values
	for i, c := range chunks {
		if i < payload && valueKind(c) == "" {
			words[i] = strings.ToLower(strings.Trim(c, ",;:!?.()\"'"))
		}
	}
	changed := false
	for i := 0; i < len(chunks); i++ {
		for _, id := range idioms()[words[i]] {
			if used := matchIdiom(id.words, words, i); used != nil {
				chunks[i] = id.to
				for _, j := range used[1:] {
					chunks[j], words[j] = "", ""
				}
				changed = true
				break
			}
		}
	}
	if !changed {
		return q
	}
	return strings.Join(strings.Fields(strings.Join(chunks, " ")), " ")
}

// matchIdiom matches an idiom's words at position i and returns the
// positions of the words it used, or nil. A gap takes the fewest words
// that let the rest match, at most maxGap.
func matchIdiom(pat, words []string, i int) []int {
	var used []int
	var try func(p, w int) bool
	try = func(p, w int) bool {
		if p == len(pat) {
			return true
		}
		if pat[p] == "" {
			for g := 1; g <= maxGap && w+g <= len(words); g++ {
				if try(p+1, w+g) {
					return true
				}
			}
			return false
		}
		if w >= len(words) || words[w] != pat[p] {
			return false
		}
		used = append(used, w)
		if try(p+1, w+1) {
			return true
		}
		used = used[:len(used)-1]
		return false
	}
	if try(0, i) {
		return used
	}
	return nil
}
