package factory_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/talops/talops/internal/factory"
	"github.com/talops/talops/internal/factory/factorytest"
)

func TestVersions_RetriesServerErrorsThenSucceeds(t *testing.T) {
	fake := factorytest.New(t)
	fake.ExpectVersions("v1.13.9").FailFirst(3, http.StatusBadGateway)

	c, sl := newClient(t, fake, factory.WithRetries(3), factory.WithBackoff(time.Second, 30*time.Second))

	got, err := c.Versions(t.Context())
	if err != nil {
		t.Fatalf("Versions: %v", err)
	}

	if !slices.Equal(got, []string{"v1.13.9"}) {
		t.Errorf("Versions = %v", got)
	}

	if want := []time.Duration{time.Second, 2 * time.Second, 4 * time.Second}; !slices.Equal(sl.got(), want) {
		t.Errorf("waits = %v, want %v", sl.got(), want)
	}
}

func TestRegister_RetriedAfterServerErrors(t *testing.T) {
	s := gpuSchematic(t)
	fake := factorytest.New(t)
	fake.ExpectRegister(s).FailFirst(1, http.StatusServiceUnavailable)

	c, _ := newClient(t, fake)

	if _, err := c.RegisterVerified(t.Context(), s); err != nil {
		t.Fatalf("RegisterVerified: %v", err)
	}

	if n := len(fake.Requests()); n != 2 {
		t.Errorf("%d requests, want 2", n)
	}
}

func TestVersions_RetriesExhausted_UnavailableError(t *testing.T) {
	fake := factorytest.New(t)
	fake.ExpectVersions().FailFirst(3, http.StatusServiceUnavailable).Times(0)

	c, sl := newClient(t, fake, factory.WithRetries(2), factory.WithBackoff(time.Second, 90*time.Second))

	_, err := c.Versions(t.Context())

	var ue *factory.UnavailableError
	if !errors.As(err, &ue) {
		t.Fatalf("error = %v, want *UnavailableError", err)
	}

	if ue.Attempts != 3 || ue.StatusCode != http.StatusServiceUnavailable || ue.Op != "list Talos versions" {
		t.Errorf("UnavailableError = %+v", ue)
	}

	var se *factory.StatusError
	if !errors.As(err, &se) || se.StatusCode != http.StatusServiceUnavailable {
		t.Errorf("the last status is not reachable as *StatusError: %v", err)
	}

	if want := []time.Duration{time.Second, 2 * time.Second}; !slices.Equal(sl.got(), want) {
		t.Errorf("waits = %v, want %v", sl.got(), want)
	}
}

func TestVersions_BackoffIsCapped(t *testing.T) {
	fake := factorytest.New(t)
	fake.ExpectVersions().FailFirst(6, http.StatusInternalServerError).Times(0)

	c, sl := newClient(t, fake, factory.WithRetries(5), factory.WithBackoff(time.Second, 5*time.Second))

	_, _ = c.Versions(t.Context())

	if want := []time.Duration{1 * time.Second, 2 * time.Second, 4 * time.Second, 5 * time.Second, 5 * time.Second}; !slices.Equal(sl.got(), want) {
		t.Errorf("waits = %v, want %v", sl.got(), want)
	}
}

func TestVersions_FactoryDown_UnavailableErrorWithTransportError(t *testing.T) {
	fake := factorytest.New(t)
	fake.Close()

	c, sl := newClient(t, fake, factory.WithRetries(1))

	_, err := c.Versions(t.Context())

	var ue *factory.UnavailableError
	if !errors.As(err, &ue) {
		t.Fatalf("error = %v, want *UnavailableError", err)
	}

	if ue.StatusCode != 0 || ue.Attempts != 2 || len(sl.got()) != 1 {
		t.Errorf("UnavailableError = %+v, waits %v; want 2 attempts with no response", ue, sl.got())
	}
}

