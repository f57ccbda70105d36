package kube

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/cosi-project/runtime/pkg/state"
	"github.com/siderolabs/go-kubernetes/kubernetes/upgrade"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/rest"
)

// KubeletVersion is the kubelet version the Node named reports ("v1.36.4") and whether
// its Ready condition is true: a Kubernetes upgrade moves the next node's kubelet only once
// this one reports the new version.
func (c *Client) KubeletVersion(ctx context.Context, node string) (string, bool, error) {
	n, err := nodeKind.in(c.api.dyn, "").get(ctx, node)
	if err != nil {
		return "", false, fmt.Errorf("read Node %s: %w", node, err)
	}

	ready := false

	for _, cond := range n.Status.Conditions {
		if cond.Type == corev1.NodeReady {
			ready = cond.Status == corev1.ConditionTrue
		}
	}

	return n.Status.NodeInfo.KubeletVersion, ready, nil
}

// RemovedAPIsInUse lists the API resources the move from one Kubernetes version to another
// removes and that the cluster still serves objects of ("workloads.v1alpha2.scheduling.k8s.io:
// 1 object"), sorted. The list of removed resources per minor is go-kubernetes' (the one
// talosctl upgrade-k8s checks); with no node given, its checks read only the Kubernetes API.
func RemovedAPIsInUse(ctx context.Context, cfg *rest.Config, from, to string) ([]string, error) {
	path, err := upgrade.NewPath(from, to)
	if err != nil {
		return nil, fmt.Errorf("upgrade path %s → %s: %w", from, to, err)
	}

	// No node: the flags and feature gates of the components are not judged here (talops
	// renders them), only the objects of removed APIs.
	noState := func(context.Context, string) (state.State, error) { return nil, errors.New("no node state") }

	checks, err := upgrade.NewChecksWithStateProvider(path, noState, cfg, nil, nil, func(string, ...any) {})
	if err != nil {
		return nil, fmt.Errorf("removed API checks: %w", err)
	}

	err = checks.Run(ctx)

	var removed upgrade.ComponentRemovedItemsError

	switch {
	case err == nil:
		return nil, nil
	case !errors.As(err, &removed):
		return nil, fmt.Errorf("check for removed APIs in use: %w", err)
	}

	out := make([]string, 0, len(removed.APIResources))

	for resource, n := range removed.APIResources {
		word := "objects"
		if n == 1 {
			word = "object"
		}

		out = append(out, fmt.Sprintf("%s: %d %s", resource, n, word))
	}

	slices.Sort(out)

	return out, nil
}
