package app

import (
	"fmt"

	coreconfig "github.com/siderolabs/talos/pkg/machinery/config"

	"github.com/talops/talops/internal/cluster"
	"github.com/talops/talops/internal/finding"
	"github.com/talops/talops/internal/importer"
	"github.com/talops/talops/internal/scaffold"
)

// importLayout moves the v1alpha1 fields of an imported repository's patches into the
// documents of its config contract when that contract has them (1.14 and later). A source
// tool built on an earlier machinery (talhelper v3.1.16 and v3.1.17 on v1.14.0-alpha.2)
// still writes the install settings, the kubelet and the node labels into the v1alpha1
// document there, which the generator of the pinned contract refuses beside its own
// documents. What moved is a note at the field's line; what could not stays, for validate
// to report where the contract refuses it (the rest the v1alpha1 document still takes).
func importLayout(files []scaffold.File) ([]scaffold.File, []finding.Finding, error) {
	// The bundle is written later; loading needs only a file where talops.yaml names it.
	m := cluster.MapFiles{scaffold.PlaintextBundle: []byte("{}\n"), scaffold.EncryptedBundle: []byte("{}\n")}
	for _, f := range files {
		m[f.Path] = f.Data
	}

	c, err := cluster.Load("import", m)
	if err != nil {
		return nil, nil, fmt.Errorf("load the imported repository: %w", err)
	}

	contract, err := coreconfig.ParseContractFromVersion(c.ConfigVersion())
	if err != nil || !contract.MultidocKubernetesConfigSupported() {
		return files, nil, nil //nolint:nilerr // a contract machinery does not know is validate's to report
	}

	in, err := migrateInput(m, c, c.ConfigVersion())
	if err != nil {
		return nil, nil, err
	}

	mig, err := rewrite(in)
	if err != nil {
		return nil, nil, fmt.Errorf("move the imported patches to the %s documents: %w", c.ConfigVersion(), err)
	}

	rewritten := map[string][]byte{}
	for _, f := range mig.Files {
		rewritten[f.Path] = f.Data
	}

	out := make([]scaffold.File, len(files))
	for i, f := range files {
		if data, ok := rewritten[f.Path]; ok && f.Path != cluster.FileName {
			f.Data = data
		}

		out[i] = f
	}

	var findings []finding.Finding

	for _, mv := range mig.Moved {
		findings = append(findings, finding.Finding{
			Severity: finding.Info, Code: importer.CodeMapped, File: mv.File, Line: mv.Line, Path: mv.From,
			Message: fmt.Sprintf("moved to a %s document: the %s contract generates one, and refuses the v1alpha1 field beside it", mv.To, c.ConfigVersion()),
		})
	}

	return out, findings, nil
}
