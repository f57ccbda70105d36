package rollout

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/talops/talops/internal/cluster"
	"github.com/talops/talops/internal/plan"
	"github.com/talops/talops/internal/talos"
)

// KubeUpgrade is the Kubernetes side of a Kubernetes upgrade (internal/kube implements it
// over client-go). It is its own interface, beside Kube, so that a rollout without a
// Kubernetes upgrade needs none of it.
type KubeUpgrade interface {
	// KubeletVersion is the kubelet version the Node named reports ("v1.36.4") and whether
	// the Node is Ready.
	KubeletVersion(ctx context.Context, node string) (version string, ready bool, err error)
	// RemovedAPIsInUse lists the API resources the move from one version to another
	// removes and that the cluster still serves objects of ("flowcontrol.apiserver.k8s.io/v1beta3
	// flowschemas: 2 objects"); none means the upgrade may go.
	RemovedAPIsInUse(ctx context.Context, from, to string) ([]string, error)
	// SyncManifests applies the bootstrap manifests by server-side apply (with dryRun:
	// only says what would change); log gets one line per object.
	SyncManifests(ctx context.Context, dryRun bool, log func(string)) error
}

// K8sNode is one node of a Kubernetes upgrade.
type K8sNode struct {
	Name    string
	Role    cluster.Role
	Address string
	// KubeNode is the name of its Node object in Kubernetes ("": Name), whose kubelet
	// version the kubelet step waits for.
	KubeNode string
	// Current is the config the node runs; Desired the rendered one.
	Current, Desired []byte
	// Final lets the node's last step send the desired config whole, other changes with
	// it: set when every change of the node applies live (its plan action is update).
	Final bool
}

// K8sOptions tune a Kubernetes upgrade.
type K8sOptions struct {
	DryRun bool
	// CallTimeout bounds each call to a node.
	CallTimeout time.Duration
	// WaitTimeout bounds the wait for a static pod or a Node to run the new version.
	WaitTimeout time.Duration
	// Interval is the pause between looks.
	Interval time.Duration
	// Progress gets one line per step as it happens, and a line once in a while
	// (Heartbeat, 0: DefaultHeartbeat) while a wait goes on.
	Progress  func(p Progress)
	Heartbeat time.Duration
	// Now reads the clock, for how long a wait has gone on (nil: time.Now).
	Now func() time.Time
	// Stop, when set, is asked before each step and before each node of a component: an
	// error (the apply lock was lost) stops the upgrade there, between two components'
	// moves, with a *K8sStoppedError saying what had moved.
	Stop func() error
}

func (o K8sOptions) now() time.Time {
	if o.Now == nil {
		return time.Now()
	}

	return o.Now()
}

// K8sResult is what a Kubernetes upgrade did, one line per step and node in order.
type K8sResult struct {
	Done []string
	// Final names the nodes that run their desired config afterwards: the rollout has
	// nothing left to do on them.
	Final []string
}

// K8sStepError says which step of a Kubernetes upgrade failed, on which node.
type K8sStepError struct {
	Component string
	Node      string
	Err       error
}

func (e *K8sStepError) Error() string {
	if e.Node == "" {
		return fmt.Sprintf("Kubernetes upgrade, %s: %v", e.Component, e.Err)
	}

	return fmt.Sprintf("Kubernetes upgrade, %s on %s: %v", e.Component, e.Node, e.Err)
}

func (e *K8sStepError) Unwrap() error { return e.Err }

// K8sStoppedError is an upgrade stopped between two moves because Stop said so: every
// component it moved runs the new version, the others the old one.
type K8sStoppedError struct {
	From, To string
	// Component and Node are the move it stopped before (Node "" for a step of the whole
	// cluster: the preflight, the manifests).
	Component string
	Node      string
	// Moved are the moves done before, "component on node", in order.
	Moved []string
	Err   error
}

func (e *K8sStoppedError) Error() string {
	before := e.Component
	if e.Node != "" {
		before += " on " + e.Node
	}

	left := "nothing had moved"
	if len(e.Moved) > 0 {
		left = fmt.Sprintf("Kubernetes %s runs where it moved (%s), %s everywhere else", e.To, strings.Join(e.Moved, ", "), e.From)
	}

	return fmt.Sprintf("Kubernetes upgrade stopped before %s: %v; %s; applying the plan again finishes it", before, e.Err, left)
}

