package index

import (
	"bufio"
	"bytes"
	"compress/gzip"
	_ "embed"
	"slices"
	"sync"
)

// wordnetData is the word relations of WordNet 3.1 that search uses, made
// by wordnet_gen.go: each line a group of single words, "s" the synonyms of
// one sense, "d" a word and a word derived from it ("relate relation").
// Only the first two senses of a word are kept. Licence: wordnet-LICENSE.
//
//go:generate go run wordnet_gen.go -dict package/dict
//go:embed wordnet.txt.gz
var wordnetData []byte

// wordnetWeight is the weight of a word related to a query word through
// WordNet: below the synonym table's, which was written for tool land.
var wordnetWeight = 0.4

var (
	wordnetOnce sync.Once
	wordnetIdx  map[string][]string // stemmed word → stemmed related words
)

// related returns the words WordNet relates to a stemmed word, stemmed.
func related(w string) []string {
	wordnetOnce.Do(loadWordnet)
	return wordnetIdx[w]
}

func loadWordnet() {
	wordnetIdx = make(map[string][]string, 1<<15)
	zr, err := gzip.NewReader(bytes.NewReader(wordnetData))
	if err != nil {
		panic("index: embedded wordnet data: " + err.Error())
	}
	sc := bufio.NewScanner(zr)
	stems := make(map[string]string, 1<<15) // word → stem, one string per word
	stemOf := func(w []byte) string {
		s, ok := stems[string(w)] // no allocation for the lookup
		if !ok {
			s = stem(string(w))
			stems[string(w)] = s
		}
		return s
	}
	var ws []string
	for sc.Scan() {
		line := sc.Bytes()
		if len(line) < 2 {
			continue
		}
		ws = ws[:0]
		for w := range bytes.FieldsSeq(line[2:]) { // after the kind, "s " or "d "
			if s := stemOf(w); !stopwords[string(w)] && !slices.Contains(ws, s) {
				ws = append(ws, s)
			}
		}
		for _, a := range ws {
			for _, b := range ws {
				if a != b && !slices.Contains(wordnetIdx[a], b) {
					wordnetIdx[a] = append(wordnetIdx[a], b)
				}
			}
		}
	}
	if err := sc.Err(); err != nil {
		panic("index: embedded wordnet data: " + err.Error())
	}
}
