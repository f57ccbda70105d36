package rules

import (
	"fmt"
	"slices"
	"strings"

	"github.com/talops/talops/internal/catalog"
	"github.com/talops/talops/internal/cluster"
	"github.com/talops/talops/internal/finding"
)

// newFeatureSince is the first minor with the new-feature driver track (615, open only).
const newFeatureSince = "1.15"

// nriSince is the first minor whose container toolkit extension carries only the driver's
// userspace, the GPU Operator installing the Container Toolkit through NRI; the same minor
// bundles Fabric Manager 2.0 in nvidia-fabricmanager-lts.
const nriSince = "1.15"

// nvidiaTrackAvailable: the new-feature track exists from Talos 1.15 on.
func nvidiaTrackAvailable(in *Input, g gpuSetup) []finding.Finding {
	if g.talos == "" || atLeast(g.talos, newFeatureSince) {
		return nil
	}

	var out []finding.Finding

	for _, e := range g.exts {
		if e.flavour == catalog.FlavourNewFeature {
			out = append(out, g.at(e, finding.Error, CodeNvidiaTrackUnavailable,
				"%s follows the new-feature driver track, which starts with Talos %s (the cluster runs %s): use the lts or production track until the cluster runs %s",
				e.display(), newFeatureSince, in.Cluster.Spec.TalosVersion, newFeatureSince))
		}
	}

	return out
}

// nvidiaFlavourAvailable is nvidiaTrackAvailable for nvidia.flavour in talops.yaml.
func nvidiaFlavourAvailable(in *Input) []finding.Finding {
	c := in.Cluster

	nv := c.Spec.NVIDIA
	if nv == nil || nv.Flavour != string(catalog.FlavourNewFeature) {
		return nil
	}

	if _, err := catalog.NormalizeTag(c.Spec.TalosVersion); err != nil || atLeast(c.Spec.TalosVersion, newFeatureSince) {
		return nil
	}

	return []finding.Finding{{
		Severity: finding.Error, Code: CodeNvidiaTrackUnavailable,
		File: c.Path(cluster.FileName), Line: c.Line("nvidia.flavour"), Path: "nvidia.flavour",
		Message: fmt.Sprintf("nvidia.flavour new-feature is a driver track of Talos %s and later, the cluster runs %s: use lts or production until then", newFeatureSince, c.Spec.TalosVersion),
	}}
}

// openOnly reports whether a proprietary kernel module of the track is not built for the
// Talos version: the new-feature track never has one, and the facts list the tracks a minor
// builds as open modules only (the LTS track from 1.15).
func openOnly(talos string, ext catalog.NvidiaExt) bool {
	if ext.Kind != catalog.KernelModuleProprietary || ext.Flavour == catalog.FlavourNone {
		return false
	}

	if ext.Flavour == catalog.FlavourNewFeature {
		return true
	}

	m, ok := catalog.EmbeddedFacts().Minor(talos)

	return ok && slices.Contains(m.OpenOnly, ext.Flavour)
}

// nvidiaOpenOnly names the open module that replaces a proprietary one the track no longer
// builds. It needs no extension data: the facts of the minor say it.
func nvidiaOpenOnly(in *Input, g gpuSetup) []finding.Finding {
	if g.talos == "" {
		return nil
	}

	var out []finding.Finding

	for _, e := range g.of(catalog.KernelModuleProprietary) {
		ext, _ := catalog.ParseNvidia(e.name)
		if !openOnly(g.talos, ext) {
			continue
		}

		open := catalog.KernelModuleOpen.ExtensionName(ext.Flavour)
		out = append(out, g.at(e, finding.Error, CodeNvidiaOpenOnly,
			"%s is not built for Talos %s: the %s track ships open kernel modules only; replace it with %s (Turing or newer GPUs; older GPUs stay on 1.14 or move to the production track)",
			e.display(), in.Cluster.Spec.TalosVersion, ext.Flavour, open))
	}

	return out
}

// pinnedBranch checks nvidia.driver against the branch the facts give for the track on the
// cluster's minor, when the release data cannot give the driver itself (a new minor,
// offline): a pin on 580 cannot hold on the 1.15 LTS track (620).
func pinnedBranch(talos string, f catalog.Flavour, pin string) (branch string, broken bool) {
	m, ok := catalog.EmbeddedFacts().Minor(talos)
	if !ok {
		return "", false
	}

	branch = m.NvidiaBranches[f]
	if branch == "" {
		return "", false
	}

	pinBranch, _, _ := strings.Cut(pin, ".")

	return branch, pinBranch != branch
}

// nriMove warns a bump onto Talos 1.15 with GPU nodes: the toolkit extension changes role, and
// fabric manager 2.0 arrives with the LTS track (on the fabric nodes, fabricNodes').
func nriMove(head *Input, t Change, gpus []GPUChange, fabric []string) []finding.Finding {
	if len(gpus) == 0 || !ontoNRI(t) {
		return nil
	}

	file, line := talosLine(head)
	out := []finding.Finding{{
		Severity: finding.Warning, Code: CodeNvidiaToolkitNRI, File: file, Line: line, Path: "talosVersion",
		Message: fmt.Sprintf("Talos %s → %s: from %s the nvidia-container-toolkit extension carries only the driver's userspace libraries and the persistence daemon (tagged with the bare driver version), and the NVIDIA GPU Operator installs the Container Toolkit through NRI; before the GPU nodes upgrade, run the GPU Operator with its toolkit enabled and its driver disabled, and review the nvidia RuntimeClass and containerd runtime patches written for 1.14", t.From, t.To, nriSince),
	}}

	fm := catalog.FabricManager.ExtensionName(catalog.FlavourLTS)

	for _, node := range fabric {
		out = append(out, finding.Finding{
			Severity: finding.Info, Code: CodeNvidiaFabricManager2, File: file, Line: line, Path: "talosVersion", Node: node,
			Message: fmt.Sprintf("Talos %s → %s: %s bundles the standalone Fabric Manager 2.0 from %s; check the node's NVSwitch setup against Fabric Manager 2.0 before it upgrades", t.From, t.To, fm, nriSince),
		})
	}

	return out
}

// ontoNRI says the move is from before Talos 1.15 onto it.
func ontoNRI(t Change) bool {
	return t.Changed() && !atLeast(t.From, nriSince) && atLeast(t.To, nriSince)
}

// fabricNodes are the rendered nodes whose extensions include the LTS fabric manager.
func fabricNodes(head *Input) []string {
	fm := catalog.FabricManager.ExtensionName(catalog.FlavourLTS)
	t0 := talosOf(head)

	var out []string

	for _, n := range rendered(head) {
		g := nodeGPU(head, t0, n)
		if slices.ContainsFunc(g.of(catalog.FabricManager), func(e gpuExt) bool { return e.name == fm }) {
			out = append(out, n.Node.Name)
		}
	}

	return out
}
