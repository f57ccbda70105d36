package rules

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"

	coreconfig "github.com/siderolabs/talos/pkg/machinery/config"
	"github.com/siderolabs/talos/pkg/machinery/config/config"
	"github.com/siderolabs/talos/pkg/machinery/config/types/runtime"

	"github.com/talops/talops/internal/catalog"
	"github.com/talops/talops/internal/cluster"
	"github.com/talops/talops/internal/finding"
	"github.com/talops/talops/internal/render"
)

// The kernel modules the NVIDIA extensions ship and Talos must be told to load. CUDA in
// containers needs the workload ones; the display ones drive DRM/KMS (a display, or the
// DRM devices some tools open), which a compute node can do without, though Talos' NVIDIA
// guide loads all four.
var (
	workloadModules = []string{"nvidia", "nvidia_uvm"}
	displayModules  = []string{"nvidia_drm", "nvidia_modeset"}
)

// runtimeBinary is where the container toolkit extension installs the runtime it registers.
const runtimeBinary = "/usr/local/bin/nvidia-container-runtime"

// gpuExt is an NVIDIA extension a node asks for, resolved against the cluster's release.
type gpuExt struct {
	requested
	kind catalog.NvidiaKind
	// flavour is the track the node gets: a bare name the factory maps to -lts counts as lts.
	flavour catalog.Flavour
	// alias is the name the factory substitutes, "" when none.
	alias string
	// driver and suffix come from the explicit tag, or from the tag the release publishes;
	// "" when unknown. The suffix is the Talos tag of a kernel module, the toolkit's version.
	driver, suffix string
}

func (e gpuExt) display() string {
	if e.explicit() {
		return e.as
	}

	return e.name
}

// gpuSetup is a node's NVIDIA extensions.
type gpuSetup struct {
	node *render.Machine
	exts []gpuExt
	clusterTalos
}

// clusterTalos is what the NVIDIA rules need of the cluster's Talos version, parsed once
// per check, not once per node.
type clusterTalos struct {
	// release is the cluster's release data, when the catalog has it.
	release    catalog.Release
	hasRelease bool
	// talos is the version as a tag ("" when it does not parse); before113 says it is
	// older than 1.13 (or does not parse).
	talos     string
	before113 bool
	// moduleDocs says the release reads KernelModuleConfig documents.
	moduleDocs bool
}

func talosOf(in *Input) clusterTalos {
	r, hasRelease := release(in)
	talos, _ := catalog.NormalizeTag(in.Cluster.Spec.TalosVersion)

	return clusterTalos{
		release: r, hasRelease: hasRelease, talos: talos,
		before113:  !atLeast(in.Cluster.Spec.TalosVersion, "1.13"),
		moduleDocs: kernelModuleDocs(in.Cluster.Spec.TalosVersion),
	}
}

func (g gpuSetup) of(kinds ...catalog.NvidiaKind) []gpuExt {
	var out []gpuExt

	for _, e := range g.exts {
		if slices.Contains(kinds, e.kind) {
			out = append(out, e)
		}
	}

	return out
}

func (g gpuSetup) kmods() []gpuExt {
	return g.of(catalog.KernelModuleProprietary, catalog.KernelModuleOpen)
}

// fromSchematicOnly: every NVIDIA extension comes from the node's schematic, so a finding
// about them is the schematic's, shared by every node that boots it.
func (g gpuSetup) fromSchematicOnly() bool {
	return !slices.ContainsFunc(g.exts, func(e gpuExt) bool { return e.explicit() })
}

