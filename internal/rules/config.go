package rules

import (
	"errors"
	"fmt"
	"regexp"
	"strings"
	"sync"

	"github.com/hashicorp/go-multierror"
	coreconfig "github.com/siderolabs/talos/pkg/machinery/config"
	"github.com/siderolabs/talos/pkg/machinery/config/validation"

	"github.com/talops/talops/internal/cluster"
	"github.com/talops/talops/internal/finding"
	"github.com/talops/talops/internal/render"
	"github.com/talops/talops/internal/yamlpos"
)

// Mode is the runtime mode Talos validates a config for.
type Mode struct{ metal bool }

// Modes as Talos picks them from the platform.
var (
	ModeMetal = Mode{metal: true}
	ModeCloud = Mode{}
)

// ModeFor returns the mode Talos uses on a platform: metal needs an install disk, clouds do not.
func ModeFor(platform string) Mode {
	if cluster.IsCloudPlatform(platform) {
		return ModeCloud
	}

	return ModeMetal
}

func (m Mode) String() string {
	if m.metal {
		return "metal"
	}

	return "cloud"
}

// RequiresInstall implements validation.RuntimeMode.
func (m Mode) RequiresInstall() bool { return m.metal }

// InContainer implements validation.RuntimeMode.
func (m Mode) InContainer() bool { return false }

// machineryValidation runs Talos' own validation on every rendered node.
func machineryValidation(in *Input, _ *summary, out []finding.Finding) []finding.Finding {
	for _, n := range rendered(in) {
		mode := ModeFor(in.Cluster.NodePlatform(n.Node))
		conflicts := append(v1alpha1Conflicts(in, n), apiServerArgs(n, mode)...)
		for _, c := range conflicts {
			out = append(out, c.Finding)
		}

		roleLabel := missingRoleLabel(n)

		for _, f := range replacedBy(ValidateConfig(n.Config, mode, in.Strict, func(path string) (string, int) {
			return place(in.Cluster, n, path)
		}, n.Node.Name), conflicts) {
			// install.extensions-deprecated reports the same field and says how to fix it.
			if f.Code == CodeConfigWarning && f.Path == deprecatedExtensionsPath {
				continue
			}

			// contract.control-plane-label reports it at the document, with the cure.
			if roleLabel && f.Code == CodeConfigWarning && isRoleLabelWarning(f.Message) {
				continue
			}

			out = append(out, f)
		}
	}

	return out
}

// machineryContract adds to what machineryValidation found over every node the hint of the
// contract its conflicts point to.
func machineryContract(in *Input, _ *summary, found []finding.Finding) []finding.Finding {
	return append(found, contractHint(in, found)...)
}

// contractHint explains the errors a patch written for an older config format gives once
// talosVersion moves the contract (a field moved to a document of its own): pinning
// configVersion keeps the format, as versions and plan say on a bump.
func contractHint(in *Input, fs []finding.Finding) []finding.Finding {
	if in.Cluster.Spec.ConfigVersion != "" {
		return nil
	}

	moved := 0

	for _, f := range fs {
		if f.Code == CodeV1Alpha1Conflict {
			moved++
		}
	}

	if moved == 0 {
		return nil
	}

	contract, err := coreconfig.ParseContractFromVersion(in.Cluster.Spec.TalosVersion)
	if err != nil {
		return nil
	}

	file, line := talosLine(in)

	return []finding.Finding{{
		Severity: finding.Info, Code: CodeConfigContract, File: file, Line: line, Path: "talosVersion",
		Message: fmt.Sprintf("%d contract.v1alpha1-conflict errors say a v1alpha1 field conflicts with the document it moved to: Talos %s generates configs in the %s format, where those fields moved; add configVersion with the release the patches were written for (e.g. configVersion: v1.13) to keep that format",
			moved, in.Cluster.Spec.TalosVersion, contract.String()),
	}}
}

// Placer finds the file and line that set a config path, or that hold a typed document
// named as Kind/name (see SplitDocRef).
type Placer func(path string) (file string, line int)

