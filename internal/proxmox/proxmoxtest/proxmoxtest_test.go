package proxmoxtest_test

import (
	"crypto/tls"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/talops/talops/internal/proxmox/proxmoxtest"
)

// recorder is a T that keeps the failures instead of failing.
type recorder struct {
	*testing.T
	errors []string
}

func (r *recorder) Errorf(format string, args ...any) {
	r.errors = append(r.errors, fmt.Sprintf(format, args...))
}

var token = proxmoxtest.Token{ID: "talops@pve!ci", Secret: "s3cr3t"}

func do(t *testing.T, srv *proxmoxtest.Server, method, path, auth string) *http.Response {
	t.Helper()

	req, err := http.NewRequest(method, srv.URL()+path, strings.NewReader(""))
	if err != nil {
		t.Fatal(err)
	}

	if auth != "" {
		req.Header.Set("Authorization", auth)
	}

	res, err := (&http.Client{Transport: &http.Transport{TLSClientConfig: tlsConfig(srv)}}).Do(req)
	if err != nil {
		t.Fatal(err)
	}

	res.Body.Close() //nolint:errcheck // the test is done with it

	return res
}

func TestServer_UnexpectedCallFailsTheTest(t *testing.T) {
	r := &recorder{T: t}
	srv := proxmoxtest.New(r, token)

	res := do(t, srv, http.MethodDelete, "/nodes/pve/storage/local/content/local:iso/x.iso", "PVEAPIToken=talops@pve!ci=s3cr3t")

	if res.StatusCode != http.StatusNotImplemented || len(r.errors) != 1 || !strings.Contains(r.errors[0], "unexpected call DELETE /api2/json/nodes/pve/storage/local/content/local:iso/x.iso") {
		t.Errorf("status %d, failures %q", res.StatusCode, r.errors)
	}
}

func TestServer_WrongTokenIsUnauthorized(t *testing.T) {
	r := &recorder{T: t}
	srv := proxmoxtest.New(r, token)

	for _, auth := range []string{"", "PVEAPIToken=talops@pve!ci=other", "PVEAuthCookie=x"} {
		if res := do(t, srv, http.MethodGet, "/nodes/pve/qemu", auth); res.StatusCode != http.StatusUnauthorized {
			t.Errorf("auth %q: status %d, want 401", auth, res.StatusCode)
		}
	}

	if res := do(t, srv, http.MethodGet, "/nodes/pve/qemu", "PVEAPIToken=talops@pve!ci=s3cr3t"); res.StatusCode != http.StatusOK {
		t.Errorf("right token: status %d", res.StatusCode)
	}
}

func TestServer_StartingARunningVMFailsTheTest(t *testing.T) {
	r := &recorder{T: t}
	srv := proxmoxtest.New(r, token)
	srv.AddVM("pve", 200, "cp", "running")

	do(t, srv, http.MethodPost, "/nodes/pve/qemu/200/status/start", "PVEAPIToken=talops@pve!ci=s3cr3t")

	if len(r.errors) != 1 || !strings.Contains(r.errors[0], "already running") {
		t.Errorf("failures %q", r.errors)
	}
}

func tlsConfig(srv *proxmoxtest.Server) *tls.Config {
	return &tls.Config{RootCAs: srv.CertPool(), MinVersion: tls.VersionTLS12}
}