// nodeGPU resolves a node's NVIDIA extensions; t is talosOf(in).
func nodeGPU(in *Input, t clusterTalos, n *render.Machine) gpuSetup {
	r, hasRelease := t.release, t.hasRelease
	g := gpuSetup{node: n, clusterTalos: t}

	for _, req := range requestedExtensions(in, n) {
		ext, ok := catalog.ParseNvidia(req.name)
		if !ok {
			continue
		}

		e := gpuExt{requested: req, kind: ext.Kind, flavour: ext.Flavour}

		if req.explicit() {
			e.driver, e.suffix = splitNvidiaTag(ext.Kind, req.tag)
		} else if hasRelease {
			name := req.name

			if !r.Has(name) {
				if a, ok := catalogOf(in).Rename(name, r.Tag()); ok && a.Kind == catalog.AliasFactory {
					name, e.alias = a.To, a.To
					if to, ok := catalog.ParseNvidia(a.To); ok {
						e.flavour = to.Flavour
					}
				}
			}

			if tag, ok := r.ImageTag(name); ok {
				e.driver, e.suffix, _ = catalog.ParseNvidiaTag(ext.Kind, tag)
			}
		}

		g.exts = append(g.exts, e)
	}

	return g
}

// splitNvidiaTag reads a tag the way ParseNvidiaTag does, but keeps what it can of tags that
// are not well formed ("550.x-v1.9.5"), so the parts can still be compared.
func splitNvidiaTag(kind catalog.NvidiaKind, tag string) (driver, suffix string) {
	if d, s, ok := catalog.ParseNvidiaTag(kind, tag); ok {
		return d, s
	}

	switch kind {
	case catalog.FabricManager:
		return tag, ""
	case catalog.GDRCopy:
		return "", tag
	default:
		d, s, _ := strings.Cut(tag, "-")

		return d, s
	}
}

// kmodTalos returns the Talos release an explicit kernel module image is built for.
func kmodTalos(req requested) (string, bool) {
	ext, ok := catalog.ParseNvidia(req.name)
	if !ok || !ext.Kind.KernelModule() || !req.explicit() {
		return "", false
	}

	_, suffix := splitNvidiaTag(ext.Kind, req.tag)

	tag, err := catalog.NormalizeTag(suffix)
	if err != nil || !strings.HasPrefix(suffix, "v") {
		return "", false
	}

	return tag, true
}

// nvidiaRules checks each node's NVIDIA extensions against each other, the release, the
// node's config and talops.yaml: this is its part over a chunk of nodes, which also
// notes whether a node has a GPU and the first node that deploys the device plugin;
// nvidiaCluster adds what needs every node.
func nvidiaRules(in *Input, s *summary, out []finding.Finding) []finding.Finding {
	t := talosOf(in)
	cdi := atLeast(in.Cluster.Spec.TalosVersion, "1.13")

	for _, n := range rendered(in) {
		if at := in.Cluster.NodeIndex(n.Node.Name); cdi && (s.devicePlugin == nil || at < s.devicePluginAt) {
			if path, ok := devicePluginManifests(n.Config); ok {
				file, line := place(in.Cluster, n, path)
				s.devicePlugin, s.devicePluginAt = &finding.Finding{Severity: finding.Info, Code: CodeNvidiaCDISetup, File: file, Line: line, Path: path}, at
			}
		}

		if opaqueNode(in, n) {
			continue // schematic.opaque says its NVIDIA setup is not checked
		}

		g := nodeGPU(in, t, n)
		s.gpuNodes = s.gpuNodes || len(g.kmods()) > 0

		var fs []finding.Finding

		fs = append(fs, nvidiaExtensionSet(in, g)...)
		fs = append(fs, nvidiaTrackAvailable(in, g)...)
		fs = append(fs, nvidiaOpenOnly(in, g)...)

		if g.fromSchematicOnly() {
			for i := range fs {
				fs[i].Node = ""
			}
		}

		fs = append(fs, nvidiaTalosMismatch(in, g)...)
		fs = append(fs, nvidiaModules(in, g)...)
		fs = append(fs, nvidiaSysctl(in, g)...)
		fs = append(fs, nvidiaDriverPin(in, g)...)
		fs = append(fs, nvidiaRuntimePath(in, g)...)
		fs = append(fs, nvidiaWorkloadIsolation(in, g)...)

		// A schematic's finding is said once, whichever of its nodes (and chunks) says it.
		for _, f := range fs {
			if !slices.Contains(out, f) {
				out = append(out, f)
			}
		}
	}

	return out
}

