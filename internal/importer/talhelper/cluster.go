package talhelper

import (
	"fmt"
	"reflect"
	"strings"

	"github.com/siderolabs/talos/pkg/machinery/config/types/v1alpha1"
	"go.yaml.in/yaml/v4"
)

// sharedPatches are the patches talops writes for talhelper's cluster-wide fields: those
// of every node and those of the control planes alone.
type sharedPatches struct {
	all, controlPlane string
}

// clusterPatches turns the fields talhelper hands the config generator (pod and service
// networks, certificate SANs, the CNI, the DNS domain, scheduling on control planes) into
// strategic-merge patches: applied to talops' generated config they give the same fields.
func (im *mapping) clusterPatches(root *yaml.Node) sharedPatches {
	all := map[string]any{}
	cp := map[string]any{}

	if network := im.network(root); len(network) > 0 {
		all["cluster"] = map[string]any{"network": network}
	}

	if v := strs(get(root, "additionalMachineCertSans")); len(v) > 0 {
		all["machine"] = map[string]any{"certSANs": v}
	}

	if ms, ok := im.inlineManifests(get(root, "inlineManifests")); ok && len(ms) > 0 {
		c, _ := all["cluster"].(map[string]any)
		if c == nil {
			c = map[string]any{}
			all["cluster"] = c
		}

		c["inlineManifests"] = ms
	}

	cpCluster := map[string]any{}

	if v := strs(get(root, "additionalApiServerCertSans")); len(v) > 0 {
		cpCluster["apiServer"] = map[string]any{"certSANs": v}
	}

	if boolean(get(root, "allowSchedulingOnControlPlanes")) || boolean(get(root, "allowSchedulingOnMasters")) {
		cpCluster["allowSchedulingOnControlPlanes"] = true
	}

	if len(cpCluster) > 0 {
		cp["cluster"] = cpCluster
	}

	var out sharedPatches

	if len(all) > 0 {
		out.all = "patches/talhelper-cluster.yaml"
		if err := im.repo.AddYAML(out.all, "# talhelper's cluster fields (clusterPodNets, clusterSvcNets, additionalMachineCertSans, cniConfig, domain, inlineManifests).", all); err != nil {
			im.repo.Unsupported(0, "", out.all, err.Error())
		}
	}

	if len(cp) > 0 {
		out.controlPlane = "patches/talhelper-controlplane.yaml"
		if err := im.repo.AddYAML(out.controlPlane, "# talhelper's control plane fields (additionalApiServerCertSans, allowSchedulingOnControlPlanes).", cp); err != nil {
			im.repo.Unsupported(0, "", out.controlPlane, err.Error())
		}
	}

	return out
}

// network is the cluster.network of talhelper's network fields (pod and service networks,
// the DNS domain, the CNI).
func (im *mapping) network(root *yaml.Node) map[string]any {
	network := map[string]any{}

	if v := strs(get(root, "clusterPodNets")); len(v) > 0 {
		network["podSubnets"] = v
	}

	if v := strs(get(root, "clusterSvcNets")); len(v) > 0 {
		network["serviceSubnets"] = v
	}

	if d := scalar(get(root, "domain")); d != "" {
		network["dnsDomain"] = d
	}

	if cni := get(root, "cniConfig"); cni != nil {
		if v, ok := im.cni(cni); ok {
			network["cni"] = v
		}
	}

	return network
}

// cni maps cniConfig as talhelper sets it before the 1.14 contract: the field itself, with
// the keys Talos' CNIConfig knows.
func (im *mapping) cni(n *yaml.Node) (any, bool) {
	if im.contract.MultidocKubernetesConfigSupported() {
		im.repo.Unsupported(n.Line, "", "cniConfig", "on the 1.14 contract talhelper rewrites the flannel document; not imported")

		return nil, false
	}

	v, ok := im.typed(n, "", "cniConfig", reflect.TypeFor[*v1alpha1.CNIConfig]())
	if !ok {
		return nil, false
	}

	return v, true
}

// inlineManifests are the top-level inlineManifests as talhelper sets them on every node, a
// contents "@file" read from the file; one that cannot be read imports none.
func (im *mapping) inlineManifests(n *yaml.Node) ([]any, bool) {
	var out []any

	for i, m := range items(n) {
		at := fmt.Sprintf("inlineManifests[%d]", i)

		if _, ok := im.typed(m, "", at, reflect.TypeFor[inlineManifestEntry]()); !ok {
			return nil, false
		}

		contents := scalar(get(m, "contents"))
		if rel, ok := strings.CutPrefix(contents, "@"); ok {
			data, err := im.fileContent(rel, boolean(get(m, "skipEnvsubst")))
			if err != nil {
				im.repo.Unsupported(lineOf(m, "contents"), "", at+".contents", err.Error()+": inlineManifests not imported")

				return nil, false
			}

			contents = data
		}

		out = append(out, map[string]any{"name": scalar(get(m, "name")), "contents": contents})
	}

	return out, true
}
