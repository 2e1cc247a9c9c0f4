package passthrough

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
)

// Names that clients see for upstream prompts, tools (passthrough and
// hybrid modes) and resource URIs.
//
// By default (namespace: auto) a name keeps its original form unless
// another upstream uses the same one, so a single wrapped server looks
// exactly like itself. Colliding names, and every name with namespace:
// always, become "<upstream>__<name>", in the form strict clients accept:
// only [A-Za-z0-9_-] and at most 64 characters (Claude's pattern
// ^[a-zA-Z0-9_-]{1,64}$); a longer one keeps a prefix and a hash of the
// whole. Resource URIs become "toolfold://<upstream>/<original URI>", which
// maps back by stripping the prefix. Every exposed name maps back to
// exactly one (upstream, original) pair.

// nsSep separates the upstream's name from the original in a namespaced name.
const nsSep = "__"

// maxNameLen is the longest name strict clients accept.
const maxNameLen = 64

// named is one upstream item to name.
type named struct {
	up, orig string
}

// exposeNames names items (in upstream config order) for clients; the
// result is parallel to items. always namespaces every name; reserved names
// (toolfold's own tools) are never given to an item.
func exposeNames(items []named, always bool, reserved ...string) []string {
	owners := ownersOf(items)
	out := make([]string, len(items))
	taken := map[string]bool{}
	for _, r := range reserved {
		taken[r] = true
	}
	// Unambiguous originals first, so they keep their form even when a
	// namespaced name would happen to equal one.
	for i, it := range items {
		if !always && len(owners[it.orig]) == 1 && !taken[it.orig] {
			out[i] = it.orig
			taken[it.orig] = true
		}
	}
	for i, it := range items {
		if out[i] != "" {
			continue
		}
		name := namespaced(it.up, it.orig)
		if taken[name] {
			name = hashed(name, it.up+"\x00"+it.orig)
		}
		out[i] = name
		taken[name] = true
	}
	return out
}

// namespaced is "<up>__<orig>" in the strict form. A name that had to be
// changed or shortened gets a hash of the original pair, so two different
// originals never meet.
func namespaced(up, orig string) string {
	name := up + nsSep + orig
	if clean := sanitizeName(name); clean != name || len(name) > maxNameLen {
		return hashed(clean, up+"\x00"+orig)
	}
	return name
}

// hashed shortens name to fit maxNameLen with a hash of key at its end.
func hashed(name, key string) string {
	sum := sha256.Sum256([]byte(key))
	h := hex.EncodeToString(sum[:4])
	keep := maxNameLen - len(h) - 1
	if len(name) > keep {
		name = name[:keep]
	}
	return name + "_" + h
}

// sanitizeName replaces every character outside [A-Za-z0-9_-] with '_'.
func sanitizeName(s string) string {
	var b strings.Builder
	for _, r := range s {
		if r == '_' || r == '-' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' {
			b.WriteRune(r)
		} else {
			b.WriteByte('_')
		}
	}
	return b.String()
}

// ownersOf maps each original name of items to the upstreams that offer it.
func ownersOf(items []named) map[string]map[string]bool {
	owners := map[string]map[string]bool{}
	for _, it := range items {
		if owners[it.orig] == nil {
			owners[it.orig] = map[string]bool{}
		}
		owners[it.orig][it.up] = true
	}
	return owners
}

// uriPrefix starts a namespaced resource URI.
const uriPrefix = "toolfold://"

// exposeURIs names resource URIs (or URI templates) the same way: a URI
// listed by two upstreams, or every URI with always, becomes
// "toolfold://<upstream>/<original>".
func exposeURIs(items []named, always bool) []string {
	owners := ownersOf(items)
	out := make([]string, len(items))
	for i, it := range items {
		if always || len(owners[it.orig]) > 1 || strings.HasPrefix(it.orig, uriPrefix) {
			out[i] = namespacedURI(it.up, it.orig)
		} else {
			out[i] = it.orig
		}
	}
	return out
}

func namespacedURI(up, orig string) string { return uriPrefix + up + "/" + orig }

// splitURI undoes namespacedURI for a known upstream name.
func splitURI(uri string, known func(string) bool) (up, orig string, ok bool) {
	rest, ok := strings.CutPrefix(uri, uriPrefix)
	if !ok {
		return "", "", false
	}
	up, orig, ok = strings.Cut(rest, "/")
	if !ok || !known(up) {
		return "", "", false
	}
	return up, orig, true
}
