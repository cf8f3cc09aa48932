package config

import (
	"time"

	"github.com/retrieve-dev/retrieve"
)

// Web configures the web and api sources (the `web:` and `api:` sections).
type Web struct {
	// AllowHosts lets the address guard through to these hosts or address
	// prefixes (127.0.0.1, localhost, 10.0.0.0/8…). Empty: public addresses only.
	AllowHosts []string `yaml:"allow_hosts"`
	// AuthorityHosts are hosts whose https pages have high authority.
	AuthorityHosts []string `yaml:"authority_hosts"`
	// Timeout is the whole-request timeout (default 30s); ConnectTimeout the
	// connect timeout (default 10s).
	Timeout        string `yaml:"timeout"`
	ConnectTimeout string `yaml:"connect_timeout"`
	// MaxBytes caps a response body, counted after decompression (default 10 MiB).
	MaxBytes int64 `yaml:"max_bytes"`
	// Rate is requests per second per host (default 5; negative: unlimited),
	// Burst the burst (default 5).
	Rate  float64 `yaml:"rate"`
	Burst int     `yaml:"burst"`
	// Retries after the first attempt on network errors, 429 and 5xx
	// (default 2; negative: none).
	Retries int `yaml:"retries"`
	// Concurrency bounds a batch of targets (default 8).
	Concurrency int `yaml:"concurrency"`
}

// API configures the api source.
type API struct {
	// Headers per host: host → header name → value. Write secrets as
	// ${env:NAME}; they are resolved at call time and never recorded.
	Headers map[string]map[string]string `yaml:"headers"`
}

// Durations parses Timeout and ConnectTimeout (zero when unset).
func (w Web) Durations() (timeout, connect time.Duration, err error) {
	parse := func(name, s string) (time.Duration, error) {
		if s == "" {
			return 0, nil
		}
		d, err := time.ParseDuration(s)
		if err != nil || d <= 0 {
			return 0, retrieve.Errorf(retrieve.CodeInputValidation, "web.%s %q is not a positive duration", name, s).
				WithHint("write it as a Go duration such as 30s")
		}
		return d, nil
	}
	if timeout, err = parse("timeout", w.Timeout); err != nil {
		return 0, 0, err
	}
	connect, err = parse("connect_timeout", w.ConnectTimeout)
	return timeout, connect, err
}

// WebTemplate is the commented web section of the configuration template.
const WebTemplate = `
# Web and API sources (docs/web.md).
# web:
#   allow_hosts: []          # hosts or prefixes the address guard lets through (e.g. 127.0.0.1)
#   authority_hosts: []      # https hosts cited with high authority
#   timeout: 30s
#   connect_timeout: 10s
#   max_bytes: 10485760      # body cap, decompressed bytes counted
#   rate: 5                  # requests per second per host
#   burst: 5
#   retries: 2
#   concurrency: 8           # targets fetched at once by a batch
# api:
#   headers:
#     api.example.com:
#       Authorization: "Bearer ${env:EXAMPLE_TOKEN}"
`
