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

func TestMathExpr(t *testing.T) {
	for in, want := range map[string]bool{"3*4": true, "2^10": true, "17%": true, "(1+2)/3": true,
		"-5": false, "2,340": false, "v1.2": false, "x*y": false, "": false} {
		if got := mathExpr(in); got != want {
			t.Errorf("mathExpr(%q) = %v, want %v", in, got, want)
		}
	}
	ix := New([]Tool{
		{Server: "calc", Name: "calculate", Description: "Calculates the given expression."},
		{Server: "fs", Name: "head", Description: "Show the first lines of a file."},
	}, nil)
	for _, q := range []string{"what is 17% of 2,340", "12*7", "add 3 and 4"} {
		if hits := ix.Search(q, SearchOptions{}); len(hits) == 0 || hits[0].QName != "calc.calculate" {
			t.Errorf("%q: %v, want calc.calculate first", q, hits)
		}
	}
}
