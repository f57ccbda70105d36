package scaffold

import (
	"fmt"
	"net"
	"net/url"
	"regexp"
	"strings"
	"sync"

	"github.com/talops/talops/internal/cluster"
)

// Names of the files a new repository holds.
const (
	// EncryptedBundle is the SOPS/age-encrypted secrets bundle.
	EncryptedBundle = "secrets.sops.yaml"
	// PlaintextBundle is the bundle left in clear, when asked for: its name says so.
	PlaintextBundle = "secrets.PLAINTEXT.yaml"
	// SchematicFile is the schematic every node starts on (base).
	SchematicFile = "schematics/base.yaml"
	// PatchAll is the patch of every node.
	PatchAll = "patches/all.yaml"
	// SopsConfig holds the creation rule that encrypts the bundle to the recipients.
	SopsConfig = ".sops.yaml"
	// GitIgnore keeps rendered and client configs out of Git.
	GitIgnore = ".gitignore"
)

// Spec is what a new repository is made from.
type Spec struct {
	Name              string
	Endpoint          string
	TalosVersion      string
	KubernetesVersion string
	// Recipients are the age recipients the bundle is encrypted to (the .sops.yaml rule).
	Recipients []string
	// Plaintext says the bundle is written in clear (PlaintextBundle).
	Plaintext bool
	// NoHostnames leaves each node's hostname to Talos (talos-xxx-yyy) instead of a patch
	// (NodePatch) that sets it to the node's name.
	NoHostnames bool
}

// File is one file of the repository, its path relative to the repository directory.
type File struct {
	Path string
	Data []byte
}

// BundleFile is the name of the secrets bundle the spec's repository uses.
func (s Spec) BundleFile() string {
	if s.Plaintext {
		return PlaintextBundle
	}

	return EncryptedBundle
}

// namePattern is a DNS label's characters; its length (at most 63) is checked apart: a
// bounded repetition compiles into one copy per count, paid by every command at start-up.
var namePattern = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`) })

// CheckName says whether a cluster name is usable: a DNS label (it names the talosconfig
// context, the kubeconfig cluster and the nodes' certificates).
func CheckName(name string) error {
	if len(name) > 63 || !namePattern().MatchString(name) {
		return fmt.Errorf("cluster name %q is not a DNS label (lower-case letters, digits and '-', at most 63)", name)
	}

	return nil
}

// EndpointHost returns the host of a Kubernetes API endpoint, which must be
// https://HOST:PORT.
func EndpointHost(endpoint string) (string, error) {
	u, err := url.Parse(endpoint)
	if err != nil || u.Scheme != "https" || u.Hostname() == "" || u.Port() == "" || (u.Path != "" && u.Path != "/") || u.RawQuery != "" || u.User != nil {
		return "", fmt.Errorf("endpoint %q is not https://HOST:PORT", endpoint)
	}

	return u.Hostname(), nil
}

// placeholderWorkers are documentation addresses (RFC 5737) for the worker to edit; the
// second stands in when the endpoint is the first.
var placeholderWorkers = []string{"192.0.2.11", "192.0.2.12"}

// Files returns the repository's files but the bundle, in the order they are written.
func Files(s Spec) ([]File, error) {
	if err := CheckName(s.Name); err != nil {
		return nil, err
	}

	host, err := EndpointHost(s.Endpoint)
	if err != nil {
		return nil, err
	}

	if !s.Plaintext && len(s.Recipients) == 0 {
		return nil, fmt.Errorf("an encrypted bundle needs at least one age recipient")
	}

	worker := placeholderWorkers[0]
	if host == worker {
		worker = placeholderWorkers[1]
	}

	configVersion, err := ConfigVersion(s.TalosVersion)
	if err != nil {
		return nil, err
	}

	files := []File{
		{Path: cluster.FileName, Data: []byte(talopsYAML(s, configVersion, host, worker))},
		{Path: SchematicFile, Data: []byte(schematicYAML)},
		{Path: PatchAll, Data: []byte(patchAllYAML)},
	}

	if !s.NoHostnames {
		for _, node := range s.nodes() {
			data, err := hostnamePatch(s.TalosVersion, node)
			if err != nil {
				return nil, err
			}

			files = append(files, File{Path: NodePatch(node), Data: data})
		}
	}

	if !s.Plaintext {
		files = append(files, File{Path: SopsConfig, Data: []byte(sopsYAML(s.Recipients))})
	}

	return append(files, File{Path: GitIgnore, Data: []byte(gitignore(s))}), nil
}

// nodes are the names of the nodes of a new repository: a control plane and a worker.
func (s Spec) nodes() []string { return []string{s.Name + "-cp1", s.Name + "-worker1"} }

// nodePatches is the patches: line of a node in talops.yaml ("" without one).
func (s Spec) nodePatches(node string) string {
	if s.NoHostnames {
		return ""
	}

	return "\n    patches: [" + NodePatch(node) + "]"
}

func talopsYAML(s Spec, configVersion, cpAddress, workerAddress string) string {
	cpNote := "the node's own address (EDIT when the endpoint is a VIP or a load balancer)"
	if net.ParseIP(cpAddress) == nil {
		cpNote = "the node's own address: EDIT, the endpoint's host name may not be it"
	}

	nodes := s.nodes()

	return fmt.Sprintf(`# The cluster %[1]s, made by talops init. Edit the nodes (addresses, install disks), then
