package app

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/siderolabs/talos/pkg/machinery/config/encoder"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/talops/talops/internal/cluster"
	"github.com/talops/talops/internal/kube"
	"github.com/talops/talops/internal/plan"
	"github.com/talops/talops/internal/rollout"
	"github.com/talops/talops/internal/talos"
)

// KubernetesAPI is the Kubernetes side of a Kubernetes upgrade, over the admin kubeconfig.
type KubernetesAPI interface {
	// KubeletVersion is the kubelet version the Node reports and whether it is Ready.
	KubeletVersion(ctx context.Context, node string) (string, bool, error)
	// RemovedAPIsInUse lists the removed API resources the cluster still has objects of.
	RemovedAPIsInUse(ctx context.Context, from, to string) ([]string, error)
	// SyncManifests applies the objects (dryRun: only the diffs): by server-side apply under
	// Talos' inventory when ssa is set (every node runs Talos 1.13 or later, as talosctl
	// decides), else by the older update-based sync.
	SyncManifests(ctx context.Context, objects []*unstructured.Unstructured, ssa, dryRun bool, log func(string)) error
}

// KubernetesAPIFunc returns the KubernetesAPI over the admin kubeconfig that kubeconfig
// reads (lazily: only a plan that upgrades Kubernetes reads it).
type KubernetesAPIFunc func(ctx context.Context, kubeconfig func(context.Context) ([]byte, error)) (KubernetesAPI, error)

// NewKubernetesAPI is the KubernetesAPI over client-go of the admin kubeconfig that
// kubeconfig reads (what Deps' KubernetesAPI is outside tests).
func NewKubernetesAPI(ctx context.Context, kubeconfig func(context.Context) ([]byte, error)) (KubernetesAPI, error) {
	data, err := kubeconfig(ctx)
	if err != nil {
		return nil, err
	}

	cfg, err := clientcmd.RESTConfigFromKubeConfig(data)
	if err != nil {
		// The kubeconfig holds keys: its parse error is not quoted.
		return nil, errors.New("the admin kubeconfig does not load")
	}

	kc, err := kube.NewForConfig(cfg)
	if err != nil {
		return nil, fmt.Errorf("Kubernetes client: %w", err) //nolint:staticcheck // ST1005: Kubernetes is a name
	}

	return &kubernetesAPI{cfg: cfg, client: kc}, nil
}

// manifestsTimeout bounds the wait for the synced manifests to be reconciled (talosctl's
// default).
const manifestsTimeout = 5 * time.Minute

type kubernetesAPI struct {
	cfg    *rest.Config
	client *kube.Client
}

func (k *kubernetesAPI) KubeletVersion(ctx context.Context, node string) (string, bool, error) {
	return k.client.KubeletVersion(ctx, node)
}

func (k *kubernetesAPI) RemovedAPIsInUse(ctx context.Context, from, to string) ([]string, error) {
	return kube.RemovedAPIsInUse(ctx, k.cfg, from, to)
}

func (k *kubernetesAPI) SyncManifests(ctx context.Context, objects []*unstructured.Unstructured, ssa, dryRun bool, log func(string)) error {
	if ssa {
		return kube.SyncManifestsSSA(ctx, k.cfg, objects, dryRun, manifestsTimeout, log)
	}

	return kube.SyncManifests(ctx, k.cfg, objects, dryRun, log)
}

// upgradeSide is the rollout's KubeUpgrade: the Kubernetes API, and the bootstrap manifests
// read from a control plane over the Talos API.
type upgradeSide struct {
	KubernetesAPI

	dialer  talos.Dialer
	address string
	// ssa: every node runs Talos 1.13 or later.
	ssa bool
}

func (u *upgradeSide) SyncManifests(ctx context.Context, dryRun bool, log func(string)) error {
	n, err := u.dialer.Dial(ctx, u.address)
	if err != nil {
		return err
	}
	defer n.Close() //nolint:errcheck // read-only

	kn, ok := n.(talos.KubernetesNode)
	if !ok {
		return errors.New("this Talos client cannot read the bootstrap manifests")
	}

	objects, err := kn.BootstrapManifests(ctx)
	if err != nil {
		return err
	}

	return u.KubernetesAPI.SyncManifests(ctx, objects, u.ssa, dryRun, log)
}

