// Package migrate moves a repository's patches from the v1alpha1 layout to the typed
// documents of a newer config contract: bytes of talops.yaml and the patch files in, the
// rewritten files and what moved or stayed out. It reads and writes nothing itself; the
// proof that nothing effective changes (Compare) runs over configs rendered by others.
package migrate

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"

	coreconfig "github.com/siderolabs/talos/pkg/machinery/config"
	"go.yaml.in/yaml/v4"

	"github.com/talops/talops/internal/importer"
	"github.com/talops/talops/internal/yamlpos"
)

// Patch is one patch file of the repository.
type Patch struct {
	// Path is the file's path relative to the repository (as talops.yaml names it).
	Path string
	Data []byte
	// ControlPlanes and Workers count the nodes of each role that use the file. A
	// KubeNodeConfig written in a file only control planes use names the control-plane
	// label and taint that v1alpha1 set by itself.
	ControlPlanes, Workers int
	// SchematicKernelArgs are the kernel arguments the schematic of every node that uses
	// the file carries: machine.install.extraKernelArgs among them are the schematic's
	// already, their one place from 1.14.
	SchematicKernelArgs []string
}

// controlPlaneOnly is a file no worker uses.
func (p Patch) controlPlaneOnly() bool { return p.ControlPlanes > 0 && p.Workers == 0 }

// Input is what a migration reads.
type Input struct {
	// From is the config contract the repository renders with now, Target the one to
	// move to ("v1.14").
	From, Target string
	// ControlPlanes and Workers count the repository's nodes.
	ControlPlanes, Workers int
	// Talops is talops.yaml.
	Talops  []byte
	Patches []Patch
}

// File is a file the migration rewrote.
type File struct {
	Path string
	Data []byte
}

// Move is one v1alpha1 field that became (part of) a document.
type Move struct {
	File string
	Line int
	// From is the v1alpha1 path (machine.kubelet.extraArgs), To the document kind.
	From, To string
	// Kept is a document written to keep an old contract's default (From says which).
	Kept bool
}

// Left is a field that stays where it is, and why.
type Left struct {
	File   string
	Line   int
	Path   string
	Reason string
}

// Refusal is one reason a migration is not written: a setting a node would run
// differently, or a migrated config that does not render or validate.
type Refusal struct {
	Node    string `json:"node"`
	Setting string `json:"setting,omitempty"`
	// File and Line place the source of the setting when it is known (the patch it moved
	// from), else the node's entry in talops.yaml.
	File string `json:"file"`
	Line int    `json:"line,omitempty"`
	Msg  string `json:"message"`
}

// Result is a migration computed in memory.
type Result struct {
	// Files are the files whose bytes change, talops.yaml first when it does.
	Files []File
	// Added are the files of Files the migration adds (it names them in talops.yaml).
	Added []string

	// controlPlaneCNI are cni sections of files workers use too: their documents are the
	// control planes', written into the patch every control plane uses once every file
	// was read.
	controlPlaneCNI []cniMove
	// controlPlaneSchedules says an allowSchedulingOnControlPlanes every control plane
	// reads moved: the control planes' taint is deleted in the patch every control plane
	// uses, before the patches that set taints of their own, as v1alpha1's generator
	// left the taint out before any patch applied.
	controlPlaneSchedules bool
	Moved                 []Move
	Left                  []Left
}

// Changed says whether anything would be written.
func (r *Result) Changed() bool { return len(r.Files) > 0 }

// TargetError is a target the migration cannot move to (the application reports it as a
// usage error).
type TargetError struct{ Msg string }

func (e *TargetError) Error() string { return e.Msg }

// Rewrite computes the migration of the given files to the target contract.
func Rewrite(in Input) (*Result, error) {
	target, err := coreconfig.ParseContractFromVersion(in.Target)
	if err != nil {
		return nil, &TargetError{Msg: fmt.Sprintf("--config-version %s: %v", in.Target, err)}
	}

	if !target.MultidocKubernetesConfigSupported() {
		return nil, &TargetError{Msg: fmt.Sprintf("--config-version %s: the v1alpha1 layout is the layout of that contract; migrate moves to v1.14 or later", in.Target)}
	}

	from, err := coreconfig.ParseContractFromVersion(in.From)
	if err != nil {
		return nil, fmt.Errorf("config contract of the repository (%s): %w", in.From, err)
	}

	res := &Result{}

	talops, err := setConfigVersion(in.Talops, in.Target)
	if err != nil {
		return nil, err
	}

	files := map[string]*file{}
	scheduling := schedulesOnControlPlanes(in.Patches)

	for _, p := range in.Patches {
		every := in.ControlPlanes > 0 && p.ControlPlanes == in.ControlPlanes
		f, err := rewritePatch(p, res, scheduling, every)
		if err != nil {
			return nil, err
		}

		if f != nil {
			files[p.Path] = f
		}
	}

	if len(res.controlPlaneCNI) > 0 {
		f := controlPlaneFile(in, files, res)
		for _, m := range res.controlPlaneCNI {
			f.cniFrom(m)
		}
	}

	if res.controlPlaneSchedules {
		controlPlaneFile(in, files, res).deleteControlPlaneTaint()
	}

	if target.Greater(from) {
		keepDefaults(in, from, files, res)
	}

	talops, added, err := nameAdded(talops, files, res)
	if err != nil {
		return nil, err
	}

	if !bytes.Equal(talops, in.Talops) {
		res.Files = append(res.Files, File{Path: "talops.yaml", Data: talops})
	}

	if err := encodeChanged(slices.Concat(in.Patches, added), files, res); err != nil {
		return nil, err
	}

	return res, nil
}

