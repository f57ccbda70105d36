// Package cluster is the repository model: talops.yaml, the files it names, and the nodes.
package cluster

import (
	"slices"

	"go.yaml.in/yaml/v4"
)

// FileName is the cluster file at the root of a repository directory.
const FileName = "talops.yaml"

// Role is what a node is to the cluster, as talops.yaml and Talos' machine type name it.
type Role string

// Roles a node may have.
const (
	RoleControlPlane Role = "controlplane"
	RoleWorker       Role = "worker"
)

// Spec is talops.yaml as written.
type Spec struct {
	Cluster           Meta   `yaml:"cluster"`
	TalosVersion      string `yaml:"talosVersion"`
	KubernetesVersion string `yaml:"kubernetesVersion"`
	// ConfigVersion is the Talos version whose config contract the configs are generated
	// for (default: talosVersion). A cluster keeps the contract it was created with across
	// upgrades, as Talos does; set it to that version to bump talosVersion alone.
	ConfigVersion string `yaml:"configVersion,omitempty"`
	Secrets       string `yaml:"secrets,omitempty"`
	ImageFactory  string `yaml:"imageFactory,omitempty"`
	Platform      string `yaml:"platform,omitempty"`
	// Installer is the Image Factory repository every node's installer is named from
	// ("installer", "metal-installer"; default: the node's platform's), so that nodes
	// keep the name they were installed with. A schematic's own wins.
	Installer  string               `yaml:"installer,omitempty"`
	NVIDIA     *NVIDIA              `yaml:"nvidia,omitempty"`
	Schematics map[string]Schematic `yaml:"schematics,omitempty"`
	Patches    Patches              `yaml:"patches,omitempty"`
	// ProxmoxAPI is the Proxmox VE API the nodes' VMs live behind; only the proxmox
	// commands use it. Credentials never come from this file.
	ProxmoxAPI *ProxmoxAPI `yaml:"proxmox,omitempty"`
	// Maintenance holds the windows apply may change nodes in (nil: any time).
	Maintenance *Maintenance `yaml:"maintenance,omitempty"`
	// HealthChecks gate a rollout on Kubernetes objects: before the first node, between
	// nodes and at the end.
	HealthChecks []HealthCheck `yaml:"healthChecks,omitempty"`
	// Apply declares the options of apply that change what it does (nil: none).
	Apply *ApplyOptions `yaml:"apply,omitempty"`
	// Backup is where backups go and how many are kept (nil: the user's state directory,
	// every backup kept).
	Backup *Backup `yaml:"backup,omitempty"`
	// Alertmanager gates a rollout on firing alerts and silences the node being changed
	// (nil: no Alertmanager is consulted).
	Alertmanager *Alertmanager `yaml:"alertmanager,omitempty"`
	Nodes        []Node        `yaml:"nodes"`
}

// Schematic is one entry of schematics: its file, written as a plain path, or a mapping
// with the installer repository of the schematic's nodes.
type Schematic struct {
	// File is the Image Factory schematic (or an opaque one holding only the ID).
	File string `yaml:"file"`
	// Installer names the repository of the nodes' installers, as Spec.Installer does,
	// for the nodes of this schematic.
	Installer string `yaml:"installer,omitempty"`
}

// UnmarshalYAML reads the plain path or the mapping.
func (s *Schematic) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind == yaml.ScalarNode {
		return n.Decode(&s.File)
	}

	type plain Schematic

	return n.Decode((*plain)(s))
}

// MarshalYAML writes the plain path when there is nothing else to say.
func (s Schematic) MarshalYAML() (any, error) {
	if s.Installer == "" {
		return s.File, nil
	}

	type plain Schematic

	return plain(s), nil
}

// HealthCheck is one entry of healthChecks: a CEL expression over Kubernetes objects of
// one kind, each of which must satisfy it.
type HealthCheck struct {
	// Name names the check in plans and reports.
	Name       string `yaml:"name"`
	APIVersion string `yaml:"apiVersion"`
	Kind       string `yaml:"kind"`
	// Namespace of namespaced objects ("": cluster-scoped, or every namespace).
	Namespace string `yaml:"namespace,omitempty"`
	// ObjectName picks one object; Selector, a label selector, picks several; with
	// neither, every object of the kind (in the namespace) is checked.
	ObjectName string `yaml:"objectName,omitempty"`
	Selector   string `yaml:"selector,omitempty"`
	// Expr is the CEL expression over object, true when it is healthy.
	Expr string `yaml:"expr"`
	// Timeout is how long the check may take to become true (a Go duration; "": 5m).
	Timeout string `yaml:"timeout,omitempty"`
}

// Maintenance is the top-level maintenance: section: when apply may change nodes.
type Maintenance struct {
	// TimeZone is the IANA zone the windows' times are in ("": UTC).
	TimeZone string              `yaml:"timeZone,omitempty"`
	Windows  []MaintenanceWindow `yaml:"windows"`
}

// MaintenanceWindow opens at Start on each of Days (mon … sun or ranges such as mon-fri;
// none: every day) and lasts Duration (a Go duration such as 4h).
type MaintenanceWindow struct {
	Days     []string `yaml:"days,omitempty"`
	Start    string   `yaml:"start"`
	Duration string   `yaml:"duration"`
}

