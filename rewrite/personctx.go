package rewrite

// Whether a "name" in JSON is a person's: the object it sits in says so by
// the key it sits under ("author", "assignee", "customer") or by a key
// beside it that only people have ("email", "login", "phone"). A
// repository's, a tool's or a file's "name" has neither.

// personParents are keys (normKey) whose object, or whose array's
// objects, describe a person.
var personParents = setOf(`user users author authors owner assignee assignees reporter creator requester customer
customers contact contacts member members people person persons employee employees sender recipient recipients
from to cc bcc attendee attendees participant participants reviewer reviewers requestedreviewers committer approver
profile userprofile shipping billing billingdetails cardholder patient client clients lead leads speaker organizer
collaborator collaborators manager invitee invitees createdby updatedby actor`)

// personSiblings are keys (normKey) that only a person's object has.
var personSiblings = setOf(`email emailaddress emails mail phone phonenumber phonenumbers mobile login username
firstname lastname givenname familyname avatarurl gravatarid birthday birthdate dateofbirth dob gender jobtitle`)

// maxSiblingScan bounds the look ahead for sibling keys.
const maxSiblingScan = 8192

// jsonStack is the walk's nesting: per open object or array, the key it
// sits under and what is known about its keys.
type jsonStack struct {
	frames []jsonFrame
}

type jsonFrame struct {
	key     string // the key the container sits under ("" at the top)
	object  bool
	start   int  // the offset of its '{' or '['
	person  bool // the key, or an enclosing array's, is a person's
	sibling bool // a key of the object is one only people have
	looked  bool // the object's keys were looked at
}

func (st *jsonStack) push(key string, object bool, start int) {
	f := jsonFrame{key: key, object: object, start: start}
	if key != "" {
		f.person = inSet(personParents, key)
	}
	if n := len(st.frames); n > 0 && !st.frames[n-1].object && key == st.frames[n-1].key {
		f.person = f.person || st.frames[n-1].person // an element of "assignees": [...]
	}
	st.frames = append(st.frames, f)
}

// pop closes the innermost container and returns the key it sat under,
// the hint for what follows it in an enclosing array.
func (st *jsonStack) pop() string {
	n := len(st.frames)
	if n == 0 {
		return ""
	}
	k := st.frames[n-1].key
	st.frames = st.frames[:n-1]
	return k
}

// nameHint is the hint for the value of a "name" key at raw[i]:
// "personname" when its object is a person's, else "name".
func (st *jsonStack) nameHint(raw string, i int) string {
	n := len(st.frames)
	if n == 0 || !st.frames[n-1].object {
		return "name"
	}
	f := &st.frames[n-1]
	if !f.person && !f.looked {
		f.looked = true
		f.sibling = siblingAhead(raw, f.start+1)
	}
	if f.person || f.sibling {
		return "personname"
	}
	return "name"
}

// siblingAhead reports whether a key only people have is one of the
// object's whose keys start at raw[i] (looking at most maxSiblingScan
// bytes ahead). Each object is looked at once, when its "name" is met.
func siblingAhead(raw string, i int) bool {
	end := min(len(raw), i+maxSiblingScan)
	depth := 0
	for j := i; j < end; j++ {
		switch raw[j] {
		case '{', '[':
			depth++
		case '}', ']':
			if depth == 0 {
				return false
			}
			depth--
		case '"':
			k, _, err := stringEnd(raw, j)
			if err != nil {
				return false
			}
			if depth == 0 && nextNonSpace(raw, k) == ':' && k-j < 34 && inSet(personSiblings, raw[j+1:k-1]) {
				return true
			}
			j = k - 1
		}
	}
	return false
}

// valueHint is nameHint for a decoded object m under key parent.
func valueHint(m map[string]any, parent string) string {
	if inSet(personParents, parent) {
		return "personname"
	}
	for k := range m {
		if len(k) <= 32 && inSet(personSiblings, k) {
			return "personname"
		}
	}
	return "name"
}
