package app

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/talops/talops/internal/backup"
	"github.com/talops/talops/internal/cluster"
	"github.com/talops/talops/internal/talos"
)

// RecoverOptions are recover's inputs.
type RecoverOptions struct {
	// Dir is the repository directory holding talops.yaml.
	Dir string
	// Talosconfig is the talosconfig file ("": $TALOSCONFIG, then ~/.talos/config).
	Talosconfig string
	// From is where the backups are ("": talops.yaml's backup: section, else
	// BackupDestination); S3 an s3:// destination's endpoint and region.
	From string
	S3   S3Options
	// Backup is the backup to restore; Latest (or no Backup) restores the newest.
	Backup string
	Latest bool
	// Node names the one lost control plane to bring back into an etcd that kept quorum
	// ("": the whole cluster, from a backup).
	Node string
	// Confirm is shown the plan before anything is changed: an error stops the recovery
	// there, ErrNotConfirmed says it was only shown (nil: go on).
	Confirm func(backup.RecoveryPlan) error
}

// ErrNotConfirmed says the recovery was planned and shown, not run: nobody confirmed it.
var ErrNotConfirmed = errors.New("not confirmed")

// RecoverResult is what a recovery did: its plan, whether it ran, and how long it took.
type RecoverResult struct {
	Plan backup.RecoveryPlan
	// Ran is false when the plan was only shown.
	Ran  bool
	Took time.Duration
}

// RefusedRecoveryError says recover refused to act: nothing was changed.
type RefusedRecoveryError struct{ Reason string }

func (e *RefusedRecoveryError) Error() string {
	return "recover refused, nothing was changed: " + e.Reason
}

// Recover brings a cluster back from a backup (etcd lost quorum, or every control plane is
// gone), or one lost control plane back into an etcd that kept quorum (opts.Node). It asks
// every node first and plans; nothing changes before opts.Confirm passed. Each step checks
// whether an earlier run did it already, so a recovery that stopped part-way is resumed by
// running it again.
func Recover(ctx context.Context, d *Deps, opts RecoverOptions) (*RecoverResult, error) {
	if opts.Latest && opts.Backup != "" {
		return nil, &UsageError{Msg: "--latest and --backup cannot go together"}
	}

	if opts.Node != "" && (opts.Latest || opts.Backup != "") {
		return nil, &UsageError{Msg: "--node brings one control plane back into the etcd that kept quorum: it restores no backup (drop --backup and --latest)"}
	}

	start := time.Now
	if d.Now != nil {
		start = d.Now
	}

	began := start()

	r, err := loadRecovery(ctx, d, opts)
	if err != nil {
		return nil, err
	}

	if opts.Node != "" {
		err = r.planNode(ctx, opts.Node)
	} else {
		err = r.planCluster(ctx, opts)
	}

	if err != nil {
		return nil, err
	}

	res := &RecoverResult{Plan: r.plan}

	if opts.Confirm != nil {
		if err := opts.Confirm(r.plan); errors.Is(err, ErrNotConfirmed) {
			return res, nil
		} else if err != nil {
			return nil, err
		}
	}

	if opts.Node != "" {
		err = r.runNode(ctx)
	} else {
		err = r.runCluster(ctx)
	}

	if err != nil {
		return nil, err
	}

	res.Ran, res.Took = true, start().Sub(began)

	return res, nil
}

// recovery is one run of Recover: the repository, the nodes as they answered, the plan.
type recovery struct {
	d       *Deps
	dl      talos.Dialer
	c       *cluster.Cluster
	configs map[string][]byte
	nodes   []probed
	plan    backup.RecoveryPlan
	// store and manifest are the backup restored (whole cluster).
	store    backup.Store
	manifest backup.Manifest
	// anchor is the control plane whose etcd runs healthy: the others join it.
	anchor probed
}

