package contract

import (
	"context"
	"strings"
	"testing"
	"time"

	clientconfig "github.com/siderolabs/talos/pkg/machinery/client/config"

	"github.com/talops/talops/internal/talos"
)

// MaintenanceTarget is a Talos v1.14 node booted without a config: it waits in
// maintenance mode for its first one.
type MaintenanceTarget struct {
	// Endpoint is host:port of its Talos API.
	Endpoint string
	// Admin is a talosconfig with an os:admin certificate of the CA Config makes the node
	// trust, naming no endpoints.
	Admin *clientconfig.Config
	// Config is the config it is sent (a control plane's); Version the Talos version it
	// booted.
	Config  []byte
	Version string
}

// RunMaintenance runs the maintenance-mode scenarios against the target, in order: the
// last one configures the node.
func RunMaintenance(t *testing.T, tg MaintenanceTarget) {
	t.Helper()

	for _, sc := range maintenanceScenarios {
		t.Run(sc.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
			defer cancel()

			sc.run(ctx, t, tg)
		})
	}
}

var maintenanceScenarios = []struct {
	name string
	run  func(context.Context, *testing.T, MaintenanceTarget)
}{
	{"ANodeInMaintenanceModeIsReadAsSuch", readInMaintenance},
	{"MTLSGetsNoAnswerInMaintenanceMode", noMTLSInMaintenance},
	{"ADryRunOverTheMaintenanceAPIKeepsItWaiting", maintenanceDryRun},
	{"OnceConfiguredItAnswersOverMTLSAndRefusesInsecureClients", configureFromMaintenance},
}

func maintenanceDialer(t *testing.T, tg MaintenanceTarget) *talos.ClientDialer {
	t.Helper()

	d, err := talos.NewDialer(talos.Options{Talosconfig: tg.Admin, Endpoint: func(string) string { return tg.Endpoint }})
	if err != nil {
		t.Fatal(err)
	}

	return d
}

func readInMaintenance(ctx context.Context, t *testing.T, tg MaintenanceTarget) {
	res := talos.ReadAll(ctx, maintenanceDialer(t, tg), []talos.Target{{Name: "new", Address: "node"}}, time.Minute)

	if r := res[0]; r.Err != nil || !r.Value.Maintenance || r.Value.Version != tg.Version || r.Value.Config != nil {
		t.Errorf("read: %+v; want a node in maintenance mode on %s", r, tg.Version)
	}
}

func noMTLSInMaintenance(ctx context.Context, t *testing.T, tg MaintenanceTarget) {
	n, err := maintenanceDialer(t, tg).Dial(ctx, "node")
	if err != nil {
		return // refused at once: no answer either
	}
	defer n.Close() //nolint:errcheck // the test is done with it

	cctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()

	if v, err := n.Version(cctx); err == nil {
		t.Errorf("a node in maintenance mode answered over mTLS: %s", v)
	}
}

func maintenanceDryRun(ctx context.Context, t *testing.T, tg MaintenanceTarget) {
	m, err := maintenanceDialer(t, tg).DialMaintenance(ctx, "node")
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close() //nolint:errcheck // the test is done with it

	a, err := m.Apply(ctx, tg.Config, true)
	if err != nil || !strings.HasPrefix(a.Details, "Dry run summary:") {
		t.Fatalf("dry run over the maintenance API: %+v, %v", a, err)
	}

	if st, err := m.Status(ctx); err != nil || st.Stage != talos.StageMaintenance {
		t.Errorf("after a dry run: %+v, %v; want stage maintenance", st, err)
	}
}

func configureFromMaintenance(ctx context.Context, t *testing.T, tg MaintenanceTarget) {
	d := maintenanceDialer(t, tg)

	m, err := d.DialMaintenance(ctx, "node")
	if err != nil {
		t.Fatal(err)
	}

	a, err := m.Apply(ctx, tg.Config, false)
	m.Close() //nolint:errcheck // the test is done with it

	if err != nil || a.Mode != "NO_REBOOT" {
		t.Fatalf("first config over the maintenance API: %+v, %v", a, err)
	}

	for {
		if running, err := mtlsConfig(ctx, d); err == nil {
			if !same(t, running, tg.Config) {
				t.Fatal("the node answers over mTLS with another config than the one it was sent")
			}

			break
		}

		select {
		case <-ctx.Done():
			t.Fatal("the node did not answer over mTLS after its first config")
		case <-time.After(500 * time.Millisecond):
		}
	}

	insecure, err := d.DialMaintenance(ctx, "node")
	if err != nil {
		return // refused at once
	}
	defer insecure.Close() //nolint:errcheck // the test is done with it

	cctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()

	if _, err := insecure.Apply(cctx, tg.Config, true); err == nil {
		t.Error("a configured node took a config from a client without a certificate")
	}

	if st, err := insecure.Status(cctx); err == nil {
		t.Errorf("a configured node answered a client without a certificate: %+v", st)
	}
}

// mtlsConfig reads the running config over mTLS.
func mtlsConfig(ctx context.Context, d talos.Dialer) ([]byte, error) {
	cctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()

	n, err := d.Dial(cctx, "node")
	if err != nil {
		return nil, err
	}
	defer n.Close() //nolint:errcheck // the test is done with it

	return n.MachineConfig(cctx)
}
