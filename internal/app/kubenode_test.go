package app

import (
	"context"
	"errors"
	"slices"
	"testing"

	coreconfig "github.com/siderolabs/talos/pkg/machinery/config"
	"github.com/siderolabs/talos/pkg/machinery/config/configloader"

	"github.com/talops/talops/internal/plan"
	"github.com/talops/talops/internal/render"
	"github.com/talops/talops/internal/rollout"
)

func hostConfig(t *testing.T, doc string) coreconfig.Provider {
	t.Helper()

	cfg, err := configloader.NewFromBytes([]byte(doc))
	if err != nil {
		t.Fatal(err)
	}

	return cfg
}

func TestKubeNodeName_TheRunningHostnameNamesTheNodeObject(t *testing.T) {
	old := hostConfig(t, "apiVersion: v1alpha1\nkind: HostnameConfig\nhostname: node4-old\n")
	renamed := hostConfig(t, "apiVersion: v1alpha1\nkind: HostnameConfig\nhostname: node4.lab.example\n")
	legacy := hostConfig(t, "version: v1alpha1\nmachine:\n  type: worker\n  network:\n    hostname: legacy-host\n")
	none := hostConfig(t, "version: v1alpha1\nmachine:\n  type: worker\n")

	tests := []struct {
		name    string
		configs []coreconfig.Provider
		want    string
	}{
		{"RunningConfigWinsOverARename", []coreconfig.Provider{old, renamed}, "node4-old"},
		{"ANewNodeIsNamedByItsDesiredConfig", []coreconfig.Provider{nil, renamed}, "node4.lab.example"},
		{"MachineNetworkHostnameCounts", []coreconfig.Provider{legacy}, "legacy-host"},
		{"NoHostnameFallsBackToTheTalopsName", []coreconfig.Provider{none, none}, "k8s-node4"},
	}

	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := kubeNodeName("k8s-node4", tt.configs...); got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

func TestNameKubeNodes_WhatTheNodeSaysThenItsAddressThenItsHostname(t *testing.T) {
	named := hostConfig(t, "apiVersion: v1alpha1\nkind: HostnameConfig\nauto: \"off\"\nhostname: from-config\n")
	bare := hostConfig(t, "version: v1alpha1\nmachine:\n  type: worker\n")

	tests := []struct {
		name    string
		said    string
		config  coreconfig.Provider
		noKube  bool
		down    error
		byIP    map[string][]string
		want    string
		asksAPI bool
	}{
		{name: "TheNameTheNodeSaysWinsAndTheAPIIsNotAsked", said: "talos-4xk-91q", config: named, byIP: map[string][]string{"other": {"10.0.20.101"}}, want: "talos-4xk-91q"},
		{name: "ANodeThatSaysNothingIsTheNodeAtItsAddress", config: named, byIP: map[string][]string{"talos-7pe-2mz": {"10.0.20.101", "fd00::1"}, "other": {"10.0.20.102"}}, want: "talos-7pe-2mz", asksAPI: true},
		{name: "TwoNodesAtOneAddressAreNoAnswer", config: named, byIP: map[string][]string{"a": {"10.0.20.101"}, "b": {"10.0.20.101"}}, want: "from-config", asksAPI: true},
		{name: "AnAPIThatFailsLeavesTheConfigsHostname", config: named, down: errors.New("connection refused"), want: "from-config", asksAPI: true},
		{name: "WithoutAnAPITheConfigsHostname", config: named, noKube: true, want: "from-config"},
		{name: "WithoutAnyOfThemTheTalopsName", config: bare, noKube: true, want: "lab-worker1"},
	}

	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st := &planned{
				head:    &Repo{Nodes: []render.Result{{Name: "lab-worker1", Machine: &render.Machine{Config: tt.config}}}},
				current: plan.State{Nodes: []plan.NodeState{{Name: "lab-worker1", Config: tt.config, KubeNode: tt.said}}},
			}
			todo := []rollout.Step{{Node: plan.Node{Name: "lab-worker1", Role: "worker", Action: plan.Reboot}, Address: "10.0.20.101"}}

			k := &fakeKube{addresses: tt.byIP, down: tt.down}

			var api Kube = k
			if tt.noKube {
				api = nil
			}

			nameKubeNodes(context.Background(), &Deps{}, api, todo, st)

			if todo[0].KubeNode != tt.want {
				t.Errorf("KubeNode %q, want %q", todo[0].KubeNode, tt.want)
			}

			if asked := slices.Contains(k.calls, "internal IPs"); asked != tt.asksAPI {
				t.Errorf("asked the API: %t, want %t", asked, tt.asksAPI)
			}
		})
	}
}