// nvidiaCluster adds to what nvidiaRules found over the nodes the cluster's driver track
// and, with GPU nodes, the device plugin that CDI replaces.
func nvidiaCluster(in *Input, s *summary, found []finding.Finding) []finding.Finding {
	found = append(found, nvidiaFlavourAvailable(in)...)

	return append(found, nvidiaCDISetup(in, s.gpuNodes, s.devicePlugin)...)
}

func (g gpuSetup) at(e gpuExt, sev finding.Severity, code, format string, args ...any) finding.Finding {
	return finding.Finding{
		Severity: sev, Code: code, Message: fmt.Sprintf(format, args...),
		File: e.file, Line: e.line, Node: g.node.Node.Name, Path: e.path,
	}
}

// nvidiaExtensionSet checks that the extensions make one driver: one track, one kernel
// module, the toolkit with it, the same driver version throughout.
func nvidiaExtensionSet(in *Input, g gpuSetup) []finding.Finding {
	kmods := g.kmods()

	return slices.Concat(
		nvidiaFlavours(in, g, slices.Concat(kmods, g.of(catalog.ContainerToolkit, catalog.FabricManager))),
		nvidiaPieces(g, kmods),
		nvidiaDrivers(g, kmods),
	)
}

// nvidiaFlavours: every tracked extension follows one driver track, the one talops.yaml
// names, or without it the first extension's.
func nvidiaFlavours(in *Input, g gpuSetup, tracked []gpuExt) []finding.Finding {
	var (
		out  []finding.Finding
		want catalog.Flavour
	)

	source := ""

	if nv := in.Cluster.Spec.NVIDIA; nv != nil {
		want, source = catalog.Flavour(nv.Flavour), "nvidia.flavour in talops.yaml is "+nv.Flavour
	}

	for _, e := range tracked {
		if e.flavour == catalog.FlavourNone {
			continue
		}

		if want == "" {
			want, source = e.flavour, fmt.Sprintf("%s is %s", e.display(), e.flavour)

			continue
		}

		if e.flavour != want {
			via := ""
			if e.alias != "" {
				via = fmt.Sprintf(" (the Image Factory substitutes %s)", e.alias)
			}

			out = append(out, g.at(e, finding.Error, CodeNvidiaFlavourMismatch,
				"%s follows the %s driver track%s, but %s: every NVIDIA extension of a node must follow one track, or the userspace does not match the driver",
				e.display(), e.flavour, via, source))
		}
	}

	return out
}

// nvidiaPieces: one kernel module, and the toolkit beside it; the missing extension is
// named on the track of the one that is there.
func nvidiaPieces(g gpuSetup, kmods []gpuExt) []finding.Finding {
	var out []finding.Finding

	if len(kmods) > 1 {
		prop, open := g.of(catalog.KernelModuleProprietary), g.of(catalog.KernelModuleOpen)
		if len(prop) > 0 && len(open) > 0 {
			e := kmods[len(kmods)-1]
			out = append(out, g.at(e, finding.Error, CodeNvidiaKmodConflict,
				"%s and %s both provide the nvidia kernel module: keep the open modules (Turing or newer GPUs) or the proprietary ones, not both",
				prop[0].display(), open[0].display()))
		}
	}

	if len(kmods) == 0 {
		for _, e := range g.of(catalog.ContainerToolkit, catalog.FabricManager) {
			out = append(out, g.at(e, finding.Error, CodeNvidiaKmodMissing,
				"%s without an NVIDIA kernel module: add %s (Turing or newer) or %s",
				e.display(), catalog.KernelModuleOpen.ExtensionName(e.flavour), catalog.KernelModuleProprietary.ExtensionName(e.flavour)))
		}
	}

	if len(g.of(catalog.ContainerToolkit)) == 0 {
		for _, e := range kmods {
			out = append(out, g.at(e, finding.Error, CodeNvidiaToolkitMissing,
				"%s without %s: containers cannot use the GPU", e.display(), catalog.ContainerToolkit.ExtensionName(e.flavour)))
		}
	}

	return out
}

