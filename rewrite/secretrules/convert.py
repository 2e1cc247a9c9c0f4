#!/usr/bin/env python3
"""Convert gitleaks' default rule set (config/gitleaks.toml) to gitleaks.json,
the subset of fields rewrite uses: id, regex, secretGroup, entropy, keywords,
allowlists (regexTarget, regexes, stopwords) and the global allowlist.

  python3 rewrite/secretrules/convert.py PATH/TO/gitleaks.toml > rewrite/secretrules/gitleaks.json

Rules that need a file path (pkcs12-file) or span lines (private-key: the
hand-written PEM detector covers it) are left out; so are allowlists that
only name paths, and generic-api-key (any high-entropy value after "key",
"token", "auth", ...: in tool results it touches too many identifiers).

One change to the rules: gitleaks ends a value at a quote, white space or
';' (source code); tool results also put values in URLs, lists and
brackets, so the terminator admits ',', '&', ')', ']', '}', '<', '>' and
'|' as well.
"""
import json
import sys
import tomllib

SKIP = {"pkcs12-file", "private-key", "generic-api-key"}
TERM = r"""(?:[\x60'"\s;]|\\[nr]|$)"""
WIDE = r"""(?:[\x60'"\s;,&)\]}<>|]|\\[nr]|$)"""

def allowlist(a):
    if a.get("paths") and a.get("condition", "OR") == "AND":
        return None  # needs a path to hold
    out = {k: a[k] for k in ("regexTarget", "regexes", "stopwords") if a.get(k)}
    return out if out.get("regexes") or out.get("stopwords") else None

def main():
    cfg = tomllib.load(open(sys.argv[1], "rb"))
    rules = []
    for r in cfg["rules"]:
        if r["id"] in SKIP or "regex" not in r or not r.get("keywords"):
            continue
        out = {k: r[k] for k in ("id", "regex", "secretGroup", "entropy", "keywords") if k in r}
        out["regex"] = out["regex"].replace(TERM, WIDE)
        als = [x for x in (allowlist(a) for a in r.get("allowlists", [])) if x]
        if als:
            out["allowlists"] = als
        rules.append(out)
    g = cfg.get("allowlist", {})
    doc = {
        "source": "github.com/gitleaks/gitleaks v8.30.1 config/gitleaks.toml (MIT License, Copyright (c) 2019 Zachary Rice)",
        "allowlist": {"regexes": g.get("regexes", []), "stopwords": g.get("stopwords", [])},
        "rules": rules,
    }
    json.dump(doc, sys.stdout, indent=1, ensure_ascii=False)
    sys.stdout.write("\n")

if __name__ == "__main__":
    main()
