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
// Everything else is the upstream code as released. README.md beside this
// file says which release and how to update the copy.
package phonenumbers
