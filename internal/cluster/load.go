package cluster

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"net"
	"net/url"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"

	"go.yaml.in/yaml/v4"

	"github.com/talops/talops/internal/catalog"
	"github.com/talops/talops/internal/schematic"
	"github.com/talops/talops/internal/suggest"
	"github.com/talops/talops/internal/yamlpos"
)

// Cluster is a loaded, checked talops.yaml with the contents of every file it names.
type Cluster struct {
	// Dir is the repository directory as the user gave it; file names in messages start with it.
	Dir  string
	Spec Spec

	index yamlpos.Doc
	files map[string][]byte
	// nodeAt maps the nodes' names to their positions in Spec.Nodes as loaded: the rules
	// place a finding of each node, and a search per finding grew with the square of the
	// cluster.
	nodeAt map[string]int
	// raw is talops.yaml as read, for another state loaded like this one (LoadLike).
	raw []byte
}

// Load reads and checks talops.yaml and every file it names. All problems found
// are returned together, each an *InputError.
func Load(dir string, files Files) (*Cluster, error) {
	return LoadLike(dir, files, nil)
}

// LoadLike is Load for another state of the repository that like holds (nil: none): when
// its talops.yaml is the same bytes as like's, what like parsed out of it is taken instead
// of parsing it again (a plan's base mostly has the same talops.yaml as its head). The files
// it names are read and everything is checked as Load does.
func LoadLike(dir string, files Files, like *Cluster) (*Cluster, error) {
	c := &Cluster{Dir: dir, files: map[string][]byte{}}

	data, err := files.ReadFile(FileName)
	if err != nil {
		return nil, c.readError(FileName, 0, "", err)
	}

	if like != nil && like.raw != nil && bytes.Equal(data, like.raw) {
		c.Spec, c.index, c.nodeAt, c.raw = like.Spec, like.index, like.nodeAt, like.raw
		// The nodes are the one part of the model code walks by index: its own copy.
		c.Spec.Nodes = slices.Clone(like.Spec.Nodes)
	} else if err := c.parse(data); err != nil {
		return nil, err
	}

	var errs []error

	errs = append(errs, c.check()...)
	errs = append(errs, c.readReferenced(files)...)

	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}

	return c, nil
}

// Parse checks talops.yaml without reading the files it names; fuzzers and
// tools that only need the model use it.
func Parse(data []byte) (*Cluster, error) {
	c := &Cluster{files: map[string][]byte{}}
	if err := c.parse(data); err != nil {
		return nil, err
	}

	if errs := c.check(); len(errs) > 0 {
		return nil, errors.Join(errs...)
	}

	return c, nil
}

func (c *Cluster) parse(data []byte) error {
	file := c.Path(FileName)

	ix, root, err := yamlpos.ParseFirst(data)
	if err != nil {
		return yamlError(file, nil, err)
	}

	if root == nil || len(root.Content) == 0 {
		return inputErrorf(file, 0, "", "file is empty")
	}

	if root.Content[0].Kind != yaml.MappingNode {
		return inputErrorf(file, root.Content[0].Line, "", "expected a mapping of settings")
	}

	var errs []error
	for _, u := range yamlpos.UnknownFields(root, reflect.TypeFor[Spec]()) {
		errs = append(errs, inputErrorf(file, u.Line, u.Path, "unknown field%s", suggest.DidYouMean(u.Key, u.Known)))
	}

	if len(errs) > 0 {
		return errors.Join(errs...)
	}

	if d := ix.SecondDoc(); d > 0 {
		return inputErrorf(file, ix.Docs[d].Line, "", "expected one YAML document, found another")
	}

	c.index = ix.Docs[0]

	if err := root.Decode(&c.Spec); err != nil {
		return yamlError(file, &c.index, err)
	}

	c.raw = data
	c.nodeAt = make(map[string]int, len(c.Spec.Nodes))
	for i, n := range c.Spec.Nodes {
		if _, dup := c.nodeAt[n.Name]; !dup {
			c.nodeAt[n.Name] = i
		}
	}

	return nil
}

// yamlError places the YAML library's errors; with the file's index it also names the
// field of a value of the wrong type.
func yamlError(file string, ix *yamlpos.Doc, err error) error {
	var errs []error
	for _, p := range yamlpos.Problems(err) {
		field := ""
		if ix != nil {
			field = ix.PathAt(p.Line, p.Column)
		}

		errs = append(errs, inputErrorf(file, p.Line, field, "%s", p.Message))
	}

	return errors.Join(errs...)
}