// ValidateConfig validates a machine config the way Talos does on the client side.
// Kubernetes versions are not judged here against this library's own Talos version:
// kubernetesSupport judges them against the cluster's release.
func ValidateConfig(cfg coreconfig.Provider, mode Mode, strict bool, at Placer, node string) []finding.Finding {
	warnings, err := cfg.ValidateAsClient(mode, validation.WithLocal())

	var out []finding.Finding

	for _, e := range flattenMulti(err) {
		out = append(out, placed(finding.Error, CodeConfigInvalid, e, at, node))
	}

	sev := finding.Warning
	if strict {
		sev = finding.Error
	}

	for _, w := range warnings {
		out = append(out, placed(sev, CodeConfigWarning, w, at, node))
	}

	return out
}

// placed makes a finding of a machinery message, placed at the field or document it
// names. Machinery quotes the values it refuses ("…" is not a valid DNS name): they are
// dropped, since the value may be a secret copied into the wrong field.
func placed(sev finding.Severity, code, msg string, at Placer, node string) finding.Finding {
	f := finding.Finding{Severity: sev, Code: code, Message: yamlpos.WithoutValues(msg), Node: node}

	where := ""
	if p := configPath(msg); p != "" {
		f.Path, where = p, p
	} else if m := docRefRe().FindStringSubmatch(msg); m != nil {
		// Typed documents are named Kind/name at the start of their messages.
		where = m[1]
	}

	f.File, f.Line = at(where)

	return f
}

// docRefRe matches how machinery names a typed document at the start of a message:
// "UserVolumeConfig/data: …", "KernelModuleConfig/: …", "UnattendedInstallConfig: …".
var docRefRe = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^([A-Z][A-Za-z0-9]*/[^:\s]*|[A-Z][A-Za-z0-9]*Config): `)
})

var kindRe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Z][A-Za-z0-9]*$`) })

// SplitDocRef splits a Placer's reference to a typed document: Kind/name, or a Kind
// ending in Config alone.
func SplitDocRef(path string) (kind, name string, ok bool) {
	kind, name, slash := strings.Cut(path, "/")
	if !kindRe().MatchString(kind) || (!slash && !strings.HasSuffix(kind, "Config")) {
		return "", "", false
	}

	return kind, name, true
}

var pathRe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\.(machine|cluster|debug)(\.[A-Za-z0-9_]+)*`) })

// configPath picks the config path a machinery message names, such as `.machine.ca`.
func configPath(msg string) string {
	return strings.TrimPrefix(pathRe().FindString(msg), ".")
}

// flattenMulti splits machinery's nested multierrors into single messages,
// keeping the prefixes that say which document they are about.
func flattenMulti(err error) []string {
	if err == nil {
		return nil
	}

	var me *multierror.Error
	if errors.As(err, &me) {
		prefix := ""
		if outer := err.Error(); me.Error() != outer {
			prefix, _, _ = strings.Cut(outer, ": ")
			prefix += ": "
		}

		var out []string
		for _, e := range me.WrappedErrors() {
			for _, s := range flattenMulti(e) {
				out = append(out, prefix+s)
			}
		}

		return out
	}

	return []string{err.Error()}
}

// place finds the last source that set path (or a parent at least two keys deep) in a
// node's config, or that holds the typed document a Kind/name path names, else the
// node's line in talops.yaml.
func place(c *cluster.Cluster, n *render.Machine, path string) (string, int) {
	if kind, name, ok := SplitDocRef(path); ok {
		for i := len(n.Layers) - 1; i >= 0; i-- {
			if d := n.Layers[i].Index.Find(kind, name); d >= 0 {
				return n.Layers[i].File, n.Layers[i].Index.Docs[d].Line
			}
		}

		return c.Path(cluster.FileName), c.NodeLine(n.Node.Name, "")
	}

	for p := path; strings.Contains(p, "."); p = parentPath(p) {
		for i := len(n.Layers) - 1; i >= 0; i-- {
			l := n.Layers[i]

			d := l.Index.Find("", "")
			if d < 0 {
				continue
			}

			if line, exact := l.Index.Docs[d].Nearest(p); exact {
				return l.File, line
			}
		}
	}

	if !n.Generated && len(n.Layers) > 0 {
		return n.Layers[0].File, 0
	}

	return c.Path(cluster.FileName), c.NodeLine(n.Node.Name, "")
}

func parentPath(p string) string {
	i := strings.LastIndexAny(p, ".[")
	if i < 0 {
		return ""
	}

	return p[:i]
}
