// Package index is toolfold's tool catalog: every upstream tool under its
// qualified name "server.tool" and its script path
// "server_ident.tool_ident", ranked search over them (search_tools), and
// the text search_tools returns. It is pure and in memory: New builds an
// immutable Index from tools the proxy converted from MCP; the proxy
// rebuilds it when tools change. LoadCorpus and Evaluate, which read files,
// exist for tests, benchmarks and the CLI's evaluation.
//
// # Names
//
// Inside scripts a tool is tools.<server_ident>.<tool_ident>: ScriptIdent
// turns characters other than [A-Za-z0-9_] into '_' and prefixes a leading
// digit. When two names map to one identifier ("get-sum" and "get_sum"),
// a name that already is its identifier keeps it and the others take _2,
// _3, ... in sorted order. Resolve accepts either form; Suggest offers close
// names for an unknown one.
//
// # Ranking
//
// Search scores every tool for a query in three parts, summed:
//
//  1. Field-weighted BM25 (BM25F). A tool is six fields with their own
//     weights and length normalisation: its name (split at camelCase,
//     snake_case, kebab-case and dots, plus its compound form), the
//     description's first sentence, the rest of the description, parameter
//     names, parameter descriptions and enum values, and the server's name
//     and description. Words are lowercased, stopwords dropped, and stemmed
//     (Porter). Camel-case runs are also indexed whole, so "GitHub" matches
//     "github". Each query word or known phrase is a concept that matches
//     through its best alternative: itself, its synonyms and abbreviations
//     from a table of general tool vocabulary (synonyms.go, at a lower
//     weight), the words WordNet 3.1 relates to it in its two commonest
//     senses, synonyms and derived words ("link" → connect, "relate" →
//     relation; wordnet.go, weight 0.4, only words some tool uses), the
//     phrase a short word abbreviates when no tool name uses the word
//     itself, learned from the catalog (acronym.go: "Autonomous System
//     Number (ASN)" in a description, feature_flag in two tool names: ff;
//     weight 0.6), and for
//     a word the index does not know, vocabulary words one or two edits
//     away (typos) or its parts ("readfile" → read file). All
//     alternatives of a concept share one idf, so a synonym never outscores
//     the word the query said; a phrase scores as the mean of its words.
//     Literal values in a query (URLs, paths, file names, e-mail addresses,
//     CSS selectors, quoted strings, numbers, and what follows "...:")
//     weigh less, and their kind ("url", "path") counts as a hint; a number
//     that is a word of a tool's or server's name ("12306") is a word. Words
//     that no tool name or first sentence uses, the topic of a request
//     rather than its action, weigh less too. The sum is divided by the
//     score a perfect match would get, so it lies in [0, 1].
//  2. Two shares in [0, 1], weighted: how much of the query (by idf) the
//     tool's name, first sentence and server say, and how much of the
//     tool's name (by idf, without words every tool of its server has, like
//     "browser_") the query says. Tools whose names and summaries say what
//     the query asks beat tools that mention it deep in a parameter.
//  3. For a query that is one identifier-like chunk ("read_file",
//     "fs.readFile"): sahilm/fuzzy over the qualified names, scaled to
//     [0, 0.5] among the best 20 matches, and 1 for a tool the query names
//     exactly (its name, qualified name or script path).
//  4. With SearchOptions.Usage (learning from use, usage.go): 0.8 × the
//     share of the query, by idf, whose words scripts searched with before
//     calling the tool, each word's pull 1 − 0.5^uses.
//
// The sum is then scaled by the kind of action (intent.go): when the
// query's first word names one (read: get, list, find, ...; write: create,
// store, send, ...; delete: remove, erase, ...; other words by the votes of
// their synonyms; "tell me" reads), a tool whose name names only other
// kinds keeps 0.5 of its score, and a tool whose name (or, failing that,
// its description's first word) names none keeps 0.8; for a query that
// names no kind, a tool that only deletes keeps 0.8. An upstream's
// readOnlyHint makes a tool a reader.
//
// A query that names several steps ("find the file and then email it",
// split at then, and, after that, followed by, ";", a comma before a verb
// of a known kind, ...; steps.go) is also
// ranked step by step, and the rankings are fused by reciprocal rank (the
// whole query weighs 1, each step 0.5); each step's best tool is placed
// among the first hits, so every step has its tool near the top, when it
// matches its step well (a score of at least 0.6): a step that names no
// tool ("and tell me why") has only a guess, which would push out a good hit.
//
// Before parsing, everyday phrasings are rewritten to the words tools use
// (idioms.go): "let the team know" → notify, "throw it away" → delete,
// "how long" → duration, with gaps for separable phrasal verbs. Arithmetic
// in a query ("17% of 2,340", "3*4") hints at calculating.
//
// On the corpus in testdata/search-corpus (1,815 real tools, 124 servers)
// TestSearchQuality prints recall, MRR and nDCG overall and per tag for each
// query set there (QUERY-SETS.md: the dev queries, their develop and holdout
// halves, and queries converted from LiveMCPBench); toolfold-lab eval-search
// prints the same. Only the develop half's misses may be read while tuning.
//
// # Detail levels
//
// Render writes hits at one of three levels; every byte goes into the
// model's context:
//
//   - name: the qualified name, one line per hit.
//   - summary: the call signature in the script language and the first
//     sentence: tools.filesystem.read_text_file{path: string, head?: number}
//     -- Read the complete contents of a file as text.
//   - full: the whole description, every parameter (type, required or
//     optional, enum values, default, range, description, nested
//     properties), the declared result shape, the annotations, and an
//     example call: local r = tools.filesystem.read_text_file{path = "README.md"}.
//
// Tools of an unavailable server are marked "(unavailable: reason)". When
// nothing matches, Render says so and lists servers (those with matches
// when a server filter excluded them) and close names. Signatures and
// examples are spelled as each sandbox prelude accepts them: Lua
// tools.s.t{key = v}, Python tools.s.t(key=v) (tools["s"]["t"] and
// **{"key": v} for keywords and other non-identifiers), JavaScript
// await tools.s.t({key: v}). The spelling is the language's own
// (sandbox.Language.Syntax, next to its prelude): a language registered in
// package sandbox is rendered here with no change to index.
package index
