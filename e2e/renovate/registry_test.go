//go:build renovate

package renovate

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
)

// registry is a fake OCI registry speaking the Docker Registry HTTP API v2 as far as
// Renovate's docker datasource asks it: the version check (GET /v2/), the tags list
// (GET /v2/<name>/tags/list) and a manifest's digest (HEAD or GET
// /v2/<name>/manifests/<tag>, answered in Docker-Content-Digest). It answers without
// authentication, as a public ghcr.io repository does once a token is in hand.
type registry struct {
	t   *testing.T
	srv *httptest.Server

	mu      sync.Mutex
	tags    map[string][]string          // repository → tags
	digests map[string]map[string]string // repository → tag → digest
}

func newRegistry(t *testing.T) *registry {
	t.Helper()

	r := &registry{t: t, tags: map[string][]string{}, digests: map[string]map[string]string{}}
	r.srv = httptest.NewServer(http.HandlerFunc(r.serve))
	t.Cleanup(r.srv.Close)

	return r
}

// repo lists tags for a repository ("siderolabs/kubelet").
func (r *registry) repo(name string, tags ...string) {
	r.mu.Lock()
	defer r.mu.Unlock()

	r.tags[name] = tags
}

// digest gives a repository's tag a manifest digest.
func (r *registry) digest(name, tag, digest string) {
	r.mu.Lock()
	defer r.mu.Unlock()

	if r.digests[name] == nil {
		r.digests[name] = map[string]string{}
	}

	r.digests[name][tag] = digest
}

func (r *registry) serve(w http.ResponseWriter, req *http.Request) {
	r.mu.Lock()
	defer r.mu.Unlock()

	w.Header().Set("Docker-Distribution-API-Version", "registry/2.0")

	if req.URL.Path == "/v2/" {
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte("{}")) //nolint:errcheck // the client sees a short body

		return
	}

	path, ok := strings.CutPrefix(req.URL.Path, "/v2/")
	if !ok {
		r.notFound(w, req)

		return
	}

	if name, ok := strings.CutSuffix(path, "/tags/list"); ok {
		tags, known := r.tags[name]
		if !known {
			r.notFound(w, req)

			return
		}

		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{"name": name, "tags": tags}) //nolint:errcheck // the client sees a short body

		return
	}

	if i := strings.LastIndex(path, "/manifests/"); i > 0 {
		name, tag := path[:i], path[i+len("/manifests/"):]

		digest, known := r.digests[name][tag]
		if !known {
			r.notFound(w, req)

			return
		}

		body := `{"schemaVersion":2,"mediaType":"application/vnd.oci.image.index.v1+json","manifests":[]}`
		w.Header().Set("Content-Type", "application/vnd.oci.image.index.v1+json")
		w.Header().Set("Docker-Content-Digest", digest)

		if req.Method == http.MethodGet {
			w.Write([]byte(body)) //nolint:errcheck // the client sees a short body
		}

		return
	}

	r.notFound(w, req)
}

// notFound answers as a registry does for an unknown repository or tag; the run's
// assertions then show which lookup went astray.
func (r *registry) notFound(w http.ResponseWriter, req *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusNotFound)
	w.Write([]byte(`{"errors":[{"code":"NAME_UNKNOWN","message":"repository name not known to registry"}]}`)) //nolint:errcheck // the client sees a short body
}
