package rules

import (
	"fmt"

	coreconfig "github.com/siderolabs/talos/pkg/machinery/config"
	"github.com/siderolabs/talos/pkg/machinery/config/config"
	"github.com/siderolabs/talos/pkg/machinery/config/container"

	"github.com/talops/talops/internal/cluster"
	"github.com/talops/talops/internal/finding"
	"github.com/talops/talops/internal/render"
	"github.com/talops/talops/internal/yamlpos"
)

// v1alpha1Fields are the v1alpha1 fields each typed document's V1Alpha1ConflictValidate
// refuses next to it in machinery v1.14, in the order machinery checks them, as a patch
// writes them. Machinery's messages name a field for some pairs only, and a wrong one for
// others (.machine.cluster.network is .cluster.network): the test of this table holds
// each row to the message machinery gives.
var v1alpha1Fields = map[string][]string{
	"UnattendedInstallConfig":      {"machine.install"},
	"KubeletConfig":                {"machine.kubelet"},
	"KubeCredentialProviderConfig": {"machine.kubelet"},
	"KubeNodeConfig": {
		"cluster.allowSchedulingOnControlPlanes", "cluster.allowSchedulingOnMasters",
		"machine.kubelet.skipNodeRegistration", "machine.kubelet.registerWithFQDN", "machine.kubelet.nodeIP",
		"machine.nodeLabels", "machine.nodeAnnotations", "machine.nodeTaints",
	},
	"KubeCoreDNSConfig":           {"cluster.coreDNS"},
	"KubeControllerManagerConfig": {"cluster.controllerManager", "machine.controlPlane.controllerManager"},
	"KubeSchedulerConfig":         {"cluster.scheduler", "machine.controlPlane.scheduler"},
	"KubeProxyConfig":             {"cluster.proxy"},
	"KubeAPIServerConfig":         {"cluster.apiServer", "cluster.controlPlane.localAPIServerPort"},
	"KubeAPIServerCAConfig":       {"cluster.ca"},
	"KubeAggregatorCAConfig":      {"cluster.aggregatorCA"},
	"KubeServiceAccountConfig":    {"cluster.serviceAccount"},
	"KubeAuditPolicyConfig":       {"cluster.apiServer.auditPolicy"},
	// Machinery checks the admission plugins for the authorizer document too.
	"KubeAdmissionControlConfig": {"cluster.apiServer.admissionControl"},
	"KubeAuthorizerConfig":       {"cluster.apiServer.admissionControl"},
	"KubeEtcdEncryptionConfig":   {"cluster.secretboxEncryptionSecret", "cluster.aescbcEncryptionSecret"},
	"KubeClusterConfig":          {"cluster.clusterName", "cluster.controlPlane.endpoint"},
	"KubeNetworkConfig":          {"cluster.network"},
	"KubeFlannelCNIConfig":       {"cluster.network"},
	"KubePrismConfig":            {"machine.features.kubePrism"},
	"KubeTalosAPIAccessConfig":   {"machine.features.kubernetesTalosAPIAccess"},
	"ResolverConfig": {
		"machine.network.searchDomains", "machine.network.nameservers", "machine.network.disableSearchDomain",
		"machine.features.hostDNS",
	},
	"HostnameConfig":           {"machine.network.hostname", "machine.features.stableHostname"},
	"TimeSyncConfig":           {"machine.time.disabled", "machine.time.servers", "machine.time.bootTimeout"},
	"KubeSpanConfig":           {"machine.network.kubespan"},
	"VolumeConfig":             {"machine.systemDiskEncryption.state", "machine.systemDiskEncryption.ephemeral"},
	"CRIBaseRuntimeSpecConfig": {"machine.baseRuntimeSpecOverrides"},
	"ImageCacheConfig":         {"machine.features.imageCache"},
	"DiscoveryIdentityConfig":  {"cluster.id", "cluster.secret"},
	"DiscoveryServiceConfig":   {"cluster.discovery"},
}

// replacement is a finding that stands for a config.invalid message of machinery, placed
// where the user edits and with the cure: a typed document refused next to a v1alpha1
// field, a kube-apiserver argument a document refuses.
type replacement struct {
	finding.Finding

	// machinery is the config.invalid message the finding replaces.
	machinery string
}

