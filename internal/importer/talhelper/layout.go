package talhelper

import (
	"maps"

	coreconfig "github.com/siderolabs/talos/pkg/machinery/config"

	"github.com/siderolabs/talos/pkg/machinery/config/types/v1alpha1"
	"go.yaml.in/yaml/v4"

	"github.com/talops/talops/internal/migrate"
)

// Labels the generator of the 1.14 contract writes into a control plane's KubeNodeConfig.
const (
	labelControlPlane = "node-role.kubernetes.io/control-plane"
	labelExcludeLB    = "node.kubernetes.io/exclude-from-external-load-balancers"
)

// kubeNodeFields are the v1alpha1 paths of a node's labels, annotations and taints, and
// their keys in a KubeNodeConfig.
var kubeNodeFields = map[string]string{
	"/machine/nodeLabels": "labels", "/machine/nodeAnnotations": "annotations", "/machine/nodeTaints": "taints",
}

// documentLayout turns the node operations whose v1alpha1 fields the contract writes as
// documents (1.14 and later: the install settings and the node's labels, annotations and
// taints) into those documents; the other operations are returned as they are. talhelper
// v3.1.16 and v3.1.17 (machinery v1.14.0-alpha.2) still set these fields in the v1alpha1
// document, where a config of the released 1.14 contract refuses them beside its own
// documents. What the node runs is the same: talhelper replaces the generator's labels,
// so a control plane's load-balancer exclusion goes, while its role label stays (Talos
// adds it to v1alpha1 labels by itself).
func (im *mapping) documentLayout(ops []op, controlPlane bool, name string) (rest []op, docs []any) {
	if !im.contract.MultidocKubernetesConfigSupported() {
		return ops, nil
	}

	var install, node map[string]any

	for _, o := range ops {
		switch {
		case o.Path == "/machine/install/image":
			install = orNew(install)
			install["installer"] = map[string]any{"image": o.Value}
		case o.Path == "/machine/install/diskSelector":
			expr, err := diskMatch(o.Value)
			if err != nil {
				im.repo.Unsupported(0, name, "installDiskSelector", "not a disk selector Talos can match ("+err.Error()+"): not imported")

				continue
			}

			install = orNew(install)
			// v1alpha1 never wiped the install disk unless told to; the document does.
			install["provisioning"] = map[string]any{"diskSelector": map[string]any{"match": expr}, "wipe": false}
		case kubeNodeFields[o.Path] != "":
			node = orNew(node)
			node[kubeNodeFields[o.Path]] = replaced(o.Value, controlPlane && o.Path == "/machine/nodeLabels")
		default:
			rest = append(rest, o)
		}
	}

	if install != nil {
		docs = append(docs, document("UnattendedInstallConfig", install))
	}

	if node != nil {
		docs = append(docs, document("KubeNodeConfig", node))
	}

	return rest, docs
}

// replaced is a label map that replaces the generator's: on a control plane, the
// load-balancer exclusion the generator writes is deleted unless the map keeps it.
func replaced(v any, controlPlane bool) any {
	m, ok := v.(map[string]string)
	if !ok {
		return v
	}

	out := map[string]any{}
	for k, val := range m {
		out[k] = val
	}

	if _, kept := m[labelExcludeLB]; controlPlane && !kept {
		out[labelExcludeLB] = map[string]any{"$patch": "delete"}
	}

	return out
}

// diskMatch is the CEL expression Talos matches a v1alpha1 install disk selector with.
func diskMatch(v any) (string, error) {
	b, err := yaml.Marshal(v)
	if err != nil {
		return "", err
	}

	var sel v1alpha1.InstallDiskSelector
	if err := yaml.Unmarshal(b, &sel); err != nil {
		return "", err
	}

	expr, err := (&v1alpha1.InstallConfig{InstallDiskSelector: &sel}).DiskMatchExpression()
	if err != nil {
		return "", err
	}

	return migrate.OneLineCEL(expr.String()), nil
}

func document(kind string, body map[string]any) map[string]any {
	body["apiVersion"], body["kind"] = "v1alpha1", kind

	return body
}

func orNew(m map[string]any) map[string]any {
	if m == nil {
		return map[string]any{}
	}

	return m
}

// alpha2View is the v1alpha1 document talhelper's templates read on the 1.14 contract:
// talhelper v3.1.16 (machinery v1.14.0-alpha.2) still writes the cluster's name and
// endpoint, the install settings, the kubelet, KubePrism and the node's labels,
// annotations and taints there, where the released contract writes documents. Those
// documents' values are copied back, so a template reads what talhelper's reads.
//
//nolint:staticcheck // the deprecated v1alpha1 fields are what talhelper's templates read
func alpha2View(c coreconfig.Provider, installDisk string) *v1alpha1.Config {
	v1 := c.RawV1Alpha1()
	if v1 == nil || v1.MachineConfig == nil || v1.ClusterConfig == nil {
		return v1
	}

	if k := c.K8sClusterConfig(); k != nil {
		v1.ClusterConfig.ClusterName = k.ClusterName()
		v1.ClusterConfig.ControlPlane = &v1alpha1.ControlPlaneConfig{Endpoint: &v1alpha1.Endpoint{URL: k.ClusterEndpoint()}}
	}

	if u := c.UnattendedInstallConfig(); u != nil {
		v1.MachineConfig.MachineInstall = &v1alpha1.InstallConfig{
			InstallDisk: installDisk, InstallImage: u.InstallerImage(), InstallWipe: new(false), InstallGrubUseUKICmdline: new(true),
		}
	}

	if k := c.K8sKubeletConfig(); k != nil {
		v1.MachineConfig.MachineKubelet = &v1alpha1.KubeletConfig{
			KubeletImage: k.Image(), KubeletDefaultRuntimeSeccompProfileEnabled: new(k.DefaultRuntimeSeccompProfileEnabled()),
			KubeletDisableManifestsDirectory: new(true),
		}
	}

	if p := c.K8sKubePrismConfig(); p != nil && v1.MachineConfig.MachineFeatures != nil {
		v1.MachineConfig.MachineFeatures.KubePrismSupport = &v1alpha1.KubePrism{ServerEnabled: new(true), ServerPort: p.Port()}
	}

	if n := c.K8sNodeConfig(); n != nil {
		// Patches not yet moved to documents still set the v1alpha1 maps: talhelper merges
		// them over the node's own.
		v1.MachineConfig.MachineNodeLabels = overlay(without(n.Labels(), labelControlPlane, ""), v1.MachineConfig.MachineNodeLabels)
		v1.MachineConfig.MachineNodeAnnotations = overlay(n.Annotations(), v1.MachineConfig.MachineNodeAnnotations)
		v1.MachineConfig.MachineNodeTaints = overlay(without(n.Taints(), labelControlPlane, "NoSchedule"), v1.MachineConfig.MachineNodeTaints)
	}

	return v1
}

// without is m without key when it holds value (what Talos adds to v1alpha1 by itself).
func without(m map[string]string, key, value string) map[string]string {
	if v, ok := m[key]; !ok || v != value {
		return m
	}

	out := maps.Clone(m)
	delete(out, key)

	return out
}

// overlay is base with over's entries set over it.
func overlay(base, over map[string]string) map[string]string {
	if len(over) == 0 {
		return base
	}

	out := maps.Clone(base)
	if out == nil {
		out = map[string]string{}
	}

	maps.Copy(out, over)

	return out
}
