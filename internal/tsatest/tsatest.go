// Package tsatest is an RFC 3161 timestamp authority for tests: a key, a
// self-signed certificate, and an HTTP server on loopback that answers
// timestamp requests as a real authority does (github.com/digitorus/
// timestamp builds the tokens). Tests never contact a real authority.
package tsatest

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/asn1"
	"io"
	"math/big"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/digitorus/timestamp"
)

// TSA is a timestamp authority's key and certificate.
type TSA struct {
	Cert *x509.Certificate
	key  *ecdsa.PrivateKey
}

// New makes an authority named "loopback test TSA".
func New(t testing.TB) *TSA {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(7), Subject: pkix.Name{CommonName: "loopback test TSA"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageTimeStamping}, BasicConstraintsValid: true}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	return &TSA{Cert: cert, key: key}
}

// Reply answers a DER timestamp request with a DER response.
func (a *TSA) Reply(req []byte) ([]byte, error) {
	r, err := timestamp.ParseRequest(req)
	if err != nil {
		return nil, err
	}
	ts := timestamp.Timestamp{HashAlgorithm: r.HashAlgorithm, HashedMessage: r.HashedMessage, Time: time.Now(), Nonce: r.Nonce,
		Policy: asn1.ObjectIdentifier{1, 2, 3, 4, 1}, AddTSACertificate: r.Certificates}
	return ts.CreateResponseWithOpts(a.Cert, a.key, crypto.SHA256)
}

// Handler answers timestamp queries (POST, application/timestamp-query)
// as an RFC 3161 authority's HTTP endpoint does.
func (a *TSA) Handler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(io.LimitReader(r.Body, 1<<16))
		if err != nil || r.Method != http.MethodPost || r.Header.Get("Content-Type") != "application/timestamp-query" {
			http.Error(w, "not a timestamp query", http.StatusBadRequest)
			return
		}
		resp, err := a.Reply(body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		w.Header().Set("Content-Type", "application/timestamp-reply")
		_, _ = w.Write(resp)
	})
}

// Serve starts the authority on a loopback port (closed when the test
// ends) and returns its URL.
func (a *TSA) Serve(t testing.TB) string {
	t.Helper()
	srv := httptest.NewServer(a.Handler())
	t.Cleanup(srv.Close)
	return srv.URL
}
