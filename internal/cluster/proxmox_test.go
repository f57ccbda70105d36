package cluster_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/talops/talops/internal/cluster"
)

const proxmoxSection = `proxmox:
  url: https://pve.lab:8006/api2/json
  storage: local
  caFile: pve-ca.pem
`

func withProxmox(section string) cluster.MapFiles {
	f := files(strings.Replace(minimal, "nodes:\n", section+"nodes:\n", 1))
	f["talops.yaml"] = []byte(strings.Replace(string(f["talops.yaml"]), "    role: worker\n", "    role: worker\n    proxmox: {node: pve, vmid: 201}\n", 1))
	f["pve-ca.pem"] = []byte("-----BEGIN CERTIFICATE-----\n")

	return f
}

func TestLoad_ProxmoxSectionLoadsWithItsCAFile(t *testing.T) {
	c, err := cluster.Load("lab", withProxmox(proxmoxSection))
	if err != nil {
		t.Fatal(err)
	}

	p := c.Spec.ProxmoxAPI
	if p == nil || p.URL != "https://pve.lab:8006/api2/json" || p.Storage != "local" || p.CAFile != "pve-ca.pem" {
		t.Fatalf("proxmox section = %+v", p)
	}

	if data, ok := c.File("pve-ca.pem"); !ok || len(data) == 0 {
		t.Error("the CA file was not read with the repository")
	}

	if err := c.RequireProxmox(); err != nil {
		t.Errorf("RequireProxmox: %v", err)
	}
}

func TestLoad_ProxmoxSectionErrorsNameFileLineAndField(t *testing.T) {
	for _, tc := range []struct {
		name    string
		section string
		want    string
	}{
		{"plain http", "proxmox:\n  url: http://pve.lab:8006/api2/json\n  storage: local\n",
			`lab/talops.yaml:11: proxmox.url: must be an https:// URL without credentials, such as https://pve.lab:8006/api2/json, got "http://pve.lab:8006/api2/json"`},
		{"no storage", "proxmox:\n  url: https://pve.lab:8006/api2/json\n",
			"lab/talops.yaml:10: proxmox.storage: is required"},
		{"bad storage", "proxmox:\n  url: https://pve.lab:8006/api2/json\n  storage: Local Disk\n",
			`lab/talops.yaml:12: proxmox.storage: "Local Disk" is not a Proxmox storage name`},
		{"insecure switch does not exist", "proxmox:\n  url: https://pve.lab:8006/api2/json\n  storage: local\n  insecureSkipVerify: true\n",
			"lab/talops.yaml:13: proxmox.insecureSkipVerify: unknown field"},
		{"token in the file does not exist", "proxmox:\n  url: https://pve.lab:8006/api2/json\n  storage: local\n  tokenSecret: x\n",
			"lab/talops.yaml:13: proxmox.tokenSecret: unknown field"},
		{"CA file outside the repository", "proxmox:\n  url: https://pve.lab:8006/api2/json\n  storage: local\n  caFile: ../ca.pem\n",
			`lab/talops.yaml:13: proxmox.caFile: "../ca.pem": path must stay inside the directory`},
		{"CA file missing", "proxmox:\n  url: https://pve.lab:8006/api2/json\n  storage: local\n  caFile: missing.pem\n",
			"lab/talops.yaml:13: proxmox.caFile: missing.pem: file not found"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := cluster.Load("lab", withProxmox(tc.section))

			var ie *cluster.InputError
			if !errors.As(err, &ie) {
				t.Fatalf("error %v is not an *InputError", err)
			}

			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error\n%s\ndoes not contain\n%s", err, tc.want)
			}
		})
	}
}

func TestRequireProxmox_NodesOnProxmoxNeedTheSection(t *testing.T) {
	// Without the section the repository still loads (validate and plan do not need
	// Proxmox); only the proxmox commands refuse it.
	c, err := cluster.Load("lab", withProxmox(""))
	if err != nil {
		t.Fatal(err)
	}

	err = c.RequireProxmox()
	if want := "lab/talops.yaml:18: nodes[1].proxmox: needs the top-level proxmox: section (url, storage)"; err == nil || err.Error() != want {
		t.Errorf("RequireProxmox = %v, want %s", err, want)
	}
}

func TestRequireProxmox_NoNodeOnProxmox(t *testing.T) {
	c, err := cluster.Load("lab", files(minimal))
	if err != nil {
		t.Fatal(err)
	}

	if err := c.RequireProxmox(); err == nil || !strings.Contains(err.Error(), "nodes: no node has a proxmox:") {
		t.Errorf("RequireProxmox = %v", err)
	}
}
