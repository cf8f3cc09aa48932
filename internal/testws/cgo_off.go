//go:build !cgo

package testws

const cgoEnabled = false
