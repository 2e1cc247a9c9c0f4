package main

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/toolfold/toolfold/config"
	"github.com/toolfold/toolfold/store"
)

// openStore opens the config's shared store: Redis when store: names one,
// else files beside the config (a temporary directory's worth of nothing
// when the config was not read from a file: then nothing is shared). With
// store.key (required for Redis by config), every entry is signed and
// checked on read: the store is a trust root (docs/replicas.md). log gets
// the refused entries; nil discards.
func openStore(cfg *config.Config, log *slog.Logger) (store.Store, error) {
	dir := cfg.StoreDir()
	if dir == "" && cfg.Store.URL == "" {
		return nil, nil
	}
	st, err := store.Open(cfg.Store.URL, dir, &store.Options{CAFile: cfg.Store.TLSCA})
	if err != nil || cfg.Store.Key == "" {
		return st, err
	}
	signed, err := store.Signed(st, []byte(cfg.Store.Key), log)
	if err != nil {
		st.Close()
		return nil, err
	}
	return signed, nil
}

// signedPrefixes are the store's entries that check reads back to find
// those refused as unsigned.
var signedPrefixes = []string{"skills/", "skills-versions/", "pins/", "catalog/", "search/"}

// storeStatus is check's line: which store, whether it answers, whether
// its entries are signed and which of them were refused.
func storeStatus(ctx context.Context, cfg *config.Config, st store.Store) (string, bool) {
	if st == nil {
		return "none (the config was not read from a file)", true
	}
	ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	if err := st.Ping(ctx); err != nil {
		return st.String() + ": not answering (" + err.Error() + "); start it, or leave store: out for files on this machine. " +
			"Meanwhile a new or changed tool is held (asks first) and rate limits count in each replica's memory", false
	}
	line := st.String()
	if cfg.Store.URL != "" {
		line += ": answers (shared by every replica)"
	} else if cfg.Store.Key == "" {
		line += " (entries not signed: the directory is toolfold's alone; set store.key to sign them)"
	}
	bad, err := store.Refused(ctx, st, signedPrefixes...)
	if len(bad) > 0 {
		return fmt.Sprintf("%s\n  refused, not signed with store.key (written by someone without it, or by a replica with another key; remove them or save them again): %s",
			line, strings.Join(bad, ", ")), false
	}
	if err != nil {
		return line + "\n  error: " + err.Error(), false
	}
	return line, true
}
