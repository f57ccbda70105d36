package proxmox

import (
	"testing"

	goprox "github.com/luthermonson/go-proxmox"
)

func TestUPIDNode_IsTheSecondFieldOfAWholeUPID(t *testing.T) {
	tests := []struct {
		name, upid, node string
		ok               bool
	}{
		{"a task of pve's", "UPID:pve:00001001:00002001:6950F201:qmstart:101:talops@pve!ci:", "pve", true},
		{"a node name with a dash", "UPID:pve-2:0000A1B2:0012C3D4:6950F201:download:talos.iso:root@pam:", "pve-2", true},
		{"too few fields", "UPID:pve:00001001:00002001:6950F201:qmstart:101", "", false},
		{"no UPID prefix", "TASK:pve:00001001:00002001:6950F201:qmstart:101:root@pam:", "", false},
		{"no node", "UPID::00001001:00002001:6950F201:qmstart:101:root@pam:", "", false},
		{"not a UPID", "OK", "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			node, ok := upidNode(goprox.UPID(tt.upid))
			if node != tt.node || ok != tt.ok {
				t.Fatalf("upidNode(%q) = %q, %v; want %q, %v", tt.upid, node, ok, tt.node, tt.ok)
			}
		})
	}
}
