package config

import (
	"os"
	"regexp"
	"slices"
	"testing"
)

// referencePath is the configuration reference, relative to this package.
const referencePath = "../docs/configuration.md"

// keyRow matches a reference table row and captures the key in its first
// cell: | `sandbox.timeout` | ...
var keyRow = regexp.MustCompile("(?m)^\\| `([^`]+)` \\|")

// documentedKeys returns the keys the reference's tables list.
func documentedKeys(t *testing.T) map[string]bool {
	t.Helper()
	data, err := os.ReadFile(referencePath)
	if err != nil {
		t.Fatal(err)
	}
	keys := map[string]bool{}
	for _, m := range keyRow.FindAllStringSubmatch(string(data), -1) {
		keys[m[1]] = true
	}
	return keys
}

// loaderKeys returns every key path the loader reads, built from the key
// lists its decoders check against (the lists unknownKey reports from), in
// the reference's notation: NAME for a name the user chooses, [] for each
// item of a list. A top-level key missing from sections and scalars fails
// the test, so that a new section cannot go undocumented.
func loaderKeys(t *testing.T) []string {
	t.Helper()
	prefixed := func(prefix string, keys []string) []string {
		var out []string
		for _, k := range keys {
			out = append(out, prefix+k)
		}
		return out
	}
	sections := map[string][]string{
		"upstreams": slices.Concat(prefixed("upstreams.NAME.", upstreamKeys),
			prefixed("upstreams.NAME.oauth.", oauthKeys)),
		"sandbox":   prefixed("sandbox.", sandboxKeys()),
		"http":      prefixed("http.", httpKeys),
		"telemetry": prefixed("telemetry.", telemetryKeys),
		"search":    prefixed("search.", searchKeys),
		"pii": slices.Concat(prefixed("pii.", piiKeys),
			prefixed("pii.detectors.", PIIDetectors),
			prefixed("pii.vault.", vaultKeys),
			prefixed("pii.custom[].", customKeys),
			prefixed("pii.flows[].", flowKeys)),
		"policy": slices.Concat(prefixed("policy.", policyKeys),
			prefixed("policy.rules[].", ruleKeys),
			prefixed("policy.rules[].annotations.", PolicyHints)),
		"audit":  prefixed("audit.", auditKeys),
		"skills": prefixed("skills.", skillsKeys),
		"store":  prefixed("store.", storeKeys),
	}
	scalars := []string{"expose", "pin", "namespace", "ui"}
	keys := slices.Concat(prefixed("mcpServers.NAME.", clientKeys), prefixed("mcpServers.NAME.", clientURLKeys))
	for _, top := range topKeys {
		sub, ok := sections[top]
		if !ok && !slices.Contains(scalars, top) {
			t.Errorf("top-level key %q: add its keys to loaderKeys in config/docs_test.go (and document them in docs/configuration.md)", top)
		}
		keys = append(keys, top)
		keys = append(keys, sub...)
	}
	return keys
}

// TestEveryKeyDocumented fails when docs/configuration.md lacks a key the
// loader reads, or lists one it does not read.
func TestEveryKeyDocumented(t *testing.T) {
	documented := documentedKeys(t)
	read := map[string]bool{}
	for _, k := range loaderKeys(t) {
		read[k] = true
		if !documented[k] {
			t.Errorf("config key %s is not documented: add a row for it to the reference in docs/configuration.md", k)
		}
	}
	for k := range documented {
		if !read[k] {
			t.Errorf("docs/configuration.md documents %s, which the loader does not read: remove or rename its row", k)
		}
	}
}