// ProxmoxAPI is the top-level proxmox: section.
type ProxmoxAPI struct {
	// URL is the API base, https://pve.lab:8006/api2/json.
	URL string `yaml:"url"`
	// Storage receives the boot ISOs on every Proxmox node that hosts a talops node.
	Storage string `yaml:"storage"`
	// CAFile is a PEM bundle inside the repository that signs the API's certificate,
	// for a Proxmox host with its own CA; without it the system roots are used.
	CAFile string `yaml:"caFile,omitempty"`
}

// Meta names the cluster and its Kubernetes API endpoint.
type Meta struct {
	Name     string `yaml:"name"`
	Endpoint string `yaml:"endpoint"`
	// SecretboxKeyNames names the bundle's secretbox key in the KubeEtcdEncryptionConfig
	// of the 1.14 contract (default: key2, as Talos names it): the first encrypts, every
	// name decrypts. kube-apiserver finds a Secret's key by the name it was written under,
	// so a cluster whose configs named the key otherwise keeps that name here.
	SecretboxKeyNames []string `yaml:"secretboxKeyNames,omitempty"`
}

// NVIDIA holds the GPU driver choices of the cluster.
type NVIDIA struct {
	// Flavour is lts, production or new-feature (Talos 1.15 and later).
	Flavour string `yaml:"flavour"`
	// Driver pins a branch ("580") or an exact version ("580.178.04").
	Driver string `yaml:"driver,omitempty"`
}

// Patches lists patch files applied to every node, then by role.
type Patches struct {
	All          []string `yaml:"all,omitempty"`
	ControlPlane []string `yaml:"controlplane,omitempty"`
	Worker       []string `yaml:"worker,omitempty"`
}

// Node is one machine of the cluster.
type Node struct {
	Name        string `yaml:"name"`
	Address     string `yaml:"address"`
	Role        Role   `yaml:"role"`
	Schematic   string `yaml:"schematic,omitempty"`
	InstallDisk string `yaml:"installDisk,omitempty"`
	SecureBoot  bool   `yaml:"secureBoot,omitempty"`
	// Platform is the platform the node boots and installs for, when it is not the
	// cluster's (a bare-metal box beside Proxmox VMs): it picks the installer and boot
	// images, and whether Talos validates the config in metal or cloud mode.
	Platform string   `yaml:"platform,omitempty"`
	Patches  []string `yaml:"patches,omitempty"`
	// Config names a complete machine config made elsewhere; talops uses it as it is.
	Config  string   `yaml:"config,omitempty"`
	Proxmox *Proxmox `yaml:"proxmox,omitempty"`
}

// Proxmox places a node's VM and, optionally, describes it: `proxmox vms --create`
// creates a missing VM from it, and every field set is compared with the VM that exists.
type Proxmox struct {
	Node string `yaml:"node"`
	VMID int    `yaml:"vmid"`
	// Cores and Memory (MiB) size the VM; CPU is the CPU type ("host"), Machine the QEMU
	// machine ("q35"), BIOS seabios or ovmf (ovmf for SecureBoot).
	Cores   int    `yaml:"cores,omitempty"`
	Memory  int    `yaml:"memory,omitempty"`
	CPU     string `yaml:"cpu,omitempty"`
	Machine string `yaml:"machine,omitempty"`
	BIOS    string `yaml:"bios,omitempty"`
	// Disk is the system disk a new VM gets.
	Disk *ProxmoxDisk `yaml:"disk,omitempty"`
	// Bridge and VLAN place the network interface; MAC fixes its address (for DHCP
	// reservations).
	Bridge string `yaml:"bridge,omitempty"`
	VLAN   int    `yaml:"vlan,omitempty"`
	MAC    string `yaml:"mac,omitempty"`
	// HostPCI are PCI devices passed through to the VM ("0000:01:00" for a whole GPU, or
	// the name of a resource mapping).
	HostPCI []string `yaml:"hostpci,omitempty"`
	Tags    []string `yaml:"tags,omitempty"`
}

// ProxmoxDisk is a VM's system disk: its size in GiB, in a Proxmox storage.
type ProxmoxDisk struct {
	Size    int    `yaml:"size"`
	Storage string `yaml:"storage,omitempty"`
}

// DefaultPlatform is used when talops.yaml names none, as Talos does.
const DefaultPlatform = "metal"

// DefaultImageFactory is the public Image Factory.
const DefaultImageFactory = "https://factory.talos.dev"

// Platforms Talos builds installers for.
var Platforms = []string{
	"akamai", "aws", "azure", "cloudstack", "digital-ocean", "equinixMetal", "exoscale", "gcp",
	"hcloud", "metal", "nocloud", "opennebula", "openstack", "oracle", "scaleway", "upcloud",
	"vmware", "vultr",
}

// IsCloudPlatform reports whether Talos validates configs for the platform in cloud mode,
// where no install disk is needed.
func IsCloudPlatform(platform string) bool {
	return platform != "metal" && slices.Contains(Platforms, platform)
}
