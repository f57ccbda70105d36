package migrate

import (
	"fmt"
	"slices"

	coreconfig "github.com/siderolabs/talos/pkg/machinery/config"
	"github.com/siderolabs/talos/pkg/machinery/config/types/block"
	"github.com/siderolabs/talos/pkg/machinery/config/types/k8s"
	"github.com/siderolabs/talos/pkg/machinery/config/types/runtime"
	"go.yaml.in/yaml/v4"
)

// keptComment heads each document that keeps a default of the old contract.
const keptComment = "The %s contract's default, kept by talops migrate: a running cluster never adopts a\n" +
	"new contract's defaults by itself. Delete this document to adopt the new one, as a change of its own."

// keepDefaults writes, into the patch every node uses, the documents that keep what the old
// contract did where the new one generates something else: workload isolation off and no
// scheduled filesystem trim; and, into the patch every control plane uses, kube-apiserver's
// legacy anonymous access when no apiServer flag moved there already, and its start
// without startup probes.
func keepDefaults(in Input, from *coreconfig.VersionContract, files map[string]*file, res *Result) {
	all, controlPlanes := -1, -1

	for i, p := range in.Patches {
		if isJSONPatch(p.Data) {
			continue
		}

		if all < 0 && p.ControlPlanes == in.ControlPlanes && p.Workers == in.Workers {
			all = i
		}

		if controlPlanes < 0 && p.ControlPlanes == in.ControlPlanes && p.Workers == 0 && in.ControlPlanes > 0 {
			controlPlanes = i
		}
	}

	version := from.String()

	if in.ControlPlanes+in.Workers == 0 {
		return
	}

	if !from.WorkloadIsolationEnabledByDefault() || !from.FilesystemTrimEnabledByDefault() {
		var f *file
		if all < 0 {
			f = newFile(Patch{Path: newPatchPath(in, "all"), ControlPlanes: in.ControlPlanes, Workers: in.Workers}, "all", files, res)
		} else {
			f = fileFor(in.Patches[all], files, res)
		}

		if !from.WorkloadIsolationEnabledByDefault() && !f.has(runtime.SecurityProfileConfigKind) {
			doc := f.doc(runtime.SecurityProfileConfigKind, "")
			set(doc, "workloadIsolation", &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!bool", Value: "false"})
			f.kept(doc, version, "workload isolation off", runtime.SecurityProfileConfigKind)
		}

		if !from.FilesystemTrimEnabledByDefault() && !f.has(block.FilesystemTrimConfigKind) {
			doc := f.doc(block.FilesystemTrimConfigKind, "")
			set(doc, "$patch", str("delete"))
			f.kept(doc, version, "no scheduled filesystem trim", block.FilesystemTrimConfigKind)
		}
	}

	if in.ControlPlanes == 0 {
		return
	}

	f := controlPlaneFile(in, files, res)

	if !from.MultidocKubernetesConfigSupported() {
		keepNoStartupProbes(f, version)
	}

	if f.has(k8s.KubeAuthenticationConfig) {
		return
	}

	legacy, _ := AuthenticationFromFlags(map[string]string{})

	var node yaml.Node
	if err := node.Encode(legacy); err != nil {
		return
	}

	doc := f.doc(k8s.KubeAuthenticationConfig, "")
	set(doc, "configuration", &node)
	f.kept(doc, version, "anonymous requests on every path, as kube-apiserver's flags allowed", k8s.KubeAuthenticationConfig)
}

// keptKeyComment heads a key that keeps a default of the old layout in a document.
const keptKeyComment = "The %s contract's default, kept by talops migrate: a running cluster never adopts a\n" +
	"new contract's defaults by itself. Delete this key to adopt the new one, as a change of its own."

// keepNoStartupProbes keeps kube-apiserver as the v1alpha1 layout ran it, without startup
// probes, which KubeAPIServerConfig adds unless its startupProbes says no.
func keepNoStartupProbes(f *file, version string) {
	doc := f.doc(k8s.KubeAPIServerConfig, "")
	if _, v := get(doc, "startupProbes"); v != nil {
		return
	}

	k := set(doc, "startupProbes", &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!bool", Value: "false"})
	k.HeadComment = fmt.Sprintf(keptKeyComment, version)
	f.changed = true
	f.res.Moved = append(f.res.Moved, Move{File: f.patch.Path, From: "the " + version + " contract's default: kube-apiserver without startup probes",
		To: k8s.KubeAPIServerConfig + " startupProbes", Kept: true})
}

// controlPlaneFile is the patch every control plane uses and no worker does (the first in
// talops.yaml's order), added when there is none.
func controlPlaneFile(in Input, files map[string]*file, res *Result) *file {
	for _, p := range in.Patches {
		if !isJSONPatch(p.Data) && p.ControlPlanes == in.ControlPlanes && p.Workers == 0 && in.ControlPlanes > 0 {
			return fileFor(p, files, res)
		}
	}

	if f, ok := files[newPatchPath(in, "controlplane")]; ok {
		return f
	}

	return newFile(Patch{Path: newPatchPath(in, "controlplane"), ControlPlanes: in.ControlPlanes}, "controlplane", files, res)
}

// newFile is a patch file the migration adds for role (all, controlplane) to keep the old
// contract's defaults in, where no patch applies to every node of the role.
func newFile(p Patch, role string, files map[string]*file, res *Result) *file {
	f := fileFor(p, files, res)
	f.role = role

	return f
}

// newPatchPath is the path of a patch file the migration adds for role (the old contract's
// defaults, the control planes' CNI): one no patch of the repository has.
func newPatchPath(in Input, role string) string {
	taken := func(path string) bool {
		return slices.ContainsFunc(in.Patches, func(p Patch) bool { return p.Path == path })
	}

	path := "patches/migrated-" + role + ".yaml"
	for i := 2; taken(path); i++ {
		path = fmt.Sprintf("patches/migrated-%s-%d.yaml", role, i)
	}

	return path
}

// fileFor is the file being rewritten for a patch, started when no move touched it.
func fileFor(p Patch, files map[string]*file, res *Result) *file {
	if f, ok := files[p.Path]; ok {
		return f
	}

	f := &file{patch: p, res: res, v1Index: -1}
	f.docs, _ = parseDocs(p.Data)

	for i, d := range f.docs {
		if isV1Alpha1(d) {
			f.v1, f.v1Index = d, i
		}
	}

	if f.v1Index < 0 {
		f.v1Index = len(f.docs) - 1
	}

	files[p.Path] = f

	return f
}

// has says whether the file has a document of kind.
func (f *file) has(kind string) bool {
	for _, d := range f.docs {
		if len(d.Content) == 1 {
			if _, k := get(d.Content[0], "kind"); k != nil && k.Value == kind {
				return true
			}
		}
	}

	return false
}

// kept records a document written to keep an old default.
func (f *file) kept(doc *yaml.Node, version, what, kind string) {
	f.changed = true
	doc.Content[0].HeadComment = fmt.Sprintf(keptComment, version)
	f.res.Moved = append(f.res.Moved, Move{File: f.patch.Path, From: "the " + version + " contract's default: " + what, To: kind, Kept: true})
}
