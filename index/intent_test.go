package index

import (
	"testing"
)

func TestQueryIntent(t *testing.T) {
	for _, tc := range []struct {
		q    string
		want intent
	}{
		{"store a note", intentWrite},
		{"please remember a fact about a person", intentWrite}, // through the synonym table's write group
		{"can you find the latest invoice", intentRead},
		{"tell me the weather in Paris", intentRead}, // a verb addressed to the asker reads
		{"help me write a note", intentWrite},        // unless a verb follows
		{"help me with the weather", intentRead},
		{"I'd like to save my notes", intentWrite},  // the verb after "to"
		{"throw away the old drafts", intentDelete}, // an idiom, rewritten first
		{"what are the files in ./src", 0},          // no verb first
		{"./src/main.go delete", 0},                 // a value ends the look
		{"save later", intentWrite},
	} {
		if got := queryIntent(tc.q); got != tc.want {
			t.Errorf("queryIntent(%q) = %d, want %d", tc.q, got, tc.want)
		}
	}
}

func TestToolIntent(t *testing.T) {
	yes, no := true, false
	for _, tc := range []struct {
		tool Tool
		want intent
	}{
		{Tool{Name: "create_entities"}, intentWrite},
		{Tool{Name: "delete_observations"}, intentDelete},
		{Tool{Name: "read_graph"}, intentRead},
		{Tool{Name: "get_or_create"}, intentRead | intentWrite},
		{Tool{Name: "browser_click"}, 0},
		{Tool{Name: "entities", Description: "Lists the entities of a graph."}, intentRead}, // the description's first word
		{Tool{Name: "create_thing", Annotations: Annotations{ReadOnly: &yes}}, intentRead},
		{Tool{Name: "get_or_touch", Annotations: Annotations{ReadOnly: &no}}, 0},
	} {
		name := terms(tc.tool.Name)
		first, _ := firstSentence(tc.tool.Description)
		if got := toolIntent(&tc.tool, name, first); got != tc.want {
			t.Errorf("toolIntent(%s) = %d, want %d", tc.tool.Name, got, tc.want)
		}
	}
}

// TestIntentRanksWritersForWrites: a query that asks to store something
// ranks the tool that writes notes above tools that only read them, though
// the readers match its words as well or better.
func TestIntentRanksWritersForWrites(t *testing.T) {
	tools := []Tool{
		{Server: "notes", Name: "get_note", Description: "Get a stored note by its title."},
		{Server: "notes", Name: "list_notes", Description: "List stored notes."},
		{Server: "notes", Name: "search_notes", Description: "Search stored notes for a word."},
		{Server: "notes", Name: "save_note", Description: "Save a note."},
		{Server: "notes", Name: "delete_note", Description: "Delete a stored note."},
	}
	ix := New(tools, nil)
	hits := ix.Search("store a note", SearchOptions{Limit: 5})
	if len(hits) == 0 || hits[0].QName != "notes.save_note" {
		t.Fatalf("store a note: first hit %v, want notes.save_note", names(hits))
	}
	hits = ix.Search("look up a stored note", SearchOptions{Limit: 5})
	if len(hits) == 0 || hits[0].QName == "notes.save_note" || hits[0].QName == "notes.delete_note" {
		t.Fatalf("look up a stored note: first hit %v, want a reader", names(hits))
	}
}

// TestIntentNoKind: for a query that names a kind of action, a tool whose
// name names none ranks below one that names that kind; for a query that
// names none, a tool that only deletes ranks below one that does not.
func TestIntentNoKind(t *testing.T) {
	tools := []Tool{
		{Server: "kb", Name: "topic_facts", Description: "Facts about a topic."},
		{Server: "kb", Name: "add_facts", Description: "Add facts about a topic."},
		{Server: "kb", Name: "delete_relations", Description: "Delete relations between entities of the graph."},
		{Server: "kb", Name: "create_relations", Description: "Create new relations between entities of the graph, in active voice."},
	}
	ix := New(tools, nil)
	if hits := ix.Search("store facts about a topic", SearchOptions{Limit: 4}); len(hits) == 0 || hits[0].QName != "kb.add_facts" {
		t.Errorf("store facts about a topic: %v, want kb.add_facts first", names(hits))
	}
	if hits := ix.Search("relations between entities", SearchOptions{Limit: 4}); len(hits) == 0 || hits[0].QName != "kb.create_relations" {
		t.Errorf("relations between entities: %v, want kb.create_relations first", names(hits))
	}
}