// Path is how a repository file is named in messages and annotations.
func (c *Cluster) Path(rel string) string {
	if c.Dir == "" || c.Dir == "." {
		return filepath.ToSlash(filepath.Clean(rel))
	}

	return filepath.ToSlash(filepath.Join(c.Dir, rel))
}

// Line returns the line of talops.yaml that sets path (or its nearest parent), or 0.
func (c *Cluster) Line(path string) int {
	line, _ := c.index.Nearest(path)

	return line
}

// File returns the contents of a file talops.yaml names.
func (c *Cluster) File(rel string) ([]byte, bool) {
	data, ok := c.files[rel]

	return data, ok
}

// ConfigVersion is the Talos version whose config contract rendering uses.
func (c *Cluster) ConfigVersion() string {
	if c.Spec.ConfigVersion != "" {
		return c.Spec.ConfigVersion
	}

	return c.Spec.TalosVersion
}

// ConfigVersionError places a problem with the config contract at the field that sets it.
func (c *Cluster) ConfigVersionError(err error) *InputError {
	field := "talosVersion"
	if c.Spec.ConfigVersion != "" {
		field = "configVersion"
	}

	return &InputError{File: c.Path(FileName), Line: c.Line(field), Field: field, Msg: err.Error()}
}

// Platform is the cluster's installer platform, defaulted: the platform of every node
// that names none. A node's own is NodePlatform.
func (c *Cluster) Platform() string {
	if c.Spec.Platform == "" {
		return DefaultPlatform
	}

	return c.Spec.Platform
}

// NodePlatform is the platform node n boots and installs for: its own, or the cluster's.
func (c *Cluster) NodePlatform(n Node) string {
	if n.Platform != "" {
		return n.Platform
	}

	return c.Platform()
}

// NodeInstaller is the Image Factory repository node n's installer of Talos talosVersion is
// named from, without the SecureBoot suffix: its schematic's installer, else the cluster's,
// else its platform's ("nocloud-installer"). The factory's legacy "installer" (its metal
// installer's old name) serves Talos up to 1.13: from 1.14 a node named so installs from
// "metal-installer", the Talos upgrade renaming it as it changes its image anyway.
func (c *Cluster) NodeInstaller(n Node, talosVersion string) string {
	named := c.Spec.Installer
	if i := c.Spec.Schematics[n.Schematic].Installer; n.Schematic != "" && i != "" {
		named = i
	}

	platform := c.NodePlatform(n)

	if named == schematic.LegacyInstaller {
		if newer, err := catalog.CompareMinor(talosVersion, "1.14"); err == nil && newer >= 0 {
			return schematic.InstallerRepository("metal")
		}
	}

	if named != "" {
		return named
	}

	return schematic.InstallerRepository(platform)
}

// ImageFactory is the Image Factory base URL, defaulted.
func (c *Cluster) ImageFactory() string {
	if c.Spec.ImageFactory == "" {
		return DefaultImageFactory
	}

	return strings.TrimRight(c.Spec.ImageFactory, "/")
}

// NodePatches lists the patch files of a node in the order they apply: all, role, node.
func (c *Cluster) NodePatches(n Node) []string {
	out := slices.Clone(c.Spec.Patches.All)

	switch n.Role {
	case RoleControlPlane:
		out = append(out, c.Spec.Patches.ControlPlane...)
	case RoleWorker:
		out = append(out, c.Spec.Patches.Worker...)
	}

	return append(out, n.Patches...)
}

// NodeIndex returns the position of the node named name, or -1.
func (c *Cluster) NodeIndex(name string) int {
	// Spec.Nodes may have changed since it was loaded: a position still holding the node
	// is the answer, else the nodes are searched.
	if i, ok := c.nodeAt[name]; ok && i < len(c.Spec.Nodes) && c.Spec.Nodes[i].Name == name {
		return i
	}

	return slices.IndexFunc(c.Spec.Nodes, func(n Node) bool { return n.Name == name })
}

// NodeLine returns the line of talops.yaml where a node (or one of its fields) is declared.
func (c *Cluster) NodeLine(name, field string) int {
	i := c.NodeIndex(name)
	if i < 0 {
		return 0
	}

	p := "nodes[" + strconv.Itoa(i) + "]"
	if field != "" {
		p += "." + field
	}

	return c.Line(p)
}

