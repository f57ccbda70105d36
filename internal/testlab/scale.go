package testlab

import (
	"fmt"
	"strings"
	"testing"

	"github.com/talops/talops/internal/cluster"
)

// Scaled returns the reference lab grown to n nodes (three control planes, the rest
// workers, every fifth one a GPU worker), each with its own patch.
func Scaled(t testing.TB, n int) cluster.MapFiles {
	t.Helper()

	files := Files(t)

	head, _, _ := strings.Cut(string(files["talops.yaml"]), "nodes:\n")
	// The lab's configVersion comes after its nodes: the scaled lab keeps it.
	pinned := strings.Contains(string(files["talops.yaml"]), Pin)

	var b strings.Builder

	b.WriteString(head + "nodes:\n")

	for i := range n {
		name := fmt.Sprintf("node-%02d", i)
		role, schematic := cluster.RoleWorker, "base"

		switch {
		case i < 3:
			role = cluster.RoleControlPlane
		case i%5 == 0:
			schematic = "gpu"
		}

		// 240 addresses a /24, from .10: every node's address is an IP address (past
		// 10.0.21.255 one would be read as a host name), the first 240 as they always were.
		fmt.Fprintf(&b, "  - name: %s\n    address: 10.0.%d.%d\n    role: %s\n    schematic: %s\n    installDisk: /dev/sda\n    patches: [nodes/%s.yaml]\n",
			name, 21+i/240, 10+i%240, role, schematic, name)

		patch := fmt.Sprintf("apiVersion: v1alpha1\nkind: HostnameConfig\nauto: \"off\"\nhostname: %s\n", name)
		if schematic == "gpu" {
			patch = string(files["nodes/k8s-node1.yaml"])
			patch = strings.ReplaceAll(patch, "k8s-node1", name)
		}

		files["nodes/"+name+".yaml"] = []byte(patch)
	}

	if pinned {
		b.WriteString(Pin)
	}

	files["talops.yaml"] = []byte(b.String())

	return files
}
