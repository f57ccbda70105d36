package cluster_test

import (
	"strings"
	"testing"

	"github.com/talops/talops/internal/cluster"
)

func TestLoad_ApplySectionDeclaresEveryOption(t *testing.T) {
	c, err := cluster.Load("lab", files(minimal+"apply:\n  allowRemove: true\n  drain: false\n  lock: false\n  ignoreWindow: true\n  etcdBackup: false\n  mode: staged\n  proxmoxVMs: true\n  proxmoxReset: true\n"))
	if err != nil {
		t.Fatal(err)
	}

	a := c.Spec.Apply
	if !a.AllowRemove || !a.NoDrain() || !a.NoLock() || !a.IgnoreWindow || !a.NoEtcdBackup() || a.Mode != "staged" || !a.ProxmoxVMs || !a.ProxmoxReset {
		t.Errorf("apply section read as %+v", a)
	}
}

func TestLoad_NoApplySectionKeepsEveryDefault(t *testing.T) {
	c, err := cluster.Load("lab", files(minimal+"apply:\n  drain: true\n"))
	if err != nil {
		t.Fatal(err)
	}

	var none *cluster.ApplyOptions
	if a := c.Spec.Apply; a.NoDrain() || a.NoLock() || a.NoEtcdBackup() || none.NoDrain() || none.NoLock() || none.NoEtcdBackup() {
		t.Errorf("drain: true, or no section, turns a default off: %+v", a)
	}
}

func TestLoad_ApplySectionProblemsArePlacedAtTheirLine(t *testing.T) {
	for _, tc := range []struct {
		name, section, want string
	}{
		{"unknown mode", "apply:\n  mode: fast\n", `lab/talops.yaml:20: apply.mode: "fast" is not an apply mode: use auto, no-reboot, staged, try`},
		{"typo in a key", "apply:\n  drian: false\n", "lab/talops.yaml:20: apply.drian: unknown field"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := cluster.Load("lab", files(minimal+tc.section))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error\n%v\ndoes not contain\n%s", err, tc.want)
			}
		})
	}
}