func (e *K8sStoppedError) Unwrap() error { return e.Err }

// K8sRefusedError is an upgrade refused by its preflight: no node was touched.
type K8sRefusedError struct {
	Reasons []string
}

func (e *K8sRefusedError) Error() string {
	return "Kubernetes upgrade refused: " + strings.Join(e.Reasons, "; ")
}

// k8sUpgrade is one run of UpgradeKubernetes.
type k8sUpgrade struct {
	d     talos.Dialer
	k     KubeUpgrade
	u     *plan.KubernetesUpgrade
	o     K8sOptions
	nodes map[string]K8sNode
	// configs are each node's remaining step configs, in its order of components.
	configs map[string][][]byte
	res     *K8sResult
	// moved are the components moved so far, "component on node".
	moved []string
}

// UpgradeKubernetes moves the Kubernetes components of the plan's upgrade as talosctl
// upgrade-k8s does: preflight, pre-pull, each control-plane component across every control
// plane (each a config change of that image alone, waiting for its static pod), kube-proxy,
// the kubelet node by node (waiting for the Node to report the version), then the bootstrap
// manifests. The order keeps every component at or below the version of every
// kube-apiserver. It stops at the first failure, saying what was done.
func UpgradeKubernetes(ctx context.Context, d talos.Dialer, k KubeUpgrade, u *plan.KubernetesUpgrade, nodes []K8sNode, o K8sOptions) (*K8sResult, error) {
	if len(u.Refused) > 0 {
		return nil, &K8sRefusedError{Reasons: u.Refused}
	}

	run := &k8sUpgrade{d: d, k: k, u: u, o: o, nodes: map[string]K8sNode{}, configs: map[string][][]byte{}, res: &K8sResult{}}

	for _, n := range nodes {
		run.nodes[n.Name] = n
	}

	if err := run.prepare(); err != nil {
		return nil, err
	}

	for _, s := range u.Steps {
		if err := run.step(ctx, s); err != nil {
			return run.res, err
		}
	}

	return run.res, nil
}

// prepare derives every node's step configs before anything is touched: a config that
// cannot be derived stops the upgrade with no node changed.
func (r *k8sUpgrade) prepare() error {
	components := map[string][]string{}

	for _, s := range r.u.Steps {
		if !slices.Contains(plan.K8sComponents, s.Component) {
			continue
		}

		for _, name := range s.Nodes {
			components[name] = append(components[name], s.Component)
		}
	}

	for name, comps := range components {
		n, ok := r.nodes[name]
		if !ok {
			return &K8sStepError{Component: plan.K8sPreflight, Node: name, Err: errors.New("the node's configs were not given")}
		}

		configs, err := k8sConfigs(n.Current, n.Desired, comps, n.Final)
		if err != nil {
			return &K8sStepError{Component: plan.K8sPreflight, Node: name, Err: err}
		}

		r.configs[name] = configs

		if n.Final || sameConfig(configs[len(configs)-1], n.Desired) {
			r.res.Final = append(r.res.Final, name)
		}
	}

	slices.Sort(r.res.Final)

	return nil
}

func (r *k8sUpgrade) say(line string) {
	r.res.Done = append(r.res.Done, line)

	if r.o.Progress != nil {
		r.o.Progress(Line(line))
	}
}

// stop is Stop's answer before the move of component (on node): the error that stops the
// upgrade there, or nil. A dry run changes nothing and is not stopped.
func (r *k8sUpgrade) stop(component, node string) error {
	if r.o.Stop == nil || r.o.DryRun {
		return nil
	}

	err := r.o.Stop()
	if err == nil {
		return nil
	}

	return &K8sStoppedError{From: r.u.From, To: r.u.To, Component: component, Node: node, Moved: slices.Clone(r.moved), Err: err}
}

