package github_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/talops/talops/internal/github"
)

// GitHub's client peaked at 516 MB reading an endless answer: it fails at the cap now.
func TestClient_AnEndlessAnswerFailsAtTheCapWithBoundedMemory(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `[{"id": 1, "body": "`)

		chunk := []byte(strings.Repeat("a", 64<<10))

		for r.Context().Err() == nil {
			if _, err := w.Write(chunk); err != nil {
				return
			}
		}
	}))
	defer srv.Close()

	c, err := github.New(&http.Client{Timeout: 30 * time.Second}, srv.URL, "token")
	if err != nil {
		t.Fatal(err)
	}

	var (
		before, after runtime.MemStats
		callErr       error
	)

	start := time.Now()

	runtime.GC()
	runtime.ReadMemStats(&before)
	_, callErr = c.ListComments(context.Background(), github.PR{Owner: "lab", Repo: "infra", Number: 7})
	runtime.ReadMemStats(&after)

	if callErr == nil || !strings.Contains(callErr.Error(), "is larger than 33554432 bytes") {
		t.Errorf("err = %v, want the answer refused at the cap", callErr)
	}

	if took := time.Since(start); took > 20*time.Second {
		t.Errorf("took %s: the cap, not the timeout, must end it", took)
	}

	if got := after.TotalAlloc - before.TotalAlloc; got > 256<<20 {
		t.Errorf("allocated %d MiB reading a capped answer", got>>20)
	} else {
		t.Logf("allocated %d MiB", got>>20)
	}
}
