package app

import (
	"testing"

	coreconfig "github.com/siderolabs/talos/pkg/machinery/config"
	"github.com/siderolabs/talos/pkg/machinery/config/configloader"
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
