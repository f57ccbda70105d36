package talhelper_test

import (
	"strings"
	"testing"

	"github.com/talops/talops/internal/cluster"
)

// platformNode is a talconfig node named name whose machineSpec.mode is mode ("": none).
func platformNode(name, ip, mode string) string {
	n := "  - hostname: " + name + "\n    ipAddress: " + ip + "\n"
	if mode != "" {
		n += "    machineSpec:\n      mode: " + mode + "\n"
	}

	return n
}

func TestImport_AMachineSpecModeOtherThanTheClustersBecomesTheNodesPlatform(t *testing.T) {
	for _, tc := range []struct {
		name  string
		modes []string
		// cluster is talops.yaml's platform ("": unwritten, metal); nodes each node's own.
		cluster string
		nodes   []string
	}{
		{name: "every node on metal names none", modes: []string{"", "metal", ""}, nodes: []string{"", "", ""}},
		{name: "a nocloud node beside metal ones", modes: []string{"", "", "nocloud"}, nodes: []string{"", "", "nocloud"}},
		{name: "a metal box listed first among nocloud VMs", modes: []string{"metal", "nocloud", "nocloud"}, cluster: "nocloud", nodes: []string{"metal", "", ""}},
		{name: "on a tie the first node's platform is the cluster's", modes: []string{"nocloud", "metal"}, cluster: "nocloud", nodes: []string{"", "metal"}},
		{name: "an empty mode is talhelper's default, metal", modes: []string{`""`, "nocloud", "nocloud"}, cluster: "nocloud", nodes: []string{"metal", "", ""}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			talconfig := head + "nodes:\n"
			for i, m := range tc.modes {
				talconfig += platformNode("n"+itoa(i+1), "10.0.0."+itoa(11+i), m)
			}

			res := importText(t, talconfig, nil, nil)

			c, err := cluster.Parse([]byte(written(t, res, "talops.yaml")))
			if err != nil {
				t.Fatalf("talops.yaml does not parse: %v", err)
			}

			if c.Spec.Platform != tc.cluster {
				t.Errorf("platform = %q, want %q", c.Spec.Platform, tc.cluster)
			}

			for i, n := range c.Spec.Nodes {
				if n.Platform != tc.nodes[i] {
					t.Errorf("%s: platform = %q, want %q", n.Name, n.Platform, tc.nodes[i])
				}
			}

			for _, f := range res.Findings {
				if strings.Contains(f.Path, "machineSpec.mode") {
					t.Errorf("finding on the mode, which is imported as it is: %+v", f)
				}
			}
		})
	}
}
