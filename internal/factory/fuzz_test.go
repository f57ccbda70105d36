package factory_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/talops/talops/internal/factory"
)

// FuzzAnswers feeds every factory answer talops decodes (the release list, a release's
// official extensions, a registered schematic's ID) any body and status a server could
// send: values or errors, never a panic; an ID is only ever one of 64 hex digits; an error
// stays bounded whatever the body held.
func FuzzAnswers(f *testing.F) {
	for _, seed := range []struct {
		status int
		body   string
	}{
		{200, `["v1.13.9","v1.14.0-rc.1"]`},
		{200, `[{"name":"siderolabs/nonfree-kmod-nvidia-lts","ref":"ghcr.io/siderolabs/nonfree-kmod-nvidia-lts:580.95.05-v1.13.9","digest":"sha256:00"}]`},
		{201, `{"id":"376567988ad370138ad8b2698212367b8edcb69b5fd68c80be1f2ec7d603b4ba"}`},
		{201, `{"id":"../../etc"}`},
		{200, `null`},
		{200, `[null]`},
		{400, `{"error":"invalid schematic"}`},
		{503, ``},
	} {
		f.Add(seed.status, []byte(seed.body))
	}

	var (
		mu     sync.Mutex
		status int
		body   []byte
	)

	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		mu.Lock()
		defer mu.Unlock()

		w.WriteHeader(status)
		w.Write(body) //nolint:errcheck // the client judges what it got
	}))
	f.Cleanup(srv.Close)

	c, err := factory.New(srv.URL, factory.WithRetries(0))
	if err != nil {
		f.Fatal(err)
	}

	s := gpuSchematic(f)

	f.Fuzz(func(t *testing.T, code int, answer []byte) {
		if code < 200 || code > 599 {
			code = 200 + (code%400+400)%400
		}

		mu.Lock()
		status, body = code, answer
		mu.Unlock()

		ctx := context.Background()

		_, versionsErr := c.Versions(ctx)
		_, extensionsErr := c.OfficialExtensions(ctx, "v1.13.9")
		id, registerErr := c.Register(ctx, s)

		if registerErr == nil && !isHexID(id) {
			t.Errorf("Register returned %q as a schematic ID", id)
		}

		for _, err := range []error{versionsErr, extensionsErr, registerErr} {
			if err != nil && len(err.Error()) > 16<<10 {
				t.Errorf("error of %d bytes", len(err.Error()))
			}
		}
	})
}

func isHexID(s string) bool {
	if len(s) != 64 {
		return false
	}

	for _, r := range s {
		if (r < '0' || r > '9') && (r < 'a' || r > 'f') {
			return false
		}
	}

	return true
}