func loadRecovery(ctx context.Context, d *Deps, opts RecoverOptions) (*recovery, error) {
	repo, err := Load(ctx, d, opts.Dir)
	if err != nil {
		return nil, err
	}

	configs := map[string][]byte{}

	for _, n := range repo.Nodes {
		if n.Err != nil {
			return nil, fmt.Errorf("render node %s: %w", n.Name, n.Err)
		}

		data, err := n.Machine.Bytes()
		if err != nil {
			return nil, fmt.Errorf("render node %s: %w", n.Name, err)
		}

		configs[n.Name] = data
	}

	dl, err := dialer(d, opts.Talosconfig)
	if err != nil {
		return nil, err
	}

	r := &recovery{d: d, dl: dl, c: repo.Cluster, configs: configs}
	r.plan.Cluster = repo.Cluster.Spec.Cluster.Name

	for _, n := range repo.Cluster.Spec.Nodes {
		r.nodes = append(r.nodes, probe(ctx, d, dl, n))
	}

	return r, nil
}

// The states a node answers in.
const (
	stateUnreachable = iota
	stateMaintenance
	// stateConfigured is a node that runs its config; a control plane's etcd is not
	// healthy (not started, or outside quorum).
	stateConfigured
	// stateHealthy is a control plane whose etcd member votes and reports no error.
	stateHealthy
)

// probed is a node as it answered.
type probed struct {
	node  cluster.Node
	state int
	// reason says what the node answered, for the plan.
	reason string
	// members are the etcd members a configured control plane lists (nil: it lists none:
	// its etcd does not run or does not answer).
	members []talos.EtcdMember
}

func (p probed) controlPlane() bool { return p.node.Role == cluster.RoleControlPlane }

// probe asks a node what it is: configured (over mTLS), in maintenance mode, or neither;
// a configured control plane also how its etcd member is.
func probe(ctx context.Context, d *Deps, dl talos.Dialer, n cluster.Node) probed {
	p := probed{node: n}

	cctx, cancel := context.WithTimeout(ctx, orDefault(d.TalosTimeout, talos.DefaultTimeout))
	defer cancel()

	if answersMaintenance(cctx, dl, n.Address) {
		p.state, p.reason = stateMaintenance, "in maintenance mode"

		return p
	}

	node, err := dl.Dial(cctx, n.Address)
	if err == nil {
		defer node.Close() //nolint:errcheck // read-only

		_, err = node.Version(cctx)
	}

	if err != nil {
		p.reason = "unreachable: " + talos.OneLine(err)

		return p
	}

	p.state, p.reason = stateConfigured, "runs its config"

	if !p.controlPlane() {
		return p
	}

	p.members, _ = node.EtcdMembers(cctx)

	if err := memberHealth(ctx, d, node); err != nil {
		p.reason = "runs its config; etcd: " + talos.OneLine(err)

		return p
	}

	p.state, p.reason = stateHealthy, "etcd member healthy"

	return p
}

// answersMaintenance reports whether the node at address waits in maintenance mode.
func answersMaintenance(ctx context.Context, dl talos.Dialer, address string) bool {
	m, err := dl.DialMaintenance(ctx, address)
	if err != nil {
		return false
	}
	defer m.Close() //nolint:errcheck // read-only

	st, err := m.Status(ctx)

	return err == nil && st.Stage == talos.StageMaintenance
}

// planCluster plans the recovery of the whole cluster from a backup: refused while etcd
// keeps quorum on every control plane.
func (r *recovery) planCluster(ctx context.Context, opts RecoverOptions) error {
	r.plan.Mode = backup.RecoverCluster

	if err := r.chooseBackup(ctx, opts); err != nil {
		return err
	}

	var cps, healthy []probed

	for _, p := range r.nodes {
		if p.controlPlane() {
			cps = append(cps, p)

			if p.state == stateHealthy {
				healthy = append(healthy, p)
			}
		}
	}

	if len(cps) == 0 {
		return errors.New("talops.yaml has no control plane to recover etcd on")
	}

	restored := len(healthy) > 0
	if restored {
		if err := resumable(cps, healthy); err != nil {
			return err
		}

		r.anchor = healthy[0]
		r.plan.Why = append(r.plan.Why, fmt.Sprintf("etcd runs healthy on %s only, restored by an earlier run: the other control planes join it", names(healthy)))
	} else {
		r.plan.Why = append(r.plan.Why, "no control plane has a healthy etcd member: etcd lost quorum, or every control plane is gone")
	}

	// Without a healthy member, etcd is restored on the first control plane that answers.
	first := -1

	if !restored {
		first = slices.IndexFunc(r.nodes, func(p probed) bool { return p.controlPlane() && p.state != stateUnreachable })
	}

	if !restored && first < 0 {
		return errors.New("no control plane answers, configured or in maintenance mode: boot one (its machine, or Talos' ISO into maintenance mode) at its address in talops.yaml and run recover again")
	}

	for i, p := range r.nodes {
		rn := recoveryNode(p, nil)

		switch {
		case i == first:
			rn.Actions = firstActions(p)
		case p.controlPlane():
			rn.Actions = joinActions(p)
		case p.state == stateMaintenance:
			rn.Actions = []string{backup.ActionConfigure}
		}

		r.plan.Nodes = append(r.plan.Nodes, rn)
	}

	// The first control plane goes first; the others follow in talops.yaml's order.
	if first > 0 {
		nodes := slices.Delete(slices.Clone(r.plan.Nodes), first, first+1)
		r.plan.Nodes = append([]backup.RecoveryNode{r.plan.Nodes[first]}, nodes...)
		probes := slices.Delete(slices.Clone(r.nodes), first, first+1)
		r.nodes = append([]probed{r.nodes[first]}, probes...)
	}

	return nil
}

