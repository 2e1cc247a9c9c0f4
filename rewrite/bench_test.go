package rewrite

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// mixedJSON builds a tool result like the ones toolfold relays: records
// with names, addresses, timestamps, UUIDs, URLs, prose and numbers, with
// a value to hide in about one field in ten.
func mixedJSON(n int) []byte {
	r := rand.New(rand.NewPCG(1, 2))
	words := strings.Fields("the quick brown fox jumps over lazy dog release build deploy error retry " +
		"customer invoice order shipped pending refund account update version config cluster node")
	prose := func(k int) string {
		var b strings.Builder
		for i := 0; i < k; i++ {
			if i > 0 {
				b.WriteByte(' ')
			}
			b.WriteString(words[r.IntN(len(words))])
		}
		return b.String()
	}
	var recs []map[string]any
	for i := 0; i < n; i++ {
		rec := map[string]any{
			"id":         fmt.Sprintf("%08x-%04x-4%03x-a%03x-%012x", r.Uint32(), r.IntN(1<<16), r.IntN(1<<12), r.IntN(1<<12), r.Uint64()&(1<<48-1)),
			"created_at": fmt.Sprintf("2026-%02d-%02dT%02d:%02d:%02dZ", 1+r.IntN(12), 1+r.IntN(28), r.IntN(24), r.IntN(60), r.IntN(60)),
			"title":      prose(6),
			"body":       prose(40),
			"order":      fmt.Sprintf("ORD-%d", 100000+r.IntN(900000)),
			"amount":     float64(r.IntN(100000)) / 100,
			"version":    fmt.Sprintf("%d.%d.%d", r.IntN(5), r.IntN(20), r.IntN(50)),
			"url":        fmt.Sprintf("https://example.com/api/v2/items/%d?page=%d", r.IntN(1e6), r.IntN(100)),
			"sha":        fmt.Sprintf("%016x%016x%08x", r.Uint64(), r.Uint64(), r.Uint32()),
			"tags":       []any{words[r.IntN(len(words))], words[r.IntN(len(words))]},
		}
		switch r.IntN(10) {
		case 0:
			rec["email"] = fmt.Sprintf("user%d@example.com", r.IntN(1000))
		case 1:
			rec["note"] = fmt.Sprintf("call +1 415 555 %04d about it", r.IntN(10000))
		case 2:
			rec["ip"] = fmt.Sprintf("10.%d.%d.%d", r.IntN(256), r.IntN(256), r.IntN(256))
		}
		recs = append(recs, rec)
	}
	b, _ := json.Marshal(map[string]any{"items": recs, "total": n})
	return b
}

// BenchmarkTokenizeJSON measures throughput (MB/s) on mixed JSON results.
func BenchmarkTokenizeJSON(b *testing.B) {
	o := Defaults()
	o.PhoneRegions = []string{"US", "GB", "DE"}
	d := mustDetector(b, o)
	data := mixedJSON(2000)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	v := NewVault(d, Limits{})
	for b.Loop() {
		if _, err := v.TokenizeJSON(data); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkTokenizeText is the same data treated as plain text.
func BenchmarkTokenizeText(b *testing.B) {
	o := Defaults()
	o.PhoneRegions = []string{"US", "GB", "DE"}
	d := mustDetector(b, o)
	data := string(mixedJSON(2000))
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	v := NewVault(d, Limits{})
	for b.Loop() {
		v.Tokenize(data)
	}
}

// BenchmarkDetokenizeJSON measures restoring tokens in tool arguments.
func BenchmarkDetokenizeJSON(b *testing.B) {
	v := NewVault(mustDetector(b, Defaults()), Limits{})
	tok, _ := v.TokenizeJSON(mixedJSON(200))
	b.SetBytes(int64(len(tok)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := v.DetokenizeJSON(tok); err != nil {
			b.Fatal(err)
		}
	}
}
