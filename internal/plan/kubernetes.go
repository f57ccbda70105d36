package plan

import (
	"fmt"
	"strings"

	coreconfig "github.com/siderolabs/talos/pkg/machinery/config"

	"github.com/talops/talops/internal/cluster"
)

// Kubernetes upgrade steps, in the order an upgrade takes them (as talosctl upgrade-k8s):
// the control-plane components across every control plane before the next component, so
// that no component ever runs newer than any kube-apiserver.
const (
	K8sPreflight         = "preflight"
	K8sPrePull           = "pre-pull"
	K8sAPIServer         = "kube-apiserver"
	K8sControllerManager = "kube-controller-manager"
	K8sScheduler         = "kube-scheduler"
	K8sProxy             = "kube-proxy"
	K8sKubelet           = "kubelet"
	K8sManifests         = "manifests"
)

// K8sComponents are the components whose image a config sets, in upgrade order.
var K8sComponents = []string{K8sAPIServer, K8sControllerManager, K8sScheduler, K8sProxy, K8sKubelet}

// KubernetesUpgrade is the move of the cluster's Kubernetes components, step by step.
type KubernetesUpgrade struct {
	// From is the oldest version a moving component runs, To the version it moves to.
	From string `json:"from"`
	To   string `json:"to"`
	// Steps are the upgrade's steps in order.
	Steps []KubernetesStep `json:"steps"`
	// Refused says why the upgrade cannot be applied as planned: apply refuses the plan
	// before it touches any node.
	Refused []string `json:"refused,omitempty"`
}

// KubernetesStep is one step of a Kubernetes upgrade.
type KubernetesStep struct {
	// Component is one of the K8s* step names.
	Component string `json:"component"`
	// Nodes are the nodes the step runs on, in order.
	Nodes []string `json:"nodes"`
	// Image is the image the component moves to ("" for preflight, pre-pull and manifests).
	Image string `json:"image,omitempty"`
	// Images are the images pre-pulled (pre-pull only).
	Images []string `json:"images,omitempty"`
}

// ComponentImage is the image a config sets for a Kubernetes component ("" for none, or a
// component the config does not run: kube-proxy when it is disabled).
func ComponentImage(cfg coreconfig.Provider, component string) string {
	if cfg == nil {
		return ""
	}

	switch component {
	case K8sAPIServer:
		return cfg.K8sAPIServerConfig().Image()
	case K8sControllerManager:
		return cfg.K8sControllerManagerConfig().Image()
	case K8sScheduler:
		return cfg.K8sSchedulerConfig().Image()
	case K8sProxy:
		if !cfg.K8sProxyConfig().Enabled() {
			return ""
		}

		return cfg.K8sProxyConfig().Image()
	case K8sKubelet:
		return cfg.K8sKubeletConfig().Image()
	}

	return ""
}

// RunsOn reports whether a node of role runs the component: the kubelet runs everywhere,
// the others are control-plane static pods (kube-proxy is rendered there, into the
// bootstrap manifests).
func RunsOn(component string, role cluster.Role) bool {
	return component == K8sKubelet || role == cluster.RoleControlPlane
}

// ImageVersion is the tag of an image reference ("registry.k8s.io/kube-apiserver:v1.36.4"
// → "v1.36.4"), without a digest; "" when it has none.
func ImageVersion(image string) string {
	ref, _, _ := strings.Cut(image, "@")

	i := strings.LastIndex(ref, ":")
	if i < 0 || strings.Contains(ref[i:], "/") {
		return ""
	}

	return ref[i+1:]
}

// moved is a component whose image moves on one node.
type moved struct {
	node, component, from, to string
	role                      cluster.Role
}

// componentMoves are the components whose image differs between the running and the
// desired config of a node that stays, over desired's nodes in order (cur: the running
// states by name). Nodes that are created take their desired config whole; removed and
// unreadable ones take no step.
func componentMoves(cur map[string]NodeState, desired []NodeState) []moved {
	var moves []moved

	for _, n := range desired {
		c, ok := cur[n.Name]
		if !ok || c.Broken != "" || c.Config == nil || n.Config == nil {
			continue
		}

		for _, comp := range K8sComponents {
			if !RunsOn(comp, n.Role) {
				continue
			}

			from, to := ComponentImage(c.Config, comp), ComponentImage(n.Config, comp)
			if to != "" && from != to {
				moves = append(moves, moved{node: n.Name, role: n.Role, component: comp, from: from, to: to})
			}
		}
	}

	return moves
}