// chooseBackup reads the manifest of the backup to restore: one of this cluster.
func (r *recovery) chooseBackup(ctx context.Context, opts RecoverOptions) error {
	store, err := backupStore(r.d, r.c.Spec.Backup, opts.From, opts.S3)
	if err != nil {
		return err
	}

	name, err := verifiedName(ctx, store, opts.Backup)
	if err != nil {
		return err
	}

	m, err := readManifest(ctx, store, name)
	if err != nil {
		return err
	}

	if m.Cluster != r.plan.Cluster {
		return &VerifyError{Name: name, Reason: fmt.Sprintf("it is a backup of another cluster: %s, not %s (talops.yaml's cluster.name)", m.Cluster, r.plan.Cluster)}
	}

	r.store, r.manifest = store, m
	r.plan.Backup, r.plan.Store = &m, store.String()

	if r.d.Now != nil {
		r.plan.Age = r.d.Now().Sub(m.Time)
	}

	return nil
}

// resumable allows a whole-cluster recovery where etcd runs healthy: only when an earlier
// run restored it and some control planes are still to join (no stale member, so the
// cluster did not keep its quorum from before). Else etcd has quorum: refused.
func resumable(cps, healthy []probed) error {
	if len(healthy) == len(cps) {
		return &RefusedRecoveryError{Reason: fmt.Sprintf("etcd has quorum: every control plane's member is healthy (%s); a lost control plane is brought back with --node NAME", names(healthy))}
	}

	for _, m := range healthy[0].members {
		if !slices.ContainsFunc(healthy, func(p probed) bool { return isMember(p.node, m) }) {
			return &RefusedRecoveryError{Reason: fmt.Sprintf("etcd has quorum on %s and still lists the lost member %s: bring that control plane back with --node NAME", names(healthy), m.Hostname)}
		}
	}

	return nil
}

func names(ps []probed) string {
	out := make([]string, 0, len(ps))
	for _, p := range ps {
		out = append(out, p.node.Name)
	}

	return strings.Join(out, ", ")
}

// isMember reports whether etcd's member m is the node n: by name or address.
func isMember(n cluster.Node, m talos.EtcdMember) bool {
	return m.Hostname == n.Name || n.Address != "" && m.Address() == n.Address
}

// firstActions are what the control plane etcd is restored on goes through.
func firstActions(p probed) []string {
	var out []string

	switch {
	case p.state == stateConfigured && len(p.members) > 0:
		// Its etcd holds data (it lists members): only an empty one takes a snapshot.
		out = append(out, backup.ActionReset, backup.ActionConfigure)
	case p.state == stateMaintenance:
		out = append(out, backup.ActionConfigure)
	}

	return append(out, backup.ActionUpload, backup.ActionBootstrap, backup.ActionWaitHealthy)
}

// joinActions are what another control plane goes through: it joins the restored etcd.
func joinActions(p probed) []string {
	switch {
	case p.state == stateHealthy, p.state == stateUnreachable:
		return nil
	case p.state == stateConfigured && len(p.members) > 0:
		return []string{backup.ActionReset, backup.ActionConfigure, backup.ActionJoin}
	case p.state == stateMaintenance:
		return []string{backup.ActionConfigure, backup.ActionJoin}
	default:
		return []string{backup.ActionJoin}
	}
}
