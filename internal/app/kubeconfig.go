package app

import (
	"context"
	"errors"
	"fmt"

	"go.yaml.in/yaml/v4"

	"github.com/talops/talops/internal/cluster"
	"github.com/talops/talops/internal/talos"
	"github.com/talops/talops/internal/yamlpos"
)

// KubeconfigResult is the cluster's admin kubeconfig and the control plane it came from.
type KubeconfigResult struct {
	Cluster string
	Node    string
	// Data is the kubeconfig; its keys and tokens are registered with the masker.
	Data []byte
}

// Kubeconfig reads the admin kubeconfig from the first control plane of talops.yaml in dir
// that gives it over the Talos API (as talosctl kubeconfig does). Its key material is
// masked before it is returned, so nothing can print it.
func Kubeconfig(ctx context.Context, d *Deps, dir, talosconfig string) (*KubeconfigResult, error) {
	dialer, err := dialer(d, talosconfig)
	if err != nil {
		return nil, err
	}

	c, err := loadCluster(d.OpenDir, dir, dir, nil)
	if err != nil {
		return nil, err
	}

	var errs []error

	for _, n := range c.Spec.Nodes {
		if n.Role != cluster.RoleControlPlane {
			continue
		}

		data, err := kubeconfigOf(ctx, d, dialer, n.Address)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s (%s): %s", n.Name, n.Address, talos.OneLine(err)))

			continue
		}

		d.mask(kubeconfigSecrets(data)...)

		return &KubeconfigResult{Cluster: c.Spec.Cluster.Name, Node: n.Name, Data: data}, nil
	}

	if len(errs) == 0 {
		return nil, errors.New("talops.yaml has no control plane to read the kubeconfig from")
	}

	return nil, fmt.Errorf("no control plane gave the kubeconfig: %w", errors.Join(errs...))
}

func kubeconfigOf(ctx context.Context, d *Deps, dialer talos.Dialer, address string) ([]byte, error) {
	cctx, cancel := context.WithTimeout(ctx, orDefault(d.TalosTimeout, talos.DefaultTimeout))
	defer cancel()

	n, err := dialer.Dial(cctx, address)
	if err != nil {
		return nil, err
	}
	defer n.Close() //nolint:errcheck // read-only

	return n.Kubeconfig(cctx)
}

// kubeconfigSecrets are the key material of a kubeconfig: every user's key, token and
// password as written, decoded, and line by line.
func kubeconfigSecrets(data []byte) []string {
	var kc struct {
		Users []struct {
			User map[string]any `yaml:"user"`
		} `yaml:"users"`
	}

	if yamlpos.Check(data) != nil || yaml.Unmarshal(data, &kc) != nil {
		// Unreadable: the whole file is the secret.
		return []string{string(data)}
	}

	var out []string

	for _, u := range kc.Users {
		for _, field := range []string{"client-key-data", "token", "password"} {
			v, _ := u.User[field].(string)
			if v == "" {
				continue
			}

			out = append(out, keyMaterial(v)...)
		}
	}

	return out
}
