package migrate

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"

	"github.com/siderolabs/talos/pkg/machinery/config/config"
	"github.com/siderolabs/talos/pkg/machinery/config/machine"
)

// Difference is one effective setting of a node that a migration would change.
type Difference struct {
	// Setting names what the node would run differently (kubelet.extraArgs).
	Setting string
	// Before and After are the setting's values; a secret shows as a fingerprint.
	Before, After string
}

// Settings are what a node runs, read through machinery's accessors, which answer the same
// for a v1alpha1 field and the document it moved to: the proof compares these, not bytes.
func Settings(c config.Config) map[string]string {
	s := map[string]string{}
	put := func(name string, v any) { s[name] = canonical(v) }

	if k := c.K8sKubeletConfig(); k != nil {
		put("kubelet.image", k.Image())
		put("kubelet.extraArgs", k.ExtraArgs())
		put("kubelet.extraMounts", k.ExtraMounts())
		put("kubelet.clusterDNS", k.ClusterDNS())
		put("kubelet.config", k.ExtraConfig())
		put("kubelet.defaultRuntimeSeccompProfileEnabled", k.DefaultRuntimeSeccompProfileEnabled())
	}

	if n := c.K8sNodeConfig(); n != nil {
		put("node.labels", n.Labels())
		put("node.taints", n.Taints())
		put("node.annotations", n.Annotations())
		put("node.registerWithFQDN", n.RegisterWithFQDN())
		put("node.skipNodeRegistration", n.SkipNodeRegistration())

		if ip := n.NodeIP(); ip != nil {
			put("node.nodeIP.validSubnets", ip.ValidSubnets())
		}
	}

	install(c, put)

	if r := c.NetworkResolverConfig(); r != nil {
		put("resolver.nameservers", r.Resolvers())
		put("resolver.searchDomains", r.SearchDomains())
		put("resolver.disableSearchDomain", r.DisableSearchDomain())
	}

	if h := c.NetworkHostDNSConfig(); h != nil {
		put("hostDNS", []bool{h.HostDNSEnabled(), h.ForwardKubeDNSToHost(), h.ResolveMemberNames()})
	}

	if h := c.NetworkHostnameConfig(); h != nil {
		put("hostname", h.Hostname())
	}

	isolation := false
	if p := c.SecurityProfileConfig(); p != nil {
		isolation = p.WorkloadIsolation()
	}

	put("securityProfile.workloadIsolation", isolation)

	trim := "off"
	if t := c.FilesystemTrimConfig(); t != nil {
		trim = t.Interval().String()
	}

	put("filesystemTrim.interval", trim)

	discovery(c, put)

	if c.Machine() != nil && c.Machine().Type() == machine.TypeControlPlane {
		controlPlane(c, put)
	}

	return s
}

// discovery reads what Talos' cluster discovery reads: the discovery services' endpoints
// (their names only label them) and the Kubernetes registry, which runs only while the
// v1alpha1 discovery is on.
func discovery(c config.Config, put func(string, any)) {
	var endpoints []string

	for _, d := range c.DiscoveryServiceConfigs() {
		if u := d.Endpoint(); u != nil {
			endpoints = append(endpoints, u.String())
		}
	}

	put("discovery.endpoints", endpoints)

	registry := false
	if cl := c.Cluster(); cl != nil && cl.Discovery() != nil {
		registry = cl.Discovery().Enabled() && cl.Discovery().Registries().Kubernetes().Enabled()
	}

	put("discovery.kubernetesRegistry", registry)
}

// install reads the install disk, image and wipe, from UnattendedInstallConfig or machine.install.
func install(c config.Config, put func(string, any)) {
	if u := c.UnattendedInstallConfig(); u != nil {
		put("install.image", u.InstallerImage())
		put("install.disk", OneLineCEL(u.VolumeSelector().String()))
		put("install.wipe", u.VolumeWipe())

		return
	}

	if c.Machine() == nil || c.Machine().Install() == nil {
		return
	}

	i := c.Machine().Install()
	disk := ""

	// Talos installs to the disk the selector matches when there is one, and to
	// machine.install.disk only without one (machined's install task).
	if expr, err := i.DiskMatchExpression(); err == nil && expr != nil {
		disk = OneLineCEL(expr.String())
	} else if d := i.Disk(); d != "" {
		disk = fmt.Sprintf("disk.dev_path == %q", d)
	}

	put("install.image", i.Image())
	put("install.disk", disk)
	put("install.wipe", i.Zero()) // Zero is machine.install.wipe
}

// certSANs are the API server certificate's extra names as a set, with the control-plane
// endpoint's host: Talos adds that one itself (what an older contract's generator wrote
// into the list, a newer one leaves to it), so it is there either way.
func certSANs(c config.Config, extra []string) []string {
	out := slices.Clone(extra)

	if k := c.K8sClusterConfig(); k != nil {
		if u := k.ClusterEndpoint(); u != nil {
			out = append(out, u.Hostname())
		}
	}

	slices.Sort(out)

	return slices.Compact(out)
}