func TestVersions_CancelledDuringBackoff_ContextErrorNotUnavailable(t *testing.T) {
	fake := factorytest.New(t)
	fake.ExpectVersions().FailFirst(1, http.StatusServiceUnavailable).Times(0)

	ctx, cancel := context.WithCancel(t.Context())

	c, err := factory.New(fake.URL(),
		factory.WithHTTPClient(fake.Client()),
		factory.WithSleep(func(ctx context.Context, _ time.Duration) error {
			cancel()

			return ctx.Err()
		}),
	)
	if err != nil {
		t.Fatal(err)
	}

	_, err = c.Versions(ctx)

	if !errors.Is(err, context.Canceled) {
		t.Errorf("error = %v, want context.Canceled", err)
	}

	var ue *factory.UnavailableError
	if errors.As(err, &ue) {
		t.Errorf("a cancelled call was reported as the factory being down: %v", err)
	}
}

func TestVersions_SlowAttemptTimesOutAndIsRetried(t *testing.T) {
	// A handler that never answers in time; the per-attempt timeout ends
	// each attempt and the call reports the factory unavailable.
	slow := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-time.After(5 * time.Second):
		}
	}))
	t.Cleanup(slow.Close)

	sl := &sleeps{}

	c, err := factory.New(slow.URL,
		factory.WithHTTPClient(slow.Client()),
		factory.WithTimeout(20*time.Millisecond),
		factory.WithRetries(1),
		factory.WithSleep(sl.sleep),
	)
	if err != nil {
		t.Fatal(err)
	}

	_, err = c.Versions(t.Context())

	var ue *factory.UnavailableError
	if !errors.As(err, &ue) || ue.Attempts != 2 || !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("error = %v, want *UnavailableError after 2 timed-out attempts", err)
	}
}

func TestVersions_RetryAfterIsHonouredUpToTheCap(t *testing.T) {
	calls := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls++
		if calls == 1 {
			w.Header().Set("Retry-After", "7")
			http.Error(w, "slow down", http.StatusTooManyRequests)

			return
		}

		if calls == 2 {
			w.Header().Set("Retry-After", "3600")
			http.Error(w, "slow down", http.StatusTooManyRequests)

			return
		}

		w.Write([]byte(`["v1.13.9"]`)) //nolint:errcheck // the client judges what it got
	}))
	t.Cleanup(srv.Close)

	sl := &sleeps{}

	c, err := factory.New(srv.URL, factory.WithHTTPClient(srv.Client()), factory.WithSleep(sl.sleep),
		factory.WithBackoff(time.Second, time.Minute))
	if err != nil {
		t.Fatal(err)
	}

	if _, err := c.Versions(t.Context()); err != nil {
		t.Fatal(err)
	}

	if want := []time.Duration{7 * time.Second, time.Minute}; !slices.Equal(sl.got(), want) {
		t.Errorf("waits = %v, want %v", sl.got(), want)
	}
}

func TestNew_RejectsWhatIsNotAnHTTPURL(t *testing.T) {
	for _, u := range []string{"", "factory.talos.dev", "ftp://factory.talos.dev", "https://", "://x"} {
		if _, err := factory.New(u); err == nil {
			t.Errorf("New(%q) succeeded", u)
		}
	}

	c, err := factory.New("https://user:hunter2@factory.example.org/base/")
	if err != nil {
		t.Fatal(err)
	}

	if got := c.BaseURL(); strings.Contains(got, "hunter2") || got != "https://user:xxxxx@factory.example.org/base" {
		t.Errorf("BaseURL = %q, want the password redacted and the slash dropped", got)
	}
}

func TestUnavailableError_NeverShowsTheURLPassword(t *testing.T) {
	fake := factorytest.New(t)
	fake.Close()

	u := strings.Replace(fake.URL(), "http://", "http://user:hunter2@", 1)

	c, err := factory.New(u, factory.WithHTTPClient(fake.Client()), factory.WithRetries(0))
	if err != nil {
		t.Fatal(err)
	}

	_, err = c.Versions(t.Context())
	if err == nil || strings.Contains(err.Error(), "hunter2") {
		t.Errorf("error = %v, want one without the password", err)
	}
}
