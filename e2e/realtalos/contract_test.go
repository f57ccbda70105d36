//go:build realtalos

package realtalos

import (
	"testing"

	clientconfig "github.com/siderolabs/talos/pkg/machinery/client/config"

	"github.com/talops/talops/internal/talos/contract"
)

// The contract the fake node of talostest passes in every go test, against the real node.
func TestContract_RealNode(t *testing.T) {
	t.Parallel()

	l := newLab(t, newAddress())
	n := l.boot(t, true)

	open := func(path string) *clientconfig.Config {
		cfg, err := clientconfig.Open(path)
		if err != nil {
			t.Fatal(err)
		}

		return cfg
	}

	contract.Run(t, contract.Target{Endpoint: n.endpoint(), Admin: open(l.admin), Reader: open(l.reader), Config: l.booted, Version: talosVersion})
}

// The maintenance-mode contract the fake node passes, against a real node booted without
// a config: it is read as waiting, answers nothing over mTLS, takes a dry run and then its
// first config, and from then on refuses clients without a certificate.
func TestContract_RealNodeInMaintenanceMode(t *testing.T) {
	t.Parallel()

	l := newLab(t, newAddress())
	n := startMaintenance(t, nodeName(t), l.address)

	admin, err := clientconfig.Open(l.admin)
	if err != nil {
		t.Fatal(err)
	}

	contract.RunMaintenance(t, contract.MaintenanceTarget{Endpoint: n.endpoint(), Admin: admin, Config: l.rendered(t), Version: talosVersion})
}