// kubernetesUpgrade plans the component moves of every node; nil when none moves.
func kubernetesUpgrade(moves []moved, current State, nodes []Node) *KubernetesUpgrade {
	if len(moves) == 0 {
		return nil
	}

	u := &KubernetesUpgrade{From: oldest(moves), To: newest(moves)}
	u.Steps = kubernetesSteps(moves)
	u.Refused = kubernetesRefusals(u, current, nodes)

	return u
}

// kubernetesSteps orders the moves: preflight and pre-pull on every node that moves, each
// control-plane component across the control planes, the kubelet control planes first, then
// the bootstrap manifests from the first control plane.
func kubernetesSteps(moves []moved) []KubernetesStep {
	var (
		all, cps []string
		images   []string
	)

	seen := map[string]bool{}

	add := func(list []string, s string) []string {
		for _, x := range list {
			if x == s {
				return list
			}
		}

		return append(list, s)
	}

	for _, m := range moves {
		if !seen[m.node] {
			seen[m.node] = true

			all = append(all, m.node)

			if m.role == cluster.RoleControlPlane {
				cps = append(cps, m.node)
			}
		}

		images = add(images, m.to)
	}

	steps := []KubernetesStep{{Component: K8sPreflight, Nodes: all}, {Component: K8sPrePull, Nodes: all, Images: images}}

	for _, comp := range K8sComponents {
		s := KubernetesStep{Component: comp}

		// The kubelet moves on control planes first, as talosctl upgrade-k8s does.
		for _, group := range [][]moved{controlPlanes(moves, true), controlPlanes(moves, false)} {
			for _, m := range group {
				if m.component == comp {
					s.Nodes = append(s.Nodes, m.node)
					if s.Image == "" {
						s.Image = m.to
					}
				}
			}
		}

		if len(s.Nodes) > 0 {
			steps = append(steps, s)
		}
	}

	if len(cps) > 0 {
		steps = append(steps, KubernetesStep{Component: K8sManifests, Nodes: cps[:1]})
	}

	return steps
}

func controlPlanes(moves []moved, cp bool) []moved {
	var out []moved

	for _, m := range moves {
		if (m.role == cluster.RoleControlPlane) == cp {
			out = append(out, m)
		}
	}

	return out
}

// Nodes are the nodes of a step named component (nil when the upgrade has no such step).
func (u *KubernetesUpgrade) Nodes(component string) []string {
	for _, s := range u.Steps {
		if s.Component == component {
			return s.Nodes
		}
	}

	return nil
}

// Step is the step named component, ok false when the upgrade has none.
func (u *KubernetesUpgrade) Step(component string) (KubernetesStep, bool) {
	for _, s := range u.Steps {
		if s.Component == component {
			return s, true
		}
	}

	return KubernetesStep{}, false
}

// Summary is the upgrade in one line: "Kubernetes v1.35.2 → v1.36.4 on 5 nodes".
func (u *KubernetesUpgrade) Summary() string {
	line := fmt.Sprintf("Kubernetes %s → %s on %s", u.From, u.To, Plural(len(u.Nodes(K8sPreflight)), "node"))
	if len(u.Refused) > 0 {
		line += ": refused"
	}

	return line
}

// kubernetes plans the Kubernetes upgrade and says, on every node it moves, that the
// upgrade moves it.
func (p *Plan) kubernetes(moves []moved, current State) {
	p.Kubernetes = kubernetesUpgrade(moves, current, p.Nodes)
	if p.Kubernetes == nil {
		return
	}

	in := map[string]bool{}
	for _, n := range p.Kubernetes.Nodes(K8sPreflight) {
		in[n] = true
	}

	reason := fmt.Sprintf("Kubernetes %s → %s: talops moves it component by component (see the Kubernetes upgrade)", p.Kubernetes.From, p.Kubernetes.To)

	for i := range p.Nodes {
		if in[p.Nodes[i].Name] {
			p.Nodes[i].Reasons = append(p.Nodes[i].Reasons, reason)
		}
	}
}
