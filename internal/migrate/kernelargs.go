package migrate

import (
	"slices"

	"github.com/siderolabs/talos/pkg/machinery/config/config"

	"github.com/talops/talops/internal/cluster"
	"github.com/talops/talops/internal/schematic"
)

// Node is what a node boots and runs with: its machine config, and the kernel arguments
// its schematic gives the installer it boots from. From the 1.14 contract a schematic is
// the one place of kernel arguments (no document has machine.install.extraKernelArgs, and
// an UnattendedInstallConfig refuses any machine.install beside it).
type Node struct {
	Config config.Config
	// SchematicKernelArgs are the schematic's customization.extraKernelArgs, when the
	// node installs from that schematic's installer (nil: none, or not known).
	SchematicKernelArgs []string
}

// SchematicKernelArgs are the extraKernelArgs of a node's schematic (nil without one, or
// with an opaque one talops knows only the ID of).
func SchematicKernelArgs(c *cluster.Cluster, n cluster.Node) []string {
	s, ok := c.Spec.Schematics[n.Schematic]
	if n.Schematic == "" || !ok {
		return nil
	}

	data, _ := c.File(s.File)
	if _, opaque := schematic.Opaque(data); opaque {
		return nil
	}

	loaded, err := schematic.Load(data)
	if err != nil {
		return nil
	}

	return loaded.Customization.ExtraKernelArgs
}

// bootKernelArgs are the arguments a node's installer writes beyond Talos' own: the
// schematic's, then machine.install.extraKernelArgs, each once (an argument given twice
// with the same value is the same argument).
func bootKernelArgs(n Node) []string {
	var args []string

	if n.Config != nil && n.Config.Machine() != nil && n.Config.Machine().Install() != nil && n.Config.UnattendedInstallConfig() == nil {
		args = n.Config.Machine().Install().ExtraKernelArgs()
	}

	var out []string

	for _, a := range slices.Concat(n.SchematicKernelArgs, args) {
		if !slices.Contains(out, a) {
			out = append(out, a)
		}
	}

	return out
}

// intersect keeps the items of a that b has too.
func intersect(a, b []string) []string {
	var out []string

	for _, x := range a {
		if slices.Contains(b, x) {
			out = append(out, x)
		}
	}

	return out
}
