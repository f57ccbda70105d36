package render

import (
	coreconfig "github.com/siderolabs/talos/pkg/machinery/config"
	"github.com/siderolabs/talos/pkg/machinery/config/types/k8s"
)

// nameSecretboxKey gives the bundle's secretbox key the names talops.yaml lists
// (cluster.secretboxKeyNames) in the KubeEtcdEncryptionConfig the generator wrote: one
// entry per name, all with the same secret, the first encrypting. The generator names it
// key2; a cluster whose configs named it otherwise (talhelper's 1.14 configs say key1)
// stores its Secrets under that name, and kube-apiserver reads a Secret only with a key
// of the name it was written under. Only the generated config is edited, before any patch.
func nameSecretboxKey(cfg coreconfig.Provider, names []string, secret string) {
	if len(names) == 0 || secret == "" {
		return
	}

	for _, doc := range cfg.Documents() {
		enc, ok := doc.(*k8s.KubeEtcdEncryptionConfigV1Alpha1)
		if !ok {
			continue
		}

		resources, _ := enc.Config.Object["resources"].([]any)
		for _, r := range resources {
			providers, _ := r.(map[string]any)["providers"].([]any)
			for _, p := range providers {
				box, _ := p.(map[string]any)["secretbox"].(map[string]any)
				if box == nil || !holds(box, secret) {
					continue
				}

				keys := make([]any, 0, len(names))
				for _, n := range names {
					keys = append(keys, map[string]any{"name": n, "secret": secret})
				}

				box["keys"] = keys
			}
		}
	}
}

// holds says whether a secretbox provider's keys are the one secret.
func holds(box map[string]any, secret string) bool {
	keys, _ := box["keys"].([]any)

	for _, k := range keys {
		if m, _ := k.(map[string]any); m == nil || m["secret"] != secret {
			return false
		}
	}

	return len(keys) > 0
}