// nvidiaDrivers: where a tag was written by hand, the toolkit and fabric manager carry the
// driver they were built against, which must be the kernel module's.
func nvidiaDrivers(g gpuSetup, kmods []gpuExt) []finding.Finding {
	if len(kmods) == 0 || kmods[0].driver == "" {
		return nil
	}

	var out []finding.Finding

	k := kmods[0]

	for _, e := range g.of(catalog.ContainerToolkit, catalog.FabricManager) {
		if e.driver == "" || e.driver == k.driver || (!e.explicit() && !k.explicit()) {
			continue
		}

		out = append(out, g.at(e, finding.Error, CodeNvidiaDriverMismatch,
			"%s is built for NVIDIA driver %s but the kernel module %s is driver %s: the userspace must match the driver exactly",
			e.display(), e.driver, k.display(), k.driver))
	}

	return out
}

// nvidiaTalosMismatch: kernel modules load only on the exact Talos release they were built
// for. It needs no release data: the tag names its release.
func nvidiaTalosMismatch(in *Input, g gpuSetup) []finding.Finding {
	talos := g.talos
	if talos == "" {
		return nil
	}

	var out []finding.Finding

	for _, e := range g.kmods() {
		builtFor, ok := kmodTalos(e.requested)
		if !ok || builtFor == talos {
			continue
		}

		fix := "name it in the node's schematic instead"
		if tag, ok := g.release.ImageTag(e.name); ok && g.hasRelease {
			fix = "use " + catalog.FormatRef(e.name, tag) + ", or name it in the node's schematic so every Talos bump picks the matching build"
		}

		out = append(out, g.at(e, finding.Error, CodeNvidiaTalosMismatch,
			"%s is built for Talos %s but the cluster runs %s: kernel modules load only on the release they were built for; %s",
			e.as, builtFor, talos, fix))
	}

	return out
}

// declaredModules are the kernel modules a node's config loads: machine.kernel.modules, and
// KernelModuleConfig documents (which only Talos 1.14 and later read).
type declaredModules struct {
	v1alpha1 []string
	docs     []string
}

func moduleName(s string) string { return strings.ReplaceAll(s, "-", "_") }

func nodeModules(n *render.Machine) declaredModules {
	var d declaredModules

	if raw := n.Config.RawV1Alpha1(); raw != nil && raw.MachineConfig != nil && raw.MachineConfig.MachineKernel != nil { //nolint:staticcheck // configs may still load modules there
		for _, m := range raw.MachineConfig.MachineKernel.KernelModules { //nolint:staticcheck // configs may still load modules there
			if m != nil {
				d.v1alpha1 = append(d.v1alpha1, moduleName(m.ModuleName)) //nolint:staticcheck // configs may still load modules there
			}
		}
	}

	for _, doc := range n.Config.Documents() {
		if m, ok := doc.(config.KernelModuleConfig); ok && doc.Kind() == runtime.KernelModuleConfigKind {
			d.docs = append(d.docs, moduleName(m.Name()))
		}
	}

	return d
}

// kernelModuleDocs reports whether the release reads KernelModuleConfig documents.
func kernelModuleDocs(talos string) bool {
	return atLeast(talos, "1.14")
}

