//go:build talosctl

package talostest_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/siderolabs/talos/pkg/machinery/role"

	"github.com/talops/talops/internal/talos/talostest"
)

// talosctl runs the real talosctl ($TALOSCTL, built by .ci/talosctl) against the node at
// addr with a talosconfig of these roles. With the tag and no talosctl the test fails.
func talosctl(t *testing.T, ca *talostest.CA, r role.Role, addr string, args ...string) (string, error) {
	t.Helper()

	bin := os.Getenv("TALOSCTL")
	if bin == "" {
		t.Fatal("TALOSCTL is not set: build talosctl with .ci/talosctl -o FILE")
	}

	dir := t.TempDir()
	cfg := filepath.Join(dir, "talosconfig")

	if err := os.WriteFile(cfg, talostest.TalosconfigBytes(t, talostest.Talosconfig(t, "fake", ca.PEM, ca.ClientCertRole(t, r), addr)), 0o600); err != nil {
		t.Fatal(err)
	}

	cmd := exec.Command(bin, append([]string{"--talosconfig", cfg, "--nodes", addr}, args...)...)
	cmd.Env = []string{"HOME=" + dir, "PATH=/usr/bin:/bin"}
	out, err := cmd.CombinedOutput()

	return string(out), err
}

func TestTalosctl_GetMachineConfigShowsTheRunningConfig(t *testing.T) {
	ca := talostest.NewCA(t)
	s := talostest.Start(t, ca, talostest.Node{Name: "w1", Config: []byte(baseConfig), Version: "v1.14.1"})

	out, err := talosctl(t, ca, role.Admin, s.Addr, "get", "machineconfig")
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}

	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 2 || strings.Join(strings.Fields(lines[0]), " ") != "NODE NAMESPACE TYPE ID VERSION" ||
		!strings.HasPrefix(strings.Join(strings.Fields(lines[1]), " "), s.Addr+" config MachineConfig v1alpha1 ") {
		t.Errorf("talosctl get machineconfig:\n%s", out)
	}

	out, err = talosctl(t, ca, role.Admin, s.Addr, "get", "machineconfig", "-o", "yaml")
	if err != nil || !strings.Contains(out, "token: fake-machine-token") || !strings.Contains(out, "clusterName: fake") {
		t.Errorf("talosctl get machineconfig -o yaml: %v\n%s", err, out)
	}

	out, err = talosctl(t, ca, role.Admin, s.Addr, "get", "members")
	if err != nil || !strings.Contains(out, "w1") || !strings.Contains(out, "worker") {
		t.Errorf("talosctl get members: %v\n%s", err, out)
	}
}

func TestTalosctl_AReaderCannotGetTheMachineConfig(t *testing.T) {
	ca := talostest.NewCA(t)
	s := talostest.Start(t, ca, talostest.Node{Name: "w1", Config: []byte(baseConfig), Version: "v1.14.1"})

	out, err := talosctl(t, ca, role.Reader, s.Addr, "get", "machineconfig")
	if err == nil || !strings.Contains(out, "code = PermissionDenied desc = not authorized") {
		t.Errorf("talosctl get machineconfig as os:reader: %v\n%s", err, out)
	}

	if out, err := talosctl(t, ca, role.Reader, s.Addr, "get", "machinestatus"); err != nil || !strings.Contains(out, "MachineStatus") {
		t.Errorf("talosctl get machinestatus as os:reader: %v\n%s", err, out)
	}
}

func TestTalosctl_ApplyConfigDryRunPrintsTheNodesVerdict(t *testing.T) {
	tests := []struct {
		version string
		want    string
	}{
		{version: "v1.14.1", want: "Dry run summary:\nApplied configuration without a reboot (skipped in dry-run).\nConfig diff:\n\n"},
		{version: "v1.13.9", want: "Dry run summary:\nApplied configuration with a reboot (skipped in dry-run).\nConfig diff:\n\n"},
	}

	for _, tt := range tests {
		t.Run(tt.version, func(t *testing.T) {
			ca := talostest.NewCA(t)
			s := talostest.Start(t, ca, talostest.Node{Name: "w1", Config: []byte(baseConfig), Version: tt.version})

			file := filepath.Join(t.TempDir(), "worker.yaml")
			if err := os.WriteFile(file, envChange, 0o600); err != nil {
				t.Fatal(err)
			}

			out, err := talosctl(t, ca, role.Admin, s.Addr, "apply-config", "--dry-run", "-f", file)
			if err != nil || !strings.Contains(out, tt.want) || !strings.Contains(out, "+        HTTP_PROXY: http://proxy:3128") {
				t.Errorf("%v\n%s", err, out)
			}

			if len(s.Applied()) != 0 || s.DryRuns() != 1 || s.Boots() != 0 {
				t.Errorf("applied %d, dry runs %d, boots %d", len(s.Applied()), s.DryRuns(), s.Boots())
			}
		})
	}
}
