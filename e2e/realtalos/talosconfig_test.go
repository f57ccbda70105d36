//go:build realtalos

package realtalos

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// talops talosconfig issues, from the repository's bundle, a client certificate the real
// node (configured from the same bundle) accepts, with the role asked for.
func TestTalosconfig_AuthenticatesAgainstTheNodeOfItsBundle(t *testing.T) {
	t.Parallel()

	l := newLab(t, newAddress())
	n := l.boot(t, false)

	admin := filepath.Join(t.TempDir(), "talosconfig")
	if r := l.talops(t, "talosconfig", "--out", admin); r.code != 0 {
		t.Fatalf("talosconfig: exit %d: %s", r.code, r.stderr)
	}

	if action, reasons, diff := l.planLive(t, admin); action != "noop" {
		t.Errorf("plan --live with talops' own talosconfig: %s %v\n%s", action, reasons, diff)
	}

	reader := filepath.Join(t.TempDir(), "talosconfig-reader")
	if r := l.talops(t, "talosconfig", "--out", reader, "--role", "os:reader"); r.code != 0 {
		t.Fatalf("talosconfig --role os:reader: exit %d: %s", r.code, r.stderr)
	}

	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()

	if _, err := apiClient(t, n, reader).Version(ctx); err != nil {
		t.Errorf("the node refuses the os:reader certificate talops issued: %v", err)
	}

	if r := l.talops(t, "plan", "--live", "--offline", "--talosconfig", reader); r.code == 0 || !strings.Contains(r.stderr, "needs os:admin") {
		t.Errorf("plan --live with the os:reader talosconfig: exit %d, %s", r.code, r.stderr)
	}
}
