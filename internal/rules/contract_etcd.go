package rules

import (
	"fmt"

	"github.com/talops/talops/internal/cluster"
	"github.com/talops/talops/internal/finding"
)

const kubeEtcdEncryptionConfig = "KubeEtcdEncryptionConfig"

// etcdKeyDropped finds control planes whose KubeEtcdEncryptionConfig no longer holds a key
// of the cluster's secrets bundle: the v1alpha1 layout encrypted secrets in etcd with
// them, and without them kube-apiserver cannot read those secrets back. Keys are compared,
// never printed: the finding names the missing one by where the bundle keeps it.
func etcdKeyDropped(in *Input) []finding.Finding {
	if in.Bundle == nil || in.Bundle.Bundle == nil || in.Bundle.Secrets == nil || in.Bundle.Throwaway {
		return nil
	}

	keys := []struct{ secret, name string }{
		{in.Bundle.Secrets.SecretboxEncryptionSecret, "secrets.secretboxencryptionsecret (key2 in the document Talos generates)"},
		{in.Bundle.Secrets.AESCBCEncryptionSecret, "secrets.aescbcencryptionsecret (key1 in the document Talos generates)"},
	}

	var out []finding.Finding

	for _, n := range rendered(in) {
		// A complete config carries its own secrets, not the bundle's.
		if !n.Generated {
			continue
		}

		enc := n.Config.K8sEtcdEncryptionConfig()
		if enc == nil {
			continue
		}

		file, line, inPatch := documentAt(n, kubeEtcdEncryptionConfig, "")
		if !inPatch {
			file, line = place(in.Cluster, n, "")
		}

		for _, k := range keys {
			if k.secret == "" || holdsSecret(enc.EtcdEncryptionConfig(), k.secret) {
				continue
			}

			out = append(out, finding.Finding{
				Severity: finding.Error, Code: CodeEtcdKeyDropped, Node: n.Node.Name,
				File: file, Line: line, Path: kubeEtcdEncryptionConfig,
				Message: fmt.Sprintf("the KubeEtcdEncryptionConfig at %s:%d does not keep the key %s of %s: the secrets etcd holds encrypted with it become unreadable; add that key to a secretbox provider of the document (rotate keys by adding the new one first, never by replacing)",
					file, line, k.name, secretsFile(in.Cluster)),
			})
		}
	}

	return out
}

// holdsSecret reports whether an encryption configuration holds secret as some key's
// secret, in any provider.
func holdsSecret(v any, secret string) bool {
	switch v := v.(type) {
	case map[string]any:
		if s, ok := v["secret"].(string); ok && s == secret {
			return true
		}

		for _, e := range v {
			if holdsSecret(e, secret) {
				return true
			}
		}
	case []any:
		for _, e := range v {
			if holdsSecret(e, secret) {
				return true
			}
		}
	}

	return false
}

func secretsFile(c *cluster.Cluster) string {
	if c.Spec.Secrets == "" {
		return "the secrets bundle"
	}

	return c.Path(c.Spec.Secrets)
}
