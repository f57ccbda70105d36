//go:build renovate

package renovate

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"
)

// tag is a git tag of a repository: its name, the commit it points at and the commit's date.
type tag struct {
	Name, Commit, Date string
}

// githubServer is a fake GitHub Enterprise API for Renovate's github-tags datasource: it
// answers POST /api/graphql (the v3 base URL /api/v3/ without v3/) with a repository's tags in
// the shape of GitHub's GraphQL refs connection, as Renovate's tags query aliases it.
func githubServer(t *testing.T, repos map[string][]tag) *httptest.Server {
	t.Helper()

	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || r.URL.Path != "/api/graphql" {
			t.Errorf("github fake: unexpected request %s %s", r.Method, r.URL.Path)
			http.NotFound(w, r)

			return
		}

		var req struct {
			Variables struct {
				Owner string `json:"owner"`
				Name  string `json:"name"`
			} `json:"variables"`
		}

		if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
			t.Errorf("github fake: read the query: %v", err)
		}

		tags, ok := repos[req.Variables.Owner+"/"+req.Variables.Name]
		if !ok {
			w.Header().Set("Content-Type", "application/json")
			json.NewEncoder(w).Encode(map[string]any{ //nolint:errcheck // the client sees a short body
				"data":   map[string]any{"repository": nil},
				"errors": []map[string]any{{"type": "NOT_FOUND", "message": "Could not resolve to a Repository"}},
			})

			return
		}

		nodes := []map[string]any{}
		for _, tg := range tags {
			nodes = append(nodes, map[string]any{
				"version": tg.Name,
				"target":  map[string]any{"type": "Commit", "oid": tg.Commit, "releaseTimestamp": tg.Date},
			})
		}

		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{ //nolint:errcheck // the client sees a short body
			"data": map[string]any{"repository": map[string]any{
				"isRepoPrivate": false,
				"payload": map[string]any{
					"pageInfo": map[string]any{"hasNextPage": false, "endCursor": nil},
					"nodes":    nodes,
				},
			}},
		})
	}))
	t.Cleanup(srv.Close)

	return srv
}