// upgradeKubernetes runs the plan's Kubernetes upgrade before the rollout: component by
// component, as the plan lists it. The nodes it brings to their desired config take no
// step of the rollout; the others (a change that needs a reboot rides along) get the
// rest from it. A plan without a Kubernetes upgrade returns steps as they are.
//
// stop, when set, says once the apply lock was lost: the upgrade stops before its next
// move, and its error says what had moved.
func upgradeKubernetes(ctx context.Context, d *Deps, opts ApplyOptions, p *plan.Plan, st *planned, steps []rollout.Step, dialer talos.Dialer, snapshot func(context.Context, talos.Node) (string, error), stop func() error) ([]rollout.Step, error) {
	u := p.Kubernetes
	if u == nil {
		return steps, nil
	}

	if len(u.Refused) > 0 {
		return nil, &RefusedError{Reasons: u.Refused}
	}

	if len(opts.Nodes) > 0 {
		return nil, &RefusedError{Reasons: []string{"the plan upgrades Kubernetes, which moves every node in order: apply it without --nodes"}}
	}

	if d.KubernetesAPI == nil {
		return nil, &RefusedError{Reasons: []string{"the plan upgrades Kubernetes and no Kubernetes API may be reached"}}
	}

	nodes, address, err := k8sNodes(u, st, steps, opts)
	if err != nil {
		return nil, err
	}

	api, err := d.KubernetesAPI(ctx, upgradeKubeconfig(d, opts, dialer, steps))
	if err != nil {
		return nil, err
	}

	progress := progressOf(d, opts)

	if err := snapshotFirst(ctx, d, opts, dialer, address, snapshot); err != nil {
		return nil, err
	}

	res, err := rollout.UpgradeKubernetes(ctx, dialer, &upgradeSide{KubernetesAPI: api, dialer: dialer, address: address, ssa: everyNodeAtLeast113(st)}, u, nodes, rollout.K8sOptions{
		DryRun:      opts.DryRun,
		CallTimeout: orDefault(d.TalosTimeout, talos.DefaultTimeout),
		WaitTimeout: orDefault(d.GateTimeout, defaultGateTimeout),
		Interval:    orDefault(d.GateInterval, defaultGateInterval),
		Progress:    func(p rollout.Progress) { progress(rollout.Line("kubernetes: " + p.What)) },
		Now:         d.Now,
		Stop:        takenOver(stop),
	})

	var refused *rollout.K8sRefusedError

	switch {
	case errors.As(err, &refused):
		return nil, &RefusedError{Reasons: refused.Reasons}
	case err != nil:
		return nil, err
	}

	if opts.DryRun {
		return steps, nil
	}

	out := slices.Clone(steps)

	for i := range out {
		if slices.Contains(res.Final, out[i].Node.Name) {
			out[i].DoneBefore = fmt.Sprintf("Kubernetes %s → %s, component by component without a reboot; the node runs its desired config", u.From, u.To)
		}
	}

	return out, nil
}

// upgradeKubeconfig gives the kubeconfig of a Kubernetes upgrade: that of --kubeconfig, else
// the admin kubeconfig of the first running control plane that gives it, masked before
// anything could print it (as for drains).
func upgradeKubeconfig(d *Deps, opts ApplyOptions, dialer talos.Dialer, steps []rollout.Step) func(context.Context) ([]byte, error) {
	return func(ctx context.Context) ([]byte, error) {
		var running []rollout.Step

		for _, s := range steps {
			if s.Node.Role == cluster.RoleControlPlane && s.Node.Action != plan.Create {
				running = append(running, s)
			}
		}

		data, why, err := applyKubeconfig(ctx, d, opts.Kubeconfig, dialer, running)
		if err != nil {
			return nil, err
		}

		if why != "" {
			return nil, &RefusedError{Reasons: []string{"the plan upgrades Kubernetes, and the Kubernetes API cannot be reached: " + why}}
		}

		return data, nil
	}
}

