package app

import (
	"context"
	"fmt"
	"slices"

	"github.com/talops/talops/internal/cluster"
	"github.com/talops/talops/internal/plan"
	"github.com/talops/talops/internal/rollout"
	"github.com/talops/talops/internal/talos"
)

// noKubeNote is what apply says when it goes on without the cluster's Kubernetes API.
const noKubeNote = "Kubernetes API not reachable yet: nodes are not drained and no apply lock is taken"

// applyKube opens the cluster's Kubernetes API for an apply that changes nodes: with the
// kubeconfig of --kubeconfig, else the admin kubeconfig read from a running control plane
// over the Talos API. Its key material is masked at once. It is nil, with a note, where
// there is none to ask yet: no client to make one with, a new cluster. A running cluster
// whose API does not answer refuses the apply, fail closed: without the lock another
// apply may be changing the same nodes (a laptop that reaches the Talos API but not
// Kubernetes'); with opts.NoLock it goes on, and lockless says why for the report. A dry
// run needs none, nor an apply with nothing to change unless it applies a reviewed plan:
// the last rollout of that plan may have stopped at a node that now runs its desired
// config but stays cordoned, which only the progress kept in Kubernetes says (resume.go),
// or puts boot images or VMs in Proxmox, which the lock guards too.
func applyKube(ctx context.Context, d *Deps, opts ApplyOptions, dialer talos.Dialer, todo []rollout.Step) (k Kube, lockless string, err error) {
	proxmox := opts.ProxmoxVMs || opts.ProxmoxImages
	if opts.DryRun || !slices.ContainsFunc(todo, changes) && opts.PlanHash == "" && !proxmox {
		return nil, "", nil
	}

	if d.Kube == nil {
		d.note(noKubeNote + " (no Kubernetes client)\n")

		return nil, "", nil
	}

	var running []rollout.Step

	for _, s := range todo {
		if s.Node.Role == cluster.RoleControlPlane && s.Node.Action != plan.Create {
			running = append(running, s)
		}
	}

	if len(running) == 0 && opts.Kubeconfig == "" {
		// A new cluster has no Kubernetes API to hold the Lease yet: its VMs, boot images
		// and nodes are made without the lock, and the note says so.
		d.note(noKubeNote + " (a new cluster)\n")

		return nil, "", nil
	}

	data, why, err := applyKubeconfig(ctx, d, opts.Kubeconfig, dialer, running)
	if err != nil {
		return nil, "", err
	}

	if why != "" {
		return noLock(d, opts, why)
	}

	k, err = d.Kube(data)
	if err != nil {
		return nil, "", &RefusedError{Reasons: []string{"the Kubernetes client could not be made from the kubeconfig:"}, Err: err}
	}

	pctx, cancel := context.WithTimeout(ctx, orDefault(d.TalosTimeout, talos.DefaultTimeout))
	defer cancel()

	if _, err := k.Nodes(pctx); err != nil {
		return noLock(d, opts, talos.OneLine(err))
	}

	return k, "", nil
}

// noLock is a running cluster whose Kubernetes API does not answer (why): a refusal, or
// with --no-lock a note and the reason the report records.
func noLock(d *Deps, opts ApplyOptions, why string) (Kube, string, error) {
	if !opts.NoLock {
		return nil, "", &RefusedError{Reasons: []string{
			"the Kubernetes API of this running cluster does not answer (" + why + "): the apply lock cannot be taken, and another apply may be changing its nodes",
			"apply --no-lock goes on without the lock and without drains",
		}}
	}

	d.note(noKubeNote + " (" + why + "); --no-lock goes on\n")

	return nil, "--no-lock: the Kubernetes API did not answer (" + why + ")", nil
}

// changes reports whether a step changes its node.
func changes(s rollout.Step) bool {
	return !s.NotSelected && s.Node.Action != plan.Noop
}

// applyKubeconfig reads the kubeconfig file given, else the admin kubeconfig of the first
// running control plane that gives it, and masks its key material. why says, when no
// control plane gave one, that there is none to be had yet; a file that cannot be read is
// an error.
func applyKubeconfig(ctx context.Context, d *Deps, file string, dialer talos.Dialer, controlPlanes []rollout.Step) (data []byte, why string, err error) {
	if file != "" {
		if data, err = d.ReadFile(file); err != nil {
			return nil, "", &RefusedError{Reasons: []string{"--kubeconfig could not be read:"}, Err: fmt.Errorf("read %s: %w", file, err)}
		}

		d.mask(kubeconfigSecrets(data)...)

		return data, "", nil
	}

	var first error

	for _, s := range controlPlanes {
		data, err := kubeconfigOf(ctx, d, dialer, s.Address)
		if err == nil {
			d.mask(kubeconfigSecrets(data)...)

			return data, "", nil
		}

		if first == nil {
			first = fmt.Errorf("%s: %s", s.Node.Name, talos.OneLine(err))
		}
	}

	return nil, "no control plane gave its kubeconfig: " + first.Error(), nil
}
