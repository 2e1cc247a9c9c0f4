package oauth

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"golang.org/x/oauth2"
)

// refreshAhead is how long before its expiry a token is refreshed: a
// minute, or a quarter of its lifetime for a token that lives under four.
func refreshAhead(r *Record) time.Duration {
	ahead := time.Minute
	if life := r.Expiry.Sub(r.Saved); life > 0 && life/4 < ahead {
		ahead = life / 4
	}
	return ahead
}

// expired reports whether r's access token can no longer be used and
// cannot be refreshed either.
func expired(r *Record, now time.Time) bool {
	return !r.Expiry.IsZero() && !now.Before(r.Expiry) && r.RefreshToken == ""
}

// source is an upstream's token source: the stored token, refreshed ahead
// of its expiry with golang.org/x/oauth2 and saved again.
type source struct {
	h   *Handler
	ctx context.Context // carries the HTTP client for refreshes

	mu  sync.Mutex
	rec Record
}

func (h *Handler) newSource(rec *Record) *source {
	return &source{h: h, ctx: context.WithValue(context.Background(), oauth2.HTTPClient, h.client), rec: *rec}
}

// record returns a copy of the record in use.
func (s *source) record() *Record {
	s.mu.Lock()
	defer s.mu.Unlock()
	r := s.rec
	return &r
}

// errNoToken makes the transport send the request without a token, so the
// server's 401 brings Authorize (the go-sdk skips the header only for an
// invalid_grant RetrieveError).
func errNoToken(why string) error {
	return &oauth2.RetrieveError{ErrorCode: "invalid_grant", ErrorDescription: why}
}

// Token returns the access token, refreshing it first when it expires
// within refreshAhead.
func (s *source) Token() (*oauth2.Token, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	now := time.Now()
	tok := s.rec.token()
	if s.rec.Expiry.IsZero() || s.rec.Expiry.Sub(now) > refreshAhead(&s.rec) {
		return tok, nil
	}
	stillValid := now.Before(s.rec.Expiry)
	if s.rec.RefreshToken == "" {
		if stillValid {
			return tok, nil
		}
		return nil, errNoToken("the access token expired and no refresh token was issued")
	}
	// An empty access token makes oauth2 refresh at once.
	nt, err := s.rec.config().TokenSource(s.ctx, &oauth2.Token{RefreshToken: s.rec.RefreshToken}).Token()
	if err != nil {
		err = clean(err)
		s.noteRefreshFailed(err, now)
		if stillValid {
			s.h.log.Warn("refreshing the OAuth token failed; using it until it expires", "err", err, "expires", s.rec.Expiry)
			return tok, nil
		}
		var rf *refusedError
		if errors.As(err, &rf) {
			return nil, errNoToken("refreshing the expired token was refused")
		}
		return nil, fmt.Errorf("refreshing the expired OAuth token: %w", err)
	}
	setToken(&s.rec, nt, now)
	if sc := grantedScopes(nt, nil); len(sc) > 0 {
		s.rec.Scopes = sc
	}
	if err := s.h.opts.Store.Put(s.h.name, &s.rec); err != nil {
		s.h.log.Warn("the refreshed OAuth token is not kept for the next start", "err", err)
	}
	s.h.log.Debug("refreshed the OAuth token", "expires", s.rec.Expiry)
	return s.rec.token(), nil
}

// noteRefreshFailed records in the stored record that a refresh failed,
// so `toolfold check` says so instead of "refreshable".
func (s *source) noteRefreshFailed(err error, now time.Time) {
	why := "the token endpoint failed"
	var rf *refusedError
	if errors.As(err, &rf) {
		why = "the server refused the refresh token"
	}
	s.rec.RefreshFailed, s.rec.RefreshFailedAt = why, now
	if err := s.h.opts.Store.Put(s.h.name, &s.rec); err != nil {
		s.h.log.Warn("a failed OAuth refresh is not recorded for toolfold check", "err", err)
	}
}

// setToken copies tok into r; a refresh that brings no new refresh token
// keeps the old one.
func setToken(r *Record, tok *oauth2.Token, now time.Time) {
	r.AccessToken, r.TokenType, r.Expiry, r.Saved = tok.AccessToken, tok.TokenType, tok.Expiry, now
	r.RefreshFailed, r.RefreshFailedAt = "", time.Time{}
	if tok.RefreshToken != "" {
		r.RefreshToken = tok.RefreshToken
	}
}

const stamp = "2006-01-02 15:04:05 MST"

// Status describes the stored sign-in of upstream name at url for `toolfold
// check`: the state, and whether the upstream can be used without a login.
func Status(rec *Record, name, url string, now time.Time) (string, bool) {
	login := fmt.Sprintf("run `toolfold login %s`", name)
	switch {
	case rec == nil:
		return "no token: " + login, false
	case rec.URL != url:
		return "no token for this url (the stored one is for another): " + login, false
	case rec.Expiry.IsZero():
		return "signed in (the token has no expiry)", true
	case rec.RefreshFailed != "" && now.Before(rec.Expiry):
		return fmt.Sprintf("valid until %s, but refreshing it failed at %s (%s): before then, %s",
			rec.Expiry.Local().Format(stamp), rec.RefreshFailedAt.Local().Format(stamp), rec.RefreshFailed, login), true
	case rec.RefreshFailed != "":
		return fmt.Sprintf("expired at %s, and refreshing it failed at %s (%s): %s",
			rec.Expiry.Local().Format(stamp), rec.RefreshFailedAt.Local().Format(stamp), rec.RefreshFailed, login), false
	case now.Before(rec.Expiry) && rec.RefreshToken != "":
		return fmt.Sprintf("valid until %s, refreshable", rec.Expiry.Local().Format(stamp)), true
	case now.Before(rec.Expiry):
		return fmt.Sprintf("valid until %s, not refreshable (then %s)", rec.Expiry.Local().Format(stamp), login), true
	case rec.RefreshToken != "":
		return fmt.Sprintf("expired at %s, refreshable: refreshed at the next connection", rec.Expiry.Local().Format(stamp)), true
	}
	return fmt.Sprintf("expired at %s and not refreshable: %s", rec.Expiry.Local().Format(stamp), login), false
}
