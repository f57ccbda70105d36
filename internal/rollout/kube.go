package rollout

import (
	"context"
	"time"
)

// Kube is the Kubernetes side of a rollout: what a node's workloads need around a
// disruption. The rollout reaches it only through this interface (internal/kube implements
// it over client-go); nil means there is no Kubernetes API to ask (a cluster being
// bootstrapped, or --no-drain), and nodes are rebooted without a drain.
type Kube interface {
	// Drain cordons the node and evicts its pods, honouring PodDisruptionBudgets, giving
	// up after timeout; progress gets one line per thing it waits for. An error leaves the
	// node cordoned.
	Drain(ctx context.Context, node string, timeout time.Duration, progress func(string)) error
	// Uncordon makes the node schedulable again.
	Uncordon(ctx context.Context, node string) error
	// DeleteNode deletes the node's Node object (a node removed from the cluster); a Node
	// that is not there is not an error.
	DeleteNode(ctx context.Context, node string) error
}
