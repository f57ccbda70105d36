package cli_test

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/talops/talops/internal/cluster"
	"github.com/talops/talops/internal/testlab"
)

// A plan does not depend on which bundle rendered it: a pull request's plan, rendered
// without the key to the committed, encrypted bundle (so with a throwaway one), has the same
// diffs, byte for byte, and the same hash as the real bundle's plan apply checks at merge
// time. The hash binds the encrypted file as committed, which needs no key.
func TestPlan_ThrowawayBundlePlanEqualsTheRealBundlePlan(t *testing.T) {
	t.Parallel()

	encrypted, err := os.ReadFile("../secrets/testdata/bundle.sops.yaml")
	if err != nil {
		t.Fatal(err)
	}

	plan := func(withSecrets bool) (nodes json.RawMessage, hash string) {
		base, head := testlab.Files(t), testlab.Files(t)
		addSysctl(t, head)
		testlab.Edit(t, head, "patches/worker.yaml", "  nodeLabels:\n", "  nodeLabels:\n    lab: e2e\n")
		// A new node shows its whole config, certificates and cluster ID included.
		testlab.Edit(t, head, "talops.yaml", "    proxmox: {node: pve, vmid: 204}\n", "    proxmox: {node: pve, vmid: 204}\n  - name: k8s-node5\n    address: 10.0.20.105\n    role: worker\n    installDisk: /dev/sda\n")

		for _, f := range []cluster.MapFiles{base, head} {
			f["secrets.sops.yaml"] = encrypted
			testlab.Edit(t, f, "talops.yaml", "secrets: secrets.THROWAWAY.yaml\n", "secrets: secrets.sops.yaml\n")
		}

		env := map[string]string{}
		if withSecrets {
			env["SOPS_AGE_KEY_FILE"] = "../secrets/testdata/THROWAWAY-age-key.txt"
		}

		h := newHarness(t, head, env)
		h.dirs["base"] = base

		if err := h.run("plan", "--dir", "examples/homelab", "--against", "base", "--offline", "--format", "json"); err != nil {
			t.Fatalf("plan: %v\n%s", err, h.stderr.String())
		}

		var p struct {
			Nodes json.RawMessage `json:"nodes"`
			Hash  string          `json:"hash"`
		}

		if err := json.Unmarshal(h.stdout.Bytes(), &p); err != nil {
			t.Fatal(err)
		}

		return p.Nodes, p.Hash
	}

	realNodes, realHash := plan(true)
	throwNodes, throwHash := plan(false)

	if string(realNodes) != string(throwNodes) || realHash != throwHash {
		t.Errorf("the plans differ:\nreal %s\n%s\nthrowaway %s\n%s", realHash, realNodes, throwHash, throwNodes)
	}

	if !strings.Contains(string(realNodes), "nodeLabels") || !strings.Contains(string(realNodes), `\"action\": \"create\"`) && !strings.Contains(string(realNodes), `"action": "create"`) {
		t.Errorf("the plan shows no change: %s", realNodes)
	}
}
