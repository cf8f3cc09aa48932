package api_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/retrieve-dev/retrieve"
	"github.com/retrieve-dev/retrieve/internal/webclient"
	"github.com/retrieve-dev/retrieve/source/api"
	"github.com/retrieve-dev/retrieve/source/sourcetest"
)

func TestContract(t *testing.T) {
	sourcetest.Run(t, func(t *testing.T) sourcetest.Fixture {
		// The bearer token comes from the environment and must show in no
		// result, even when the server echoes what it was sent.
		t.Setenv("SOURCETEST_API_TOKEN", "api-SECRET-1")
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Header.Get("Authorization") != "Bearer api-SECRET-1" {
				http.Error(w, `{"message":"bad credentials"}`, http.StatusUnauthorized)
				return
			}
			w.Header().Set("Content-Type", "application/json")
			switch r.URL.Path {
			case "/items":
				fmt.Fprint(w, `[{"id":1,"name":"one"},{"id":2,"name":"two"}]`)
			case "/item/1":
				fmt.Fprint(w, `{"id":1,"name":"one"}`)
			case "/echo":
				http.Error(w, fmt.Sprintf(`{"message":"you sent %s"}`, r.Header.Get("Authorization")), http.StatusBadRequest)
			default:
				http.Error(w, `{"message":"nothing"}`, http.StatusNotFound)
			}
		}))
		t.Cleanup(srv.Close)
		c := webclient.New(webclient.Options{Allow: []string{"127.0.0.1"}, Rate: -1, BackoffBase: time.Millisecond, Timeout: 5 * time.Second})
		src := api.New(api.Options{Client: c, Hosts: []string{"127.0.0.1"},
			Headers: map[string]map[string]string{"127.0.0.1": {"Authorization": "Bearer ${env:SOURCETEST_API_TOKEN}"}}})
		return sourcetest.Fixture{
			Source:  src,
			Targets: []string{srv.URL + "/items", srv.URL + "/item/1"},
			Missing: srv.URL + "/item/9", MissingCode: retrieve.CodeUpstreamStatus,
			Secret: "api-SECRET-1", SecretTargets: []string{srv.URL + "/items", srv.URL + "/echo"},
		}
	})
}