func (r *k8sUpgrade) step(ctx context.Context, s plan.KubernetesStep) error {
	if s.Component == plan.K8sPreflight || s.Component == plan.K8sPrePull || s.Component == plan.K8sManifests {
		if err := r.stop(s.Component, ""); err != nil {
			return err
		}
	}

	switch s.Component {
	case plan.K8sPreflight:
		return r.preflight(ctx)
	case plan.K8sPrePull:
		return r.prePull(ctx, s)
	case plan.K8sManifests:
		return r.manifests(ctx)
	}

	for _, name := range s.Nodes {
		if err := r.stop(s.Component, name); err != nil {
			return err
		}

		if err := r.component(ctx, s.Component, name); err != nil {
			return &K8sStepError{Component: s.Component, Node: name, Err: err}
		}

		r.moved = append(r.moved, s.Component+" on "+name)
	}

	return nil
}

// preflight refuses an upgrade whose target removes APIs the cluster still has objects of.
func (r *k8sUpgrade) preflight(ctx context.Context) error {
	removed, err := r.k.RemovedAPIsInUse(ctx, r.u.From, r.u.To)
	if err != nil {
		return &K8sStepError{Component: plan.K8sPreflight, Err: fmt.Errorf("list the removed APIs still in use: %w", err)}
	}

	if len(removed) > 0 {
		reasons := make([]string, 0, len(removed))
		for _, api := range removed {
			reasons = append(reasons, fmt.Sprintf("Kubernetes %s removes %s, which the cluster still has objects of", r.u.To, api))
		}

		return &K8sRefusedError{Reasons: reasons}
	}

	r.say(fmt.Sprintf("Kubernetes %s → %s: preflight passed", r.u.From, r.u.To))

	return nil
}

// prePull pulls every new image on the nodes that will run it, so that a component's
// restart does not wait on the registry: the control-plane images into the pods'
// containerd, the kubelet into the same containerd's system namespace, where Talos' kubelet
// service looks for it. A node whose release lacks the ImageService is
// left to pull when it starts the component, as talosctl does.
func (r *k8sUpgrade) prePull(ctx context.Context, s plan.KubernetesStep) error {
	if r.o.DryRun {
		r.say("pre-pull: skipped in a dry run")

		return nil
	}

	for _, name := range s.Nodes {
		if err := r.pullOn(ctx, name); err != nil {
			return &K8sStepError{Component: plan.K8sPrePull, Node: name, Err: err}
		}
	}

	return nil
}

func (r *k8sUpgrade) pullOn(ctx context.Context, name string) error {
	n := r.nodes[name]

	node, err := r.d.Dial(ctx, n.Address)
	if err != nil {
		return err
	}
	defer node.Close() //nolint:errcheck // the pulls' errors matter

	kn, ok := node.(talos.KubernetesNode)
	if !ok {
		return errors.New("this Talos client cannot pull images into the pods' containerd")
	}

	for _, comp := range plan.K8sComponents {
		image := r.image(name, comp)
		if image == "" {
			continue
		}

		cctx, cancel := context.WithTimeout(ctx, r.o.WaitTimeout)

		if comp == plan.K8sKubelet {
			err = kn.PullKubeletImage(cctx, image)
		} else {
			err = kn.PullCRIImage(cctx, image)
		}

		cancel()

		switch {
		case talos.Unimplemented(err):
			r.say(fmt.Sprintf("%s: pre-pull of %s skipped: its Talos has no ImageService", name, image))
		case err != nil:
			return fmt.Errorf("pull %s: %w", image, err)
		default:
			r.say(fmt.Sprintf("%s: pulled %s", name, image))
		}
	}

	return nil
}

// image is the image component moves to on the node, "" when it does not move there.
func (r *k8sUpgrade) image(name, component string) string {
	s, ok := r.u.Step(component)
	if !ok || !slices.Contains(s.Nodes, name) {
		return ""
	}

	n := r.nodes[name]

	return desiredImage(n.Desired, component)
}

func (r *k8sUpgrade) manifests(ctx context.Context) error {
	err := r.k.SyncManifests(ctx, r.o.DryRun, func(line string) { r.say("manifests: " + line) })
	if err != nil {
		return &K8sStepError{Component: plan.K8sManifests, Err: err}
	}

	r.say("manifests: in sync")

	return nil
}
