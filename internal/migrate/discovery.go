package migrate

import (
	"github.com/siderolabs/talos/pkg/machinery/config/types/cluster"
	"go.yaml.in/yaml/v4"
)

// defaultDiscovery is the name of the DiscoveryServiceConfig the generator writes.
const defaultDiscovery = "default"

// discovery: cluster.discovery → DiscoveryServiceConfig "default" (its endpoint), or that
// document deleted when discovery or its service registry is off. The Kubernetes registry
// has no document: a section that keeps it on stays, since the new layout would stop it.
func (f *file) discovery() {
	_, v := at(f.body(), "cluster.discovery")
	if v == nil {
		return
	}

	_, registries := get(v, "registries")
	_, kube := get(registries, "kubernetes")
	_, service := get(registries, "service")

	if v.Kind != yaml.MappingNode || len(unknownKeys(v, "enabled", "registries")) > 0 || len(unknownKeys(registries, "kubernetes", "service")) > 0 ||
		len(unknownKeys(kube, "disabled")) > 0 || len(unknownKeys(service, "disabled", "endpoint")) > 0 {
		f.left("cluster.discovery", "has keys DiscoveryServiceConfig has no place for")

		return
	}

	// What the patch does not say comes from the generated config: discovery on, through
	// the service registry, with the Kubernetes registry off.
	on := !isFalse(v, "enabled")
	if on && isFalse(kube, "disabled") {
		f.left("cluster.discovery", "keeps the Kubernetes registry on, which no document of the new layout runs: keep the section and delete the DiscoveryServiceConfig named default by hand, or turn the registry off first")

		return
	}

	k, v, comment := f.take("cluster.discovery")
	doc := f.doc(cluster.DiscoveryServiceKind, defaultDiscovery)

	_, registries = get(v, "registries")
	_, service = get(registries, "service")
	if !on || isTrue(service, "disabled") {
		set(doc, "$patch", str("delete"))
	} else if _, endpoint := get(service, "endpoint"); endpoint != nil {
		set(doc, "endpoint", endpoint)
	}

	f.moved(k.Line, "cluster.discovery", cluster.DiscoveryServiceKind, doc, comment)
}

// isTrue says whether key of mapping m is the boolean true.
func isTrue(m *yaml.Node, key string) bool {
	_, v := get(m, key)

	return v != nil && v.Kind == yaml.ScalarNode && v.Value == "true"
}

// isFalse says whether key of mapping m is the boolean false.
func isFalse(m *yaml.Node, key string) bool {
	_, v := get(m, key)

	return v != nil && v.Kind == yaml.ScalarNode && v.Value == "false"
}