// The patterns leave lengths to the callers (maxLabel): a bounded repetition such as
// {0,61} compiles into one copy of its atom per count, which every command paid at start-up
// (some 0.1 ms and 40 KB a pattern).
var (
	// nameRe is a DNS-1123 subdomain's characters; at most maxLabel of them.
	nameRe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[a-z0-9]([a-z0-9.-]*[a-z0-9])?$`) })
	// dnsLabelRe is a DNS-1123 label's characters, as Kubernetes names are; at most maxLabel.
	dnsLabelRe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[a-z0-9]([a-z0-9-]*[a-z0-9])?$`) })
	driverRe   = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[0-9]+(\.[0-9]+){0,2}$`) })
	// storageRe is Proxmox's pve-storage-id format.
	storageRe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[a-z][a-z0-9_.-]*[a-z0-9]$`) })
)

// maxLabel is the longest DNS label (RFC 1123) and the longest name nameRe allows.
const maxLabel = 63

// isName says whether s is a DNS-1123 subdomain of at most maxLabel characters.
func isName(s string) bool { return len(s) <= maxLabel && nameRe().MatchString(s) }

// isDNSLabel says whether s is a DNS-1123 label.
func isDNSLabel(s string) bool { return len(s) <= maxLabel && dnsLabelRe().MatchString(s) }

func (c *Cluster) check() []error {
	k := &checker{c: c, file: c.Path(FileName)}

	k.cluster()
	k.nvidia()
	k.files()
	k.proxmox()
	k.maintenance()
	k.healthChecks()
	k.applyOptions()
	k.backupSection()
	k.alertmanager()
	k.nodes()

	return k.errs
}

// checker collects the problems of a talops.yaml, each placed on its line.
type checker struct {
	c    *Cluster
	file string
	errs []error
}

func (k *checker) bad(path, format string, args ...any) {
	k.errs = append(k.errs, inputErrorf(k.file, k.c.Line(path), path, format, args...))
}

func (k *checker) path(field, p string) {
	k.errs = append(k.errs, k.c.checkPath(field, p)...)
}

// cluster checks the cluster's identity, versions, platform and Image Factory.
func (k *checker) cluster() {
	s := &k.c.Spec

	switch {
	case s.Cluster.Name == "":
		k.bad("cluster.name", "is required")
	case !isDNSLabel(s.Cluster.Name):
		// The name lands in certificates, kubeconfigs, comments and markdown: a newline or
		// markup there could hide or forge what follows.
		k.bad("cluster.name", "must be a DNS-1123 label: at most 63 lower-case letters, digits and dashes, starting and ending with a letter or digit")
	}

	if s.Cluster.Endpoint == "" {
		k.bad("cluster.endpoint", "is required (for example https://10.0.0.10:6443)")
	} else if u, err := url.Parse(s.Cluster.Endpoint); err != nil || u.Scheme != "https" || u.Host == "" {
		k.bad("cluster.endpoint", "must be an https:// URL, got %q", s.Cluster.Endpoint)
	}

	k.version("talosVersion", s.TalosVersion, "v1.14.1")
	k.version("kubernetesVersion", s.KubernetesVersion, "v1.36.4")

	if s.ConfigVersion != "" {
		k.contractVersion("configVersion", s.ConfigVersion)

		if c, err := catalog.CompareMinor(s.ConfigVersion, s.TalosVersion); err == nil && c > 0 {
			k.bad("configVersion", "%s is newer than talosVersion %s: configs cannot be generated for a release the nodes do not run", s.ConfigVersion, s.TalosVersion)
		}
	}

	k.secretboxKeyNames()

	k.platform("platform", s.Platform)
	k.installer("installer", s.Installer)

	if s.ImageFactory != "" && !secureURL(s.ImageFactory) {
		// Schematics are registered and installer images pulled from there.
		k.bad("imageFactory", "must be an https:// URL (http:// only to a loopback address), got %q", s.ImageFactory)
	}
}

// platform checks a platform talops.yaml names at field ("" is the default).
func (k *checker) platform(field, p string) {
	if p != "" && !slices.Contains(Platforms, p) {
		k.bad(field, "unknown platform %q (one of %s)", p, strings.Join(Platforms, ", "))
	}
}

