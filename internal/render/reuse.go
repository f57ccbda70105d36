package render

import (
	"crypto/sha256"
	"strconv"
	"strings"

	coreconfig "github.com/siderolabs/talos/pkg/machinery/config"
	"go.yaml.in/yaml/v4"

	"github.com/talops/talops/internal/cluster"
	"github.com/talops/talops/internal/secrets"
)

// nodeKey is everything a generated node's config is made from: the bundle, and the
// generate inputs and patches, the patches by what they loaded to (their bytes), not by
// their names. Two nodes with the same key render the same config, whichever state or
// directory they are in.
type nodeKey struct {
	// bundle is the hash of the secrets bundle's encoding: every state loads its own.
	bundle [sha256.Size]byte
	// inputs are the config contract, the cluster's name and endpoint, the Kubernetes
	// version, the install disk, the installer, the role and the patches' ids, in order.
	inputs string
}

// bundleSum is the hash of what generate reads of b: all of its fields but the clock,
// which only making a bundle uses. ok is false when it does not encode.
func bundleSum(b *secrets.Bundle) (sum [sha256.Size]byte, ok bool) {
	if b == nil || b.Bundle == nil {
		return sum, false
	}

	data, err := yaml.Marshal(b.Bundle)
	if err != nil {
		return sum, false
	}

	return sha256.Sum256(data), true
}

// reusable loads a generated node's patches through the cache and returns its key with
// them. ok is false without a cache, or when a patch does not load: the node is then
// rendered the usual way, which reports the errors in the order it meets them.
func (o Options) reusable(c *cluster.Cluster, n cluster.Node, installer string, rels []string) (nodeKey, []*patch, bool) {
	if o.Patches == nil || !o.bundleKnown {
		return nodeKey{}, nil, false
	}

	patches := make([]*patch, len(rels))

	var s strings.Builder

	for _, part := range []string{c.ConfigVersion(), c.Spec.Cluster.Name, c.Spec.Cluster.Endpoint, c.Spec.KubernetesVersion, n.InstallDisk, installer, string(n.Role)} {
		// Lengths first, so that no two lists of parts join to the same string.
		s.WriteString(strconv.Itoa(len(part)))
		s.WriteByte(':')
		s.WriteString(part)
	}

	for i, rel := range rels {
		p, err := o.patch(c, rel)
		if err != nil {
			return nodeKey{}, nil, false
		}

		patches[i] = p
		s.WriteByte(',')
		s.WriteString(strconv.Itoa(p.id))
	}

	return nodeKey{bundle: o.bundle, inputs: s.String()}, patches, true
}

// config is the config a node with key rendered to, if one did.
func (pc *PatchCache) config(key nodeKey) (coreconfig.Provider, bool) {
	pc.mu.Lock()
	defer pc.mu.Unlock()

	cfg, ok := pc.configs[key]

	return cfg, ok
}

// keepConfig keeps the config a node with key rendered to, for the next node with it.
func (pc *PatchCache) keepConfig(key nodeKey, cfg coreconfig.Provider) {
	pc.mu.Lock()
	defer pc.mu.Unlock()

	pc.configs[key] = cfg
}
