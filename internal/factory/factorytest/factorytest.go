// Package factorytest is a fake Image Factory for tests: an httptest server
// speaking the factory's real request and response shapes. It answers a
// registration with the ID the real factory gave that schematic (RealIDs), never
// one computed by talops' own code; a schematic it knows no real ID of fails the
// test unless the test states one (Assume, AnswerID).
//
// It answers only what a test set up. Any other request fails the test, and
// so does a set-up answer that was never asked for (checked at cleanup).
package factorytest

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"sync"

	"go.yaml.in/yaml/v4"

	"github.com/talops/talops/internal/schematic"
)

// T is the part of testing.TB the fake uses.
type T interface {
	Helper()
	Errorf(format string, args ...any)
	Cleanup(func())
}

// Extension is one item of GET /version/{v}/extensions/official, with the
// factory's JSON keys. It is declared here, not borrowed from the client, so
// a wrong key in the client fails its tests.
type Extension struct {
	Name        string `json:"name"`
	Ref         string `json:"ref"`
	Digest      string `json:"digest"`
	Author      string `json:"author"`
	Description string `json:"description"`
}

// Ext is an official extension the way the factory lists it: name
// "siderolabs/<short>", ref "ghcr.io/siderolabs/<short>:<tag>", and a digest
// derived from the ref.
func Ext(name, tag string) Extension {
	ref := "ghcr.io/" + name + ":" + tag
	sum := sha256.Sum256([]byte(ref))

	return Extension{
		Name:        name,
		Ref:         ref,
		Digest:      "sha256:" + hex.EncodeToString(sum[:]),
		Author:      "Sidero Labs",
		Description: name + " system extension",
	}
}

// Request is a request the fake received.
type Request struct {
	Method      string
	Path        string
	ContentType string
	Body        []byte
}

// Server is the fake factory.
type Server struct {
	t   T
	srv *httptest.Server

	mu       sync.Mutex
	stubs    []*Stub
	requests []Request
	assumed  []RealID
}

// New starts a fake factory; it stops, and checks that every expectation was
// used, when the test ends.
func New(t T) *Server {
	t.Helper()

	s := &Server{t: t}
	s.srv = httptest.NewServer(http.HandlerFunc(s.serve))

	t.Cleanup(func() {
		s.srv.Close()
		s.verify()
	})

	return s
}

// URL is the fake's base URL.
func (s *Server) URL() string { return s.srv.URL }

// Client is an HTTP client for the fake.
func (s *Server) Client() *http.Client { return s.srv.Client() }

// Close stops the server early, to test a factory that is down.
func (s *Server) Close() { s.srv.Close() }

// Requests returns the requests received so far, in order.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()

	return append([]Request(nil), s.requests...)
}

// Stub is one expected request and the answers to give it. By default it
// expects to be asked once and answers with success.
type Stub struct {
	method, path string
	// handle writes the successful answer; it returns false when the request
	// does not satisfy the expectation (it has then failed the test).
	handle func(w http.ResponseWriter, body []byte) bool

	times    int
	failures []int
	status   int // a fixed non-2xx answer instead of the success, with body
	body     string
	id       string // Register: the ID to answer instead of the computed one

	served int
	failed int
}

// Times expects the request n times (the default is once).
func (st *Stub) Times(n int) *Stub {
	st.times = n

	return st
}

// FailFirst answers the first n requests with status (a 5xx or 429) before
// the expected answers.
func (st *Stub) FailFirst(n, status int) *Stub {
	for range n {
		st.failures = append(st.failures, status)
	}

	return st
}

// Respond replaces the successful answer with status and body, for error
// answers such as 400 or 404.
func (st *Stub) Respond(status int, body string) *Stub {
	st.status, st.body = status, body

	return st
}

// AnswerID makes a registration answer with id instead of the ID the
// schematic has, as a factory that encodes differently would.
func (st *Stub) AnswerID(id string) *Stub {
	st.id = id

	return st
}

// String is the expected request, "GET /versions".
func (st *Stub) String() string { return st.method + " " + st.path }

func (st *Stub) pending() bool {
	return st.failed < len(st.failures) || st.served < st.times
}

