package app

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"

	clientconfig "github.com/siderolabs/talos/pkg/machinery/client/config"
	"github.com/siderolabs/talos/pkg/machinery/config/configloader"

	"github.com/talops/talops/internal/cluster"
	"github.com/talops/talops/internal/plan"
	"github.com/talops/talops/internal/schematic"
	"github.com/talops/talops/internal/talos"
	"github.com/talops/talops/internal/yamlpos"
)

// talosconfigPath is the talosconfig to use: the flag, then $TALOSCONFIG, then
// ~/.talos/config, as talosctl looks for it. from says where the path came from, for the
// messages about it (" (from $TALOSCONFIG)"; "" for the flag).
func talosconfigPath(d *Deps, flagValue string) (path, from string, err error) {
	switch {
	case flagValue != "":
		return flagValue, "", nil
	case d.Getenv("TALOSCONFIG") != "":
		return d.Getenv("TALOSCONFIG"), " (from $TALOSCONFIG)", nil
	case d.Getenv("HOME") != "":
		return filepath.Join(d.Getenv("HOME"), ".talos", "config"), " (the default: --talosconfig or $TALOSCONFIG names another)", nil
	default:
		return "", "", &UsageError{Msg: "reading the nodes needs a talosconfig: --talosconfig FILE or $TALOSCONFIG"}
	}
}

// LoadTalosconfig reads the talosconfig (path, else $TALOSCONFIG, else ~/.talos/config) and
// masks its key material before anything else can print it.
func LoadTalosconfig(d *Deps, flagValue string) (*clientconfig.Config, error) {
	path, from, err := talosconfigPath(d, flagValue)
	if err != nil {
		return nil, err
	}

	data, err := d.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read talosconfig %s%s: %w", path, from, err)
	}

	cfg, err := parseTalosconfig(data)
	if err != nil {
		// The decoder's message may quote the file, key included.
		return nil, fmt.Errorf("talosconfig %s%s is not a talosconfig (YAML with contexts)", path, from)
	}

	for _, c := range cfg.Contexts {
		if c == nil {
			continue
		}

		d.mask(keyMaterial(c.Key)...)

		if c.Auth.Basic != nil {
			d.mask(c.Auth.Basic.Password)
		}
	}

	return cfg, nil
}

// parseTalosconfig decodes a talosconfig. machinery's decoder panics on some malformed
// files (a context that is not a mapping): that is a file that is not a talosconfig too.
func parseTalosconfig(data []byte) (cfg *clientconfig.Config, err error) {
	defer func() {
		if recover() != nil {
			cfg, err = nil, errors.New("not a talosconfig")
		}
	}()

	return clientconfig.FromBytes(data)
}

// keyMaterial is a talosconfig key as written (base64 of a PEM block), the PEM block
// itself and each of its lines.
func keyMaterial(key string) []string {
	if key == "" {
		return nil
	}

	out := []string{key}

	if pem, err := base64.StdEncoding.DecodeString(key); err == nil {
		out = append(out, string(pem))

		for _, line := range strings.Split(string(pem), "\n") {
			if !strings.HasPrefix(line, "-----") {
				out = append(out, strings.TrimSpace(line))
			}
		}
	}

	return out
}

