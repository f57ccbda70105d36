package app

import (
	"context"

	"github.com/talops/talops/internal/applied"
	"github.com/talops/talops/internal/rollout"
)

// Kube is a cluster's Kubernetes API as apply uses it: the rollout's side (drain,
// uncordon, delete a Node) and the lock that keeps two applies of one cluster apart.
type Kube interface {
	rollout.Kube
	// Lock takes the cluster's apply lock (a Lease kube-system/talops-apply-<cluster>)
	// for holder and keeps renewing it until release is called; lost is told at once, with
	// why, when the lock is lost while held. When another holder has it, the error is a
	// *kube.LockedError naming it.
	Lock(ctx context.Context, cluster, holder string, lost func(error)) (release func(context.Context) error, err error)
	// Nodes lists the names of the cluster's Node objects (to find nodes that run but are
	// missing from talops.yaml).
	Nodes(ctx context.Context) ([]string, error)
	// InternalIPs maps each Node's name to its InternalIP addresses (to find the Node of
	// a node that does not say its name).
	InternalIPs(ctx context.Context) (map[string][]string, error)
	// HealthObjects reads the objects a health check names.
	rollout.HealthReader
	// ReadProgress and WriteProgress keep what an apply did of its rollout beside the
	// apply lock, for the next apply of the same plan to resume (nil: none kept).
	ReadProgress(ctx context.Context, cluster string) (*applied.Progress, error)
	WriteProgress(ctx context.Context, cluster string, p applied.Progress) error
}
