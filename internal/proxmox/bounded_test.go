package proxmox_test

import (
	"context"
	"encoding/pem"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/talops/talops/internal/httpcap/httpcaptest"
	"github.com/talops/talops/internal/proxmox"
)

// The red team's streaming Proxmox drove talops to 1.27 GB before the request's timeout.
func TestClient_AnEndlessAnswerFailsAtTheCapWithBoundedMemory(t *testing.T) {
	srv := httptest.NewTLSServer(httpcaptest.Endless(`{"data":{"status":"`))
	defer srv.Close()

	c, err := proxmox.New(proxmox.Config{
		URL: srv.URL + "/api2/json", TokenID: token.ID, TokenSecret: token.Secret,
		CAPEM:          pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw}),
		RequestTimeout: 20 * time.Second, PollInterval: time.Millisecond,
	})
	if err != nil {
		t.Fatal(err)
	}

	var callErr error

	start := time.Now()
	bytes := httpcaptest.Allocated(func() { _, callErr = c.VM(context.Background(), "pve", 100) })

	if callErr == nil || !strings.Contains(callErr.Error(), "is larger than 16777216 bytes") {
		t.Errorf("err = %v, want the answer refused at the cap", callErr)
	}

	if took := time.Since(start); took > 10*time.Second {
		t.Errorf("took %s: the cap, not the timeout, must end it", took)
	}

	if bytes > 256<<20 {
		t.Errorf("allocated %d MiB reading a capped answer", bytes>>20)
	}

	t.Logf("allocated %d MiB", bytes>>20)
}