// ExpectVersions expects GET /versions and answers with the tags.
func (s *Server) ExpectVersions(versions ...string) *Stub {
	list := append([]string{}, versions...)

	return s.add(http.MethodGet, "/versions", func(w http.ResponseWriter, _ []byte) bool {
		writeJSON(w, http.StatusOK, list)

		return true
	})
}

// ExpectExtensions expects GET /version/{version}/extensions/official and
// answers with exts.
func (s *Server) ExpectExtensions(version string, exts ...Extension) *Stub {
	list := append([]Extension{}, exts...)

	return s.add(http.MethodGet, "/version/"+schematic.VersionTag(version)+"/extensions/official",
		func(w http.ResponseWriter, _ []byte) bool {
			writeJSON(w, http.StatusOK, list)

			return true
		})
}

// ExpectSchematic expects GET /schematics/{id} and answers as the factory does: the
// schematic's YAML (application/yaml).
func (s *Server) ExpectSchematic(id, yamlText string) *Stub {
	return s.add(http.MethodGet, "/schematics/"+id, func(w http.ResponseWriter, _ []byte) bool {
		w.Header().Set("Content-Type", "application/yaml")
		w.WriteHeader(http.StatusOK)
		_, _ = w.Write([]byte(yamlText))

		return true
	})
}

// Assume gives the fake an ID for a schematic whose real factory ID is not known
// (not in RealIDs). The test states it, and a test that passes on it proves nothing
// about how the ID is computed.
func (s *Server) Assume(yamlText, id string) {
	s.mu.Lock()
	defer s.mu.Unlock()

	s.assumed = append(s.assumed, RealID{Name: "assumed by the test", YAML: yamlText, ID: id})
}

// ExpectRegister expects POST /schematics. The body must be a schematic the
// factory would accept, and, when want is not nil, the same schematic as want
// (the same document, however it is laid out). The answer is 201 {"id": ...,
// "schematic": ...} like the factory's, with the ID the real factory gives it.
func (s *Server) ExpectRegister(want *schematic.Schematic) *Stub {
	var st *Stub

	st = s.add(http.MethodPost, "/schematics", func(w http.ResponseWriter, body []byte) bool {
		// The factory's own answer to a schematic it cannot read (talops' loader knows
		// its fields); the ID does not come from talops' code.
		parsed, err := schematic.Load(body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)

			return true
		}

		got, err := document(body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)

			return true
		}

		if want != nil {
			data, err := want.Marshal()
			if err != nil {
				s.t.Errorf("factorytest: encode the expected schematic: %v", err)
			}

			if wantDoc, err := document(data); err != nil || !reflect.DeepEqual(got, wantDoc) {
				s.t.Errorf("factorytest: registered another schematic than expected\nbody:\n%s\nwant:\n%s", body, data)
				http.Error(w, "factorytest: not the expected schematic", http.StatusBadRequest)

				return false
			}
		}

		id := st.id
		if id == "" {
			var ok bool
			if id, ok = s.realID(got); !ok {
				s.t.Errorf("factorytest: no ID the real factory computed is known for this schematic: add it to RealIDs, or Assume one\n%s", body)
				http.Error(w, "factorytest: unknown schematic", http.StatusInternalServerError)

				return true
			}
		}

		canonical, err := parsed.Marshal()
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)

			return true
		}

		writeJSON(w, http.StatusCreated, map[string]string{"id": id, "schematic": string(canonical)})

		return true
	})

	return st
}

// realID is the real factory's ID of the schematic doc, from RealIDs or what the
// test assumed.
func (s *Server) realID(doc any) (string, bool) {
	s.mu.Lock()
	known := append(slices.Clone(RealIDs), s.assumed...)
	s.mu.Unlock()

	for _, r := range known {
		if d, err := document([]byte(r.YAML)); err == nil && reflect.DeepEqual(d, doc) {
			return r.ID, true
		}
	}

	return "", false
}