// v1alpha1Conflicts finds the typed documents of a node that machinery refuses next to a
// v1alpha1 field still set, by asking each document as machinery does, and places each at
// the patch line that sets the field, naming where the document is and what to do.
func v1alpha1Conflicts(in *Input, n *render.Machine) []replacement {
	v1 := n.Config.RawV1Alpha1()
	if v1 == nil {
		return nil
	}

	var (
		out   []replacement
		final *yamlpos.Doc
	)

	for _, doc := range n.Config.Documents() {
		cv, ok := doc.(container.V1Alpha1ConflictValidator)
		if !ok {
			continue
		}

		err := cv.V1Alpha1ConflictValidate(v1)
		if err == nil {
			continue
		}

		kind, name := doc.Kind(), docName(doc)
		docFile, docLine, inPatch := documentAt(n, kind, name)
		field, fieldFile, fieldLine := fieldSetBy(n, v1alpha1Fields[kind])

		docWhere := fmt.Sprintf("the %s document at %s:%d", kind, docFile, docLine)
		if !inPatch {
			docWhere = fmt.Sprintf("a %s document (a patch of that kind merges into the one talops generates for the %s format)", kind, contractOf(in.Cluster))
		}

		c := replacement{machinery: yamlpos.WithoutValues(err.Error())}
		c.Severity, c.Code, c.Node = finding.Error, CodeV1Alpha1Conflict, n.Node.Name

		switch {
		case field != "":
			c.File, c.Line, c.Path = fieldFile, fieldLine, field
			c.Message = fmt.Sprintf("%s: remove .%s from %s:%d, its settings belong in %s", c.machinery, field, fieldFile, fieldLine, docWhere)
		case inPatch:
			// The field is the generated config's: the repository's format predates the document.
			if final == nil {
				final = encodedV1Alpha1(n)
			}

			field = firstSet(final, v1alpha1Fields[kind])
			c.File, c.Line, c.Path = docFile, docLine, docRef(kind, name)
			c.Message = fmt.Sprintf("%s: talops generates the %s format, which sets %s itself; move the repository to the v1.14 format (configVersion), which generates the %s document instead, or remove %s",
				c.machinery, contractOf(in.Cluster), orSomeField(field), kind, docWhere)
		default:
			c.File, c.Line = place(in.Cluster, n, "")
			c.Message = c.machinery
		}

		out = append(out, c)
	}

	return out
}

// contractOf is the config format the cluster's configs are generated in, as talops.yaml
// spells it (v1.13).
func contractOf(c *cluster.Cluster) string {
	contract, err := coreconfig.ParseContractFromVersion(c.ConfigVersion())
	if err != nil {
		return c.ConfigVersion()
	}

	return contract.String()
}

// docName is a document's name, for the kinds that have one.
func docName(doc config.Document) string {
	if named, ok := doc.(config.NamedDocument); ok {
		return named.Name()
	}

	return ""
}

func docRef(kind, name string) string {
	if name == "" {
		return kind
	}

	return kind + "/" + name
}

// documentAt is the last patch (or complete config) that holds a typed document, or the
// node's line in talops.yaml when only the generated config has it.
func documentAt(n *render.Machine, kind, name string) (file string, line int, ok bool) {
	for i := len(n.Layers) - 1; i >= 0; i-- {
		if d := lastDoc(n.Layers[i].Index, kind, name); d >= 0 {
			return n.Layers[i].File, n.Layers[i].Index.Docs[d].Line, true
		}
	}

	return "", 0, false
}

// lastDoc is the last document of a kind (and name, if given) in a file that is not a
// delete selector ($patch: delete): the one the node ends up with. -1 when there is none.
func lastDoc(ix *yamlpos.Index, kind, name string) int {
	for d := len(ix.Docs) - 1; d >= 0; d-- {
		doc := ix.Docs[d]
		if doc.Kind == kind && (name == "" || doc.Name == name) && !doc.Has("$patch") {
			return d
		}
	}

	return -1
}

// fieldSetBy is the first of fields that a patch (or complete config) sets in its v1alpha1
// document, with the last file that sets it.
func fieldSetBy(n *render.Machine, fields []string) (field, file string, line int) {
	for _, f := range fields {
		for i := len(n.Layers) - 1; i >= 0; i-- {
			ix := n.Layers[i].Index

			// A field a patch deletes ($patch: delete) is not one it sets.
			d := ix.Find("", "")
			if d < 0 || !ix.Docs[d].Has(f) || ix.Docs[d].Has(f+".$patch") {
				continue
			}

			l, _ := ix.Docs[d].Nearest(f)

			return f, n.Layers[i].File, l
		}
	}

	return "", "", 0
}

// encodedV1Alpha1 indexes the node's final config, to say which generated field conflicts.
func encodedV1Alpha1(n *render.Machine) *yamlpos.Doc {
	data, err := n.Bytes()
	if err != nil {
		return nil
	}

	ix, err := yamlpos.Parse(data)
	if err != nil {
		return nil
	}

	if d := ix.Find("", ""); d >= 0 {
		return &ix.Docs[d]
	}

	return nil
}

func firstSet(d *yamlpos.Doc, fields []string) string {
	if d == nil {
		return ""
	}

	for _, f := range fields {
		if d.Has(f) {
			return f
		}
	}

	return ""
}

func orSomeField(field string) string {
	if field == "" {
		return "a v1alpha1 field the document replaces"
	}

	return "." + field
}

// replacedBy drops the config.invalid findings of a node that replacements stand for: one
// per replacement, matched on machinery's own message for it.
func replacedBy(fs []finding.Finding, cs []replacement) []finding.Finding {
	left := map[string]int{}
	for _, c := range cs {
		left[c.machinery]++
	}

	var out []finding.Finding

	for _, f := range fs {
		if f.Code == CodeConfigInvalid && left[f.Message] > 0 {
			left[f.Message]--

			continue
		}

		out = append(out, f)
	}

	return out
}

// nodeIsControlPlane is the node's role, from talops.yaml or its complete config.
func nodeIsControlPlane(n *render.Machine) bool {
	if n.Node.Role == cluster.RoleControlPlane {
		return true
	}

	return n.Config.Machine() != nil && n.Config.Machine().Type().IsControlPlane()
}
