package config

import (
	"fmt"
	"maps"
	"slices"
	"strings"
)

// aliases maps names people reach for (from other tools, or from the Go
// field names) to the key toolfold uses.
var aliases = map[string]string{
	"mcpservers": "upstreams", "servers": "upstreams", "upstream": "upstreams",
	"type": "transport", "cmd": "command", "arguments": "args",
	"environment": "env", "workdir": "cwd", "workingdirectory": "cwd", "dir": "cwd",
	"endpoint": "url", "uri": "url", "timeout": "call_timeout",
	"memorybytes": "memory", "memorylimit": "memory", "outputbytes": "output",
	"maxoutput": "output", "maxcalls": "max_tool_calls", "toolcalls": "max_tool_calls",
	"concurrency": "max_concurrency", "maxframebytes": "max_frame", "framebytes": "max_frame",
	"filebytes": "file_size", "cpu": "cpu_time", "nproc": "processes", "nofile": "open_files",
	"address": "addr", "listen": "addr", "token": "bearer_token", "bearer": "bearer_token",
	"otel": "telemetry", "opentelemetry": "telemetry", "tracing": "telemetry", "observability": "telemetry",
	"url": "endpoint", "otlpendpoint": "endpoint", "service": "service_name", "traces": "traces_exporter",
	"metrics": "metrics_exporter", "capture": "capture_content",
	"permissions": "policy", "policies": "policy", "auditlog": "audit", "ratelimit": "rate", "limit": "rate",
	"pattern": "match", "glob": "match", "tool": "match", "hints": "annotations", "effect": "action",
	"decision": "action", "scope": "per", "maxsize": "max_size_mb", "backups": "max_backups", "path": "file",
	"asktimeout": "approval_timeout", "rule": "rules",
}

// unknownKey is the message for a key that is not in known, with a
// suggestion when one is close.
func unknownKey(key string, known []string) string {
	if s := suggest(key, known); s != "" {
		return fmt.Sprintf("unknown key %q; did you mean %q?", key, s)
	}
	return fmt.Sprintf("unknown key %q; known keys: %s", key, strings.Join(known, ", "))
}

// suggest returns the known key that key most likely means, or "".
func suggest(key string, known []string) string {
	norm := func(s string) string {
		return strings.NewReplacer("_", "", "-", "").Replace(strings.ToLower(s))
	}
	k := norm(key)
	for _, cand := range known {
		if norm(cand) == k {
			return cand
		}
	}
	if a, ok := aliases[k]; ok {
		for _, cand := range known {
			if cand == a {
				return cand
			}
		}
	}
	// A misspelt alias ("enviroment") means what the alias means.
	for _, alias := range slices.Sorted(maps.Keys(aliases)) {
		if a := aliases[alias]; len(alias) >= 6 && levenshtein(k, alias) <= len(alias)/6 && slices.Contains(known, a) {
			return a
		}
	}
	best, bestDist := "", 4
	for _, cand := range known {
		d := levenshtein(strings.ToLower(key), cand)
		if d < bestDist && d <= max(1, len(cand)/3) {
			best, bestDist = cand, d
		}
	}
	return best
}

// levenshtein is the edit distance between a and b, in bytes.
func levenshtein(a, b string) int {
	if len(a) > 64 || len(b) > 64 {
		return 64 // not a typo of a short key; avoid quadratic work on junk
	}
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
