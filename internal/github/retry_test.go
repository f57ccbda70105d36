package github_test

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/talops/talops/internal/github"
	"github.com/talops/talops/internal/github/githubtest"
)

const commentsPath = "/repos/lab/infra/issues/7/comments"

var clock = time.Date(2026, 12, 1, 11, 0, 0, 0, time.UTC)

// recording is a client of s whose waits are recorded instead of slept.
func recording(t *testing.T, s *githubtest.Server) (*github.Client, *[]time.Duration) {
	t.Helper()

	var waits []time.Duration

	c, err := github.New(http.DefaultClient, s.URL, "token",
		github.WithSleep(func(_ context.Context, d time.Duration) error { waits = append(waits, d); return nil }),
		github.WithClock(func() time.Time { return clock }))
	if err != nil {
		t.Fatal(err)
	}

	return c, &waits
}

func TestClient_RetriesWhatGitHubSaysIsTransient(t *testing.T) {
	for _, tc := range []struct {
		name   string
		method string
		faults []githubtest.Fault
		// waits are the pauses before each retry; ok whether the call then succeeded.
		waits []time.Duration
		ok    bool
	}{
		{
			name: "secondary rate limit waits its Retry-After", method: http.MethodGet,
			faults: []githubtest.Fault{githubtest.SecondaryRateLimit(30)},
			waits:  []time.Duration{30 * time.Second}, ok: true,
		},
		{
			name: "secondary rate limit without Retry-After waits a minute", method: http.MethodGet,
			faults: []githubtest.Fault{githubtest.SecondaryRateLimit(0)},
			waits:  []time.Duration{time.Minute}, ok: true,
		},
		{
			name: "429 waits its Retry-After", method: http.MethodPost,
			faults: []githubtest.Fault{githubtest.TooManyRequests(5)},
			waits:  []time.Duration{5 * time.Second}, ok: true,
		},
		{
			name: "primary rate limit resetting soon waits for the reset", method: http.MethodGet,
			faults: []githubtest.Fault{githubtest.PrimaryRateLimit(clock.Add(20 * time.Second))},
			waits:  []time.Duration{20 * time.Second}, ok: true,
		},
		{
			name: "primary rate limit resetting in an hour is reported at once", method: http.MethodGet,
			faults: []githubtest.Fault{githubtest.PrimaryRateLimit(clock.Add(time.Hour))},
		},
		{
			name: "5xx on a read backs off doubling", method: http.MethodGet,
			faults: []githubtest.Fault{githubtest.ServerError(502), githubtest.ServerError(503)},
			waits:  []time.Duration{time.Second, 2 * time.Second}, ok: true,
		},
		{
			name: "5xx through every attempt gives up after four", method: http.MethodGet,
			faults: slices.Repeat([]githubtest.Fault{githubtest.ServerError(500)}, 5),
			waits:  []time.Duration{time.Second, 2 * time.Second, 4 * time.Second},
		},
		{
			name: "5xx on a new comment is not retried: it may have been posted", method: http.MethodPost,
			faults: []githubtest.Fault{githubtest.ServerError(502)},
		},
		{
			name: "403 of a read-only token is not retried", method: http.MethodPost,
			faults: []githubtest.Fault{githubtest.Locked()},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := githubtest.New(t, "lab", "infra", 7)
			s.FailNext(tc.method, commentsPath, tc.faults...)
			c, waits := recording(t, s)

			var err error
			if tc.method == http.MethodGet {
				_, err = c.ListComments(context.Background(), pr)
			} else {
				err = c.CreateComment(context.Background(), pr, "plan")
			}

			if (err == nil) != tc.ok {
				t.Fatalf("err = %v, want success %v", err, tc.ok)
			}

			if !slices.Equal(*waits, tc.waits) {
				t.Errorf("waits = %v, want %v", *waits, tc.waits)
			}

			if want := len(tc.waits) + 1; len(s.Requests()) != want {
				t.Errorf("%d requests, want %d", len(s.Requests()), want)
			}
		})
	}
}

func TestClient_RateLimitThatOutlastsTheRetriesSaysSo(t *testing.T) {
	s := githubtest.New(t, "lab", "infra", 7)
	s.FailNext(http.MethodGet, commentsPath, githubtest.PrimaryRateLimit(clock.Add(time.Hour)))
	c, _ := recording(t, s)

	_, err := c.ListComments(context.Background(), pr)
	if err == nil || !strings.Contains(err.Error(), "rate limit") || errors.Is(err, github.ErrReadOnly) {
		t.Errorf("err = %v, want a rate limit, not a read-only token", err)
	}
}

func TestClient_UnauthorizedIsNotReportedAsAReadOnlyToken(t *testing.T) {
	for _, tc := range []struct {
		name  string
		fault githubtest.Fault
		want  error
		other error
	}{
		{"401 bad credentials", githubtest.BadCredentials(), github.ErrUnauthorized, github.ErrReadOnly},
		{"403 locked conversation", githubtest.Locked(), github.ErrReadOnly, github.ErrUnauthorized},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := githubtest.New(t, "lab", "infra", 7)
			s.FailNext(http.MethodPost, commentsPath, tc.fault)
			c, _ := recording(t, s)

			err := c.CreateComment(context.Background(), pr, "plan")
			if !errors.Is(err, tc.want) || errors.Is(err, tc.other) {
				t.Errorf("err = %v, want %v only", err, tc.want)
			}
		})
	}

	s := githubtest.New(t, "lab", "infra", 7)
	s.FailNext(http.MethodPost, commentsPath, githubtest.Locked())
	c, _ := recording(t, s)

	if err := c.CreateComment(context.Background(), pr, "plan"); err == nil || !strings.Contains(err.Error(), "issue is locked") {
		t.Errorf("err = %v, want GitHub's reason", err)
	}
}

func TestClient_LostConnectionOnAReadIsRetriedAndNamedOnce(t *testing.T) {
	var waits []time.Duration

	// A closed port: every attempt fails to connect.
	dead, err := github.New(http.DefaultClient, "http://127.0.0.1:1/", "token",
		github.WithSleep(func(_ context.Context, d time.Duration) error { waits = append(waits, d); return nil }))
	if err != nil {
		t.Fatal(err)
	}

	_, err = dead.ListComments(context.Background(), pr)
	if err == nil || strings.Count(err.Error(), `Get "`) != 1 || len(waits) != 3 {
		t.Errorf("err = %v after %d retries, want the request named once after 3", err, len(waits))
	}
}
