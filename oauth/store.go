package oauth

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/toolfold/toolfold/internal/atomicfile"
	"golang.org/x/oauth2"
)

// Store keeps each upstream's sign-in in one JSON file, readable by its
// owner only (0600, in a 0700 directory): the client registration, the
// endpoints and the tokens. Writes replace the file atomically; every
// operation reads the file afresh, so a `toolfold login` in one process
// is seen by a serve in another at its next reconnect.
type Store struct {
	path string
	mu   sync.Mutex
}

// NewStore returns the store kept in the file at path.
func NewStore(path string) *Store { return &Store{path: path} }

// Path is the file the store keeps.
func (s *Store) Path() string { return s.path }

// Record is one upstream's sign-in.
type Record struct {
	URL          string    `json:"url"` // the upstream's URL it was made for
	ClientID     string    `json:"client_id"`
	ClientSecret string    `json:"client_secret,omitempty"`
	AuthURL      string    `json:"auth_url,omitempty"`
	TokenURL     string    `json:"token_url"`
	AuthStyle    int       `json:"auth_style,omitempty"` // oauth2.AuthStyle
	Scopes       []string  `json:"scopes,omitempty"`     // granted
	AccessToken  string    `json:"access_token"`
	TokenType    string    `json:"token_type,omitempty"`
	RefreshToken string    `json:"refresh_token,omitempty"`
	Expiry       time.Time `json:"expiry,omitzero"`
	Saved        time.Time `json:"saved"`
	// RefreshFailed says why the last refresh failed, at RefreshFailedAt;
	// "" once a refresh succeeds. `toolfold check` shows it.
	RefreshFailed   string    `json:"refresh_failed,omitempty"`
	RefreshFailedAt time.Time `json:"refresh_failed_at,omitzero"`
}

// token is the record's token for golang.org/x/oauth2.
func (r *Record) token() *oauth2.Token {
	return &oauth2.Token{AccessToken: r.AccessToken, TokenType: r.TokenType, RefreshToken: r.RefreshToken, Expiry: r.Expiry}
}

// config is the oauth2 client the record was issued to, for refreshing.
func (r *Record) config() *oauth2.Config {
	return &oauth2.Config{
		ClientID:     r.ClientID,
		ClientSecret: r.ClientSecret,
		Endpoint:     oauth2.Endpoint{AuthURL: r.AuthURL, TokenURL: r.TokenURL, AuthStyle: oauth2.AuthStyle(r.AuthStyle)},
		Scopes:       r.Scopes,
	}
}

type storeFile struct {
	Upstreams map[string]*Record `json:"upstreams"`
}

// Get returns the record of upstream name, nil when there is none.
func (s *Store) Get(name string) (*Record, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	f, err := s.read()
	if err != nil {
		return nil, err
	}
	return f.Upstreams[name], nil
}

// Put saves the record of upstream name (nil deletes it).
func (s *Store) Put(name string, r *Record) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	f, err := s.read()
	if err != nil {
		return err
	}
	if r == nil {
		if _, ok := f.Upstreams[name]; !ok {
			return nil
		}
		delete(f.Upstreams, name)
	} else {
		f.Upstreams[name] = r
	}
	return s.write(f)
}

func (s *Store) read() (*storeFile, error) {
	f := &storeFile{}
	b, err := os.ReadFile(s.path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return nil, fmt.Errorf("reading the OAuth token file: %w", err)
	default:
		if err := json.Unmarshal(b, f); err != nil {
			return nil, fmt.Errorf("the OAuth token file %s is damaged (%v); delete it and run toolfold login again", s.path, err)
		}
	}
	if f.Upstreams == nil {
		f.Upstreams = map[string]*Record{}
	}
	return f, nil
}

func (s *Store) write(f *storeFile) error {
	dir := filepath.Dir(s.path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("saving the OAuth token: %w", err)
	}
	b, err := json.MarshalIndent(f, "", "  ")
	if err != nil {
		return err
	}
	if err := atomicfile.Write(s.path, append(b, '\n'), 0o600); err != nil {
		return fmt.Errorf("saving the OAuth token: %w", err)
	}
	return nil
}