// installer checks an installer repository talops.yaml names at field ("" is the default):
// the factory's platform-less name or a platform's, without the SecureBoot suffix, which
// each node's secureBoot adds.
func (k *checker) installer(field, name string) {
	if name == "" || KnownInstaller(name) {
		return
	}

	if base, ok := strings.CutSuffix(name, "-secureboot"); ok {
		k.bad(field, "%q: name it without -secureboot (%s): a node's secureBoot adds the suffix", name, base)

		return
	}

	k.bad(field, "unknown installer %q: %s, or <platform>-installer (metal-installer, nocloud-installer...)", name, schematic.LegacyInstaller)
}

// KnownInstaller says whether talops.yaml's installer may name the repository: the
// factory's platform-less name, or a platform's ("metal-installer"), without the
// SecureBoot suffix.
func KnownInstaller(name string) bool {
	if name == schematic.LegacyInstaller {
		return true
	}

	p, ok := strings.CutSuffix(name, "-installer")

	return ok && slices.Contains(Platforms, p)
}

// secretboxKeyNames checks the etcd encryption key's names: distinct DNS-1123 labels, on
// a contract that writes the KubeEtcdEncryptionConfig (before 1.14 Talos names the key
// itself).
func (k *checker) secretboxKeyNames() {
	names := k.c.Spec.Cluster.SecretboxKeyNames
	if len(names) == 0 {
		return
	}

	for i, n := range names {
		if !isDNSLabel(n) || slices.Contains(names[:i], n) {
			k.bad("cluster.secretboxKeyNames", "must be distinct DNS-1123 labels (key2, key1), got %q", n)

			return
		}
	}

	if c, err := catalog.CompareMinor(k.c.ConfigVersion(), "1.14"); err == nil && c < 0 {
		k.bad("cluster.secretboxKeyNames", "applies from configVersion v1.14, where the KubeEtcdEncryptionConfig document names the key; the %s contract names it key2 itself", k.c.ConfigVersion())
	}
}

// secureURL reports whether raw is an https URL with a host, or an http one to a
// loopback address (a factory run beside the tests).
func secureURL(raw string) bool {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return false
	}

	switch u.Scheme {
	case "https":
		return true
	case "http":
		if u.Hostname() == "localhost" {
			return true
		}

		ip := net.ParseIP(u.Hostname())

		return ip != nil && ip.IsLoopback()
	default:
		return false
	}
}

