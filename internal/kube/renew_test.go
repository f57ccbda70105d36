package kube_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"k8s.io/client-go/rest"

	"github.com/talops/talops/internal/kube"
)

// leaseAPI speaks the Lease REST shapes of one namespace; down makes every write answer
// 500, as an API server whose etcd is gone (the only control plane rebooting).
type leaseAPI struct {
	mu    sync.Mutex
	lease map[string]any
	rv    int
	down  atomic.Bool
}

func (a *leaseAPI) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	a.mu.Lock()
	defer a.mu.Unlock()

	w.Header().Set("Content-Type", "application/json")

	status := func(code int, reason string) {
		w.WriteHeader(code)
		_ = json.NewEncoder(w).Encode(map[string]any{"kind": "Status", "apiVersion": "v1", "status": "Failure", "reason": reason, "code": code})
	}

	if !strings.HasPrefix(r.URL.Path, "/apis/coordination.k8s.io/v1/namespaces/kube-system/leases") {
		status(http.StatusNotFound, "NotFound")

		return
	}

	switch r.Method {
	case http.MethodGet:
		if a.lease == nil {
			status(http.StatusNotFound, "NotFound")

			return
		}

		_ = json.NewEncoder(w).Encode(a.lease)
	case http.MethodPost, http.MethodPut:
		if a.down.Load() {
			status(http.StatusInternalServerError, "InternalError")

			return
		}

		body, _ := io.ReadAll(r.Body)

		var lease map[string]any
		_ = json.Unmarshal(body, &lease)

		a.rv++
		lease["metadata"].(map[string]any)["resourceVersion"] = strconv.Itoa(a.rv)
		a.lease = lease

		if r.Method == http.MethodPost {
			w.WriteHeader(http.StatusCreated)
		}

		_ = json.NewEncoder(w).Encode(lease)
	case http.MethodDelete:
		a.lease = nil
		_ = json.NewEncoder(w).Encode(map[string]any{"kind": "Status", "apiVersion": "v1", "status": "Success"})
	}
}

func lockClient(t *testing.T, api *leaseAPI) *kube.Client {
	t.Helper()

	srv := httptest.NewServer(api)
	t.Cleanup(srv.Close)

	// JSON, the shape this fake speaks (client-go may prefer protobuf).
	c, err := kube.NewForConfig(&rest.Config{Host: srv.URL, ContentConfig: rest.ContentConfig{ContentType: "application/json"}})
	if err != nil {
		t.Fatal(err)
	}

	c.LeaseDuration, c.RenewInterval = time.Second, 100*time.Millisecond

	return c
}

func TestLock_RenewalsThatFailUntilTheLeaseWouldLapseLoseTheLockAndSaySo(t *testing.T) {
	t.Parallel()

	api := &leaseAPI{}
	c := lockClient(t, api)

	lost := make(chan error, 2)

	release, err := c.Lock(context.Background(), "lab", "alice@laptop #01020304", func(err error) { lost <- err })
	if err != nil {
		t.Fatal(err)
	}

	api.down.Store(true)

	select {
	case err := <-lost:
		if !strings.Contains(err.Error(), "the apply lock of cluster lab could not be renewed since") || !strings.Contains(err.Error(), "lapses at") {
			t.Errorf("lost with %v", err)
		}
	case <-time.After(3 * time.Second):
		t.Fatal("a Lease that could not be renewed for its whole duration was not reported lost")
	}

	if err := release(context.Background()); err == nil || !strings.Contains(err.Error(), "could not be renewed") {
		t.Errorf("release = %v, want the loss", err)
	}

	if len(lost) != 0 {
		t.Error("the loss was told twice")
	}
}

func TestLock_OneFailedRenewalIsNotALostLock(t *testing.T) {
	t.Parallel()

	api := &leaseAPI{}
	c := lockClient(t, api)

	lost := make(chan error, 1)

	release, err := c.Lock(context.Background(), "lab", "alice@laptop #01020304", func(err error) { lost <- err })
	if err != nil {
		t.Fatal(err)
	}

	// Down for about two renewals, well inside the one-second Lease.
	api.down.Store(true)
	time.Sleep(250 * time.Millisecond)
	api.down.Store(false)
	time.Sleep(1200 * time.Millisecond)

	select {
	case err := <-lost:
		t.Errorf("lost after a short outage: %v", err)
	default:
	}

	if err := release(context.Background()); err != nil {
		t.Errorf("release = %v", err)
	}
}
