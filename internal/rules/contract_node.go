package rules

import (
	"fmt"
	"strings"

	"github.com/siderolabs/talos/pkg/machinery/config/config"
	"github.com/siderolabs/talos/pkg/machinery/constants"

	"github.com/talops/talops/internal/finding"
	"github.com/talops/talops/internal/render"
)

const kubeNodeConfig = "KubeNodeConfig"

// kubeNode is the KubeNodeConfig document of a control plane that registers with
// Kubernetes, or nil: the v1alpha1 layout added the control-plane label and NoSchedule
// taint to .machine.nodeLabels/.machine.nodeTaints by itself, the document is used as is.
func kubeNode(n *render.Machine) config.K8sNodeConfig {
	if !nodeIsControlPlane(n) {
		return nil
	}

	for _, doc := range n.Config.Documents() {
		if kn, ok := doc.(config.K8sNodeConfig); ok && doc.Kind() == kubeNodeConfig && !kn.SkipNodeRegistration() {
			return kn
		}
	}

	return nil
}

// missingRoleLabel reports a control plane's KubeNodeConfig without the role label.
func missingRoleLabel(n *render.Machine) bool {
	kn := kubeNode(n)
	if kn == nil {
		return false
	}

	_, ok := kn.Labels()[constants.LabelNodeRoleControlPlane]

	return !ok
}

// isRoleLabelWarning tells machinery's warning about the same label (unplaced, and
// without the file to edit), which contract.control-plane-label replaces. Machinery
// returns it as a plain string: the text is all there is, and this is the one place that
// reads it; a test holds that machinery still gives it.
func isRoleLabelWarning(msg string) bool {
	return strings.HasPrefix(msg, "KubeNodeConfig document should set the ")
}

// controlPlaneRole finds control planes whose KubeNodeConfig lacks the role label or the
// NoSchedule taint. A taints list the patch writes empty (taints: {}), or a patch deleting
// the taint ($patch: delete), says the control plane is meant to run workloads: the taint
// is then not asked for.
func controlPlaneRole(in *Input) []finding.Finding {
	var out []finding.Finding

	for _, n := range rendered(in) {
		kn := kubeNode(n)
		if kn == nil {
			continue
		}

		file, line, inPatch := documentAt(n, kubeNodeConfig, "")
		if !inPatch {
			file, line = place(in.Cluster, n, "")
		}

		where := fmt.Sprintf("%s:%d", file, line)

		if missingRoleLabel(n) {
			out = append(out, finding.Finding{
				Severity: finding.Warning, Code: CodeControlPlaneLabel, Node: n.Node.Name,
				File: file, Line: keyLine(n, file, line, "labels"), Path: kubeNodeConfig + ".labels",
				Message: fmt.Sprintf("the KubeNodeConfig at %s has no %s label, which .machine.nodeLabels got by itself on a control plane: add labels: {%s: \"\"} to it",
					where, constants.LabelNodeRoleControlPlane, constants.LabelNodeRoleControlPlane),
			})
		}

		if _, tainted := kn.Taints()[constants.LabelNodeRoleControlPlane]; tainted || (len(kn.Taints()) == 0 && writesKey(n, file, "taints")) || deletesRoleTaint(n) {
			continue
		}

		out = append(out, finding.Finding{
			Severity: finding.Warning, Code: CodeControlPlaneTaint, Node: n.Node.Name,
			File: file, Line: keyLine(n, file, line, "taints"), Path: kubeNodeConfig + ".taints",
			Message: fmt.Sprintf("the KubeNodeConfig at %s has no %s: %s taint, which .machine.nodeTaints got by itself on a control plane: every workload may now run on it; add taints: {%s: %s}, or write taints: {} to say the control plane is meant to run workloads",
				where, constants.LabelNodeRoleControlPlane, constants.TaintEffectNoSchedule, constants.LabelNodeRoleControlPlane, constants.TaintEffectNoSchedule),
		})
	}

	return out
}

// keyLine is the line of a key of the node's KubeNodeConfig in file, else the document's.
func keyLine(n *render.Machine, file string, docLine int, key string) int {
	for i := len(n.Layers) - 1; i >= 0; i-- {
		if n.Layers[i].File != file {
			continue
		}

		ix := n.Layers[i].Index
		if d := lastDoc(ix, kubeNodeConfig, ""); d >= 0 {
			if l, exact := ix.Docs[d].Nearest(key); exact {
				return l
			}
		}
	}

	return docLine
}

// writesKey reports whether file's KubeNodeConfig writes key.
func writesKey(n *render.Machine, file, key string) bool {
	for _, l := range n.Layers {
		if l.File != file {
			continue
		}

		if d := lastDoc(l.Index, kubeNodeConfig, ""); d >= 0 && l.Index.Docs[d].Has(key) {
			return true
		}
	}

	return false
}

// deletesRoleTaint says whether a patch of the node deletes the control-plane taint from
// its KubeNodeConfig.
func deletesRoleTaint(n *render.Machine) bool {
	for _, l := range n.Layers {
		if d := lastDoc(l.Index, kubeNodeConfig, ""); d >= 0 && l.Index.Docs[d].Has("taints."+constants.LabelNodeRoleControlPlane+".$patch") {
			return true
		}
	}

	return false
}
