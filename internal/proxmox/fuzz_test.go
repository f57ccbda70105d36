package proxmox_test

import (
	"context"
	"encoding/pem"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/talops/talops/internal/proxmox"
)

// FuzzAnswers feeds the Proxmox reads talops makes (storage, its content, the VM list)
// any answer a server could give: they return values or errors, never panic, and an
// error stays one bounded message whatever the body held.
func FuzzAnswers(f *testing.F) {
	for _, seed := range []struct {
		status int
		body   string
	}{
		{200, `{"data":{"content":"iso,vztmpl","storage":"local","type":"dir"}}`},
		{200, `{"data":[{"volid":"local:iso/talos-v1.13.9.iso","format":"iso","size":104857600}]}`},
		{200, `{"data":[{"vmid":101,"name":"k8s-master","status":"running","qmpstatus":"paused"}]}`},
		{200, `{"data":null}`},
		{500, `{"data":null,"errors":{"vmid":"invalid format"}}`},
		{595, ``},
		{200, `{"data":[{"vmid":"101"}]}`},
		{200, `{"data":{"cores":8,"net0":"virtio=BC:24:11:00:00:01,bridge=vmbr0","hostpci0":null,"tags":["a"]}}`},
	} {
		f.Add(seed.status, []byte(seed.body))
	}

	var (
		mu     sync.Mutex
		status int
		body   []byte
	)

	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		mu.Lock()
		defer mu.Unlock()

		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		w.Write(body) //nolint:errcheck // the client judges what it got
	}))
	f.Cleanup(srv.Close)

	ca := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw})

	c, err := proxmox.New(proxmox.Config{
		URL: srv.URL + "/api2/json", TokenID: "root@pam!talops", TokenSecret: "fuzz-token-secret", CAPEM: ca,
		RequestTimeout: 5 * time.Second, TaskTimeout: time.Second, PollInterval: time.Millisecond,
	})
	if err != nil {
		f.Fatal(err)
	}

	f.Fuzz(func(t *testing.T, code int, answer []byte) {
		if code < 200 || code > 599 {
			code = 200 + (code%400+400)%400
		}

		mu.Lock()
		status, body = code, answer
		mu.Unlock()

		ctx := context.Background()

		_, isoErr := c.ISOs(ctx, "pve1", "local")
		_, vmErr := c.VM(ctx, "pve1", 101)
		_, configErr := c.VMConfig(ctx, "pve1", 101)

		for _, err := range []error{isoErr, vmErr, configErr} {
			if err == nil {
				continue
			}

			if msg := err.Error(); len(msg) > 80<<10 {
				t.Errorf("error of %d bytes", len(msg))
			} else if strings.Contains(msg, "fuzz-token-secret") {
				t.Errorf("error quotes the token: %s", msg)
			}
		}
	})
}
