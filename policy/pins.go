package policy

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/toolfold/toolfold/store"
)

// Hash is a stable hash of what a tool tells the model and what it may do:
// its description, input and output schemas, and annotations ("sha256:…").
// Key order and whitespace in the schemas do not change it; the tool's
// name does not count (pins are kept by name).
func Hash(t *mcp.Tool) string {
	type hints struct { // spelled out, so an SDK's JSON options cannot change the hash
		Destructive *bool  `json:"destructiveHint"`
		Idempotent  bool   `json:"idempotentHint"`
		OpenWorld   *bool  `json:"openWorldHint"`
		ReadOnly    bool   `json:"readOnlyHint"`
		Title       string `json:"title"`
	}
	v := struct {
		Description string `json:"description"`
		Input       any    `json:"inputSchema"`
		Output      any    `json:"outputSchema"`
		Annotations *hints `json:"annotations"`
	}{Description: t.Description, Input: canonical(t.InputSchema), Output: canonical(t.OutputSchema)}
	if a := t.Annotations; a != nil {
		v.Annotations = &hints{a.DestructiveHint, a.IdempotentHint, a.OpenWorldHint, a.ReadOnlyHint, a.Title}
	}
	b, _ := json.Marshal(v) // maps marshal with sorted keys
	h := sha256.Sum256(b)
	return "sha256:" + hex.EncodeToString(h[:])
}

// canonical turns a schema (any JSON-marshalable value) into maps, slices
// and scalars, so that it marshals the same whatever its Go type.
func canonical(schema any) any {
	if schema == nil {
		return nil
	}
	b, err := json.Marshal(schema)
	if err != nil {
		return fmt.Sprintf("unmarshalable: %v", err)
	}
	var v any
	if json.Unmarshal(b, &v) != nil {
		return string(b)
	}
	return v
}

// PinState is what Pins.Check found.
type PinState string

// Pin states.
const (
	PinNew       PinState = "new"       // first seen now; pinned as it is
	PinUnchanged PinState = "unchanged" // as pinned
	PinChanged   PinState = "changed"   // differs from the pin; held until approved
)

// Pin is one tool's record.
type Pin struct {
	Name      string    `json:"name"`
	Pinned    string    `json:"pinned"`               // the approved definition's hash
	Seen      string    `json:"seen"`                 // the hash last seen
	FirstSeen time.Time `json:"first_seen"`           // when the tool was first pinned
	ChangedAt time.Time `json:"changed_at,omitzero"`  // when Seen first differed from Pinned
	Approved  time.Time `json:"approved_at,omitzero"` // when a change was last approved
}

// State is PinChanged when the last seen definition is not the pinned one.
func (p Pin) State() PinState {
	if p.Seen != p.Pinned {
		return PinChanged
	}
	return PinUnchanged
}

// Pins records each tool's definition hash the first time it is seen, and
// holds a tool whose definition changed since until the change is
// approved. They live in a store.Store (files beside the config, or the
// shared Redis), under pins/. Safe for concurrent use.
type Pins struct {
	st  store.Store
	now func() time.Time
	mu  sync.Mutex // orders this process's read-modify-writes
}

const pinPrefix = "pins/"

// NewPins returns the pins kept in st.
func NewPins(st store.Store) *Pins {
	return &Pins{st: st, now: time.Now}
}

func pinKey(name string) string { return pinPrefix + url.PathEscape(name) }

// Check compares a tool's definition hash (Hash) with its pin: a tool seen
// for the first time is pinned as it is (PinNew); one that differs from
// its pin is PinChanged until Approve; PinUnchanged otherwise (also when a
// change was reverted).
func (p *Pins) Check(ctx context.Context, name, hash string) (PinState, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	pin, err := p.get(ctx, name)
	switch {
	case errors.Is(err, store.ErrNotFound):
		now := p.now().UTC()
		return PinNew, p.put(ctx, Pin{Name: name, Pinned: hash, Seen: hash, FirstSeen: now})
	case err != nil:
		return "", err
	case pin.Seen == hash:
		return pin.State(), nil
	}
	pin.Seen = hash
	if pin.State() == PinChanged {
		pin.ChangedAt = p.now().UTC()
	} else {
		pin.ChangedAt = time.Time{}
	}
	return pin.State(), p.put(ctx, pin)
}

// Approve accepts the last seen definition of name as its pin. It reports
// whether there was a change to approve; a tool never seen is an error
// that says so.
func (p *Pins) Approve(ctx context.Context, name string) (bool, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	pin, err := p.get(ctx, name)
	if errors.Is(err, store.ErrNotFound) {
		return false, fmt.Errorf("no pin for %q: toolfold pins a tool when it first lists it (toolfold serve or check); "+
			"write the qualified name as search_tools shows it, like memory.create_entities", name)
	}
	if err != nil {
		return false, err
	}
	if pin.State() == PinUnchanged {
		return false, nil
	}
	pin.Pinned, pin.ChangedAt, pin.Approved = pin.Seen, time.Time{}, p.now().UTC()
	return true, p.put(ctx, pin)
}

// List returns every pin, sorted by name.
func (p *Pins) List(ctx context.Context) ([]Pin, error) {
	keys, err := p.st.Keys(ctx, pinPrefix)
	if err != nil {
		return nil, err
	}
	var pins []Pin
	var errs []error
	for _, k := range keys {
		name, err := url.PathUnescape(strings.TrimPrefix(k, pinPrefix))
		if err != nil {
			continue
		}
		pin, err := p.get(ctx, name)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		pins = append(pins, pin)
	}
	return pins, errors.Join(errs...)
}

// Changed returns the pins whose tools changed and are held, sorted.
func (p *Pins) Changed(ctx context.Context) ([]Pin, error) {
	all, err := p.List(ctx)
	var out []Pin
	for _, pin := range all {
		if pin.State() == PinChanged {
			out = append(out, pin)
		}
	}
	return out, err
}

func (p *Pins) get(ctx context.Context, name string) (Pin, error) {
	b, err := p.st.Get(ctx, pinKey(name))
	if err != nil {
		return Pin{}, err
	}
	var pin Pin
	if err := json.Unmarshal(b, &pin); err != nil {
		return Pin{}, fmt.Errorf("pin of %s: %w (remove %s from the store to pin it anew)", name, err, pinKey(name))
	}
	pin.Name = name
	return pin, nil
}

func (p *Pins) put(ctx context.Context, pin Pin) error {
	b, err := json.Marshal(pin)
	if err != nil {
		return err
	}
	return p.st.Set(ctx, pinKey(pin.Name), b)
}
