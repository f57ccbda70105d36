package importer

import (
	"fmt"
	"maps"
	"slices"

	"go.yaml.in/yaml/v4"

	"github.com/talops/talops/internal/cluster"
	"github.com/talops/talops/internal/finding"
	"github.com/talops/talops/internal/scaffold"
)

// Repo is the repository an import writes, as the import builds it: its files (each path
// once), the schematics talops.yaml will name, and the findings made on the way.
type Repo struct {
	// Source is the source's file as findings name it unless they name another.
	Source string

	files      scaffold.FileSet
	findings   []finding.Finding
	reported   map[finding.Finding]bool
	schematics []string
}

// Add writes a file of the repository; the same path twice with other contents is an error.
func (r *Repo) Add(rel string, data []byte) error {
	return r.files.Add(rel, data)
}

// Files are the files added so far, in order.
func (r *Repo) Files() []scaffold.File {
	return r.files.Files()
}

// AddYAML writes one value as a YAML file (yaml's own indent) under a comment line.
func (r *Repo) AddYAML(rel, comment string, v any) error {
	data, err := yaml.Marshal(v)
	if err != nil {
		return fmt.Errorf("encode %s: %w", rel, err)
	}

	return r.Add(rel, append([]byte(comment+"\n"), data...))
}

// AddDocs writes values as one multi-document YAML file under a comment line.
func (r *Repo) AddDocs(rel, comment string, docs []any) error {
	data, err := EncodeDocs(comment, docs)
	if err != nil {
		return fmt.Errorf("%s: %w", rel, err)
	}

	return r.Add(rel, data)
}

// AddSchematic writes schematics/<name>.yaml and lists it in talops.yaml's schematics, in
// the order they were added.
func (r *Repo) AddSchematic(name string, data []byte) error {
	if err := r.Add(SchematicPath(name), data); err != nil {
		return err
	}

	r.schematics = append(r.schematics, name)

	return nil
}

// HasSchematic says whether a schematic of that name was added.
func (r *Repo) HasSchematic(name string) bool {
	return slices.Contains(r.schematics, name)
}

// SchematicPath is where the schematic of that name is written.
func SchematicPath(name string) string {
	return "schematics/" + name + ".yaml"
}

// Report adds a finding.
func (r *Repo) Report(f finding.Finding) {
	r.findings = append(r.findings, f)
}

// ReportOnce adds a finding unless the same one was made already for any node (a file
// many nodes share says its problem once, at the first node that meets it).
func (r *Repo) ReportOnce(f finding.Finding) {
	key := f
	key.Node = ""

	if r.reported[key] {
		return
	}

	if r.reported == nil {
		r.reported = map[finding.Finding]bool{}
	}

	r.reported[key] = true
	r.Report(f)
}

// Unsupported reports a field of the source file that was not imported.
func (r *Repo) Unsupported(line int, node, path, msg string) {
	r.Report(finding.Finding{Severity: finding.Warning, Code: CodeUnsupported, File: r.Source, Line: line, Node: node, Path: path, Message: msg})
}

// Mapped reports how a field of the source file was expressed in talops.
func (r *Repo) Mapped(sev finding.Severity, line int, node, path, msg string) {
	r.Report(finding.Finding{Severity: sev, Code: CodeMapped, File: r.Source, Line: line, Node: node, Path: path, Message: msg})
}

// WithSchematics is the spec with the schematics added named in it; an installer the
// spec already gives one of them is kept.
func (r *Repo) WithSchematics(spec cluster.Spec) cluster.Spec {
	if len(r.schematics) > 0 {
		spec.Schematics = maps.Clone(spec.Schematics)
		if spec.Schematics == nil {
			spec.Schematics = map[string]cluster.Schematic{}
		}
	}

	for _, name := range r.schematics {
		s := spec.Schematics[name]
		s.File = SchematicPath(name)
		spec.Schematics[name] = s
	}

	return spec
}

// Finish writes talops.yaml from the spec (its schematics those added, headed by the tool
// it came from) before the other files, and returns the repository with its findings sorted.
func (r *Repo) Finish(spec cluster.Spec, from string) (*Result, error) {
	spec = r.WithSchematics(spec)

	talops, err := scaffold.ImportedSpec(spec, from)
	if err != nil {
		return nil, err
	}

	res := &Result{
		Files:    append([]scaffold.File{{Path: cluster.FileName, Data: talops}}, r.files.Files()...),
		Findings: r.findings, Cluster: spec.Cluster.Name, TalosVersion: spec.TalosVersion,
	}
	finding.Sort(res.Findings)

	return res, nil
}
