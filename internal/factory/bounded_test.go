package factory_test

import (
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/talops/talops/internal/factory"
	"github.com/talops/talops/internal/httpcap/httpcaptest"
)

// The factory's client reads at most 8 MiB of an answer, as the Proxmox and GitHub clients
// read at most theirs: an endless /versions fails at the cap, not at a timeout, and holds
// no more than the cap in memory.
func TestClient_AnEndlessAnswerFailsAtTheCapWithBoundedMemory(t *testing.T) {
	srv := httptest.NewServer(httpcaptest.Endless(`["v1.13.0", "`))
	defer srv.Close()

	c, err := factory.New(srv.URL, factory.WithRetries(0))
	if err != nil {
		t.Fatal(err)
	}

	var callErr error

	start := time.Now()
	got := httpcaptest.Allocated(func() { _, callErr = c.Versions(t.Context()) })

	if callErr == nil || !strings.Contains(callErr.Error(), "is larger than 8388608 bytes") {
		t.Errorf("err = %v, want the answer refused at the cap", callErr)
	}

	if took := time.Since(start); took > 20*time.Second {
		t.Errorf("took %s: the cap, not a timeout, must end it", took)
	}

	if got > 64<<20 {
		t.Errorf("allocated %d MiB reading a capped answer", got>>20)
	}
}