// document is a schematic as plain YAML data without empty values, so that two
// layouts of the same schematic compare equal and list order still counts, as it
// does for the factory's ID.
func document(data []byte) (any, error) {
	var v any
	if err := yaml.Unmarshal(data, &v); err != nil {
		return nil, fmt.Errorf("schematic is not YAML: %w", err)
	}

	return prune(v), nil
}

func prune(v any) any {
	switch t := v.(type) {
	case map[string]any:
		out := map[string]any{}

		for k, e := range t {
			if p := prune(e); p != nil {
				out[k] = p
			}
		}

		if len(out) == 0 {
			return nil
		}

		return out
	case []any:
		var out []any

		for _, e := range t {
			if p := prune(e); p != nil {
				out = append(out, p)
			}
		}

		if len(out) == 0 {
			return nil
		}

		return out
	case string:
		if t == "" {
			return nil
		}
	}

	return v
}

func (s *Server) add(method, path string, handle func(http.ResponseWriter, []byte) bool) *Stub {
	st := &Stub{method: method, path: path, handle: handle, times: 1}

	s.mu.Lock()
	s.stubs = append(s.stubs, st)
	s.mu.Unlock()

	return st
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		s.t.Errorf("factorytest: read request body: %v", err)
	}

	s.mu.Lock()
	s.requests = append(s.requests, Request{
		Method: r.Method, Path: r.URL.Path, ContentType: r.Header.Get("Content-Type"), Body: body,
	})

	if v, ok := extensionsVersion(r.URL.Path); ok && !semverTag.MatchString(v) {
		s.mu.Unlock()

		// The real factory's handleOfficialExtensions fails semver.Parse and its error
		// wrapper maps that to no client status: a plain 500, as for an outage.
		http.Error(w, "internal server error", http.StatusInternalServerError)

		return
	}

	var st *Stub

	for _, cand := range s.stubs {
		if cand.method == r.Method && cand.path == r.URL.Path && cand.pending() {
			st = cand

			break
		}
	}

	switch {
	case st == nil:
		s.mu.Unlock()
		s.t.Errorf("factorytest: unexpected request %s %s", r.Method, r.URL.Path)
		// 404 is not retried, so one unexpected call is one failure.
		http.Error(w, "factorytest: unexpected request", http.StatusNotFound)

		return
	case st.failed < len(st.failures):
		status := st.failures[st.failed]
		st.failed++
		s.mu.Unlock()

		http.Error(w, fmt.Sprintf("factorytest: injected failure %d", status), status)

		return
	}

	// Counted before answering, so concurrent requests cannot both take the
	// last expected answer.
	st.served++
	s.mu.Unlock()

	if st.status != 0 {
		http.Error(w, st.body, st.status)

		return
	}

	if !st.handle(w, body) {
		s.mu.Lock()
		st.served--
		s.mu.Unlock()
	}
}

// semverTag is a version the real factory parses: "v", then what blang/semver takes.
var semverTag = regexp.MustCompile(`^v(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)` +
	`(-[0-9A-Za-z-]+(\.[0-9A-Za-z-]+)*)?(\+[0-9A-Za-z-]+(\.[0-9A-Za-z-]+)*)?$`)

// extensionsVersion is the version of a /version/{v}/extensions/official path, with the
// "v" the factory adds when it is left out.
func extensionsVersion(path string) (string, bool) {
	rest, ok := strings.CutPrefix(path, "/version/")
	if !ok {
		return "", false
	}

	v, ok := strings.CutSuffix(rest, "/extensions/official")
	if !ok || strings.Contains(v, "/") {
		return "", false
	}

	if !strings.HasPrefix(v, "v") {
		v = "v" + v
	}

	return v, true
}

func (s *Server) verify() {
	s.mu.Lock()
	defer s.mu.Unlock()

	var missing []string

	for _, st := range s.stubs {
		if st.pending() {
			missing = append(missing, fmt.Sprintf("%s (answered %d of %d failures, %d of %d times)",
				st, st.failed, len(st.failures), st.served, st.times))
		}
	}

	if len(missing) > 0 {
		s.t.Errorf("factorytest: expected requests not made:\n  %s", strings.Join(missing, "\n  "))
	}
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(v) //nolint:errcheck // the client sees a short body
}
