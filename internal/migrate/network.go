package migrate

import (
	"fmt"

	"github.com/siderolabs/talos/pkg/machinery/config/types/k8s"
	"go.yaml.in/yaml/v4"
)

// kubeNetworkFields are the cluster.network keys KubeNetworkConfig has, by the same name.
var kubeNetworkFields = []string{"dnsDomain", "podSubnets", "serviceSubnets"}

// network: cluster.network → KubeNetworkConfig (the DNS domain and the pod and service
// subnets), and its cni → the control planes' KubeFlannelCNIConfig (flannel's arguments;
// deleted for none). The section moves whole, and with a cni only from a patch no worker
// uses: machinery refuses the CNI's documents there.
func (f *file) network() {
	_, v := at(f.body(), "cluster.network")
	if v == nil {
		return
	}

	if why := f.networkUnmovable(v); why != "" {
		f.left("cluster.network", why)

		return
	}

	k, v, comment := f.take("cluster.network")

	var kube *yaml.Node

	for _, key := range kubeNetworkFields {
		if _, val := get(v, key); val != nil {
			if kube == nil {
				kube = f.doc(k8s.KubeNetworkConfig, "")
			}

			set(kube, key, val)
		}
	}

	if kube != nil {
		f.moved(k.Line, "cluster.network", k8s.KubeNetworkConfig, kube, comment)
		comment = ""
	}

	_, cni := get(v, "cni")

	switch {
	case cni == nil:
	case f.patch.Workers > 0:
		// The CNI documents are the control planes' (machinery refuses them on a
		// worker): they go into the patch every control plane uses.
		f.changed = true
		f.res.controlPlaneCNI = append(f.res.controlPlaneCNI, cniMove{file: f.patch.Path, line: k.Line, cni: cni, comment: comment})
	default:
		f.cni(k.Line, cni, comment)
	}
}

// cniMove is a cni section of a file workers use too, on its way to the control planes'.
type cniMove struct {
	file    string
	line    int
	cni     *yaml.Node
	comment string
}

// cniFrom writes a cni section of another file as this file's documents.
func (f *file) cniFrom(m cniMove) {
	moved := len(f.res.Moved)
	f.cni(m.line, m.cni, m.comment)
	f.changed = true

	// The move is the other file's, at its line; the documents are here.
	for i := moved; i < len(f.res.Moved); i++ {
		f.res.Moved[i].File = m.file
		f.res.Moved[i].To += " in " + f.patch.Path
	}
}

// networkUnmovable says why cluster.network v cannot move ("" when it can).
func (f *file) networkUnmovable(v *yaml.Node) string {
	if v.Kind != yaml.MappingNode {
		return "not a mapping"
	}

	if extra := unknownKeys(v, append(kubeNetworkFields, "cni")...); len(extra) > 0 {
		return fmt.Sprintf("%v has no field in KubeNetworkConfig", extra)
	}

	_, cni := get(v, "cni")
	if cni == nil {
		return ""
	}

	_, flannel := get(cni, "flannel")
	if extra := unknownKeys(cni, "name", "urls", "flannel"); len(extra) > 0 || len(unknownKeys(flannel, "extraArgs", "kubeNetworkPoliciesEnabled")) > 0 {
		return "its cni has keys the CNI documents have no place for"
	}

	switch _, name := get(cni, "name"); {
	case name == nil || name.Value == "flannel" || name.Value == "none":
	case name.Value == "custom":
		// v1alpha1 names each manifest by its URL; a KubeExternalManifestConfig's name is a
		// DNS subdomain, so the manifests would be others to Talos.
		return "a custom cni's URLs become KubeExternalManifestConfig documents, whose names cannot be the URLs v1alpha1 names the manifests by: move it by hand (a KubeFlannelCNIConfig deleted, one KubeExternalManifestConfig per URL)"
	default:
		return fmt.Sprintf("unknown cni name %q", name.Value)
	}

	return ""
}

// cni writes what cluster.network.cni chose as the generator's documents of that CNI.
func (f *file) cni(line int, cni *yaml.Node, comment string) {
	flannel := f.doc(k8s.KubeFlannelCNIConfig, "")

	if _, name := get(cni, "name"); name != nil && name.Value == "none" {
		set(flannel, "$patch", str("delete"))
		f.moved(line, "cluster.network.cni", k8s.KubeFlannelCNIConfig, flannel, comment)

		return
	}

	_, settings := get(cni, "flannel")
	for i := 0; settings != nil && i+1 < len(settings.Content); i += 2 {
		set(flannel, settings.Content[i].Value, settings.Content[i+1])
	}

	f.moved(line, "cluster.network.cni", k8s.KubeFlannelCNIConfig, flannel, comment)
}