// releaseVersion is a release tag as the images are tagged: v, then all three parts.
var releaseVersion = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^v[0-9]+\.[0-9]+\.[0-9]+(-[0-9A-Za-z.-]+)?$`) })

// version checks a release version. Installer, kubelet and API server images are tagged
// with the whole version, so "v1.36" or "1.13.9" name images that do not exist.
func (k *checker) version(field, v, example string) {
	switch {
	case v == "":
		k.bad(field, "is required")
	case !releaseVersion().MatchString(v):
		k.bad(field, "%q is not a release version: write v and all three parts, as in %s", v, example)
	default:
		if !catalog.ValidVersion(v) {
			k.bad(field, "%q is not a version", v)
		}
	}
}

// contractVersion checks a config contract: a release or just its minor (v1.14).
func (k *checker) contractVersion(field, v string) {
	if !strings.HasPrefix(v, "v") {
		k.bad(field, "must start with v, as in v1.14")

		return
	}

	if !catalog.ValidVersion(v) {
		k.bad(field, "%q is not a version", v)
	}
}

// nvidia checks the GPU driver settings.
func (k *checker) nvidia() {
	n := k.c.Spec.NVIDIA
	if n == nil {
		return
	}

	// new-feature exists from Talos 1.15 on: the NVIDIA rules say so against the release.
	if n.Flavour != "lts" && n.Flavour != "production" && n.Flavour != "new-feature" {
		k.bad("nvidia.flavour", "must be lts, production or new-feature, got %q", n.Flavour)
	}

	if n.Driver != "" && !driverRe().MatchString(n.Driver) {
		k.bad("nvidia.driver", "must be a driver branch (580) or version (580.178.04), got %q", n.Driver)
	}
}

// files checks the names and paths of the schematics, patches and secrets.
func (k *checker) files() {
	s := &k.c.Spec

	for _, name := range slices.Sorted(maps.Keys(s.Schematics)) {
		if !isName(name) {
			k.bad("schematics."+name, "schematic names are lower-case letters, digits, dots and dashes")
		}

		if s.Schematics[name].File == "" {
			k.bad("schematics."+name, "names no file (file: is required)")
		} else {
			k.path("schematics."+name, s.Schematics[name].File)
		}

		k.installer("schematics."+name+".installer", s.Schematics[name].Installer)
	}

	for field, list := range map[string][]string{"patches.all": s.Patches.All, "patches.controlplane": s.Patches.ControlPlane, "patches.worker": s.Patches.Worker} {
		for i, p := range list {
			k.path(field+"["+strconv.Itoa(i)+"]", p)
		}
	}

	if s.Secrets != "" {
		k.path("secrets", s.Secrets)
	}
}

// proxmox checks the Proxmox API section.
func (k *checker) proxmox() {
	p := k.c.Spec.ProxmoxAPI
	if p == nil {
		return
	}

	if u, err := url.Parse(p.URL); err != nil || u.Scheme != "https" || u.Host == "" || u.User != nil {
		k.bad("proxmox.url", "must be an https:// URL without credentials, such as https://pve.lab:8006/api2/json, got %q", p.URL)
	}

	switch {
	case p.Storage == "":
		k.bad("proxmox.storage", "is required: the Proxmox storage that holds the boot ISOs (for example local)")
	case !storageRe().MatchString(p.Storage):
		k.bad("proxmox.storage", "%q is not a Proxmox storage name", p.Storage)
	}

	if p.CAFile != "" {
		k.path("proxmox.caFile", p.CAFile)
	}
}

// nodes checks every node, and that no two share a name or an address.
func (k *checker) nodes() {
	if len(k.c.Spec.Nodes) == 0 {
		k.bad("nodes", "at least one node is required")
	}

	names := map[string]int{}
	addrs := map[string]int{}

	for i, n := range k.c.Spec.Nodes {
		at := "nodes[" + strconv.Itoa(i) + "]"

		k.identity(at, i, n, names, addrs)
		k.node(at, n)
	}
}

// identity checks a node's name and address, unique among the nodes seen so far.
func (k *checker) identity(at string, i int, n Node, names, addrs map[string]int) {
	switch {
	case n.Name == "":
		k.bad(at+".name", "is required")
	case !isName(n.Name):
		k.bad(at+".name", "%q is not a valid node name (lower-case letters, digits, dots and dashes)", n.Name)
	default:
		if j, dup := names[n.Name]; dup {
			k.bad(at+".name", "duplicate node name %q (also nodes[%d])", n.Name, j)
		}

		names[n.Name] = i
	}

	switch {
	case n.Address == "":
		k.bad(at+".address", "is required")
	case net.ParseIP(n.Address) == nil && !isName(n.Address):
		k.bad(at+".address", "%q is neither an IP address nor a host name", n.Address)
	default:
		// One IP address has many spellings (::1, 0:0::1).
		key := n.Address
		if ip := net.ParseIP(n.Address); ip != nil {
			key = ip.String()
		}

		if j, dup := addrs[key]; dup {
			k.bad(at+".address", "duplicate address %q (also nodes[%d])", n.Address, j)
		}

		addrs[key] = i
	}
}

// node checks one node's role, schematic, platform, install disk, files and VM.
func (k *checker) node(at string, n Node) {
	if n.Role != RoleControlPlane && n.Role != RoleWorker {
		k.bad(at+".role", "must be controlplane or worker, got %q", n.Role)
	}

	if n.Schematic != "" {
		if _, ok := k.c.Spec.Schematics[n.Schematic]; !ok {
			k.bad(at+".schematic", "unknown schematic %q (known: %s)", n.Schematic, knownList(k.c.Spec.Schematics))
		}
	}

	k.platform(at+".platform", n.Platform)

	if n.InstallDisk != "" && !strings.HasPrefix(n.InstallDisk, "/dev/") {
		k.bad(at+".installDisk", "must be a device path such as /dev/sda, got %q", n.InstallDisk)
	}

	if n.Config != "" {
		if len(n.Patches) > 0 {
			k.bad(at+".patches", "a node with config: uses that file as it is; move the patches into it")
		}

		if n.InstallDisk != "" {
			k.bad(at+".installDisk", "a node with config: uses that file as it is; set the install disk in it")
		}

		k.path(at+".config", n.Config)
	}

	for j, p := range n.Patches {
		k.path(at+".patches["+strconv.Itoa(j)+"]", p)
	}

	if n.Proxmox != nil {
		if n.Proxmox.Node == "" {
			k.bad(at+".proxmox.node", "is required")
		}

		if n.Proxmox.VMID < 100 || n.Proxmox.VMID > 999999999 {
			k.bad(at+".proxmox.vmid", "must be a Proxmox VM ID (100-999999999), got %d", n.Proxmox.VMID)
		}

		k.vmSpec(at+".proxmox", n)
	}
}

func (c *Cluster) checkPath(field, p string) []error {
	if err := CheckPath(p); err != nil {
		return []error{inputErrorf(c.Path(FileName), c.Line(field), field, "%q: %v", p, err)}
	}

	return nil
}

// referenced lists every file talops.yaml names, with the field that names it.
func (c *Cluster) referenced() [][2]string {
	var out [][2]string

	s := &c.Spec

	if s.Secrets != "" {
		out = append(out, [2]string{"secrets", s.Secrets})
	}

	for _, name := range slices.Sorted(maps.Keys(s.Schematics)) {
		if f := s.Schematics[name].File; f != "" {
			out = append(out, [2]string{"schematics." + name, f})
		}
	}

	if s.ProxmoxAPI != nil && s.ProxmoxAPI.CAFile != "" {
		out = append(out, [2]string{"proxmox.caFile", s.ProxmoxAPI.CAFile})
	}

	for field, list := range map[string][]string{"patches.all": s.Patches.All, "patches.controlplane": s.Patches.ControlPlane, "patches.worker": s.Patches.Worker} {
		for i, p := range list {
			out = append(out, [2]string{field + "[" + strconv.Itoa(i) + "]", p})
		}
	}

	for i, n := range s.Nodes {
		at := "nodes[" + strconv.Itoa(i) + "]"
		if n.Config != "" {
			out = append(out, [2]string{at + ".config", n.Config})
		}

		for j, p := range n.Patches {
			out = append(out, [2]string{at + ".patches[" + strconv.Itoa(j) + "]", p})
		}
	}

	sort.SliceStable(out, func(i, j int) bool { return c.Line(out[i][0]) < c.Line(out[j][0]) })

	return out
}

func (c *Cluster) readReferenced(files Files) []error {
	var errs []error

	for _, ref := range c.referenced() {
		field, rel := ref[0], ref[1]
		if _, done := c.files[rel]; done || CheckPath(rel) != nil {
			continue
		}

		data, err := files.ReadFile(rel)
		if err != nil {
			errs = append(errs, c.readError(rel, c.Line(field), field, err))

			continue
		}

		c.files[rel] = bytes.Clone(data)
	}

	return errs
}

func (c *Cluster) readError(rel string, line int, field string, err error) error {
	msg := err.Error()

	var pe *fs.PathError

	switch {
	case errors.Is(err, fs.ErrNotExist):
		msg = "file not found"
	case errors.Is(err, ErrTooLarge), errors.Is(err, ErrEscapes):
		msg = err.Error()
	case errors.As(err, &pe):
		// The path is named already, relative to the directory.
		msg = pe.Err.Error()
	}

	if field == "" {
		return inputErrorf(c.Path(rel), 0, "", "%s", msg)
	}

	return inputErrorf(c.Path(FileName), line, field, "%s: %s", rel, msg)
}

func knownList(m map[string]Schematic) string {
	if len(m) == 0 {
		return "none; add a schematics: section"
	}

	return strings.Join(slices.Sorted(maps.Keys(m)), ", ")
}

// String describes a node for messages.
func (n Node) String() string { return fmt.Sprintf("%s (%s)", n.Name, n.Address) }

// RequireProxmox checks what the proxmox commands need: the proxmox: section, and at
// least one node placed on a Proxmox VM. Every node with proxmox: is named when the
// section is missing, so the user sees why it is needed.
func (c *Cluster) RequireProxmox() error {
	file := c.Path(FileName)

	var placed []int

	for i, n := range c.Spec.Nodes {
		if n.Proxmox != nil {
			placed = append(placed, i)
		}
	}

	if len(placed) == 0 {
		return inputErrorf(file, c.Line("nodes"), "nodes", "no node has a proxmox: {node, vmid} placement")
	}

	if c.Spec.ProxmoxAPI != nil {
		return nil
	}

	var errs []error

	for _, i := range placed {
		at := "nodes[" + strconv.Itoa(i) + "].proxmox"
		errs = append(errs, inputErrorf(file, c.Line(at), at, "needs the top-level proxmox: section (url, storage)"))
	}

	return errors.Join(errs...)
}
