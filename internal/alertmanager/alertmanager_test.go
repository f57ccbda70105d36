package alertmanager_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/talops/talops/internal/alertmanager"
)

// server answers as Alertmanager's API v2 does, recording what it was asked.
func server(t *testing.T, handle func(w http.ResponseWriter, r *http.Request, body []byte)) *alertmanager.Client {
	t.Helper()

	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		handle(w, r, b)
	}))
	t.Cleanup(srv.Close)

	c, err := alertmanager.New(srv.URL+"/", []string{`severity="critical"`, `alertname=~"Kube.*"`}, srv.Client())
	if err != nil {
		t.Fatal(err)
	}

	return c
}

func TestFiring_AsksForActiveUnsilencedUninhibitedAlertsWithTheMatchersAndReadsOnlyLabels(t *testing.T) {
	var query string

	c := server(t, func(w http.ResponseWriter, r *http.Request, _ []byte) {
		query = r.URL.Path + "?" + r.URL.RawQuery
		_, _ = io.WriteString(w, `[{"labels":{"alertname":"KubeNodeNotReady","node":"w1"},"annotations":{"description":"token=s3cr3t"},"fingerprint":"f","status":{"state":"active"}}]`)
	})

	got, err := c.Firing(context.Background())
	if err != nil {
		t.Fatal(err)
	}

	want := "/api/v2/alerts?active=true&filter=severity%3D%22critical%22&filter=alertname%3D~%22Kube.%2A%22&inhibited=false&silenced=false"
	if query != want {
		t.Errorf("asked %s\nwant  %s", query, want)
	}

	if len(got) != 1 || got[0].Labels["node"] != "w1" || strings.Contains(strings.Join(mapValues(got[0].Labels), " "), "s3cr3t") {
		t.Errorf("alerts %+v", got)
	}
}

func mapValues(m map[string]string) []string {
	var out []string
	for _, v := range m {
		out = append(out, v)
	}

	return out
}

func TestSilence_PostsThePostableSilenceCreatedByTalopsAndReturnsItsID(t *testing.T) {
	var posted map[string]any

	c := server(t, func(w http.ResponseWriter, r *http.Request, body []byte) {
		if r.Method != http.MethodPost || r.URL.Path != "/api/v2/silences" {
			t.Errorf("asked %s %s", r.Method, r.URL.Path)
		}

		_ = json.Unmarshal(body, &posted)
		_, _ = io.WriteString(w, `{"silenceID":"abc"}`)
	})

	end := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

	id, err := c.Silence(context.Background(), alertmanager.Silence{Matchers: []alertmanager.Matcher{{Name: "node", Value: "w1", IsEqual: true}}, StartsAt: end.Add(-time.Minute), EndsAt: end, Comment: "talops apply"})
	if err != nil || id != "abc" {
		t.Fatalf("id %q, err %v", id, err)
	}

	b, _ := json.Marshal(posted)
	want := `{"comment":"talops apply","createdBy":"talops","endsAt":"2026-01-02T03:04:05Z","matchers":[{"isEqual":true,"isRegex":false,"name":"node","value":"w1"}],"startsAt":"2026-01-02T03:03:05Z"}`

	if string(b) != want {
		t.Errorf("posted %s\nwant   %s", b, want)
	}
}

func TestClient_AnErrorAnswerNamesTheRequestStatusAndMessage(t *testing.T) {
	c := server(t, func(w http.ResponseWriter, r *http.Request, _ []byte) {
		if r.Method != http.MethodDelete || r.URL.Path != "/api/v2/silence/a/b" {
			t.Errorf("asked %s %s", r.Method, r.URL.EscapedPath())
		}

		w.WriteHeader(http.StatusNotFound)
		_, _ = io.WriteString(w, `"silence not found"`)
	})

	err := c.Expire(context.Background(), "a/b")

	want := "alertmanager: DELETE /silence/a%2Fb: 404 Not Found: silence not found"
	if err == nil || err.Error() != want {
		t.Errorf("err %v\nwant %s", err, want)
	}
}

func TestNew_RefusesAURLWithCredentials(t *testing.T) {
	_, err := alertmanager.New("http://admin:hunter2@am:9093", nil, nil)
	if err == nil || strings.Contains(err.Error(), "hunter2") {
		t.Errorf("err %v, want a refusal that does not repeat the password", err)
	}
}
