package rules

import (
	"errors"
	"fmt"
	"maps"
	"slices"

	"github.com/siderolabs/talos/pkg/machinery/config/config"
	"github.com/siderolabs/talos/pkg/machinery/config/types/k8s"
	"github.com/siderolabs/talos/pkg/machinery/config/types/meta"
	"github.com/siderolabs/talos/pkg/machinery/config/validation"

	"github.com/talops/talops/internal/finding"
	"github.com/talops/talops/internal/render"
	"github.com/talops/talops/internal/yamlpos"
)

const kubeAPIServerConfig = "KubeAPIServerConfig"

// apiServerAuth finds control planes whose KubeAPIServerConfig comes without the
// documents that carry what the v1alpha1 layout set on kube-apiserver by itself: the
// Node and RBAC authorizers (KubeAuthorizerConfig), and anonymous access to the health
// endpoints (KubeAuthenticationConfig).
func apiServerAuth(in *Input) []finding.Finding {
	var out []finding.Finding

	for _, n := range rendered(in) {
		if !nodeIsControlPlane(n) || !n.Config.Has(kubeAPIServerConfig) {
			continue
		}

		docFile, docLine, inPatch := documentAt(n, kubeAPIServerConfig, "")

		where := fmt.Sprintf("the KubeAPIServerConfig at %s:%d", docFile, docLine)
		if !inPatch {
			where = "the KubeAPIServerConfig talops generates"
		}

		// At the document a patch writes, else where a patch deleted the missing ones, else
		// at the node.
		at := func(missing string) (string, int, string) {
			if inPatch {
				return docFile, docLine, ""
			}

			if file, line, ok := deletedAt(n, missing); ok {
				return file, line, fmt.Sprintf(" (deleted at %s:%d)", file, line)
			}

			file, line := place(in.Cluster, n, "")

			return file, line, ""
		}

		if len(n.Config.K8sAuthorizerConfigs()) == 0 {
			file, line, deleted := at("KubeAuthorizerConfig")
			out = append(out, finding.Finding{
				Severity: finding.Error, Code: CodeAPIServerAuthorizers, Node: n.Node.Name, File: file, Line: line, Path: kubeAPIServerConfig,
				Message: fmt.Sprintf("%s comes with no KubeAuthorizerConfig document%s: kube-apiserver loses the Node and RBAC authorizers the v1alpha1 layout set; add two KubeAuthorizerConfig documents, name: node with type: Node and name: rbac with type: RBAC (as Talos generates them), before any webhook", where, deleted),
			})
		}

		if n.Config.K8sAuthenticationConfig() == nil {
			file, line, deleted := at("KubeAuthenticationConfig")
			out = append(out, finding.Finding{
				Severity: finding.Warning, Code: CodeAPIServerAuthentication, Node: n.Node.Name, File: file, Line: line, Path: kubeAPIServerConfig,
				Message: fmt.Sprintf("%s comes with no KubeAuthenticationConfig document%s: kube-apiserver loses the authentication flags of the v1alpha1 layout (anonymous access to /livez, /readyz and /healthz, the oidc-* flags); add a KubeAuthenticationConfig (Talos generates one with anonymous access to those paths) and move OIDC settings to its jwt list", where, deleted),
			})
		}
	}

	return out
}

// apiServerArgs places each kube-apiserver extra argument a KubeAPIServerConfig refuses at
// its line, with the cure. Which arguments it refuses is machinery's to say: each one is
// validated alone in an otherwise valid document. When the refused arguments are all that
// is wrong with the document, machinery's message about it is replaced.
func apiServerArgs(n *render.Machine, mode Mode) []replacement {
	var doc *k8s.KubeAPIServerConfigV1Alpha1

	for _, d := range n.Config.Documents() {
		if a, ok := d.(*k8s.KubeAPIServerConfigV1Alpha1); ok {
			doc = a
		}
	}

	if doc == nil || len(doc.PodArgs) == 0 {
		return nil
	}

	// The probe's image only makes it valid: the document's own may be missing, which
	// machinery reports on its own.
	probe := k8s.NewKubeAPIServerConfigV1Alpha1()
	probe.PodImage = "registry.k8s.io/kube-apiserver:v1.36.0"

	if _, err := probe.Validate(mode, validation.WithLocal()); err != nil {
		return nil
	}

	var (
		out  []replacement
		errs []error
	)

	for _, arg := range slices.Sorted(maps.Keys(doc.PodArgs)) {
		probe.PodArgs = meta.Args{arg: doc.PodArgs[arg]}

		_, err := probe.Validate(mode, validation.WithLocal())
		if err == nil {
			continue
		}

		errs = append(errs, err)
		file, line := argLine(n, arg)

		cure := "move it to the KubeAuthenticationConfig or KubeAuthorizerConfig document the message names"
		if arg == "oidc-signing-algs" {
			cure = "remove it: with a KubeAuthenticationConfig kube-apiserver accepts every RFC 7518 asymmetric algorithm, and no setting narrows them"
		}

		r := replacement{}
		r.Severity, r.Code, r.Node, r.File, r.Line = finding.Error, CodeAPIServerArg, n.Node.Name, file, line
		r.Path = kubeAPIServerConfig + ".extraArgs." + arg
		r.Message = fmt.Sprintf("%s; %s", err.Error(), cure)
		out = append(out, r)
	}

	if len(out) == 0 {
		return nil
	}

	// The document's whole error is the refused arguments': machinery's message about it
	// is what these findings say, argument by argument.
	if _, err := doc.Validate(mode, validation.WithLocal()); err != nil && err.Error() == errors.Join(errs...).Error() {
		out[0].machinery = yamlpos.WithoutValues(docID(doc) + ": " + err.Error())
	}

	return out
}

// deletedAt is the last delete selector ($patch: delete) of a kind in the node's patches.
func deletedAt(n *render.Machine, kind string) (string, int, bool) {
	for i := len(n.Layers) - 1; i >= 0; i-- {
		ix := n.Layers[i].Index
		for d := len(ix.Docs) - 1; d >= 0; d-- {
			if ix.Docs[d].Kind == kind && ix.Docs[d].Has("$patch") {
				return n.Layers[i].File, ix.Docs[d].Line, true
			}
		}
	}

	return "", 0, false
}

// argLine is the last patch line that writes a kube-apiserver argument in a
// KubeAPIServerConfig, else where the document is.
func argLine(n *render.Machine, arg string) (string, int) {
	for i := len(n.Layers) - 1; i >= 0; i-- {
		ix := n.Layers[i].Index
		if d := lastDoc(ix, kubeAPIServerConfig, ""); d >= 0 && ix.Docs[d].Has("extraArgs."+arg) {
			l, _ := ix.Docs[d].Nearest("extraArgs." + arg)

			return n.Layers[i].File, l
		}
	}

	file, line, _ := documentAt(n, kubeAPIServerConfig, "")

	return file, line
}

// docID names a document as machinery's validation does at the start of its messages.
func docID(doc config.Document) string {
	if named, ok := doc.(config.NamedDocument); ok {
		return doc.Kind() + "/" + named.Name()
	}

	return doc.Kind()
}
