package store

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"log/slog"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

var testKey = []byte("0123456789abcdef0123456789abcdef")

// TestSigned: a signed store keeps the Store contract; a value written
// around it (no MAC), with another key, moved to another key name, or
// edited, is refused and logged without the value; the key never reaches
// the store.
func TestSigned(t *testing.T) {
	raw, _ := Files(t.TempDir())
	var logBuf bytes.Buffer
	s, err := Signed(raw, testKey, slog.New(slog.NewTextHandler(&logBuf, nil)))
	if err != nil {
		t.Fatal(err)
	}
	testStore(t, s)
	ctx := context.Background()
	if err := s.Set(ctx, "pins/a", []byte(`{"pinned":"good"}`)); err != nil {
		t.Fatal(err)
	}
	good, _ := raw.Get(ctx, "pins/a")
	if bytes.Contains(good, testKey) {
		t.Error("the store holds the key")
	}
	other, _ := Signed(raw, []byte("another key, also long enough"), nil)
	_ = other.Set(ctx, "pins/other", []byte(`{"pinned":"x"}`))
	edited := bytes.Replace(good, []byte("good"), []byte("evil"), 1)
	for key, val := range map[string][]byte{
		"pins/plain":  []byte(`{"pinned":"planted-secret-value"}`),
		"pins/moved":  good,   // a valid entry copied under another name
		"pins/edited": edited, // a valid MAC over other content
		"pins/short":  []byte("tfsig1 00\n"),
	} {
		_ = raw.Set(ctx, key, val)
	}
	for _, key := range []string{"pins/plain", "pins/moved", "pins/edited", "pins/short", "pins/other"} {
		if v, err := s.Get(ctx, key); !errors.Is(err, ErrUnauthenticated) {
			t.Errorf("Get(%s) = %q, %v; want ErrUnauthenticated", key, v, err)
		}
	}
	if v, err := s.Get(ctx, "pins/a"); err != nil || string(v) != `{"pinned":"good"}` {
		t.Errorf("Get(pins/a) = %q, %v", v, err)
	}
	bad, err := Refused(ctx, s, "pins/")
	want := []string{"pins/edited", "pins/moved", "pins/other", "pins/plain", "pins/short"}
	if err != nil || strings.Join(bad, " ") != strings.Join(want, " ") {
		t.Errorf("Refused = %v, %v; want %v", bad, err, want)
	}
	log := logBuf.String()
	if !strings.Contains(log, "key=pins/plain") || strings.Contains(log, "planted-secret-value") || strings.Contains(log, string(testKey)) {
		t.Errorf("log should name the refused key, never the value or the store key:\n%s", log)
	}
	if n := strings.Count(log, "key=pins/plain"); n != 1 {
		t.Errorf("a refused entry read twice is logged %d times, want once", n)
	}
	if _, err := Signed(raw, []byte("short"), nil); err == nil || !strings.Contains(err.Error(), "openssl rand") {
		t.Errorf("a short key: %v; want an error saying how to make one", err)
	}
}

// TestRedisPassword: a Redis started with --requirepass refuses a client
// without the password and serves one whose URL carries it; check's name
// for the store hides it.
func TestRedisPassword(t *testing.T) {
	addr, _ := startRedis(t, "--requirepass", "s3cret-pw")
	ctx := context.Background()
	anon, _ := Open("redis://"+addr+"/0", "", nil)
	defer anon.Close()
	if err := anon.Set(ctx, "skills/x", []byte("v")); err == nil {
		t.Error("a client without the password could write")
	}
	wrong, _ := Open("redis://:nope@"+addr+"/0", "", nil)
	defer wrong.Close()
	if err := wrong.Ping(ctx); err == nil {
		t.Error("a wrong password was accepted")
	}
	s, err := Open("redis://:s3cret-pw@"+addr+"/0", "", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	testStore(t, s)
	if strings.Contains(s.String(), "s3cret") {
		t.Errorf("String shows the password: %s", s)
	}
	// An ACL user, as redis://USER:PASSWORD@.
	if err := s.(*redisStore).c.Do(ctx, "ACL", "SETUSER", "toolfold", "on", ">user-pw", "~toolfold:*", "+@all").Err(); err != nil {
		t.Fatal(err)
	}
	u, _ := Open("redis://toolfold:user-pw@"+addr+"/0", "", nil)
	defer u.Close()
	if err := u.Set(ctx, "pins/y", []byte("v")); err != nil {
		t.Errorf("ACL user: %v", err)
	}
}

// TestRedisTLS: rediss:// talks TLS to a redis-server started with
// --tls-port, verifying its certificate against store.tls_ca; without the
// CA the certificate is refused. Skips when redis-server lacks TLS.
func TestRedisTLS(t *testing.T) {
	dir := t.TempDir()
	ca := writeCert(t, dir)
	addr, _ := startRedis(t, "--port", "0", "--tls-port", "{port}", "--tls-cert-file", filepath.Join(dir, "cert.pem"),
		"--tls-key-file", filepath.Join(dir, "key.pem"), "--tls-auth-clients", "no", "--requirepass", "pw")
	ctx := context.Background()
	s, err := Open("rediss://:pw@"+addr+"/0", "", &Options{CAFile: ca})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if err := s.Ping(ctx); err != nil {
		if strings.Contains(err.Error(), "EOF") || strings.Contains(err.Error(), "reset") {
			t.Skipf("redis-server without TLS? %v", err)
		}
		t.Fatalf("TLS with the CA: %v", err)
	}
	testStore(t, s)
	noCA, _ := Open("rediss://:pw@"+addr+"/0", "", nil)
	defer noCA.Close()
	if err := noCA.Ping(ctx); err == nil {
		t.Error("TLS without the CA trusted a self-signed certificate")
	}
	plain, _ := Open("redis://:pw@"+addr+"/0", "", nil)
	defer plain.Close()
	if err := plain.Ping(ctx); err == nil {
		t.Error("plain redis:// to a TLS port answered")
	}
	if _, err := Open("redis://h:1/0", "", &Options{CAFile: ca}); err == nil || !strings.Contains(err.Error(), "rediss://") {
		t.Errorf("a CA file with redis://: %v; want an error naming rediss://", err)
	}
}

// writeCert writes a self-signed certificate for 127.0.0.1 (cert.pem,
// key.pem) into dir and returns the path of the CA file (the cert itself).
func writeCert(t *testing.T, dir string) string {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "127.0.0.1"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
		IPAddresses: []net.IP{net.ParseIP("127.0.0.1")}, IsCA: true, BasicConstraintsValid: true,
		KeyUsage:    x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	kb, _ := x509.MarshalECPrivateKey(key)
	cert := filepath.Join(dir, "cert.pem")
	write := func(p, typ string, b []byte) {
		if err := os.WriteFile(p, pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: b}), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write(cert, "CERTIFICATE", der)
	write(filepath.Join(dir, "key.pem"), "EC PRIVATE KEY", kb)
	return cert
}
