package kube

import (
	"context"
	"fmt"
	"slices"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// nodes lists the cluster's Node objects.
func (c *Client) nodes(ctx context.Context) ([]corev1.Node, error) {
	list, err := nodeKind.in(c.api.dyn, "").list(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, fmt.Errorf("list nodes: %w", err)
	}

	return list, nil
}

// Nodes lists the names of the cluster's Node objects, sorted.
func (c *Client) Nodes(ctx context.Context) ([]string, error) {
	list, err := c.nodes(ctx)
	if err != nil {
		return nil, err
	}

	names := make([]string, 0, len(list))
	for _, n := range list {
		names = append(names, n.Name)
	}

	slices.Sort(names)

	return names, nil
}

// InternalIPs maps each Node's name to the InternalIP addresses it reports
// (status.addresses): the addresses talops.yaml names its nodes by.
func (c *Client) InternalIPs(ctx context.Context) (map[string][]string, error) {
	list, err := c.nodes(ctx)
	if err != nil {
		return nil, err
	}

	out := make(map[string][]string, len(list))

	for _, n := range list {
		for _, a := range n.Status.Addresses {
			if a.Type == corev1.NodeInternalIP {
				out[n.Name] = append(out[n.Name], a.Address)
			}
		}
	}

	return out, nil
}

// KubeletVersions maps each Node's name to the kubelet version it reports
// (status.nodeInfo.kubeletVersion; empty for a node that has not reported one).
func (c *Client) KubeletVersions(ctx context.Context) (map[string]string, error) {
	list, err := c.nodes(ctx)
	if err != nil {
		return nil, err
	}

	out := make(map[string]string, len(list))
	for _, n := range list {
		out[n.Name] = n.Status.NodeInfo.KubeletVersion
	}

	return out, nil
}

// DeleteNode deletes the node's Node object; one that is already gone is not an error.
func (c *Client) DeleteNode(ctx context.Context, node string) error {
	err := nodeKind.in(c.api.dyn, "").delete(ctx, node, metav1.DeleteOptions{})
	if err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("delete node %s: %w", node, err)
	}

	return nil
}