# run talops validate. talops' docs/talops-yaml.md describes every key.
cluster:
  name: %[1]s
  endpoint: %[2]s
talosVersion: %[3]s
kubernetesVersion: %[4]s
%[15]s
configVersion: %[16]s
secrets: %[5]s
schematics:
  base: %[6]s
patches:
  all: [%[7]s]
nodes:
  - name: %[11]s
    address: %[8]s  # %[9]s
    role: controlplane
    schematic: base
    installDisk: /dev/sda  # EDIT: talosctl get disks --insecure --nodes <address> lists them%[12]s
  - name: %[13]s
    address: %[10]s  # EDIT: a placeholder (a documentation address)
    role: worker
    schematic: base
    installDisk: /dev/sda  # EDIT%[14]s
`, s.Name, s.Endpoint, s.TalosVersion, s.KubernetesVersion, s.BundleFile(), SchematicFile, PatchAll,
		cpAddress, cpNote, workerAddress, nodes[0], s.nodePatches(nodes[0]), nodes[1], s.nodePatches(nodes[1]),
		"# "+strings.ReplaceAll(configVersionComment, "\n", "\n# "), configVersion)
}

const schematicYAML = `# The Image Factory schematic of every node: the official system extensions its installer
# carries, e.g. siderolabs/qemu-guest-agent on Proxmox or siderolabs/iscsi-tools for
# Longhorn. talops schematics shows its ID and the boot images.
customization:
  systemExtensions:
    officialExtensions: []
`

// patchAllYAML sets nothing that a config contract moves to a document of its own (the
// install section is UnattendedInstallConfig from 1.14): it must render on every release.
const patchAllYAML = `# A strategic-merge patch of every node's machine config. Add patches/controlplane.yaml and
# patches/worker.yaml under patches: in talops.yaml for one role, or patches: under a node
# for that node alone; they apply in that order: all, role, node.
machine:
  sysctls:
    vm.max_map_count: "262144"  # an example: what many databases and search engines ask for
`

func sopsYAML(recipients []string) string {
	return fmt.Sprintf(`# sops encrypts the secrets bundle to these age recipients (sops edit %s).
creation_rules:
  - path_regex: %s$
    age: >-
      %s
`, EncryptedBundle, regexp.QuoteMeta(EncryptedBundle), strings.Join(recipients, ","))
}

func gitignore(s Spec) string {
	out := `# What talops and talosctl write for you, never for Git: rendered configs and client configs.
/rendered/
talosconfig
talosconfig.yaml
*.talosconfig
kubeconfig*
`
	if s.Plaintext {
		out += "# The bundle in clear: encrypt it (sops encrypt) before it goes anywhere near Git.\n/" + PlaintextBundle + "\n"
	}

	return out
}

// Support returns the files a repository keeps beside talops.yaml and the bundle: the
// .sops.yaml creation rule (for an encrypted bundle) and the .gitignore.
func Support(s Spec) []File {
	var files []File

	if !s.Plaintext {
		files = append(files, File{Path: SopsConfig, Data: []byte(sopsYAML(s.Recipients))})
	}

	return append(files, File{Path: GitIgnore, Data: []byte(gitignore(s))})
}
