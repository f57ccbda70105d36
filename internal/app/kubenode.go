package app

import "github.com/talops/talops/internal/render"

// kubeNodeName is the name of a node's Node object in Kubernetes, the one drained. The
// kubelet names its Node after the machine's hostname, which talops does not set: the
// node's patch does (a HostnameConfig document or machine.network.hostname). Without
// one, the node picks or is given a hostname talops cannot know, and its name in
// talops.yaml is used: name nodes after their hostnames, as the examples do. (A node that
// registers with its FQDN needs the FQDN as its hostname.)
func kubeNodeName(name string, m *render.Machine) string {
	if m == nil || m.Config == nil {
		return name
	}

	if h := m.Config.NetworkHostnameConfig(); h != nil && h.Hostname() != "" {
		return h.Hostname()
	}

	return name
}
