package index

import (
	"bufio"
	"bytes"
	"compress/gzip"
	_ "embed"
	"strings"
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
	var ws []string
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) < 3 {
			continue
		}
		ws = ws[:0]
		for _, w := range f[1:] {
			if s := stem(w); !stopwords[w] && !containsStr(ws, s) {
				ws = append(ws, s)
			}
		}
		for _, a := range ws {
			for _, b := range ws {
				if a != b && !containsStr(wordnetIdx[a], b) {
					wordnetIdx[a] = append(wordnetIdx[a], b)
				}
			}
		}
	}
	if err := sc.Err(); err != nil {
		panic("index: embedded wordnet data: " + err.Error())
	}
}

func containsStr(ss []string, s string) bool {
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
}
