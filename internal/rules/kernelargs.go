package rules

import (
	"fmt"
	"strings"

	"github.com/talops/talops/internal/finding"
)

// kernelArgsIgnored warns where machine.install.extraKernelArgs would silently not reach a
// node: from Talos 1.13 talops upgrades through the LifecycleService, which ignores them on
// GRUB installs that do not use the UKI command line. Kernel arguments belong in the
// schematic (customization.extraKernelArgs) there.
func kernelArgsIgnored(in *Input) []finding.Finding {
	if !atLeastMinor(in.Cluster.Spec.TalosVersion, 13) {
		return nil
	}

	var out []finding.Finding

	for _, n := range rendered(in) {
		m := n.Config.Machine()
		if m == nil {
			continue
		}

		install := m.Install()
		if len(install.ExtraKernelArgs()) == 0 || install.GrubUseUKICmdline() {
			continue
		}

		file, line := place(in.Cluster, n, "machine.install.extraKernelArgs")

		out = append(out, finding.Finding{
			Severity: finding.Warning, Code: CodeKernelArgsIgnored, Node: n.Node.Name, File: file, Line: line, Path: "machine.install.extraKernelArgs",
			Message: fmt.Sprintf("upgrades to Talos %s ignore extraKernelArgs on GRUB installs without the UKI command line (%s): put them in the node's schematic (customization.extraKernelArgs)",
				in.Cluster.Spec.TalosVersion, strings.Join(install.ExtraKernelArgs(), " ")),
		})
	}

	return out
}
