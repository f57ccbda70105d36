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

	var allDocs, cpDocs []any

	if network := im.network(root); len(network) > 0 {
		if im.contract.MultidocKubernetesConfigSupported() {
			allDocs = append(allDocs, document("KubeNetworkConfig", network))
		} else {
			all["cluster"] = map[string]any{"network": network}
		}
	}

	allDocs = append(allDocs, im.isolation()...)

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
		if im.contract.MultidocKubernetesConfigSupported() {
			im.repo.Unsupported(lineOf(root, "additionalApiServerCertSans"), "", "additionalApiServerCertSans",
				"talhelper v3.1.16 writes it nowhere on the 1.14 contract (its machinery, v1.14.0-alpha.2, takes it for the v1alpha1 apiServer it no longer writes), so the API server's certificate does not name it: not imported; to name it, add it to certSANs in a KubeAPIServerConfig patch, a change of its own")
		} else {
			cpCluster["apiServer"] = map[string]any{"certSANs": v}
		}
	}

	if boolean(get(root, "allowSchedulingOnControlPlanes")) || boolean(get(root, "allowSchedulingOnMasters")) {
		if im.contract.MultidocKubernetesConfigSupported() {
			// The generator taints control planes in their KubeNodeConfig.
			cpDocs = append(cpDocs, document("KubeNodeConfig", map[string]any{
				"taints": map[string]any{labelControlPlane: map[string]any{"$patch": "delete"}},
			}))
		} else {
			cpCluster["allowSchedulingOnControlPlanes"] = true
		}
	}

	if len(cpCluster) > 0 {
		cp["cluster"] = cpCluster
	}

	var out sharedPatches

	if len(all) > 0 || len(allDocs) > 0 {
		out.all = "patches/talhelper-cluster.yaml"
		im.addPatch(out.all, "# talhelper's cluster fields (clusterPodNets, clusterSvcNets, additionalMachineCertSans, cniConfig, domain, inlineManifests).", all, allDocs)
	}

	if len(cp) > 0 || len(cpDocs) > 0 {
		out.controlPlane = "patches/talhelper-controlplane.yaml"
		im.addPatch(out.controlPlane, "# talhelper's control plane fields (additionalApiServerCertSans, allowSchedulingOnControlPlanes).", cp, cpDocs)
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
				if !im.outside(err, lineOf(m, "contents"), at+".contents") {
					im.repo.Unsupported(lineOf(m, "contents"), "", at+".contents", err.Error()+": inlineManifests not imported")
				}

				return nil, false
			}

			contents = data
		}

		out = append(out, map[string]any{"name": scalar(get(m, "name")), "contents": contents})
	}

	return out, true
}

// addPatch writes a strategic-merge patch of v1alpha1 fields followed by documents.
func (im *mapping) addPatch(rel, comment string, v1 map[string]any, docs []any) {
	var err error

	if len(docs) == 0 {
		err = im.repo.AddYAML(rel, comment, v1)
	} else {
		if len(v1) > 0 {
			docs = append([]any{v1}, docs...)
		}

		err = im.repo.AddDocs(rel, comment, docs)
	}

	if err != nil {
		im.repo.Unsupported(0, "", rel, err.Error())
	}
}

// isolation keeps workload isolation off on the 1.14 contract: talhelper v3.1.16 (machinery
// v1.14.0-alpha.2) writes no SecurityProfileConfig, so its nodes run without the isolation
// the released contract turns on.
func (im *mapping) isolation() []any {
	if !im.contract.MultidocKubernetesConfigSupported() {
		return nil
	}

	return []any{document("SecurityProfileConfig", map[string]any{"workloadIsolation": false})}
}
