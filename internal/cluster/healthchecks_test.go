package cluster_test

import (
	"strings"
	"testing"
	"time"

	"github.com/talops/talops/internal/cluster"
)

const cephCheck = "healthChecks:\n  - name: ceph\n    apiVersion: ceph.rook.io/v1\n    kind: CephCluster\n    namespace: rook-ceph\n    objectName: rook-ceph\n    expr: object.status.ceph.health == \"HEALTH_OK\"\n    timeout: 10m\n"

func TestHealthChecks_AreCompiledWithTheirTimeouts(t *testing.T) {
	c, err := cluster.Load("lab", files(minimal+cephCheck+"  - name: longhorn\n    apiVersion: longhorn.io/v1beta2\n    kind: Volume\n    namespace: longhorn-system\n    expr: object.status.robustness == \"healthy\"\n"))
	if err != nil {
		t.Fatal(err)
	}

	checks, err := c.HealthChecks()
	if err != nil {
		t.Fatal(err)
	}

	if len(checks) != 2 || checks[0].Timeout != 10*time.Minute || checks[1].Timeout != cluster.DefaultHealthTimeout {
		t.Fatalf("checks %+v", checks)
	}

	if got := checks[0].Objects() + "; " + checks[1].Objects(); got != "CephCluster rook-ceph/rook-ceph; every Volume in longhorn-system" {
		t.Errorf("objects %q", got)
	}
}

func TestHealthChecks_ProblemsArePlacedAtTheirLine(t *testing.T) {
	for _, tc := range []struct{ name, edit, want string }{
		{"bad CEL", `object.status.ceph.health == "HEALTH_OK"`, `lab/talops.yaml:25: healthChecks[0].expr: 1:29: Syntax error`},
		{"not a bool", `size(object.status)`, ""},
		{"bad kind", "kind: CephCluster", "lab/talops.yaml:22: healthChecks[0].kind: must be a Kubernetes kind"},
		{"bad apiVersion", "apiVersion: ceph.rook.io/v1", "lab/talops.yaml:21: healthChecks[0].apiVersion: must be a Kubernetes apiVersion"},
		{"name and selector", "objectName: rook-ceph", "lab/talops.yaml:25: healthChecks[0].selector: objectName and selector exclude each other"},
		{"bad selector", "objectName: rook-ceph", "lab/talops.yaml:24: healthChecks[0].selector: is not a label selector"},
		{"bad timeout", "timeout: 10m", `lab/talops.yaml:26: healthChecks[0].timeout: "3h" is not a timeout`},
		{"typo", "timeout: 10m", "lab/talops.yaml:26: healthChecks[0].timout: unknown field"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			section := cephCheck

			switch tc.name {
			case "bad CEL":
				section = strings.Replace(section, tc.edit, `object.status.ceph.health == `, 1)
			case "not a bool":
				section = strings.Replace(section, `object.status.ceph.health == "HEALTH_OK"`, tc.edit, 1)
				tc.want = "lab/talops.yaml:25: healthChecks[0].expr: gives a int, not a bool"
			case "bad kind":
				section = strings.Replace(section, tc.edit, "kind: cephcluster", 1)
			case "bad apiVersion":
				section = strings.Replace(section, tc.edit, "apiVersion: ceph.rook.io/", 1)
			case "name and selector":
				section = strings.Replace(section, tc.edit, tc.edit+"\n    selector: app=ceph", 1)
			case "bad selector":
				section = strings.Replace(section, tc.edit, "selector: app in (", 1)
			case "bad timeout":
				section = strings.Replace(section, tc.edit, "timeout: 3h", 1)
			case "typo":
				section = strings.Replace(section, tc.edit, "timout: 10m", 1)
			}

			_, err := cluster.Load("lab", files(minimal+section))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error\n%v\ndoes not contain\n%s", err, tc.want)
			}
		})
	}
}