// controlPlane reads what only a control plane runs: the API server, who may sign in and
// what they may do, the audit policy and the keys etcd data is encrypted with.
func controlPlane(c config.Config, put func(string, any)) {
	api := c.K8sAPIServerConfig()
	if api == nil {
		return
	}

	args := api.ExtraArgs()
	flags := map[string]string{}

	if !api.UseAuthenticationConfig() {
		// The legacy layout signs in through flags: the structured configuration
		// kube-apiserver builds from them is what the new layout must write.
		args = maps.Clone(args)

		for name, v := range args {
			if isAuthnFlag(name) {
				flags[name] = strings.Join(v, ",")
				delete(args, name)
			}
		}

		if authn, err := AuthenticationFromFlags(flags); err != nil {
			put("apiServer.authentication", "unconvertible: "+err.Error())
		} else {
			put("apiServer.authentication", authn)
		}
	} else if a := c.K8sAuthenticationConfig(); a != nil {
		put("apiServer.authentication", a.Configuration())
	}

	put("apiServer.image", api.Image())
	put("apiServer.extraArgs", args)
	put("apiServer.env", api.Env())
	put("apiServer.certSANs", certSANs(c, api.CertSANs()))

	var authorizers []string

	if api.InjectDefaultAuthorizers() {
		authorizers = append(authorizers, "Node", "RBAC")
	}

	for _, a := range c.K8sAuthorizerConfigs() {
		if w := a.Webhook(); len(w) > 0 {
			authorizers = append(authorizers, a.Type()+" "+canonical(w))
		} else {
			authorizers = append(authorizers, a.Type())
		}
	}

	put("apiServer.authorizers", authorizers)

	if a := c.K8sAuditPolicyConfig(); a != nil {
		put("apiServer.auditPolicy", a.Configuration())
	}

	put("etcd.encryptionKeys", encryptionKeys(c))
}

// encryptionKeys lists the providers and keys etcd data is encrypted with, each secret as a
// fingerprint: the legacy layout derives them from the cluster secrets as kube-apiserver's
// configuration did (secretbox key2, then aescbc key1), the new one writes them out.
func encryptionKeys(c config.Config) []string {
	var keys []string

	if e := c.K8sEtcdEncryptionConfig(); e != nil {
		resources, _ := e.EtcdEncryptionConfig()["resources"].([]any)
		for _, r := range resources {
			providers, _ := r.(map[string]any)["providers"].([]any)
			for _, p := range providers {
				for typ, spec := range p.(map[string]any) {
					list, _ := spec.(map[string]any)["keys"].([]any)
					for _, k := range list {
						key, _ := k.(map[string]any)
						keys = append(keys, fmt.Sprintf("%s %v %s", typ, key["name"], fingerprint(fmt.Sprint(key["secret"]))))
					}
				}
			}
		}

		return keys
	}

	if c.Cluster() == nil {
		return nil
	}

	if s := c.Cluster().SecretboxEncryptionSecret(); s != "" {
		keys = append(keys, "secretbox key2 "+fingerprint(s))
	}

	if s := c.Cluster().AESCBCEncryptionSecret(); s != "" {
		keys = append(keys, "aescbc key1 "+fingerprint(s))
	}

	return keys
}

// fingerprint stands for a secret in what is shown: its SHA-256, shortened.
func fingerprint(s string) string {
	sum := sha256.Sum256([]byte(s))

	return "sha256:" + hex.EncodeToString(sum[:6])
}

// canonical writes a value as JSON (maps with sorted keys), so equal settings compare equal.
func canonical(v any) string {
	// An empty map or list is no map or list: a taint deleted from a document leaves {}
	// where the v1alpha1 layout had none, and the node runs the same.
	if r := reflect.ValueOf(v); (r.Kind() == reflect.Map || r.Kind() == reflect.Slice) && r.Len() == 0 {
		return "null"
	}

	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}

	// Inside a value the same holds: an empty field is no field. A key decoded from an
	// RFC 6902 patch's JSON is "" where the merge of the same patch left it nil.
	if bytes.Contains(b, []byte(`""`)) || bytes.Contains(b, []byte("null")) || bytes.Contains(b, []byte("[]")) || bytes.Contains(b, []byte("{}")) {
		var tree any
		if json.Unmarshal(b, &tree) == nil {
			if pruned, err := json.Marshal(withoutEmpty(tree)); err == nil {
				return string(pruned)
			}
		}
	}

	return string(b)
}

// withoutEmpty drops the empty strings, nulls, lists and maps of a decoded JSON value,
// inside out.
func withoutEmpty(v any) any {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			if e = withoutEmpty(e); isEmpty(e) {
				delete(x, k)
			} else {
				x[k] = e
			}
		}
	case []any:
		for i, e := range x {
			x[i] = withoutEmpty(e)
		}
	}

	return v
}

func isEmpty(v any) bool {
	switch x := v.(type) {
	case nil:
		return true
	case string:
		return x == ""
	case map[string]any:
		return len(x) == 0
	case []any:
		return len(x) == 0
	}

	return false
}

// Compare lists the settings that differ between a node's config before and after, by name.
func Compare(before, after config.Config) []Difference {
	b, a := Settings(before), Settings(after)

	var out []Difference

	for _, name := range slices.Sorted(maps.Keys(b)) {
		if b[name] != a[name] {
			out = append(out, Difference{Setting: name, Before: b[name], After: orAbsent(a, name)})
		}
	}

	for _, name := range slices.Sorted(maps.Keys(a)) {
		if _, ok := b[name]; !ok {
			out = append(out, Difference{Setting: name, Before: "(absent)", After: a[name]})
		}
	}

	return out
}

func orAbsent(m map[string]string, k string) string {
	if v, ok := m[k]; ok {
		return v
	}

	return "(absent)"
}

// sources maps a setting's first segment to the v1alpha1 path it is written at.
var sources = map[string]string{
	"kubelet":   "machine.kubelet",
	"node":      "machine.node",
	"install":   "machine.install",
	"resolver":  "machine.network",
	"hostDNS":   "machine.features.hostDNS",
	"hostname":  "machine.network.hostname",
	"apiServer": "cluster.apiServer",
	"discovery": "cluster.discovery",
}

// SourceOf is the v1alpha1 path a setting was written at ("" when it is no one place).
func SourceOf(setting string) string {
	head, _, _ := strings.Cut(setting, ".")

	return sources[head]
}
