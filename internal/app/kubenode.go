package app

import coreconfig "github.com/siderolabs/talos/pkg/machinery/config"

// kubeNodeName is the name of a node's Node object in Kubernetes, the one drained. The
// kubelet names its Node after the machine's hostname, which talops does not set: the
// node's patch does (a HostnameConfig document or machine.network.hostname). The running
// config names it first (the Node registered before the change, even when the change
// renames the host), then the desired one. Without either, the node picks or is given a
// hostname talops cannot know, and its name in talops.yaml is used: name nodes after their
// hostnames, as the examples do. (A node that registers with its FQDN needs the FQDN as
// its hostname.)
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
