package app

import (
	"context"
	"slices"

	coreconfig "github.com/siderolabs/talos/pkg/machinery/config"

	"github.com/talops/talops/internal/rollout"
	"github.com/talops/talops/internal/talos"
)

// nameKubeNodes names the Node object in Kubernetes of every step of a node of talops.yaml,
// the one drained, uncordoned and whose kubelet version is waited for. What the node
// itself says comes first (the name its kubelet registers as, read with the running
// state). For a node that said nothing, the Node whose InternalIP is the node's address in
// talops.yaml, when k answers; else a guess from the configs (kubeNodeName). It fills in
// the steps in place.
func nameKubeNodes(ctx context.Context, d *Deps, k Kube, todo []rollout.Step, st *planned) {
	said := map[string]string{}
	running := map[string]coreconfig.Provider{}

	for _, n := range st.current.Nodes {
		said[n.Name], running[n.Name] = n.KubeNode, n.Config
	}

	desired := map[string]coreconfig.Provider{}

	for _, n := range st.head.Nodes {
		if n.Err == nil && n.Machine != nil {
			desired[n.Name] = n.Machine.Config
		}
	}

	var byAddress map[string][]string

	for i, s := range todo {
		if _, ours := desired[s.Node.Name]; !ours {
			continue // a node removed is known by the name it was found under
		}

		if name := said[s.Node.Name]; name != "" {
			todo[i].KubeNode = name

			continue
		}

		if byAddress == nil && k != nil {
			byAddress = internalIPs(ctx, d, k)
		}

		todo[i].KubeNode = nodeAt(byAddress, s.Address)
		if todo[i].KubeNode == "" {
			todo[i].KubeNode = kubeNodeName(s.Node.Name, running[s.Node.Name], desired[s.Node.Name])
		}
	}
}

// internalIPs asks k for its Nodes' addresses once; an API that does not answer leaves
// the guess (an empty, non-nil map: it is not asked again).
func internalIPs(ctx context.Context, d *Deps, k Kube) map[string][]string {
	ctx, cancel := context.WithTimeout(ctx, orDefault(d.TalosTimeout, talos.DefaultTimeout))
	defer cancel()

	ips, err := k.InternalIPs(ctx)
	if err != nil || ips == nil {
		return map[string][]string{}
	}

	return ips
}

// nodeAt is the one Node with the address among its InternalIPs ("" for none, or more
// than one: two Nodes cannot both be this node).
func nodeAt(byAddress map[string][]string, address string) string {
	found := ""

	for name, ips := range byAddress {
		if !slices.Contains(ips, address) {
			continue
		}

		if found != "" {
			return ""
		}

		found = name
	}

	return found
}

// kubeNodeName guesses the name of a node's Node object when neither the node nor the
// Kubernetes API said it. The kubelet names its Node after the machine's hostname, which
// the node's patch may set (a HostnameConfig document or machine.network.hostname). The
// running config names it first (the Node registered before the change, even when the
// change renames the host), then the desired one. Without either, the node picks or is
// given a hostname talops cannot know, and its name in talops.yaml is used. (A node that
// registers with its FQDN needs the FQDN as its hostname.)
func kubeNodeName(name string, configs ...coreconfig.Provider) string {
	for _, c := range configs {
		if c == nil {
			continue
		}

		if h := c.NetworkHostnameConfig(); h != nil && h.Hostname() != "" {
			return h.Hostname()
		}
	}

	return name
}
