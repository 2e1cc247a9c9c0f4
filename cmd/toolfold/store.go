package main

import (
	"context"
	"time"

	"github.com/toolfold/toolfold/config"
	"github.com/toolfold/toolfold/store"
)

// openStore opens the config's shared store: Redis when store: names one,
// else files beside the config (a temporary directory's worth of nothing
// when the config was not read from a file: then nothing is shared).
func openStore(cfg *config.Config) (store.Store, error) {
	dir := cfg.StoreDir()
	if dir == "" && cfg.Store.URL == "" {
		return nil, nil
	}
	return store.Open(cfg.Store.URL, dir, nil)
}

// storeStatus is check's line: which store, and whether it answers.
func storeStatus(ctx context.Context, cfg *config.Config, st store.Store) (string, bool) {
	if st == nil {
		return "none (the config was not read from a file)", true
	}
	ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	if err := st.Ping(ctx); err != nil {
		return st.String() + ": not answering (" + err.Error() + "); start it, or leave store: out for files on this machine", false
	}
	if cfg.Store.URL != "" {
		return st.String() + ": answers (shared by every replica)", true
	}
	return st.String(), true
}
