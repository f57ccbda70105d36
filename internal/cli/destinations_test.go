package cli_test

import (
	"strings"
	"testing"

	"github.com/talops/talops/internal/testlab"
)

// A change of where credentials go is a warning in the plan a reviewer reads: the Proxmox
// URL and CA the token is sent to at merge time, and the Image Factory.
func TestPlan_ChangedCredentialDestinationsAreWarnings(t *testing.T) {
	t.Parallel()

	section := "proxmox:\n  url: https://pve.lab:8006/api2/json\n  storage: local\nnodes:\n"

	base := testlab.Files(t)
	testlab.Edit(t, base, "talops.yaml", "nodes:\n", section)

	head := testlab.Files(t)
	testlab.Edit(t, head, "talops.yaml", "nodes:\n", strings.Replace(section, "pve.lab", "pve.evil.example", 1))
	testlab.Edit(t, head, "talops.yaml", "platform: nocloud\n", "platform: nocloud\nimageFactory: https://factory.evil.example\n")

	h := newHarness(t, head, nil)
	h.dirs["base"] = base
	_ = h.run("plan", "--dir", "examples/homelab", "--against", "base", "--offline", "--format", "markdown")

	out := h.stdout.String()
	for _, want := range []string{
		"proxmox.url https://pve.lab:8006/api2/json → https://pve.evil.example:8006/api2/json: at merge time the Proxmox token (PROXMOX_TOKEN_ID, PROXMOX_TOKEN_SECRET) is sent to https://pve.evil.example:8006/api2/json",
		"imageFactory https://factory.talos.dev → https://factory.evil.example",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the plan does not say %q:\n%s", want, out)
		}
	}

	if strings.Count(out, "credentials.destination-changed") != 2 {
		t.Errorf("want two credentials.destination-changed warnings:\n%s", out)
	}
}
