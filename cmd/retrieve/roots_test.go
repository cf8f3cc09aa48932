package main

import (
	"crypto/x509"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// The fallback roots are parsed only where crypto/x509 would find no roots
// of the system: the places it looks (through $SSL_CERT_FILE and
// $SSL_CERT_DIR here) decide.
func TestSystemRootsPresent(t *testing.T) {
	dir := t.TempDir()
	pem := filepath.Join(dir, "bundle.pem")
	if err := os.WriteFile(pem, []byte("-----BEGIN CERTIFICATE-----\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	empty := filepath.Join(dir, "empty.pem")
	if err := os.WriteFile(empty, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	emptyDir := filepath.Join(dir, "none")
	fullDir := filepath.Join(dir, "certs")
	for _, d := range []string{emptyDir, fullDir} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(fullDir, "ca.pem"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	missing := filepath.Join(dir, "missing")
	for _, c := range []struct {
		name       string
		goos       string
		file, dirs string
		want       bool
	}{
		{"a bundle file", "linux", pem, emptyDir, true},
		{"a certificate folder", "linux", missing, emptyDir + ":" + fullDir, true},
		{"nothing: the scratch image", "linux", missing, missing + ":" + emptyDir, false},
		{"an empty bundle and an empty folder", "linux", empty, emptyDir, false},
		{"a folder as the bundle", "linux", fullDir, emptyDir, false},
		{"not Linux: the fallback as before", "darwin", pem, fullDir, false},
	} {
		env := map[string]string{"SSL_CERT_FILE": c.file, "SSL_CERT_DIR": c.dirs}
		if got := systemRootsPresent(c.goos, func(k string) string { return env[k] }); got != c.want {
			t.Errorf("%s: systemRootsPresent = %v, want %v", c.name, got, c.want)
		}
	}
}

// The fallback bundle becomes the roots where the system has none, and is
// not parsed where it has some. Each case runs in a child process:
// x509.SetFallbackRoots may be called once per process.
func TestFallbackRootsInstalledWithoutSystemRoots(t *testing.T) {
	if os.Getenv("RETRIEVE_ROOTS_CHILD") == "1" {
		installFallbackRoots()
		pool, err := x509.SystemCertPool()
		if err != nil {
			fmt.Println("error", err)
			return
		}
		fmt.Println("empty", pool.Equal(x509.NewCertPool()))
		return
	}
	dir := t.TempDir()
	notPEM := filepath.Join(dir, "bundle.pem")
	if err := os.WriteFile(notPEM, []byte("no certificate here\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	missing := filepath.Join(dir, "missing")
	for _, c := range []struct {
		file string
		want string
	}{
		{missing, "empty false"}, // no system roots: Mozilla's, from the bundle
		{notPEM, "empty true"},   // the system's file is taken at its word: no bundle parsed
	} {
		cmd := exec.Command(os.Args[0], "-test.run", "^TestFallbackRootsInstalledWithoutSystemRoots$")
		cmd.Env = append(os.Environ(), "RETRIEVE_ROOTS_CHILD=1", "SSL_CERT_FILE="+c.file, "SSL_CERT_DIR="+missing, "GODEBUG=")
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("child: %v", err)
		}
		if !strings.Contains(string(out), c.want+"\n") {
			t.Errorf("SSL_CERT_FILE=%s: child printed %q, want %q", c.file, out, c.want)
		}
	}
}
