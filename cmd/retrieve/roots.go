package main

// The container image is FROM scratch: no /etc/ssl/certs. Without system
// roots, Go uses these (Mozilla's, kept by the Go team); with them, this
// import does nothing.
import _ "golang.org/x/crypto/x509roots/fallback"
