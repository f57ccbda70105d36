package contract_test

import (
	"strings"
	"testing"
	"time"

	"github.com/siderolabs/talos/pkg/machinery/config"
	"github.com/siderolabs/talos/pkg/machinery/config/generate"
	"github.com/siderolabs/talos/pkg/machinery/config/generate/secrets"
	"github.com/siderolabs/talos/pkg/machinery/config/machine"
	"github.com/siderolabs/talos/pkg/machinery/role"

	"github.com/talops/talops/internal/talos/contract"
	"github.com/talops/talops/internal/talos/talostest"
)

// The fake node passes the contract the real node passes (e2e/realtalos runs the same
// table against a real Talos v1.14.1 node).
func TestContract_FakeNode(t *testing.T) {
	bundle, err := secrets.NewBundle(secrets.NewFixedClock(time.Now()), config.TalosVersionCurrent)
	if err != nil {
		t.Fatal(err)
	}

	in, err := generate.NewInput("contract", "https://127.0.0.1:6443", strings.TrimPrefix("v1.36.4", "v"), generate.WithSecretsBundle(bundle))
	if err != nil {
		t.Fatal(err)
	}

	cfg, err := in.Config(machine.TypeControlPlane)
	if err != nil {
		t.Fatal(err)
	}

	data, err := cfg.EncodeBytes()
	if err != nil {
		t.Fatal(err)
	}

	ca := talostest.NewCA(t)
	s := talostest.Start(t, ca, talostest.Node{Name: "cp", Config: data, Version: "v1.14.1", Mode: "container"})

	contract.Run(t, contract.Target{
		Endpoint: s.Addr,
		Admin:    talostest.Talosconfig(t, "contract", ca.PEM, ca.ClientCert(t)),
		Reader:   talostest.Talosconfig(t, "contract", ca.PEM, ca.ClientCertRole(t, role.Reader)),
		Config:   data,
		Version:  "v1.14.1",
	})
}

// The maintenance-mode contract, against a fake node started without a config (the
// realtalos tests run it against a real node booted into maintenance mode).
func TestContract_FakeNodeInMaintenanceMode(t *testing.T) {
	bundle, err := secrets.NewBundle(secrets.NewFixedClock(time.Now()), config.TalosVersionCurrent)
	if err != nil {
		t.Fatal(err)
	}

	in, err := generate.NewInput("contract", "https://127.0.0.1:6443", "1.36.4", generate.WithSecretsBundle(bundle))
	if err != nil {
		t.Fatal(err)
	}

	cfg, err := in.Config(machine.TypeControlPlane)
	if err != nil {
		t.Fatal(err)
	}

	data, err := cfg.EncodeBytes()
	if err != nil {
		t.Fatal(err)
	}

	ca := talostest.NewCA(t)
	s := talostest.Start(t, ca, talostest.Node{Name: "new", Version: "v1.14.1", Mode: "container"})

	contract.RunMaintenance(t, contract.MaintenanceTarget{
		Endpoint: s.Addr,
		Admin:    talostest.Talosconfig(t, "contract", ca.PEM, ca.ClientCert(t)),
		Config:   data,
		Version:  "v1.14.1",
	})
}
