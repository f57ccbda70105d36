package backup

import "time"

// The ways a recovery goes.
const (
	// RecoverCluster restores etcd from a backup onto the first control plane and joins
	// the others to it: etcd lost quorum, or every control plane is gone.
	RecoverCluster = "cluster"
	// RecoverNode brings one lost control plane back into an etcd that kept quorum.
	RecoverNode = "node"
)

// The actions a recovery takes on a node, in the order it takes them.
const (
	// ActionRemoveMember removes the node's stale member from etcd, asked of a healthy one.
	ActionRemoveMember = "remove its etcd member"
	// ActionReset wipes the node's config and data (STATE, EPHEMERAL): it boots into
	// maintenance mode.
	ActionReset = "reset to maintenance mode"
	// ActionConfigure sends the node its rendered config over the maintenance API.
	ActionConfigure = "apply its config"
	// ActionUpload uploads the backup's snapshot (Talos' EtcdRecover).
	ActionUpload = "upload the snapshot"
	// ActionBootstrap starts etcd from the snapshot (Bootstrap with RecoverEtcd).
	ActionBootstrap = "bootstrap etcd from it"
	// ActionWaitHealthy waits for the node's etcd member to be healthy and the node ready
	// (its services, and its Node Ready where Kubernetes runs).
	ActionWaitHealthy = "wait until healthy"
	// ActionJoin waits for the node to join etcd as a voting member.
	ActionJoin = "wait until it joins etcd"
)

// RecoveryPlan is what a recovery will do, shown before anything is changed.
type RecoveryPlan struct {
	Cluster string
	Mode    string
	// Backup is the backup restored (whole cluster only), from Store.
	Backup *Manifest
	Store  string
	// Age is how old the backup is: what was written to etcd after it is lost.
	Age time.Duration
	// Why says what makes the recovery needed: the state of etcd as the nodes report it.
	Why []string
	// Nodes are the nodes in the order the recovery takes them.
	Nodes []RecoveryNode
}

// RecoveryNode is one node of a recovery: what it is now and what is done to it.
type RecoveryNode struct {
	Name    string
	Address string
	Role    string
	// State is what the node is now, as it answered.
	State string
	// Actions are what the recovery does to it, in order (none: left as it is).
	Actions []string
}

// Changes counts the nodes the plan changes.
func (p RecoveryPlan) Changes() int {
	n := 0

	for _, node := range p.Nodes {
		if len(node.Actions) > 0 {
			n++
		}
	}

	return n
}
