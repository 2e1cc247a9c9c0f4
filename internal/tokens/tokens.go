// Package tokens counts tokens the way a model would see them, with the
// o200k_base BPE vocabulary (GPT-4o's; embedded in the binary, no download).
// Counts from other vendors' tokenizers differ by a few percent; the point
// of the figures is the ratio between the direct and the proxied cost.
package tokens

import (
	"sync"
	"unicode/utf8"

	"github.com/tiktoken-go/tokenizer"
)

// Encoding names the vocabulary used, for reports.
const Encoding = "o200k_base"

var (
	once  sync.Once
	codec tokenizer.Codec
	err   error
)

// Count returns the number of tokens in s, or an estimate of len(s)/4 if
// the vocabulary could not be loaded.
func Count(s string) int {
	once.Do(func() { codec, err = tokenizer.Get(tokenizer.O200kBase) })
	if err != nil {
		return (len(s) + 3) / 4
	}
	n, cerr := codec.Count(s)
	if cerr != nil {
		return (len(s) + 3) / 4
	}
	return n
}

// exactMax is the most of a text Estimate counts token by token.
const exactMax = 256 << 10

// Estimate is Count for texts up to 256 KiB; a longer text is counted on
// its first 256 KiB and scaled by its length, so a 30 MB tool result costs
// milliseconds, not seconds.
func Estimate(s string) int {
	if len(s) <= exactMax {
		return Count(s)
	}
	cut := exactMax
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	n := Count(s[:cut])
	return int(int64(n) * int64(len(s)) / int64(max(cut, 1)))
}
