package main

import (
	"crypto/x509"
	"os"
	"runtime"
	"strings"

	"golang.org/x/crypto/x509roots/fallback/bundle"
)

// installFallbackRoots gives crypto/x509 Mozilla's roots (the bundle of
// golang.org/x/crypto/x509roots/fallback, kept by the Go team) where the
// system has none: the container image is FROM scratch, without
// /etc/ssl/certs. Importing the fallback package would parse its 140-odd
// certificates at every start (about 2 ms of CPU, the largest package init
// of the binary) although the system's roots win wherever they exist; so the
// bundle is parsed only where systemRootsPresent finds none, or where
// GODEBUG=x509usefallbackroots=1 asks for it.
func installFallbackRoots() {
	if systemRootsPresent(runtime.GOOS, os.Getenv) && !strings.Contains(os.Getenv("GODEBUG"), "x509usefallbackroots=1") {
		return
	}
	pool := x509.NewCertPool()
	for c := range bundle.Roots() {
		cert, err := x509.ParseCertificate(c.Certificate)
		if err != nil {
			panic(err) // the bundle is generated and tested upstream
		}
		if c.Constraint == nil {
			pool.AddCert(cert)
		} else {
			pool.AddCertWithConstraint(cert, c.Constraint)
		}
	}
	x509.SetFallbackRoots(pool)
}

// The places crypto/x509 loads Linux's roots from (root_linux.go): the first
// of these files that can be read, and every file of these directories;
// $SSL_CERT_FILE and $SSL_CERT_DIR replace them.
var (
	linuxCertFiles = []string{
		"/etc/ssl/certs/ca-certificates.crt",
		"/etc/pki/tls/certs/ca-bundle.crt",
		"/etc/ssl/ca-bundle.pem",
		"/etc/pki/tls/cacert.pem",
		"/etc/pki/ca-trust/extracted/pem/tls-ca-bundle.pem",
		"/etc/ssl/cert.pem",
	}
	linuxCertDirs = []string{"/etc/ssl/certs", "/etc/pki/tls/certs"}
)

// systemRootsPresent says whether crypto/x509 will find roots of the system
// on goos, by looking (without reading them) where it looks: a non-empty
// certificate file or a directory with an entry. On Linux only; elsewhere
// it answers false and the fallback is installed as before (macOS and
// Windows verify with the platform and ignore it). A file that exists but
// holds no certificate counts as present: such a system is taken at its word.
func systemRootsPresent(goos string, getenv func(string) string) bool {
	if goos != "linux" {
		return false
	}
	files := linuxCertFiles
	if f := getenv("SSL_CERT_FILE"); f != "" {
		files = []string{f}
	}
	for _, f := range files {
		if fi, err := os.Stat(f); err == nil && fi.Mode().IsRegular() && fi.Size() > 0 {
			return true
		}
	}
	dirs := linuxCertDirs
	if d := getenv("SSL_CERT_DIR"); d != "" {
		dirs = strings.Split(d, ":")
	}
	for _, d := range dirs {
		if dirHasEntry(d) {
			return true
		}
	}
	return false
}

func dirHasEntry(dir string) bool {
	f, err := os.Open(dir)
	if err != nil {
		return false
	}
	defer f.Close()
	names, _ := f.Readdirnames(1)
	return len(names) > 0
}
