package policy

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"slices"
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
	Pinned    string    `json:"pinned"`               // the approved definition's hash; "" when none can be trusted
	Seen      string    `json:"seen"`                 // the hash last seen
	FirstSeen time.Time `json:"first_seen"`           // when the tool was first pinned
	ChangedAt time.Time `json:"changed_at,omitzero"`  // when Seen first differed from Pinned
	Approved  time.Time `json:"approved_at,omitzero"` // when a change was last approved
	// Refused says why the stored pin could not be trusted (not signed with
	// the store key, malformed, gone while this process knew it): the tool
	// is held as changed until a person approves it.
	Refused string `json:"refused,omitempty"`
}

// State is PinChanged when the last seen definition is not the pinned one.
func (p Pin) State() PinState {
	if p.Seen != p.Pinned {
		return PinChanged
	}
	return PinUnchanged
}

// check is the shape every stored pin must have; name is the tool it must
// be the pin of.
func (p Pin) check(name string) error {
	switch {
	case p.Name != name:
		return fmt.Errorf("it is the pin of %q", p.Name)
	case p.Seen == "" || len(p.Seen) > maxHashLen || len(p.Pinned) > maxHashLen:
		return errors.New("its hashes are missing or too long")
	case p.Pinned == "" && p.Refused == "":
		return errors.New("it has no pinned hash")
	case p.FirstSeen.IsZero():
		return errors.New("it has no first_seen time")
	}
	return nil
}

const maxHashLen = 128

// Pins records each tool's definition hash the first time it is seen, and
// holds a tool whose definition changed since until the change is
// approved. They live in a store.Store (files beside the config, or the
// shared Redis), under pins/ and a fixed-length hash of the tool's name,
// whatever the name's length or script. It fails closed: a pin that cannot
// be trusted (refused by a signed store, malformed, or gone while this
// process knew another definition) holds the tool as changed. Safe for
// concurrent use.
type Pins struct {
	st    store.Store
	now   func() time.Time
	mu    sync.Mutex        // orders this process's read-modify-writes
	known map[string]string // tool -> the pinned hash this process last read or wrote
}

const pinPrefix = "pins/"

// NewPins returns the pins kept in st.
func NewPins(st store.Store) *Pins {
	return &Pins{st: st, now: time.Now, known: map[string]string{}}
}

// pinKey is where name's pin lives: its length never depends on the name.
func pinKey(name string) string {
	h := sha256.Sum256([]byte(name))
	return pinPrefix + hex.EncodeToString(h[:])
}

// legacyPinKey is where pins were kept before pinKey: the escaped name.
func legacyPinKey(name string) string { return pinPrefix + url.PathEscape(name) }

