package index

import "testing"

func TestRewriteIdioms(t *testing.T) {
	tests := map[string]string{
		"let the whole team know we shipped":       "notify the whole team we shipped",
		"throw away the old branch":                "delete the old branch",
		"throw the old branch away":                "delete the old branch",
		"how long is the drive to Paris":           "duration is the drive to Paris",
		"let a b c d know":                         "let a b c d know", // the gap is at most three words
		"look up ./let/me/know.txt":                "search ./let/me/know.txt",
		"read \"throw away\" from the file":        "read \"throw away\" from the file",
		"save the note with content: set it up":    "save the note with content: set it up",
		"Set Up a new repo":                        "create a new repo",
		"nothing to rewrite here":                  "nothing to rewrite here",
		"set up, then tear it down":                "create then delete it",
		"block off an hour of focus time tomorrow": "schedule an hour of focus time tomorrow",
	}
	for in, want := range tests {
		if got := rewriteIdioms(in); got != want {
			t.Errorf("rewriteIdioms(%q) = %q, want %q", in, got, want)
		}
	}
}
