package httpcap_test

import (
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/talops/talops/internal/httpcap"
)

func TestTransport_ABodyPastTheLimitFailsAndOneAtTheLimitReadsWhole(t *testing.T) {
	t.Parallel()

	for _, tc := range []struct {
		name    string
		size    int
		tooLong bool
	}{
		{"under the limit", 99, false},
		{"exactly the limit", 100, false},
		{"one byte past it", 101, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
				_, _ = io.WriteString(w, strings.Repeat("x", tc.size))
			}))
			defer srv.Close()

			c := &http.Client{Transport: httpcap.Transport{Limit: 100}}

			resp, err := c.Get(srv.URL + "/api")
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close() //nolint:errcheck // read-only

			data, err := io.ReadAll(resp.Body)

			var tooLarge *httpcap.TooLargeError
			if got := errors.As(err, &tooLarge); got != tc.tooLong {
				t.Fatalf("read %d bytes, err %v; want too large: %t", len(data), err, tc.tooLong)
			}

			if !tc.tooLong && len(data) != tc.size {
				t.Errorf("read %d bytes of %d", len(data), tc.size)
			}

			if tc.tooLong && (len(data) != 100 || !strings.Contains(err.Error(), "response of GET "+srv.URL+"/api is larger than 100 bytes")) {
				t.Errorf("read %d bytes, err %v", len(data), err)
			}
		})
	}
}
