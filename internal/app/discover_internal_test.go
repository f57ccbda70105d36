package app

import (
	"slices"
	"testing"

	"github.com/talops/talops/internal/cluster"
	"github.com/talops/talops/internal/plan"
)

func TestFinds_ANodeOfTalopsYAMLIsNotExtraByNameOrAddress(t *testing.T) {
	f := newFinds([]cluster.Node{{Name: "cp1", Address: "10.0.0.1"}, {Name: "w1", Address: "10.0.0.2"}}, "talos-x1y")

	f.add("cp1", "controlplane", []string{"10.0.0.1"}, foundEtcd)
	// Its hostname differs from its name in talops.yaml, its address does not.
	f.add("talos-abc", "worker", []string{"10.0.0.2"}, foundDiscovery)
	f.add("w1", "", nil, foundKube)
	// A node's own hostname, wherever it is reached from (a NAT, a forwarder).
	f.add("talos-x1y", "controlplane", []string{"192.168.9.9"}, foundEtcd)

	f.add("cp9", "controlplane", []string{"10.0.0.9"}, foundEtcd)
	f.add("cp9", "controlplane", []string{"10.0.0.9"}, foundDiscovery)
	f.add("w9", "", nil, foundKube)
	f.add("", "worker", nil, foundDiscovery)

	want := []plan.NodeState{
		{Name: "cp9", Role: "controlplane", Address: "10.0.0.9", Found: "found in etcd's member list and Talos' cluster discovery"},
		{Name: "w9", Role: "worker", Found: "found in the Kubernetes nodes"},
	}

	if got := f.states(); !slices.EqualFunc(got, want, func(a, b plan.NodeState) bool {
		return a.Name == b.Name && a.Role == b.Role && a.Address == b.Address && a.Found == b.Found
	}) {
		t.Errorf("extra nodes\n got %+v\nwant %+v", got, want)
	}
}
