// Package phonenumbers is github.com/nyaruka/phonenumbers v1.8.1 (MIT, see
// LICENSE; a Go port of Google's libphonenumber), copied with two changes
// for toolfold:
//
//   - The metadata (number and short-number) is loaded on first use (md,
//     loadShortNumbers) instead of in package init. Every sandbox child is
//     the toolfold binary re-executed, so every package init runs once per
//     script run; the upstream init took 20 ms and 2.4 MB there, for a
//     child that never parses a phone number.
//   - The carrier and geocoding data and code (912 KB of prefix files)
//     are left out: package rewrite only checks lengths and validity.
//
// Everything else is the upstream code as released. To update, copy the
// new release's non-test .go files and data over these, delete carrier.go
// and geocoding.go and their embeds in metadata.go, and redo the first
// change (grep for "toolfold").
package phonenumbers
