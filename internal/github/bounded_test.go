package github_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/talops/talops/internal/github"
	"github.com/talops/talops/internal/httpcap/httpcaptest"
)

// GitHub's client peaked at 516 MB reading an endless answer: it fails at the cap now.
func TestClient_AnEndlessAnswerFailsAtTheCapWithBoundedMemory(t *testing.T) {
	srv := httptest.NewServer(httpcaptest.Endless(`[{"id": 1, "body": "`))
	defer srv.Close()

	c, err := github.New(&http.Client{Timeout: 30 * time.Second}, srv.URL, "token")
	if err != nil {
		t.Fatal(err)
	}

	var callErr error

	start := time.Now()
	got := httpcaptest.Allocated(func() {
		_, callErr = c.ListComments(context.Background(), github.PR{Owner: "lab", Repo: "infra", Number: 7})
	})

	if callErr == nil || !strings.Contains(callErr.Error(), "is larger than 33554432 bytes") {
		t.Errorf("err = %v, want the answer refused at the cap", callErr)
	}

	if took := time.Since(start); took > 20*time.Second {
		t.Errorf("took %s: the cap, not the timeout, must end it", took)
	}

	if got > 256<<20 {
		t.Errorf("allocated %d MiB reading a capped answer", got>>20)
	} else {
		t.Logf("allocated %d MiB", got>>20)
	}
}