// Check compares a tool's definition hash (Hash) with its pin: a tool seen
// for the first time is pinned as it is (PinNew); one that differs from
// its pin is PinChanged until Approve; PinUnchanged otherwise (also when a
// change was reverted). A pin that cannot be trusted is replaced by one
// that holds the tool (PinChanged). An error (the store failing) leaves
// the state unknown: callers hold the tool.
func (p *Pins) Check(ctx context.Context, name, hash string) (PinState, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	pin, err := p.get(ctx, name)
	var bad *untrustedPin
	switch {
	case errors.Is(err, store.ErrNotFound):
		if prev, ok := p.known[name]; ok && prev != hash {
			return PinChanged, p.hold(ctx, name, hash, "its pin disappeared from the store")
		}
		now := p.now().UTC()
		return PinNew, p.put(ctx, Pin{Name: name, Pinned: hash, Seen: hash, FirstSeen: now})
	case errors.As(err, &bad):
		return PinChanged, p.hold(ctx, name, hash, bad.why)
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

// hold replaces an untrusted pin by one that holds the tool until approved.
func (p *Pins) hold(ctx context.Context, name, hash, why string) error {
	now := p.now().UTC()
	return p.put(ctx, Pin{Name: name, Seen: hash, FirstSeen: now, ChangedAt: now, Refused: why})
}

// untrustedPin is a stored pin that is there but cannot be trusted.
type untrustedPin struct{ name, why string }

func (e *untrustedPin) Error() string {
	return fmt.Sprintf("pin of %s: refused (%s); the tool is held until toolfold tools approve %s", e.name, e.why, e.name)
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
	var bad *untrustedPin
	if errors.As(err, &bad) {
		return false, fmt.Errorf("the stored pin of %s is refused (%s): run toolfold check (or serve) once, which records the tool's current definition and holds it, then approve it", name, bad.why)
	}
	if err != nil {
		return false, err
	}
	if pin.State() == PinUnchanged {
		return false, nil
	}
	pin.Pinned, pin.ChangedAt, pin.Approved, pin.Refused = pin.Seen, time.Time{}, p.now().UTC(), ""
	return true, p.put(ctx, pin)
}

// List returns every pin, sorted by name. A pin that cannot be trusted is
// left out and named in the error.
func (p *Pins) List(ctx context.Context) ([]Pin, error) {
	keys, err := p.st.Keys(ctx, pinPrefix)
	if err != nil {
		return nil, err
	}
	var pins []Pin
	var errs []error
	for _, k := range keys {
		pin, err := p.read(ctx, k)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		pins = append(pins, pin)
	}
	slices.SortFunc(pins, func(a, b Pin) int { return strings.Compare(a.Name, b.Name) })
	return pins, errors.Join(errs...)
}

// read reads the pin under key, whichever tool's it is.
func (p *Pins) read(ctx context.Context, key string) (Pin, error) {
	b, err := p.st.Get(ctx, key)
	if err != nil {
		return Pin{}, fmt.Errorf("pin %s: %w", key, err)
	}
	var pin Pin
	if err := json.Unmarshal(b, &pin); err != nil {
		return Pin{}, fmt.Errorf("pin %s: unreadable (%v); remove it from the store to pin the tool anew", key, err)
	}
	if key != pinKey(pin.Name) && key != legacyPinKey(pin.Name) {
		return Pin{}, fmt.Errorf("pin %s: refused: it names %q, whose pin is elsewhere", key, pin.Name)
	}
	if err := pin.check(pin.Name); err != nil {
		return Pin{}, fmt.Errorf("pin %s: refused (%v)", key, err)
	}
	return pin, nil
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

// get reads name's pin: ErrNotFound, an *untrustedPin for one refused
// (unsigned, malformed, another tool's), another error for a store that
// failed. A pin still under its legacy key is moved to pinKey.
func (p *Pins) get(ctx context.Context, name string) (Pin, error) {
	b, err := p.st.Get(ctx, pinKey(name))
	if errors.Is(err, store.ErrNotFound) {
		return p.getLegacy(ctx, name)
	}
	return p.decode(name, b, err)
}

func (p *Pins) decode(name string, b []byte, err error) (Pin, error) {
	if errors.Is(err, store.ErrUnauthenticated) {
		return Pin{}, &untrustedPin{name, "not signed with the store key"}
	}
	if err != nil {
		return Pin{}, err
	}
	var pin Pin
	if err := json.Unmarshal(b, &pin); err != nil {
		return Pin{}, &untrustedPin{name, "unreadable: " + err.Error()}
	}
	if err := pin.check(name); err != nil {
		return Pin{}, &untrustedPin{name, err.Error()}
	}
	if len(p.known) < 1<<16 {
		p.known[name] = pin.Pinned
	}
	return pin, nil
}

// getLegacy reads a pin kept under its escaped name by an older toolfold
// and moves it to pinKey. A name too long to have been stored so has none.
func (p *Pins) getLegacy(ctx context.Context, name string) (Pin, error) {
	lk := legacyPinKey(name)
	if len(lk)-len(pinPrefix) > 200 || strings.Contains(lk[len(pinPrefix):], "/") {
		return Pin{}, store.ErrNotFound
	}
	b, err := p.st.Get(ctx, lk)
	if errors.Is(err, store.ErrNotFound) {
		return Pin{}, err
	}
	pin, err := p.decode(name, b, err)
	if err != nil {
		return Pin{}, err
	}
	if err := p.put(ctx, pin); err != nil {
		return Pin{}, err
	}
	_ = p.st.Delete(ctx, lk)
	return pin, nil
}

func (p *Pins) put(ctx context.Context, pin Pin) error {
	b, err := json.Marshal(pin)
	if err != nil {
		return err
	}
	if err := p.st.Set(ctx, pinKey(pin.Name), b); err != nil {
		return err
	}
	if len(p.known) < 1<<16 {
		p.known[pin.Name] = pin.Pinned
	}
	return nil
}
