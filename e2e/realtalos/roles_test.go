//go:build realtalos

package realtalos

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/cosi-project/runtime/pkg/safe"
	"github.com/siderolabs/talos/pkg/machinery/client"
	clientconfig "github.com/siderolabs/talos/pkg/machinery/client/config"
	"github.com/siderolabs/talos/pkg/machinery/resources/config"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// apiClient is machinery's own client for the node, authenticated by talosconfig.
func apiClient(t *testing.T, n node, talosconfig string) *client.Client {
	t.Helper()

	cfg, err := clientconfig.Open(talosconfig)
	if err != nil {
		t.Fatal(err)
	}

	c, err := client.New(context.Background(), client.WithConfig(cfg), client.WithEndpoints(n.endpoint()))
	if err != nil {
		t.Fatal(err)
	}

	t.Cleanup(func() { c.Close() }) //nolint:errcheck // the test is done with it

	return c
}

func TestReaderTalosconfig_RefusedUpFrontAndTheNodeAgrees(t *testing.T) {
	t.Parallel()

	l := newLab(t, newAddress())
	n := l.boot(t, false)

	for _, args := range [][]string{
		{"plan", "--live", "--offline", "--talosconfig", l.reader},
		{"apply", "--talosconfig", l.reader},
	} {
		r := l.talops(t, args...)
		if r.code == 0 || !strings.Contains(r.stderr, "os:reader") || !strings.Contains(r.stderr, "needs os:admin") {
			t.Errorf("talops %s with an os:reader talosconfig: exit %d, stderr %q; want a refusal naming os:reader and os:admin", args[0], r.code, r.stderr)
		}

		if lines := strings.Count(strings.TrimSpace(r.stderr), "\n"); lines != 0 {
			t.Errorf("talops %s: the refusal takes %d lines, want one: %q", args[0], lines+1, r.stderr)
		}
	}

	// The real node: Version is open to os:reader, the running config and ApplyConfiguration
	// are not, which is why talops refuses before its first call.
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()

	reader := apiClient(t, n, l.reader)

	if _, err := reader.Version(ctx); err != nil {
		t.Fatalf("os:reader Version: %v", err)
	}

	if _, err := safe.StateGetByID[*config.MachineConfig](ctx, reader.COSI, config.ActiveID); status.Code(err) != codes.PermissionDenied {
		t.Errorf("os:reader reading the MachineConfig resource: %v, want PermissionDenied", err)
	}

	if _, err := reader.ApplyConfiguration(ctx, nil); status.Code(err) != codes.PermissionDenied {
		t.Errorf("os:reader ApplyConfiguration: %v, want PermissionDenied", err)
	}

	// Nothing changed: the node still runs its render.
	if action, reasons, _ := l.planLive(t, l.admin); action != "noop" {
		t.Errorf("after the refusals the node plans %s %v, want noop", action, reasons)
	}
}
