// Command gennames compacts the public name and word lists that the NAME
// detector reads (rewrite/namelists) from the files gen.sh extracts from
// their packages. Sources and licences: rewrite/testdata/SOURCES.md.
package main

import (
	"bufio"
	"flag"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// Cuts that keep the lists compact: a given name borne by fewer than
// minBirths people in the SSA's counts since 1880 is left out, and so are
// the Census surnames ranked below maxSurnames.
const (
	minBirths   = 1000
	maxSurnames = 40000
)

func main() {
	ssa := flag.String("ssa", "", "SSA names: name|births lines")
	cg := flag.String("census-given", "", "Census 1990 given names, one a line")
	cs := flag.String("census-surnames", "", "Census 1990 surnames, one a line, by rank")
	words := flag.String("words", "", "wamerican's word list")
	out := flag.String("out", "", "output directory")
	flag.Parse()
	given := map[string]bool{}
	for _, l := range lines(*ssa) {
		name, n, ok := strings.Cut(l, "|")
		if b, err := strconv.Atoi(n); ok && err == nil && b >= minBirths {
			given[strings.ToLower(name)] = true
		}
	}
	for _, l := range lines(*cg) {
		given[strings.ToLower(l)] = true
	}
	surnames := map[string]bool{}
	for i, l := range lines(*cs) {
		if i < maxSurnames {
			surnames[strings.ToLower(l)] = true
		}
	}
	// Ordinary words: the list's all-lowercase entries of letters only
	// (its capitalised entries are proper names).
	ws := map[string]bool{}
	for _, l := range lines(*words) {
		if len(l) > 1 && strings.Trim(l, "abcdefghijklmnopqrstuvwxyz") == "" {
			ws[l] = true
		}
	}
	write(filepath.Join(*out, "given.txt"), given)
	write(filepath.Join(*out, "surnames.txt"), surnames)
	write(filepath.Join(*out, "words.txt"), ws)
}

func lines(path string) []string {
	f, err := os.Open(path)
	if err != nil {
		log.Fatal(err)
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if l := strings.TrimSpace(sc.Text()); l != "" {
			out = append(out, l)
		}
	}
	if err := sc.Err(); err != nil {
		log.Fatal(err)
	}
	return out
}

func write(path string, set map[string]bool) {
	keys := make([]string, 0, len(set))
	for k := range set {
		if strings.Trim(k, "abcdefghijklmnopqrstuvwxyz'-") == "" {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	if err := os.WriteFile(path, []byte(strings.Join(keys, "\n")+"\n"), 0o644); err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%s: %d\n", path, len(keys))
}