// LoadLive reads what every node of r's talops.yaml runs. A node that cannot be read or whose
// running config does not load is Broken with a one-line reason; the others are still planned.
// The nodes that run in the cluster but are missing from talops.yaml, as a control plane
// finds them (and the Kubernetes API, reached with the kubeconfig file, or the admin
// kubeconfig when it is ""), are in the state too, with where they were found, so the plan
// removes them.
func LoadLive(ctx context.Context, d *Deps, r *Repo, dialer talos.Dialer, kubeconfig string) plan.State {
	nodes := r.Cluster.Spec.Nodes

	targets := make([]talos.Target, len(nodes))
	for i, n := range nodes {
		targets[i] = talos.Target{Name: n.Name, Address: n.Address}
	}

	// The running state has no Kubernetes version or bundle fingerprint to compare: those
	// reasons are left out, the configs' diff still shows any difference.
	var s plan.State

	read := talos.ReadAll(ctx, dialer, targets, d.TalosTimeout)

	for i, res := range read {
		n := nodes[i]

		if res.Err != nil {
			s.Nodes = append(s.Nodes, plan.NodeState{Name: n.Name, Broken: "not readable over the Talos API: " + talos.OneLine(res.Err), Unreadable: true})

			continue
		}

		if res.Value.Maintenance {
			// It waits for its first config (new, or reinstalled): it runs nothing of the
			// cluster's, so the plan creates it.
			continue
		}

		// A node's answer is decoded under the budget of every YAML input: machinery's
		// decoder would follow every alias of it.
		if yamlpos.Check(res.Value.Config) != nil {
			s.Nodes = append(s.Nodes, plan.NodeState{Name: n.Name, Broken: "its running config expands past the YAML decoding budget (aliases)", Unreadable: true})

			continue
		}

		cfg, err := configloader.NewFromBytes(res.Value.Config)
		if err != nil {
			// The decoder's message may quote a few characters of a value: it is not shown.
			s.Nodes = append(s.Nodes, plan.NodeState{Name: n.Name, Broken: "its running config does not load as a Talos machine config", Unreadable: true})

			continue
		}

		role := n.Role
		if cfg.Machine() != nil {
			role = cluster.Role(cfg.Machine().Type().String())
		}

		s.Nodes = append(s.Nodes, plan.NodeState{
			Name:         n.Name,
			Role:         role,
			Schematic:    runningSchematic(r.Schematics, res.Value.SchematicID),
			Installer:    runningInstaller(r, n, res.Value),
			Config:       cfg,
			TalosVersion: res.Value.Version,
			Address:      n.Address,
			KubeNode:     res.Value.KubeNode,
		})
	}

	found := discover(ctx, d, nodes, read, dialer, kubeconfig, liveAliases(r, read))
	s.EtcdMembers = found.etcd
	s.Nodes = append(s.Nodes, found.extra...)

	return s
}

// liveAliases are the names r's nodes go by besides those of talops.yaml: what each says
// (read), what its config names.
func liveAliases(r *Repo, read []talos.Result) []string {
	var aliases []string

	for _, res := range read {
		aliases = append(aliases, res.Value.Hostnames...)

		if res.Value.KubeNode != "" {
			aliases = append(aliases, res.Value.KubeNode)
		}
	}

	for _, n := range r.Nodes {
		if n.Err == nil && n.Machine != nil {
			aliases = append(aliases, kubeNodeName(n.Name, n.Machine.Config))
		}
	}

	return aliases
}

// runningInstaller is the installer image of what a node runs, named as talops names the
// desired one so that equal images compare equal. The node reports its schematic and
// version, not the installer's flavour: that is taken from talops.yaml (the installer
// repository it names for the node, and its secureBoot).
func runningInstaller(r *Repo, n cluster.Node, v talos.Running) string {
	id := v.SchematicID
	if id == "" {
		// Installed from an image that is not the factory's (the stock installer, a
		// container): it has no extensions, which is the vanilla schematic's content. Named
		// as the factory names that one, it is no upgrade to a vanilla target.
		id = schematic.VanillaID
	}

	return schematic.Installer(r.Cluster.ImageFactory(), r.Cluster.NodeInstaller(n, v.Version), id, v.Version, n.SecureBoot)
}

// runningSchematic names what a node runs for the plan's reasons: as talops.yaml names it,
// and a node that reports no schematic as installed from a non-factory image.
func runningSchematic(names map[string]string, id string) string {
	if id == "" {
		return "vanilla (installed from a non-factory image)"
	}

	return schematicName(names, id)
}

// schematicName is the name talops.yaml gives the schematic id ("" for the vanilla one).
func schematicName(names map[string]string, id string) string {
	for _, name := range slices.Sorted(maps.Keys(names)) {
		if names[name] == id {
			return name
		}
	}

	switch id {
	case "", schematic.VanillaID:
		return ""
	default:
		return "unknown " + id
	}
}
