package index

import (
	"encoding/json"
	"fmt"
)

// MarshalJSON is the store as JSON, as Save writes it.
func (u *Usage) MarshalJSON() ([]byte, error) {
	u.mu.RLock()
	defer u.mu.RUnlock()
	return json.Marshal(usageFile{Version: 1, Pairs: u.pairs})
}

// Merge adds what another copy of the store learned (JSON as MarshalJSON
// writes it): a pair both hold keeps the larger count. Replicas sharing
// one saved store merge before they save, so none overwrites what the
// others learned. The bound still holds, the least recent pairs going.
func (u *Usage) Merge(data []byte) error {
	if len(data) > usageFileMax {
		return fmt.Errorf("search usage is over %d bytes; not merged", usageFileMax)
	}
	var uf usageFile
	if err := json.Unmarshal(data, &uf); err != nil || uf.Version != 1 {
		if err == nil {
			err = fmt.Errorf("version %d, want 1", uf.Version)
		}
		return fmt.Errorf("search usage is unreadable (%v)", err)
	}
	u.mu.Lock()
	defer u.mu.Unlock()
	all := u.pairs
	for t, m := range uf.Pairs {
		for q, p := range m {
			if p == nil {
				continue
			}
			if all[t] == nil {
				all[t] = make(map[string]*usagePair)
			}
			if old := all[t][q]; old != nil {
				p = &usagePair{Count: max(old.Count, p.Count), Seq: max(old.Seq, p.Seq)}
			}
			all[t][q] = p
		}
	}
	u.pairs, u.n = make(map[string]map[string]*usagePair), 0
	u.load(all)
	return nil
}
