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
	"slices"

	coreconfig "github.com/siderolabs/talos/pkg/machinery/config"
	"go.yaml.in/yaml/v4"

	"github.com/talops/talops/internal/importer"
)

// Patch is one patch file of the repository.
type Patch struct {
	// Path is the file's path relative to the repository (as talops.yaml names it).
	Path string
	Data []byte
	// ControlPlaneOnly is true when only control-plane nodes use the file: a KubeNodeConfig
	// written there then keeps the control-plane label and taint explicitly.
	ControlPlaneOnly bool
}

// Input is what a migration reads.
type Input struct {
	// Target is the config contract to move to ("v1.14").
	Target string
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
}

// Left is a field that stays where it is, and why.
type Left struct {
	File   string
	Line   int
	Path   string
	Reason string
}

// Result is a migration computed in memory.
type Result struct {
	// Files are the files whose bytes change, talops.yaml first when it does.
	Files []File
	Moved []Move
	Left  []Left
}

// Changed says whether anything would be written.
func (r *Result) Changed() bool { return len(r.Files) > 0 }

// UsageError is a target the migration cannot move to.
type UsageError struct{ Msg string }

func (e *UsageError) Error() string { return e.Msg }

// Rewrite computes the migration of the given files to the target contract.
func Rewrite(in Input) (*Result, error) {
	contract, err := coreconfig.ParseContractFromVersion(in.Target)
	if err != nil {
		return nil, &UsageError{Msg: fmt.Sprintf("--config-version %s: %v", in.Target, err)}
	}

	if !contract.MultidocKubernetesConfigSupported() {
		return nil, &UsageError{Msg: fmt.Sprintf("--config-version %s: the v1alpha1 layout is the layout of that contract; migrate moves to v1.14 or later", in.Target)}
	}

	res := &Result{}

	talops, err := setConfigVersion(in.Talops, in.Target)
	if err != nil {
		return nil, err
	}

	if !bytes.Equal(talops, in.Talops) {
		res.Files = append(res.Files, File{Path: "talops.yaml", Data: talops})
	}

	for _, p := range in.Patches {
		data, err := rewritePatch(p, res)
		if err != nil {
			return nil, err
		}

		if data != nil && !bytes.Equal(data, p.Data) {
			res.Files = append(res.Files, File{Path: p.Path, Data: data})
		}
	}

	return res, nil
}

// rewritePatch moves the fields of one patch file; nil when the file is not YAML this
// migration edits (an RFC 6902 patch).
func rewritePatch(p Patch, res *Result) ([]byte, error) {
	docs, err := parseDocs(p.Data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", p.Path, err)
	}

	if len(docs) == 1 && docs[0].Kind == yaml.DocumentNode && len(docs[0].Content) == 1 && docs[0].Content[0].Kind == yaml.SequenceNode {
		res.Left = append(res.Left, Left{File: p.Path, Line: docs[0].Content[0].Line, Path: "(RFC 6902 patch)",
			Reason: "a JSON patch applies to the v1alpha1 document alone: rewrite it as a strategic-merge patch to move its fields"})

		return nil, nil
	}

	f := &file{patch: p, res: res, docs: docs}

	for i := 0; i < len(f.docs); i++ {
		if d := f.docs[i]; isV1Alpha1(d) {
			f.v1 = d
			f.v1Index = i

			break
		}
	}

	if f.v1 == nil {
		return p.Data, nil
	}

	f.moveAll()

	if !f.changed {
		return p.Data, nil
	}

	out := f.docs
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