func nvidiaModules(in *Input, g gpuSetup) []finding.Finding {
	c := in.Cluster
	n := g.node
	d := nodeModules(n)
	docsRead := g.moduleDocs

	loaded := slices.Clone(d.v1alpha1)
	if docsRead {
		loaded = append(loaded, d.docs...)
	}

	if len(g.kmods()) == 0 {
		var declared []string

		for _, m := range loaded {
			if strings.HasPrefix(m, "nvidia") && !slices.Contains(declared, m) {
				declared = append(declared, m)
			}
		}

		if len(declared) == 0 {
			return nil
		}

		file, line, path := modulesPlace(c, n, d, declared[0])

		return []finding.Finding{{
			Severity: finding.Error, Code: CodeNvidiaModulesWithoutDriver, Node: n.Node.Name, File: file, Line: line, Path: path,
			Message: fmt.Sprintf("loads %s but the node has no NVIDIA kernel module extension: the modules do not exist on it; add the NVIDIA extensions to its schematic or load the modules only on GPU nodes", strings.Join(declared, ", ")),
		}}
	}

	how := "list them in machine.kernel.modules"
	if docsRead {
		how = "add a KernelModuleConfig document for each"
	}

	var ignored bool

	for _, m := range slices.Concat(workloadModules, displayModules) {
		if !slices.Contains(loaded, m) && slices.Contains(d.docs, m) {
			ignored = true
		}
	}

	if ignored {
		how += fmt.Sprintf(" (KernelModuleConfig documents are read from Talos 1.14 on, the cluster runs %s)", c.Spec.TalosVersion)
	}

	file, line, path := modulesPlace(c, n, d, "")
	ext := g.kmods()[0].display()

	var out []finding.Finding

	if missing := notIn(workloadModules, loaded); len(missing) > 0 {
		out = append(out, finding.Finding{
			Severity: finding.Error, Code: CodeNvidiaModulesMissing, Node: n.Node.Name, File: file, Line: line, Path: path,
			Message: fmt.Sprintf("%s is installed but %s not loaded at boot: containers cannot use the GPU without nvidia and nvidia_uvm; %s",
				ext, strings.Join(missing, ", ")+pluralVerb(len(missing)), how),
		})
	}

	if missing := notIn(displayModules, loaded); len(missing) > 0 {
		out = append(out, finding.Finding{
			Severity: finding.Warning, Code: CodeNvidiaModulesMissing, Node: n.Node.Name, File: file, Line: line, Path: path,
			Message: fmt.Sprintf("%s is installed but %s not loaded at boot: nvidia_drm and nvidia_modeset drive a display (DRM/KMS), which CUDA in containers does not need, and Talos' NVIDIA guide loads them with nvidia and nvidia_uvm; %s",
				ext, strings.Join(missing, ", ")+pluralVerb(len(missing)), how),
		})
	}

	return out
}

// notIn are the modules of want that loaded lacks, in want's order.
func notIn(want, loaded []string) []string {
	var missing []string

	for _, m := range want {
		if !slices.Contains(loaded, m) {
			missing = append(missing, m)
		}
	}

	return missing
}

func pluralVerb(n int) string {
	if n == 1 {
		return " is"
	}

	return " are"
}

// modulesPlace points at where the node declares its kernel modules: the KernelModuleConfig
// document of module when there is one, machine.kernel.modules, else the node in talops.yaml.
func modulesPlace(c *cluster.Cluster, n *render.Machine, d declaredModules, module string) (file string, line int, path string) {
	if module != "" && !slices.Contains(d.v1alpha1, module) {
		for i := len(n.Layers) - 1; i >= 0; i-- {
			for _, doc := range n.Layers[i].Index.Docs {
				if doc.Kind == runtime.KernelModuleConfigKind && moduleName(doc.Name) == module {
					return n.Layers[i].File, doc.Line, runtime.KernelModuleConfigKind
				}
			}
		}
	}

	const modules = "machine.kernel.modules"

	if file, line, ok := placeExact(n, modules); ok {
		return file, line, modules
	}

	return c.Path(cluster.FileName), c.NodeLine(n.Node.Name, ""), modules
}

// placeExact finds the last source that sets path itself in the v1alpha1 document.
func placeExact(n *render.Machine, path string) (string, int, bool) {
	for i := len(n.Layers) - 1; i >= 0; i-- {
		l := n.Layers[i]

		if d := l.Index.Find("", ""); d >= 0 {
			if line, exact := l.Index.Docs[d].Nearest(path); exact {
				return l.File, line, true
			}
		}
	}

	return "", 0, false
}

// bpfJITHarden is the sysctl the container toolkit needs relaxed up to Talos 1.12: Talos
// sets it to 2, which stops the toolkit's eBPF device filter.
const bpfJITHarden = "net.core.bpf_jit_harden"

