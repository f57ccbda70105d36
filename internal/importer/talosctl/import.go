package talosctl

import (
	"errors"
	"fmt"
	"net/netip"
	"path"
	"regexp"
	"strings"
	"sync"
	"time"

	coreconfig "github.com/siderolabs/talos/pkg/machinery/config"
	"github.com/siderolabs/talos/pkg/machinery/config/config"
	"github.com/siderolabs/talos/pkg/machinery/config/encoder"
	gensecrets "github.com/siderolabs/talos/pkg/machinery/config/generate/secrets"
	"go.yaml.in/yaml/v4"

	"github.com/talops/talops/internal/cluster"
	"github.com/talops/talops/internal/finding"
	"github.com/talops/talops/internal/importer"
	"github.com/talops/talops/internal/render"
)

// CodeUnsupported is a part of a config talops cannot reproduce: not imported.
const CodeUnsupported = importer.CodeUnsupported

// CodeMapped says how a config's part was expressed, where the user should look.
const CodeMapped = importer.CodeMapped

// Source is one complete machine config: its file name and contents.
type Source struct {
	Name string
	Data []byte
}

// Input is the configs of one cluster.
type Input struct {
	Configs []Source
	// Secrets is the name of the new repository's bundle.
	Secrets string
}

// Result is the imported repository (its talosVersion read from the installer image) and
// the secrets the configs share.
type Result struct {
	importer.Result
	Bundle *gensecrets.Bundle
}

type node struct {
	src  Source
	cfg  coreconfig.Provider
	spec cluster.Node
}

// Import maps the configs onto a talops repository. Configs that are not complete machine
// configs of one cluster with the same secrets are refused with the file named.
func Import(in Input) (*Result, error) {
	if len(in.Configs) == 0 {
		return nil, &cluster.InputError{Msg: "no machine configs"}
	}

	repo := &importer.Repo{}

	var (
		nodes []*node
		spec  cluster.Spec
	)

	cfgs, lead, err := loadConfigs(in.Configs)
	if err != nil {
		return nil, err
	}

	b, err := gensecrets.NewBundleFromConfig(gensecrets.NewFixedClock(time.Time{}), cfgs[lead])
	if err != nil {
		return nil, &cluster.InputError{File: in.Configs[lead].Name, Msg: "its secrets cannot be read: " + importer.OneLine(err)}
	}

	if spec, err = clusterSpec(in.Configs[lead].Name, cfgs[lead]); err != nil {
		return nil, err
	}

	spec.Secrets = in.Secrets

	for i, src := range in.Configs {
		if err := sameCluster(b, cfgs[i]); err != nil {
			return nil, &cluster.InputError{File: src.Name, Msg: fmt.Sprintf("%v than %s: the configs are of two clusters", err, in.Configs[lead].Name)}
		}

		n := &node{src: src, cfg: cfgs[i], spec: nodeSpec(src.Name, cfgs[i], i, repo)}
		nodes = append(nodes, n)
		spec.Nodes = append(spec.Nodes, n.spec)
	}

	if err := patches(spec, b, repo, nodes); err != nil {
		return nil, err
	}

	for i, n := range nodes {
		spec.Nodes[i].Patches = n.spec.Patches
	}

	res, err := repo.Finish(spec, "machine configs")
	if err != nil {
		return nil, err
	}

	return &Result{Result: *res, Bundle: b}, nil
}

// loadConfigs loads every config, each a complete machine config, and finds the first
// control plane's, the lead: only a control plane's config holds the CA keys a bundle needs.
func loadConfigs(srcs []Source) (cfgs []coreconfig.Provider, lead int, err error) {
	cfgs = make([]coreconfig.Provider, len(srcs))
	lead = -1

	for i, src := range srcs {
		cfg, _, err := render.LoadConfig(src.Name, src.Data)
		if err != nil {
			return nil, 0, err
		}

		if cfg.RawV1Alpha1() == nil || cfg.Machine() == nil || cfg.Cluster() == nil {
			return nil, 0, &cluster.InputError{File: src.Name, Msg: "not a complete machine config (no v1alpha1 document with machine and cluster)"}
		}

		cfgs[i] = cfg

		if lead < 0 && cfg.Machine().Type().IsControlPlane() {
			lead = i
		}
	}

	if lead < 0 {
		return nil, 0, &cluster.InputError{File: srcs[0].Name, Msg: "no control plane config among the configs: a worker's does not hold the cluster's CA keys (add controlplane.yaml)"}
	}

	return cfgs, lead, nil
}

var tagPattern = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`:(v\d+\.\d+\.\d+[^@]*)(@|$)`) })

