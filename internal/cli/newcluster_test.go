package cli_test

import (
	"encoding/json"
	"testing"

	"github.com/talops/talops/internal/cluster"
	"github.com/talops/talops/internal/testlab"
)

// A pull request that adds a cluster: the state it is compared with has no talops.yaml.
// Every node is created, and the first control plane is where etcd is bootstrapped.
func TestPlan_ANewClusterIsPlannedFromNothing(t *testing.T) {
	t.Parallel()

	h := newHarness(t, testlab.Files(t), nil)
	h.dirs["base"] = cluster.MapFiles{"README.md": []byte("other clusters\n")}

	if err := h.run("plan", "--dir", "examples/homelab", "--against", "base", "--offline", "--format", "json"); err != nil {
		t.Fatalf("plan of a new cluster: %v\n%s", err, h.stderr.String())
	}

	var p struct {
		Bootstrap string `json:"bootstrap"`
		Nodes     []struct {
			Name, Action string
		} `json:"nodes"`
	}

	if err := json.Unmarshal(h.stdout.Bytes(), &p); err != nil {
		t.Fatal(err)
	}

	if len(p.Nodes) != 5 {
		t.Fatalf("planned %d nodes, want 5", len(p.Nodes))
	}

	for _, n := range p.Nodes {
		if n.Action != "create" {
			t.Errorf("%s: %s, want create", n.Name, n.Action)
		}
	}

	if p.Bootstrap != "k8s-master" {
		t.Errorf("bootstrap %q, want k8s-master", p.Bootstrap)
	}
}