// k8sNodes pairs every node of the upgrade with its running and desired configs, and names
// the address of the control plane the manifests are read from.
func k8sNodes(u *plan.KubernetesUpgrade, st *planned, steps []rollout.Step, opts ApplyOptions) ([]rollout.K8sNode, string, error) {
	running := map[string]plan.NodeState{}
	for _, n := range st.current.Nodes {
		running[n.Name] = n
	}

	manifests := u.Nodes(plan.K8sManifests)

	var (
		out     []rollout.K8sNode
		address string
	)

	for _, s := range steps {
		if !slices.Contains(u.Nodes(plan.K8sPreflight), s.Node.Name) {
			continue
		}

		cur := running[s.Node.Name]
		if cur.Config == nil {
			return nil, "", fmt.Errorf("node %s: its running config is unknown", s.Node.Name)
		}

		data, err := cur.Config.EncodeBytes(encoder.WithComments(encoder.CommentsDisabled))
		if err != nil {
			return nil, "", fmt.Errorf("encode the running config of node %s: %w", s.Node.Name, err)
		}

		// Live changes ride along with the last image; the mode of a staged or try apply
		// is the rollout's to honour.
		final := s.Node.Action == plan.Update && (opts.Mode == "" || opts.Mode == string(talos.ModeAuto) || opts.Mode == string(talos.ModeNoReboot))

		out = append(out, rollout.K8sNode{Name: s.Node.Name, Role: s.Node.Role, Address: s.Address, KubeNode: s.KubeNode, Current: data, Desired: s.Config, Final: final})

		if address == "" && (slices.Contains(manifests, s.Node.Name) || (len(manifests) == 0 && s.Node.Role == cluster.RoleControlPlane)) {
			address = s.Address
		}
	}

	if address == "" {
		// Only kubelets move: any control plane gives the kubeconfig.
		for _, s := range steps {
			if s.Node.Role == cluster.RoleControlPlane && s.Node.Action != plan.Create {
				address = s.Address

				break
			}
		}
	}

	if address == "" {
		return nil, "", errors.New("no running control plane to reach the Kubernetes API through")
	}

	return out, address, nil
}

// snapshotFirst takes the etcd snapshot before the upgrade changes a control plane (the
// rollout takes it before its first control plane, which comes later).
func snapshotFirst(ctx context.Context, d *Deps, opts ApplyOptions, dialer talos.Dialer, address string, snapshot func(context.Context, talos.Node) (string, error)) error {
	if snapshot == nil || opts.DryRun {
		return nil
	}

	n, err := dialer.Dial(ctx, address)
	if err != nil {
		return &RefusedError{Reasons: []string{"etcd snapshot before the Kubernetes upgrade: " + talos.OneLine(err)}}
	}
	defer n.Close() //nolint:errcheck // the snapshot's error matters

	where, err := snapshot(ctx, n)
	if err != nil {
		return &RefusedError{Reasons: []string{"etcd snapshot before the Kubernetes upgrade: " + talos.OneLine(err)}}
	}

	d.note("kubernetes: etcd snapshot saved to " + where + "\n")

	return nil
}

// everyNodeAtLeast113 reports whether every running node runs Talos 1.13 or later, from
// which talosctl syncs the bootstrap manifests by server-side apply.
func everyNodeAtLeast113(st *planned) bool {
	for _, n := range st.current.Nodes {
		v := n.TalosVersion
		if v == "" {
			v = st.current.TalosVersion
		}

		if n.Config != nil && !talos.LifecycleAPI(v) {
			return false
		}
	}

	return true
}

// takenOver is stop for a Kubernetes upgrade: the lock taken over or deleted stops it, but
// not a lock that lapsed because the API server did not answer its renewals: upgrading
// the API server restarts it, which on a single control plane is such a lapse, and nobody
// can take the Lease while no API server answers.
func takenOver(stop func() error) func() error {
	if stop == nil {
		return nil
	}

	return func() error {
		var lapsed *kube.LapsedError
		if err := stop(); err != nil && !errors.As(err, &lapsed) {
			return err
		}

		return nil
	}
}