// clusterSpec reads the cluster's name, endpoint and versions from a config, through
// machinery's accessors, which read the v1alpha1 fields or the documents the 1.14
// contract moved them to.
func clusterSpec(file string, cfg coreconfig.Provider) (cluster.Spec, error) {
	talos := tagPattern().FindStringSubmatch(installerImage(cfg))
	if talos == nil {
		return cluster.Spec{}, &cluster.InputError{File: file, Field: "machine.install.image", Msg: "names no Talos version tag: talops cannot tell talosVersion"}
	}

	kubelet := ""
	if k := cfg.K8sKubeletConfig(); k != nil {
		kubelet = k.Image()
	}

	kube := tagPattern().FindStringSubmatch(kubelet)
	if kube == nil {
		return cluster.Spec{}, &cluster.InputError{File: file, Field: "machine.kubelet.image", Msg: "names no Kubernetes version tag: talops cannot tell kubernetesVersion"}
	}

	spec := cluster.Spec{TalosVersion: talos[1], KubernetesVersion: kube[1]}

	if k := cfg.K8sClusterConfig(); k != nil {
		spec.Cluster.Name = k.ClusterName()

		if u := k.ClusterEndpoint(); u != nil {
			spec.Cluster.Endpoint = u.String()
		}
	}

	return spec, nil
}

// installerImage is the config's installer: machine.install.image, or the
// UnattendedInstallConfig document's from the 1.14 contract.
func installerImage(cfg coreconfig.Provider) string {
	if img := cfg.Machine().Install().Image(); img != "" {
		return img
	}

	if u := cfg.UnattendedInstallConfig(); u != nil {
		return u.InstallerImage()
	}

	return ""
}

var devPathPattern = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^disk\.dev_path == "([^"]+)"$`) })

// installDisk is the config's install disk: machine.install.disk, or the disk the
// UnattendedInstallConfig document selects by its path (as talops' generator writes it).
func installDisk(cfg coreconfig.Provider) string {
	if d := cfg.Machine().Install().Disk(); d != "" {
		return d
	}

	for _, doc := range cfg.Documents() {
		if doc.Kind() != "UnattendedInstallConfig" {
			continue
		}

		m, err := toMap(doc)
		if err != nil {
			return ""
		}

		prov, _ := m["provisioning"].(map[string]any)
		sel, _ := prov["diskSelector"].(map[string]any)
		match, _ := sel["match"].(string)

		if g := devPathPattern().FindStringSubmatch(match); g != nil {
			return g[1]
		}
	}

	return ""
}

// nodeSpec names a node after its hostname, else its file; its address is the file's
// name when that is an IP address (talosctl users often name configs so), else a
// placeholder to edit.
func nodeSpec(file string, cfg coreconfig.Provider, i int, repo *importer.Repo) cluster.Node {
	stem := strings.TrimSuffix(strings.TrimSuffix(path.Base(file), ".yaml"), ".yml")

	name := hostname(cfg)
	if name == "" {
		name = strings.ReplaceAll(stem, ".", "-")
	}

	n := cluster.Node{Name: name, Role: cluster.RoleWorker, InstallDisk: installDisk(cfg)}
	if cfg.Machine().Type().IsControlPlane() {
		n.Role = cluster.RoleControlPlane
	}

	if _, err := netip.ParseAddr(stem); err == nil {
		n.Address = stem
	} else {
		n.Address = fmt.Sprintf("192.0.2.%d", 10+i)
		repo.Report(finding.Finding{
			Severity: finding.Warning, Code: CodeMapped, File: file, Node: name, Path: "address",
			Message: "a config does not say where its node is: talops.yaml has a placeholder address (a documentation address) to edit",
		})
	}

	return n
}

// hostname is the config's hostname, from a HostnameConfig document or the v1alpha1 field.
func hostname(cfg coreconfig.Provider) string {
	for _, doc := range cfg.Documents() {
		if doc.Kind() != "HostnameConfig" {
			continue
		}

		if m, err := toMap(doc); err == nil {
			if h, ok := m["hostname"].(string); ok {
				return h
			}
		}
	}

	//nolint:staticcheck // the field older configs set
	if v := cfg.RawV1Alpha1(); v.MachineConfig != nil && v.MachineConfig.MachineNetwork != nil {
		return v.MachineConfig.MachineNetwork.NetworkHostname //nolint:staticcheck // the field older configs set
	}

	return ""
}

// toMap is a document's canonical encoding as plain values.
func toMap(doc config.Document) (map[string]any, error) {
	data, err := encoder.NewEncoder(doc, encoder.WithComments(encoder.CommentsDisabled)).Encode()
	if err != nil {
		return nil, err
	}

	var m map[string]any

	return m, yaml.Unmarshal(data, &m)
}

// sameCluster checks that a config is of the bundle's cluster: the same cluster ID and the
// same machine token (what a worker's config holds of the bundle).
func sameCluster(b *gensecrets.Bundle, cfg coreconfig.Provider) error {
	other, err := gensecrets.NewBundleFromConfig(gensecrets.NewFixedClock(time.Time{}), cfg)
	if err != nil {
		return errors.New("its secrets cannot be read")
	}

	switch {
	case other.Cluster == nil || b.Cluster == nil || other.Cluster.ID != b.Cluster.ID:
		return errors.New("another cluster ID")
	case other.TrustdInfo == nil || b.TrustdInfo == nil || other.TrustdInfo.Token != b.TrustdInfo.Token:
		return errors.New("another machine token")
	}

	return nil
}