func nvidiaSysctl(in *Input, g gpuSetup) []finding.Finding {
	c := in.Cluster
	if len(g.kmods()) == 0 || !g.before113 {
		return nil
	}

	if v := g.node.Config.SysctlConfig()[bpfJITHarden]; v == "0" || v == "1" {
		return nil
	}

	file, line, ok := placeExact(g.node, "machine.sysctls")
	if !ok {
		file, line = c.Path(cluster.FileName), c.NodeLine(g.node.Node.Name, "")
	}

	return []finding.Finding{{
		Severity: finding.Error, Code: CodeNvidiaSysctlMissing, Node: g.node.Node.Name, File: file, Line: line, Path: "machine.sysctls",
		Message: fmt.Sprintf("Talos %s with NVIDIA extensions needs machine.sysctls %s: \"1\" (Talos sets 2, which blocks the container toolkit)", c.Spec.TalosVersion, bpfJITHarden),
	}}
}

// nodeDriver is the driver a node's kernel module brings, and the toolkit version with it.
func (g gpuSetup) nodeDriver() (kmod gpuExt, toolkit string, ok bool) {
	kmods := g.kmods()
	if len(kmods) == 0 || kmods[0].driver == "" {
		return gpuExt{}, "", false
	}

	for _, t := range g.of(catalog.ContainerToolkit) {
		toolkit = t.suffix

		break
	}

	return kmods[0], toolkit, true
}

func nvidiaDriverPin(in *Input, g gpuSetup) []finding.Finding {
	c := in.Cluster

	nv := c.Spec.NVIDIA
	if nv == nil || nv.Driver == "" {
		return nil
	}

	k, _, ok := g.nodeDriver()
	if !ok {
		return pinAgainstBranch(in, g)
	}

	if _, valid := catalog.DriverBranch(k.driver); !valid || catalog.DriverMatchesPin(k.driver, nv.Driver) {
		return nil
	}

	by := fmt.Sprintf("Talos %s installs", c.Spec.TalosVersion)
	if k.explicit() {
		by = k.as + " is"
	}

	return []finding.Finding{{
		Severity: finding.Error, Code: CodeNvidiaDriverPin, Node: g.node.Node.Name,
		File: c.Path(cluster.FileName), Line: c.Line("nvidia.driver"), Path: "nvidia.driver",
		Message: fmt.Sprintf("%s NVIDIA driver %s (%s), but nvidia.driver pins %s: pick a Talos release whose %s driver matches, or change the pin", by, k.driver, k.flavour, nv.Driver, k.flavour),
	}}
}

// pinAgainstBranch checks the pin when the release data does not give the node's driver,
// against the branch the facts give for the track on the cluster's minor.
func pinAgainstBranch(in *Input, g gpuSetup) []finding.Finding {
	kmods := g.kmods()
	if len(kmods) == 0 || g.talos == "" {
		return nil
	}

	c := in.Cluster
	f := kmods[0].flavour

	branch, broken := pinnedBranch(g.talos, f, c.Spec.NVIDIA.Driver)
	if !broken {
		return nil
	}

	return []finding.Finding{{
		Severity: finding.Error, Code: CodeNvidiaDriverPin, Node: g.node.Node.Name,
		File: c.Path(cluster.FileName), Line: c.Line("nvidia.driver"), Path: "nvidia.driver",
		Message: fmt.Sprintf("Talos %s puts the %s track on driver branch %s, but nvidia.driver pins %s: pick a Talos release whose %s driver matches, switch nvidia.flavour, or move the pin", c.Spec.TalosVersion, f, branch, c.Spec.NVIDIA.Driver, f),
	}}
}

var binaryNameRe = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`BinaryName\s*=\s*"([^"]*nvidia-container-runtime[^"]*)"`)
})

