package skills

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"time"

	"github.com/toolfold/toolfold/store"
)

// KV is the Store of a shared key-value store (package store): replicas
// that share a Redis share their skills. A skill is one JSON value under
// "skills/NAME"; a replaced or removed one is kept under
// "skills-versions/NAME/UNIXNANO", the last MaxVersions of them.
//
// Saving over an existing name is a read then a write, not a transaction:
// two replicas saving the same new name at the same moment may both
// succeed, the later one winning (the earlier kept as a version).
type KV struct {
	st  store.Store
	now func() time.Time
}

var _ Store = (*KV)(nil)

// NewKV returns the skills kept in st.
func NewKV(st store.Store) *KV { return &KV{st: st, now: time.Now} }

const (
	kvPrefix        = "skills/"
	kvVersionPrefix = "skills-versions/"
	// kvChanged holds a new value after every save and removal, so that
	// the other replicas notice a change with one cheap read (Version)
	// instead of listing every skill. It only triggers a re-read: what is
	// read then is the signed skills themselves, checked as always, so a
	// forged value here costs one needless re-read, never a skill.
	kvChanged = "skills-changed"
)

// String says where the skills are, for toolfold check.
func (k *KV) String() string { return "in the shared store (" + k.st.String() + ")" }

// List implements Store.
func (k *KV) List(ctx context.Context) ([]*Skill, error) {
	keys, err := k.st.Keys(ctx, kvPrefix)
	if err != nil {
		return nil, fmt.Errorf("list the skills: %w", err)
	}
	var out []*Skill
	var bad []string
	for _, key := range keys {
		s, err := k.Get(ctx, strings.TrimPrefix(key, kvPrefix))
		if errors.Is(err, ErrNotFound) {
			continue // removed since Keys, by another replica
		}
		if err != nil {
			bad = append(bad, err.Error())
			continue
		}
		out = append(out, s)
	}
	if len(bad) > 0 {
		return out, errors.New(strings.Join(bad, "; "))
	}
	return out, nil
}

// Get implements Store.
func (k *KV) Get(ctx context.Context, name string) (*Skill, error) {
	data, err := k.st.Get(ctx, kvPrefix+name)
	if errors.Is(err, store.ErrNotFound) {
		return nil, fmt.Errorf("skill %s: %w", name, ErrNotFound)
	} else if err != nil {
		return nil, fmt.Errorf("skill %s: %w", name, err)
	}
	var s Skill
	if err := json.Unmarshal(data, &s); err != nil {
		return nil, fmt.Errorf("skill %s: unreadable in the store (%v); save it again with overwrite, or remove it with toolfold skills rm %s", name, err, name)
	}
	// The store is a trust root: what is read back is checked as a save
	// checks it, and must be the skill its key names.
	if err := s.Validate(); err != nil {
		return nil, fmt.Errorf("skill %s: refused as read from the store (%v); save it again with overwrite, or remove it with toolfold skills rm %s", name, err, name)
	}
	if s.Name != name {
		return nil, fmt.Errorf("skill %s: refused as read from the store (it holds skill %q); remove it with toolfold skills rm %s", name, s.Name, name)
	}
	return &s, nil
}

// Save implements Store.
func (k *KV) Save(ctx context.Context, s *Skill, overwrite bool) error {
	old, err := k.st.Get(ctx, kvPrefix+s.Name)
	switch {
	case errors.Is(err, store.ErrUnauthenticated):
		// Not a skill toolfold saved: replaced, and not kept as a version.
	case err == nil && !overwrite:
		return fmt.Errorf("skills.%s: skill exists; save with overwrite: true to replace it (the old one is kept as a version): %w", s.Name, ErrExists)
	case err == nil:
		if err := k.keepVersion(ctx, s.Name, old); err != nil {
			return err
		}
	case !errors.Is(err, store.ErrNotFound):
		return fmt.Errorf("skill %s: %w", s.Name, err)
	}
	data, err := json.Marshal(s)
	if err != nil {
		return err
	}
	if err := k.st.Set(ctx, kvPrefix+s.Name, data); err != nil {
		return fmt.Errorf("skill %s was not saved: %w", s.Name, err)
	}
	return k.touch(ctx)
}

// touch gives kvChanged a new value, telling the other replicas to read
// the skills again.
func (k *KV) touch(ctx context.Context) error {
	v := strconv.FormatInt(k.now().UnixNano(), 10) + "-" + strconv.FormatUint(rand.Uint64(), 36)
	if err := k.st.Set(ctx, kvChanged, []byte(v)); err != nil {
		return fmt.Errorf("the skill was written, but the other replicas were not told (they see it within their next full read): %w", err)
	}
	return nil
}

// Version is a value that changes with every save and removal through
// any replica ("" before the first), read with one store access.
func (k *KV) Version(ctx context.Context) (string, error) {
	data, err := k.st.Get(ctx, kvChanged)
	if errors.Is(err, store.ErrNotFound) {
		return "", nil
	}
	return string(data), err
}

// Remove implements Store.
func (k *KV) Remove(ctx context.Context, name string) error {
	old, err := k.st.Get(ctx, kvPrefix+name)
	switch {
	case errors.Is(err, store.ErrNotFound):
		return fmt.Errorf("skill %s: %w", name, ErrNotFound)
	case errors.Is(err, store.ErrUnauthenticated):
		return k.st.Delete(ctx, kvPrefix+name) // not toolfold's: nothing to keep
	case err != nil:
		return err
	}
	if err := k.keepVersion(ctx, name, old); err != nil {
		return err
	}
	if err := k.st.Delete(ctx, kvPrefix+name); err != nil {
		return err
	}
	return k.touch(ctx)
}

// keepVersion stores a replaced skill and drops versions past MaxVersions.
func (k *KV) keepVersion(ctx context.Context, name string, data []byte) error {
	prefix := kvVersionPrefix + name + "/"
	if err := k.st.Set(ctx, prefix+strconv.FormatInt(k.now().UnixNano(), 10), data); err != nil {
		return fmt.Errorf("skill %s: keeping the previous version: %w", name, err)
	}
	keys, err := k.st.Keys(ctx, prefix)
	if err != nil {
		return nil // the version is kept; trimming waits for the next save
	}
	for len(keys) > MaxVersions {
		_ = k.st.Delete(ctx, keys[0])
		keys = keys[1:]
	}
	return nil
}
