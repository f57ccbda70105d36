package report

import (
	"fmt"
	"strings"

	"github.com/talops/talops/internal/plan"
)

// kubernetesStepLine says what one step of a Kubernetes upgrade does, without its nodes.
func kubernetesStepLine(s plan.KubernetesStep) string {
	switch s.Component {
	case plan.K8sPreflight:
		return "preflight: one minor at a time, a version every node's Talos supports, no removed API still in use"
	case plan.K8sPrePull:
		return fmt.Sprintf("pre-pull %s on every node", plan.Plural(len(s.Images), "image"))
	case plan.K8sKubelet:
		return "kubelet → " + s.Image + ", node by node, each Node reporting the new version before the next"
	case plan.K8sProxy:
		// kube-proxy is no static pod: the control planes render its DaemonSet into the
		// bootstrap manifests, which the manifests step applies.
		return "kube-proxy → " + s.Image + " in each control plane's config, one at a time; the manifests step rolls it out"
	case plan.K8sManifests:
		return "bootstrap manifests (kube-proxy, CoreDNS…) by server-side apply, read from the first control plane"
	default:
		return s.Component + " → " + s.Image + ", one control plane at a time, its static pod running the new version before the next"
	}
}

// kubernetesText is the Kubernetes upgrade for a terminal ("" without one).
func kubernetesText(u *plan.KubernetesUpgrade, c palette) string {
	if u == nil {
		return ""
	}

	var b strings.Builder

	fmt.Fprintf(&b, "%s Kubernetes upgrade %s → %s\n", c.wrap("33", "!"), u.From, u.To)

	for _, r := range u.Refused {
		fmt.Fprintf(&b, "    refused: %s\n", r)
	}

	for i, s := range u.Steps {
		fmt.Fprintf(&b, "    %d. %s\n", i+1, kubernetesStepLine(s))
		fmt.Fprintf(&b, "       on %s\n", strings.Join(s.Nodes, ", "))

		for _, image := range s.Images {
			fmt.Fprintf(&b, "       %s\n", image)
		}
	}

	b.WriteString("\n")

	return b.String()
}

// kubernetesMarkdown is the Kubernetes upgrade as a section of a PR comment ("" without one).
func kubernetesMarkdown(u *plan.KubernetesUpgrade) string {
	if u == nil {
		return ""
	}

	var b strings.Builder

	fmt.Fprintf(&b, "### Kubernetes upgrade: %s → %s\n", text(u.From), text(u.To))

	if len(u.Refused) > 0 {
		b.WriteString("\n> [!CAUTION]\n> apply refuses this upgrade before it touches any node:\n")

		for _, r := range u.Refused {
			fmt.Fprintf(&b, "> - %s\n", text(r))
		}
	}

	b.WriteString("\n| | step | nodes |\n|---|---|---|\n")

	for i, s := range u.Steps {
		what := cell(kubernetesStepLine(s))
		if len(s.Images) > 0 {
			var images []string
			for _, image := range s.Images {
				images = append(images, code(image))
			}

			what += ": " + pipes(strings.Join(images, ", "))
		}

		fmt.Fprintf(&b, "| %d | %s | %s |\n", i+1, what, cell(strings.Join(s.Nodes, ", ")))
	}

	return strings.TrimSuffix(b.String(), "\n")
}