// nvidiaRuntimePath: the toolkit extension registers the nvidia runtime itself; a CRI part
// pointing the runtime at another binary breaks every GPU container.
func nvidiaRuntimePath(in *Input, g gpuSetup) []finding.Finding {
	raw := g.node.Config.RawV1Alpha1()
	if raw == nil || raw.MachineConfig == nil {
		return nil
	}

	var out []finding.Finding

	for _, f := range raw.MachineConfig.MachineFiles { //nolint:staticcheck // configs may still write files there
		if f == nil || !strings.HasPrefix(f.FilePath, "/etc/cri/conf.d/") {
			continue
		}

		for _, m := range binaryNameRe().FindAllStringSubmatch(f.FileContent, -1) {
			file, line := place(in.Cluster, g.node, "machine.files")

			if atLeast(g.talos, nriSince) {
				out = append(out, finding.Finding{
					Severity: finding.Warning, Code: CodeNvidiaToolkitNRI, Node: g.node.Node.Name, File: file, Line: line, Path: "machine.files",
					Message: fmt.Sprintf("%s sets up containerd's nvidia runtime (%s) as 1.14 guides did, but from Talos %s the toolkit extension no longer installs it: the NVIDIA GPU Operator installs the Container Toolkit through NRI; drop the patch and run the GPU Operator with its toolkit enabled", f.FilePath, m[1], nriSince),
				})

				continue
			}

			if m[1] == runtimeBinary {
				continue
			}

			out = append(out, finding.Finding{
				Severity: finding.Error, Code: CodeNvidiaRuntimePath, Node: g.node.Node.Name, File: file, Line: line, Path: "machine.files",
				Message: fmt.Sprintf("%s points the nvidia runtime at %s, which does not exist on Talos: the container toolkit extension registers the runtime with %s; drop the override", f.FilePath, m[1], runtimeBinary),
			})
		}
	}

	return out
}

var devicePluginRe = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`nvidia-device-plugin|(?s)kind:\s*RuntimeClass.*handler:\s*nvidia`)
})

// nvidiaWorkloadIsolation notes GPU nodes under workload isolation, on by default for clusters
// created on Talos 1.14: GPU plugins that need the host's PID namespace or mounts fail under it.
func nvidiaWorkloadIsolation(in *Input, g gpuSetup) []finding.Finding {
	if len(g.kmods()) == 0 {
		return nil
	}

	if sp := g.node.Config.SecurityProfileConfig(); sp == nil || !sp.WorkloadIsolation() {
		return nil
	}

	c := in.Cluster

	return []finding.Finding{{
		Severity: finding.Info, Code: CodeNvidiaWorkloadIsolation, Node: g.node.Node.Name,
		File: c.Path(cluster.FileName), Line: c.Line("talosVersion"), Path: "talosVersion",
		Message: "workload isolation is on (the default for clusters created on Talos 1.14): GPU plugins that need the host's PID namespace or host mounts fail under it; run the gpu-operator's components as it documents for Talos, or turn isolation off in a SecurityProfileConfig document",
	}}
}

// nvidiaCDISetup notes a cluster on Talos 1.13 or later with GPU nodes whose configs still
// deploy the NVIDIA device plugin or the nvidia RuntimeClass, which CDI and the
// gpu-operator replace: at the first node that does (devicePlugin, nil for none).
func nvidiaCDISetup(in *Input, gpuNodes bool, devicePlugin *finding.Finding) []finding.Finding {
	c := in.Cluster
	if !gpuNodes || devicePlugin == nil || !atLeast(c.Spec.TalosVersion, "1.13") {
		return nil
	}

	f := *devicePlugin
	f.Message = cdiAdvice(c.Spec.TalosVersion)

	return []finding.Finding{f}
}

func cdiAdvice(talos string) string {
	return fmt.Sprintf("from Talos 1.13 (the cluster runs %s) the container toolkit uses CDI: remove the nvidia device plugin and the nvidia RuntimeClass, and run the NVIDIA gpu-operator v26.3.1 or later with its driver and toolkit disabled", talos)
}

// devicePluginManifests reports whether a config deploys the device plugin or the nvidia
// RuntimeClass itself, and under which config path.
func devicePluginManifests(cfg coreconfig.Provider) (string, bool) {
	for _, m := range cfg.K8sInlineManifestConfigs() {
		if devicePluginRe().MatchString(m.Contents()) {
			return "cluster.inlineManifests", true
		}
	}

	for _, m := range cfg.K8sExternalManifestConfigs() {
		if devicePluginRe().MatchString(m.URL()) {
			return "cluster.extraManifests", true
		}
	}

	return "", false
}

// atLeast reports whether a Talos version is at least a minor ("1.13"); false when it does not parse.
func atLeast(talos, minor string) bool {
	v, err := catalog.CompareMinor(talos, minor)

	return err == nil && v >= 0
}
