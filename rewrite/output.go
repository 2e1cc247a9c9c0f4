package rewrite

import (
	"slices"
	"strings"
	"time"
)

// ScanOutput makes what a script prints or returns safe to show the
// client: it runs after the script, on text the script may have decoded
// or assembled itself (a base64 field, a value split and rejoined), which
// never crossed the upstream edge as such.
//
//   - A value the vault already holds becomes its token wherever it
//     stands as a whole word, even where the detectors alone would not
//     find it (a phone number printed without its context word).
//   - A value the detectors find is tokenized, minting a token if needed.
//   - A token of this vault stays as it is (it is not vaulted again as a
//     literal); other token-shaped text is vaulted as TOKEN, as Tokenize
//     does, so that it cannot turn into someone's value on the way back.
func (v *Vault) ScanOutput(s string) string {
	if v == nil || s == "" {
		return s
	}
	spans := v.det.find(s, "", nil, true)
	now := v.now()
	v.mu.Lock()
	defer v.mu.Unlock()
	if known := v.knownSpans(s, now); len(known) > 0 {
		spans = mergeSpans(known, 0, spans) // a whole known value wins
	}
	if len(spans) == 0 {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 8*len(spans))
	last := 0
	for _, sp := range spans {
		val := s[sp.Start:sp.End]
		b.WriteString(s[last:sp.Start])
		if sp.Type == TypeToken {
			if _, ok := v.lookup(val, now); ok {
				b.WriteString(val)
				last = sp.End
				continue
			}
		}
		b.WriteString(v.token(sp.Type, val, now))
		last = sp.End
	}
	b.WriteString(s[last:])
	return b.String()
}

// minKnown is the shortest held value looked for as such in output:
// shorter ones would match ordinary words and numbers.
const minKnown = 6

// knownSpans finds, left to right, the values the vault holds that stand
// in s as whole words. Called with v.mu held. It indexes the held values
// by their first four bytes, with the lengths of the values that start
// so: at each word start, one look-up per such length (longest first),
// however many values share the prefix.
func (v *Vault) knownSpans(s string, now time.Time) []Span {
	if len(v.byValue) == 0 || len(s) < minKnown {
		return nil
	}
	lens := make(map[string][]int) // first four bytes → lengths, longest first
	for val, e := range v.byValue {
		en := e.Value.(*entry)
		if len(val) < minKnown || strings.HasPrefix(en.token, "["+TypeToken+"_") || now.Sub(en.used) > v.limits.TTL {
			continue
		}
		ls := lens[val[:4]]
		if k, found := slices.BinarySearchFunc(ls, len(val), func(a, b int) int { return b - a }); !found {
			lens[val[:4]] = slices.Insert(ls, k, len(val))
		}
	}
	if len(lens) == 0 {
		return nil
	}
	var out []Span
	for i := 0; i+minKnown <= len(s); i++ {
		if i > 0 && isAlnum(s[i-1]) && isAlnum(s[i]) {
			continue
		}
		for _, l := range lens[s[i:i+4]] {
			end := i + l
			if end > len(s) || end < len(s) && isAlnum(s[end-1]) && isAlnum(s[end]) {
				continue
			}
			if e, ok := v.byValue[s[i:end]]; ok && !strings.HasPrefix(e.Value.(*entry).token, "["+TypeToken+"_") {
				out = append(out, Span{Start: i, End: end, Type: tokenType(e.Value.(*entry).token)})
				i = end - 1
				break
			}
		}
	}
	return out
}

// tokenType is TYPE of "[TYPE_n]".
func tokenType(tok string) string {
	if k := strings.LastIndexByte(tok, '_'); k > 1 {
		return tok[1:k]
	}
	return TypeToken
}
