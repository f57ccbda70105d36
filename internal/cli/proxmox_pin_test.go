package cli_test

import (
	"strings"
	"testing"

	"github.com/talops/talops/internal/cli"
	"github.com/talops/talops/internal/proxmox/proxmoxtest"
)

// PROXMOX_URL pins where the token may go: a talops.yaml naming another API is refused
// before any request, so a change to the repository cannot send the token elsewhere.
func TestProxmox_TheTokenGoesOnlyWherePROXMOX_URLPinsIt(t *testing.T) {
	t.Parallel()

	srv := proxmoxtest.New(t, pveToken)
	files := proxmoxLab(t, srv)

	h := proxmoxHarness(t, files, pveToken)
	h.deps.Getenv = func(k string) string {
		switch k {
		case "PROXMOX_URL":
			return "https://pve.lab:8006/api2/json"
		case cli.EnvProxmoxTokenID:
			return pveToken.ID
		case cli.EnvProxmoxTokenSecret:
			return pveToken.Secret
		}

		return ""
	}

	err := h.run("proxmox", "vms", "--dir", "examples/homelab")
	if cli.ExitCode(err) != cli.ExitFailure || !strings.Contains(err.Error(), "proxmox.url: "+srv.URL()+" is not https://pve.lab:8006/api2/json, the API PROXMOX_URL pins the token to: the token is not sent") {
		t.Errorf("a proxmox.url other than PROXMOX_URL: exit %d, %v", cli.ExitCode(err), err)
	}

	if n := len(srv.Requests()); n != 0 {
		t.Errorf("%d requests reached Proxmox", n)
	}
}

// The token is present but nothing pins where it may go: talops.yaml, which a merged pull
// request may have changed, does not decide alone; no request is made.
func TestProxmox_ATokenWithoutPROXMOX_URLIsNotSent(t *testing.T) {
	t.Parallel()

	srv := proxmoxtest.New(t, pveToken)

	h := proxmoxHarness(t, proxmoxLab(t, srv), pveToken)
	h.deps.Getenv = func(k string) string {
		switch k {
		case cli.EnvProxmoxTokenID:
			return pveToken.ID
		case cli.EnvProxmoxTokenSecret:
			return pveToken.Secret
		}

		return ""
	}

	err := h.run("proxmox", "vms", "--dir", "examples/homelab")
	if cli.ExitCode(err) != cli.ExitFailure || !strings.Contains(err.Error(), "PROXMOX_URL must name the Proxmox API the token may be sent to") {
		t.Errorf("a token without PROXMOX_URL: exit %d, %v", cli.ExitCode(err), err)
	}

	if n := len(srv.Requests()); n != 0 {
		t.Errorf("%d requests reached Proxmox", n)
	}
}
