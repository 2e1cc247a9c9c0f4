// Package rewrite keeps personal data and secrets out of the model's sight
// while letting them flow between tools.
//
// A Detector finds values in text in one hand-written pass over the bytes:
// each candidate starts at a cheap anchor (a word start, '@', '+', '(',
// "::" or a run of digits) and is confirmed by its checksum or structure
// (Luhn and brand prefixes for cards, mod-97 and country lengths for
// IBANs, the area/group/serial rules for SSNs, octet ranges for IPv4),
// phone numbers by libphonenumber's metadata (phonelib.go), secrets by a
// fast path by hand (secrets.go) and gitleaks' provider rules, run only
// where one of their keywords starts a word (rules.go). Text with
// non-ASCII bytes or %XX escapes is scanned in a normal form (NFKC, no
// zero-width characters, escapes decoded) whose spans map back to the
// original bytes (normalize.go). The sets it is measured on, and how they
// were kept apart for tuning, are in testdata/SOURCES.md.
//
// Names and street lines (NAME, ADDRESS) are found in the same pass by
// context first: a value under a person's JSON key or table column
// ("full_name", "Assignee", a "name" whose object has an "email" or sits
// under "author"), a "Name:" label, an email's display name, a salutation,
// a title or a job title, a signature, a chat's speaker ("Nicole:"), a
// relative ("my son Tomás"), a reporting verb ("says Okafor"); a street
// line under "line1" or "street". In free text a run of capitalised words
// is a name when it starts with a given name (US SSA) and ends with a
// surname (US Census) or a word no list knows, or starts with a word no
// list knows and ends with a surname or a surname's ending ("-sson",
// "-ova"); a given name alone is one before a verb, in a list of given
// names, or before "'s" and a relative. Ordinary English words
// (wamerican), place nouns and code identifiers stop a run (names.go,
// nametext.go, namelists.go); a street line is a US, European or CJK form
// ending in a house number or a street type (address.go). The lists are embedded sorted and searched by
// bisection, so nothing is built at start-up.
//
// Vault.ScanOutput is the last look at what a script prints: values the
// vault holds become their tokens wherever they stand, new ones are found
// and minted, the vault's own tokens stay.
//
// A Vault belongs to one client session. Tokenize replaces every value
// found by a stable token such as [EMAIL_1] (the same value gets the same
// token for the life of the vault); Detokenize puts values back into text
// or JSON on its way to an upstream. Values leave the vault only through
// Detokenize and Describe (for the flow policy and a person's approval);
// a Vault logs only counts. Each entry remembers the tool whose result
// minted it (From returns a view that mints with a given origin), so the
// proxy can decide whether a value may go where a call sends it.
//
// The round trip Detokenize(Tokenize(x)) == x holds for every input, even
// one that already contains text shaped like a token: such text is itself
// stored in the vault (as a [TOKEN_n] token), so Detokenize can never turn
// it into somebody's value. A token the vault does not know (another
// session's, an expired one, a made-up one) passes through unchanged.
//
// The vault travels in a context.Context (NewContext, FromContext): toolfold
// shares each upstream session between all client sessions, so the
// middleware on the upstream edge learns whose vault to use from the
// request's context, which descends from the client session's request.
package rewrite
