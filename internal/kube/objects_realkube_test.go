//go:build realkube

package kube_test

import (
	"context"
	"strings"
	"testing"

	"github.com/talops/talops/internal/health"
)

// cephCluster is a CephCluster object of namespace ns reporting health.
func cephCluster(ns, name, state string, labels map[string]any) map[string]any {
	return map[string]any{
		"apiVersion": "ceph.example.com/v1", "kind": "CephCluster",
		"metadata": map[string]any{"name": name, "namespace": ns, "labels": labels},
		"status":   map[string]any{"ceph": map[string]any{"health": state}},
	}
}

func TestHealthObjects_ReadsCustomResourcesByNameAndBySelector(t *testing.T) {
	c, env := client(t)
	env.Namespace(t, "health-objects")
	gvr := env.CRD(t, "ceph.example.com", "CephCluster")

	env.Object(t, gvr, cephCluster("health-objects", "a", "HEALTH_OK", map[string]any{"tier": "gold"}))
	env.Object(t, gvr, cephCluster("health-objects", "b", "HEALTH_WARN", map[string]any{"tier": "silver"}))

	x, err := health.Compile(`object.status.ceph.health == "HEALTH_OK"`)
	if err != nil {
		t.Fatal(err)
	}

	check := health.Check{Name: "ceph", APIVersion: "ceph.example.com/v1", Kind: "CephCluster", Namespace: "health-objects", Expr: x}

	for _, tc := range []struct {
		name, objectName, selector string
		want                       []string // name: health
	}{
		{name: "one by name", objectName: "b", want: []string{"health-objects/b: HEALTH_WARN"}},
		{name: "by selector", selector: "tier=gold", want: []string{"health-objects/a: HEALTH_OK"}},
		{name: "every object", want: []string{"health-objects/a: HEALTH_OK", "health-objects/b: HEALTH_WARN"}},
		{name: "a name that is not there", objectName: "c"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			hc := check
			hc.ObjectName, hc.Selector = tc.objectName, tc.selector

			objects, err := c.HealthObjects(context.Background(), hc)
			if err != nil {
				t.Fatal(err)
			}

			var got []string
			for _, o := range objects {
				got = append(got, o.Name+": "+strings.Join(hc.Expr.Eval(o.Content).Seen, ""))
			}

			want := make([]string, 0, len(tc.want))
			for _, w := range tc.want {
				name, state, _ := strings.Cut(w, ": ")
				want = append(want, name+": object.status.ceph.health = \""+state+"\"")
			}

			if strings.Join(got, "\n") != strings.Join(want, "\n") {
				t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
			}
		})
	}
}

func TestHealthObjects_AKindTheClusterDoesNotServeIsAnError(t *testing.T) {
	c, _ := client(t)

	_, err := c.HealthObjects(context.Background(), health.Check{Name: "x", APIVersion: "longhorn.example.com/v1beta2", Kind: "Volume"})
	if err == nil || err.Error() != "the cluster serves no Volume in longhorn.example.com/v1beta2" {
		t.Errorf("err = %v", err)
	}
}