// encodeChanged writes the patches whose bytes the migration changes into res, in order.
func encodeChanged(patches []Patch, files map[string]*file, res *Result) error {
	for _, p := range patches {
		f := files[p.Path]
		if f == nil || !f.changed {
			continue
		}

		data, err := f.encode()
		if err != nil {
			return fmt.Errorf("%s: %w", p.Path, err)
		}

		if !bytes.Equal(data, p.Data) {
			res.Files = append(res.Files, File{Path: p.Path, Data: data})
		}
	}

	return nil
}

// nameAdded names each file the migration adds in talops.yaml, after its role's own files,
// and returns the patches they are.
func nameAdded(talops []byte, files map[string]*file, res *Result) ([]byte, []Patch, error) {
	var added []Patch

	for _, path := range slices.Sorted(maps.Keys(files)) {
		if f := files[path]; f.role != "" && f.changed {
			var err error
			if talops, err = addPatch(talops, f.role, path); err != nil {
				return nil, nil, err
			}

			added = append(added, f.patch)
			res.Added = append(res.Added, path)
		}
	}

	return talops, added, nil
}

// isJSONPatch is an RFC 6902 patch: one document, a list.
func isJSONPatch(data []byte) bool {
	docs, err := parseDocs(data)

	return err == nil && len(docs) == 1 && len(docs[0].Content) == 1 && docs[0].Content[0].Kind == yaml.SequenceNode
}

// rewritePatch moves the fields of one patch file; nil when the file is not YAML this
// migration edits (an RFC 6902 patch).
func rewritePatch(p Patch, res *Result, scheduling, everyControlPlane bool) (*file, error) {
	docs, err := parseDocs(p.Data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", p.Path, err)
	}

	if len(docs) == 1 && docs[0].Kind == yaml.DocumentNode && len(docs[0].Content) == 1 && docs[0].Content[0].Kind == yaml.SequenceNode {
		return rewriteJSONPatch(p, res, docs[0].Content[0], scheduling, everyControlPlane), nil
	}

	f := &file{patch: p, res: res, docs: docs, v1Index: len(docs) - 1, scheduling: scheduling, everyControlPlane: everyControlPlane}

	for i := 0; i < len(f.docs); i++ {
		if d := f.docs[i]; isV1Alpha1(d) {
			f.v1 = d
			f.v1Index = i

			break
		}
	}

	if f.v1 != nil {
		f.moveAll()
	}

	return f, nil
}

// rewriteJSONPatch moves the fields of an RFC 6902 patch: as the strategic-merge document it
// stands for (fromJSONPatch) when one of its fields moves, else it stays as written. nil
// when the file is left as it is.
func rewriteJSONPatch(p Patch, res *Result, ops *yaml.Node, scheduling, everyControlPlane bool) *file {
	doc, line, reason := fromJSONPatch(ops)
	if doc == nil {
		res.Left = append(res.Left, Left{File: p.Path, Line: line, Path: "(RFC 6902 patch)",
			Reason: "a JSON patch applies to the v1alpha1 document alone, and this one has no strategic-merge form: " + reason})

		return nil
	}

	// The moves are tried on a result of their own: a patch none of whose fields moves
	// stays an RFC 6902 patch, with nothing recorded.
	trial := &Result{}
	f := &file{patch: p, res: trial, docs: []*yaml.Node{doc}, v1: doc, scheduling: scheduling, everyControlPlane: everyControlPlane}
	f.moveAll()

	if !f.changed {
		return nil
	}

	res.Moved = append(res.Moved, Move{File: p.Path, Line: line, From: "(RFC 6902 patch)", To: "a strategic-merge patch"})
	res.Moved = append(res.Moved, trial.Moved...)
	res.Left = append(res.Left, trial.Left...)
	res.controlPlaneCNI = append(res.controlPlaneCNI, trial.controlPlaneCNI...)
	res.controlPlaneSchedules = res.controlPlaneSchedules || trial.controlPlaneSchedules
	f.res = res

	return f
}

// encode writes the file's documents back; a v1alpha1 document left empty goes, and its
// comment heads what replaced it.
func (f *file) encode() ([]byte, error) {
	out := f.docs
	if f.v1 == nil {
		return importer.EncodeNodes(out)
	}

	if body := f.v1.Content[0]; len(body.Content) == 0 || onlyVersion(body) {
		// The v1alpha1 document is empty now: its comment heads what replaced it.
		out = slices.Delete(slices.Clone(out), f.v1Index, f.v1Index+1)
		if f.v1Index < len(out) {
			out[f.v1Index].HeadComment = joinComments(f.v1.HeadComment, body.HeadComment, out[f.v1Index].HeadComment)
		}
	}

	return importer.EncodeNodes(out)
}

// parseDocs decodes every document of a stream, keeping comments.
func parseDocs(data []byte) ([]*yaml.Node, error) {
	dec := yaml.NewDecoder(bytes.NewReader(data))

	var docs []*yaml.Node

	for {
		var d yaml.Node

		err := dec.Decode(&d)
		if errors.Is(err, io.EOF) {
			return docs, nil
		}

		if err != nil {
			return nil, err
		}

		if err := yamlpos.CheckNode(&d); err != nil {
			return nil, err
		}

		docs = append(docs, &d)
	}
}

// isV1Alpha1 is the legacy machine config document: a mapping without a kind.
func isV1Alpha1(d *yaml.Node) bool {
	if d.Kind != yaml.DocumentNode || len(d.Content) != 1 || d.Content[0].Kind != yaml.MappingNode {
		return false
	}

	_, kind := get(d.Content[0], "kind")

	return kind == nil
}

// onlyVersion is a v1alpha1 document left with nothing but `version: v1alpha1`.
func onlyVersion(m *yaml.Node) bool {
	return len(m.Content) == 2 && m.Content[0].Value == "version"
}
