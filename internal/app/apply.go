package app

import (
	"bytes"
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/talops/talops/internal/cluster"
	"github.com/talops/talops/internal/finding"
	"github.com/talops/talops/internal/health"
	"github.com/talops/talops/internal/images"
	"github.com/talops/talops/internal/plan"
	"github.com/talops/talops/internal/report"
	"github.com/talops/talops/internal/rollout"
	"github.com/talops/talops/internal/suggest"
	"github.com/talops/talops/internal/talos"
)

// Gate defaults: how long a node may take to come back, and how often to look.
const (
	defaultGateTimeout  = 10 * time.Minute
	defaultGateInterval = 5 * time.Second
)

// ApplyOptions are apply's inputs.
type ApplyOptions struct {
	Dir string
	// Talosconfig is the talosconfig ("": $TALOSCONFIG, then ~/.talos/config).
	Talosconfig string
	// PlanHash, when set, is the hash of the reviewed plan: any other plan is refused.
	PlanHash string
	// ReviewedBase, with PlanHash, is the git ref the reviewed plan compared with (a pull
	// request's base): the hash is checked on the plan against it, the way the pull
	// request's comment computed it, instead of on the live plan.
	ReviewedBase string
	// ReviewedAgainst, with PlanHash, is a directory holding the reviewed base (checked
	// out beside the repository, for runners without git): like ReviewedBase, as plan
	// --against is like plan --base.
	ReviewedAgainst string
	// Register posts every schematic to the Image Factory before any node is touched.
	Register bool
	// ProxmoxImages makes sure the boot ISOs are in Proxmox storage before any node is
	// touched; without a proxmox: section there is nothing to do.
	ProxmoxImages bool
	Parallel      int
	// Mode is the apply mode ("": talops.yaml's apply: mode, else auto).
	Mode   string
	DryRun bool
	// InstallTimeout bounds the pull and install of an upgrade's image (0: the gate's
	// timeout, 10 minutes by default).
	InstallTimeout time.Duration
	// EtcdBackup is the directory of the etcd snapshot taken before the first control
	// plane changes ("": the user's state directory); NoEtcdBackup takes none.
	// BackupRecipients encrypt it (none: the recipients of the cluster's SOPS file).
	EtcdBackup       string
	NoEtcdBackup     bool
	BackupRecipients []string
	// Kubeconfig is the kubeconfig file of the cluster's Kubernetes API ("": the admin
	// kubeconfig read from a control plane over the Talos API).
	Kubeconfig string
	// NoDrain reboots nodes without draining them (the apply lock is still taken);
	// DrainTimeout bounds each drain (0: rollout.DefaultDrainTimeout).
	NoDrain      bool
	DrainTimeout time.Duration
	// ProxmoxVMs creates the missing VMs of nodes from their proxmox: spec and starts them
	// (after the boot images, with ProxmoxImages), then waits for the new nodes to answer
	// in maintenance mode before the plan is checked. The apply lock is taken before the
	// first boot image or VM (but for a new cluster, which has no Kubernetes API yet).
	ProxmoxVMs bool
	// ProxmoxReset resets, once, the VM of a node that does not come back healthy after a
	// reboot or an upgrade, and gives it one more health gate.
	ProxmoxReset bool
	// Rollback rolls a node whose health gate fails after an upgrade back to the Talos it
	// ran before; the rollout stops there all the same.
	Rollback bool
	// Progress, when set, gets each node's steps as they happen (nil: a note per step).
	Progress func(p rollout.Progress)
	// Nodes, when set, are the only nodes applied (names of talops.yaml); the others are
	// left as they are and reported as not selected. The plan hash still covers all.
	Nodes []string
	// AllowRemove lets apply remove the nodes the plan removes (drain, reset, delete
	// their Node objects); without it a plan that removes a node is refused.
	AllowRemove bool
	// NoLock lets apply go on without the apply lock when the Kubernetes API of a running
	// cluster does not answer (the report records it); without it such an apply is refused.
	NoLock bool
	// IgnoreWindow applies outside the cluster's maintenance windows (an emergency; the
	// report records it); without it such an apply changes nothing and returns an
	// *OutsideWindowError.
	IgnoreWindow bool
	// Confirm, when set, is shown the plan once apply has nothing left to refuse, before
	// any node is touched (and before the lock, unless ProxmoxVMs took it for the VMs, the
	// snapshot and the preparations); an
	// error from it stops apply there. It is not asked for a dry run or a plan that
	// changes nothing.
	Confirm func(res *PlanResult) error
	// Review, when set, is asked which plan was reviewed for the cluster (by name) before
	// anything else is read: its hash and the base it was computed against become PlanHash
	// and ReviewedBase (unless ReviewedAgainst names the base). An empty hash checks none.
	Review func(ctx context.Context, cluster string) (hash, base string, err error)
}

// ApplyResult is what an apply did: the steps before the rollout, then the rollout.
type ApplyResult struct {
	// Registered is true when every schematic was registered with the factory.
	Registered bool
	// Images is the boot image check (nil when not asked or skipped).
	Images *images.ProxmoxImages
	Report *rollout.Report
}

// Apply plans against the running nodes, refuses what it must, prepares what was asked
// (schematics, boot images), then rolls the plan out. It returns a *RefusedError, and no
// result, when it touched no node on purpose.
func Apply(ctx context.Context, d *Deps, opts ApplyOptions) (*ApplyResult, error) {
	// Before anything is read: a pull request's code never reaches the nodes.
	if why := rollout.EventRefusal(d.Getenv("GITHUB_EVENT_NAME")); why != "" {
		return nil, &RefusedError{Reasons: []string{why}}
	}

	r := &applyRun{d: d, opts: opts}
	defer r.unlock()

	if err := r.plan(ctx); err != nil {
		return nil, err
	}

	if err := r.preflight(ctx); err != nil {
		return nil, err
	}

	if err := r.kubernetes(ctx); err != nil {
		return nil, err
	}

	// The lock is taken before anything is prepared: the other apply may be registering
	// the same schematics, or putting the same boot images in Proxmox storage. With
	// --proxmox-vms the preflight took it already, before the first VM.
	if err := r.lock(ctx); err != nil {
		return nil, err
	}

	if err := r.prepare(ctx); err != nil {
		return nil, err
	}

	var err error
	if r.todo, err = upgradeKubernetes(ctx, d, r.opts, r.res.Plan, r.st, r.todo, r.dialer, r.snapshot, r.lost); err != nil {
		return nil, err
	}

	return r.rollout(ctx), nil
}

// applyRun is one apply, phase by phase ("How an apply flows" in docs/architecture.md):
// each method fills in what the next one needs.
type applyRun struct {
	d    *Deps
	opts ApplyOptions

	// plan
	res      *PlanResult
	st       *planned
	dialer   talos.Dialer
	reviewed *plan.Plan

	// preflight
	pre  rollout.Preflight
	todo []rollout.Step

	// kubernetes (with --proxmox-vms, the Kubernetes API is opened in the preflight)
	snapshot func(context.Context, talos.Node) (string, error)
	k        Kube
	lockless string
	opened   bool
	checks   []health.Check
	alerts   rollout.Alerts
	silence  bool

	// lock (with --proxmox-vms, taken in the preflight)
	api     rollout.Kube
	lost    func() error
	release func()

	// prepare
	out      *ApplyResult
	resetVM  func(ctx context.Context, node string) error
	progress func(p rollout.Progress)
}

// plan is the desired state (with the review), the live plan and the reviewed plan.
func (r *applyRun) plan(ctx context.Context) error {
	var err error
	if r.res, r.st, r.dialer, err = livePlan(ctx, r.d, &r.opts); err != nil {
		return err
	}

	r.reviewed, err = reviewedPlan(ctx, r.d, r.opts, r.st.head)

	return err
}

// preflight judges the plan (after the VMs it creates, for the reviewed plan only), asks
// for confirmation and lays out the rollout's steps.
func (r *applyRun) preflight(ctx context.Context) error {
	opts := &r.opts
	pre := rollout.Preflight{
		Mode: rollout.Mode(opts.Mode), PlanHash: opts.PlanHash, ReviewedHash: r.res.Plan.Hash,
		ReviewedAgainst: opts.ReviewedBase + opts.ReviewedAgainst,
		Given:           r.st.choices.given, Declared: r.st.choices.declared,
	}

	if r.reviewed != nil {
		pre.ReviewedHash, pre.Reviewed = r.reviewed.Hash, r.reviewed
	}

	if opts.ProxmoxVMs {
		// Boot images are downloaded and VMs created (with the host devices their spec
		// names) before the nodes are judged: only for the plan that was reviewed.
		if reasons := append(rollout.HashRefusals(pre), rollout.OptionRefusals(pre)...); len(reasons) > 0 {
			return &RefusedError{Reasons: reasons}
		}

		// No Proxmox change before the lock: another apply of this cluster may be
		// creating the same VMs.
		if err := r.lockBeforeVMs(ctx); err != nil {
			return err
		}

		ch := r.st.choices

		var err error
		if r.res, r.st, err = provisionVMs(ctx, r.d, opts, r.res, r.st); err != nil {
			return err
		}

		// The plans after the VMs are made from the options as merged, not as given.
		r.st.choices = ch

		if r.reviewed == nil {
			pre.ReviewedHash = r.res.Plan.Hash
		}
	}

	res, st := r.res, r.st
	pre.Live, pre.Running, pre.TargetVersion = res.Plan, st.current.Nodes, st.head.Cluster.Spec.TalosVersion

	pre.AllowRemove, pre.EtcdMembers = opts.AllowRemove, st.current.EtcdMembers

	var err error
	if pre.Only, err = selection(opts.Nodes, res.Plan, st); err != nil {
		return err
	}

	if reasons := rollout.Refusals(pre); len(reasons) > 0 {
		return &RefusedError{Reasons: reasons}
	}

	if opts.Confirm != nil && !opts.DryRun && res.Plan.HasChanges() {
		if err := opts.Confirm(res); err != nil {
			return err
		}
	}

	if r.todo, err = steps(res.Plan, st); err != nil {
		return err
	}

	for i := range r.todo {
		r.todo[i].NotSelected = pre.Only != nil && !pre.Only[r.todo[i].Node.Name]
	}

	r.pre = pre

	return nil
}

// kubernetes readies what the rollout needs beside the nodes: the etcd snapshot, the
// Kubernetes API, the health checks and the nodes' Kubernetes names.
func (r *applyRun) kubernetes(ctx context.Context) error {
	var err error
	if r.snapshot, err = snapshotSaver(r.d, r.opts, r.st.head.Cluster, r.todo); err != nil {
		return err
	}

	if err := r.openKube(ctx, r.todo); err != nil {
		return err
	}

	needed := !r.opts.DryRun && slices.ContainsFunc(r.todo, changes)
	if r.checks, err = healthChecks(r.d, r.st.head.Cluster, r.k, r.lockless, needed); err != nil {
		return err
	}

	if r.alerts, r.silence, err = alerts(r.d, r.st.head.Cluster, !needed); err != nil {
		return err
	}

	nameKubeNodes(ctx, r.d, r.k, r.todo, r.st)

	return nil
}

// openKube opens the Kubernetes API, once, for the steps todo (applyKube).
func (r *applyRun) openKube(ctx context.Context, todo []rollout.Step) error {
	if r.opened {
		return nil
	}

	var err error
	if r.k, r.lockless, err = applyKube(ctx, r.d, r.opts, r.dialer, todo); err != nil {
		return err
	}

	r.opened = true

	return nil
}

// lockBeforeVMs opens the Kubernetes API and takes the apply lock before --proxmox-vms
// puts a boot image in storage or creates a VM, over the steps of the plan before them
// (the running control planes are the same after). A new cluster has no Kubernetes API
// to hold a Lease yet: its VMs are created without the lock, as its nodes are configured
// without it (applyKube says so).
func (r *applyRun) lockBeforeVMs(ctx context.Context) error {
	todo, err := steps(r.res.Plan, r.st)
	if err != nil {
		return err
	}

	if err := r.openKube(ctx, todo); err != nil {
		return err
	}

	return r.lock(ctx)
}

// lock takes the apply lock, once, when there is a Kubernetes API; unlock gives it back.
func (r *applyRun) lock(ctx context.Context) error {
	if r.k == nil || r.release != nil {
		return nil
	}

	release, gone, err := lockApply(ctx, r.d, r.k, r.res.Plan.Cluster)
	if err != nil {
		return err
	}

	r.api, r.lost, r.release = r.k, gone, release

	return nil
}

// unlock gives the apply lock back if it was taken.
func (r *applyRun) unlock() {
	if r.release != nil {
		r.release()
	}
}

// prepare registers schematics and checks boot images as asked, and readies the VM reset
// and the progress of each node.
func (r *applyRun) prepare(ctx context.Context) error {
	var err error
	if r.out, err = prepare(ctx, r.d, r.opts, r.st.head.Cluster); err != nil {
		return err
	}

	if r.resetVM, err = vmResetter(r.d, r.opts); err != nil {
		return err
	}

	r.progress = progressOf(r.d, r.opts)

	return nil
}

// rollout rolls the steps out, resuming what the last rollout of the same plan left, and
// records the progress for the next one.
func (r *applyRun) rollout(ctx context.Context) *ApplyResult {
	d, opts, res := r.d, r.opts, r.res
	prev, resumed := resume(ctx, d, r.k, res.Plan.Cluster, opts.PlanHash, r.todo)

	out := r.out
	out.Report = rollout.Run(ctx, r.dialer, res.Plan.Cluster, res.Plan.Hash, r.todo, rollout.Options{
		Mode:           talos.Mode(opts.Mode),
		DryRun:         opts.DryRun,
		Parallel:       opts.Parallel,
		CallTimeout:    orDefault(d.TalosTimeout, talos.DefaultTimeout),
		GateTimeout:    orDefault(d.GateTimeout, defaultGateTimeout),
		GateInterval:   orDefault(d.GateInterval, defaultGateInterval),
		UpgradeTimeout: orDefault(opts.InstallTimeout, orDefault(d.GateTimeout, defaultGateTimeout)),
		Now:            d.Now,
		Snapshot:       r.snapshot,
		Progress:       r.progress,
		Kube:           r.api,
		NoDrain:        opts.NoDrain,
		DrainTimeout:   opts.DrainTimeout,
		ResetVM:        r.resetVM,
		Rollback:       opts.Rollback,
		Stop:           r.lost,
		Health:         r.checks,
		HealthReader:   r.k,
		Alerts:         r.alerts,
		Silence:        r.silence,
	})
	r.progress(rollout.Progress{End: true})
	out.Report.NoLock = r.lockless
	out.Report.Window = r.st.window
	out.Report.Resumed = resumed
	out.Report.Options = rollout.Record(r.st.choices.given, r.st.choices.declared)

	record(ctx, d, r.k, opts.PlanHash, prev, out.Report, nowOrSystem(d)())

	return out
}

// selection is the set of nodes --nodes names, each one the plan knows (nil: all). A
// node is named by its talops name, or as the user knows it: its hostname (as the
// desired or the running config sets it, or as the node said its Kubernetes Node is
// named) or its address.
func selection(names []string, p *plan.Plan, st *planned) (map[string]bool, error) {
	if len(names) == 0 {
		return nil, nil
	}

	known := nodeAliases(p, st)

	var all []string
	for alias := range known {
		all = append(all, alias)
	}

	slices.Sort(all)

	out := map[string]bool{}

	for _, name := range names {
		nodes := known[name]

		switch {
		case slices.Contains(nodes, name):
			nodes = []string{name} // a talops name wins over another node's alias
		case len(nodes) == 0:
			return nil, &UsageError{Msg: fmt.Sprintf("--nodes: %q is not a node of talops.yaml (a name, hostname or address)%s", name, suggest.DidYouMean(name, all))}
		case len(nodes) > 1:
			return nil, &UsageError{Msg: fmt.Sprintf("--nodes: %q names more than one node (%s): use their talops names", name, strings.Join(nodes, ", "))}
		}

		out[nodes[0]] = true
	}

	return out, nil
}

// nodeAliases maps every name a plan's node goes by to the talops names of the nodes
// that go by it.
func nodeAliases(p *plan.Plan, st *planned) map[string][]string {
	out := map[string][]string{}
	add := func(alias, name string) {
		if alias != "" && !slices.Contains(out[alias], name) {
			out[alias] = append(out[alias], name)
		}
	}

	for _, n := range p.Nodes {
		add(n.Name, n.Name)
	}

	if st == nil {
		return out
	}

	for _, n := range st.head.Cluster.Spec.Nodes {
		add(n.Address, n.Name)
	}

	for _, r := range st.head.Nodes {
		if r.Machine != nil {
			add(kubeNodeName("", r.Machine.Config), r.Name)
		}
	}

	for _, n := range st.current.Nodes {
		add(n.Address, n.Name)
		add(n.KubeNode, n.Name)
		add(kubeNodeName("", n.Config), n.Name)
	}

	return out
}

// livePlan plans the repository against the running nodes, refusing a throwaway bundle
// before any node is read and a desired state with errors after; opts takes the review.
func livePlan(ctx context.Context, d *Deps, opts *ApplyOptions) (*PlanResult, *planned, talos.Dialer, error) {
	c, err := review(ctx, d, opts)
	if err != nil {
		return nil, nil, nil, err
	}

	live := PlanOptions{Dir: opts.Dir, Live: true, Talosconfig: opts.Talosconfig, Kubeconfig: opts.Kubeconfig}

	dialer, err := planDialer(d, live)
	if err != nil {
		return nil, nil, nil, err
	}

	var head *Repo
	if c != nil {
		head, err = loadState(ctx, d, c, nil)
	} else {
		head, err = Load(ctx, d, opts.Dir)
	}

	if err != nil {
		return nil, nil, nil, err
	}

	if head.Bundle.Throwaway {
		return nil, nil, nil, &RefusedError{Reasons: []string{"apply needs the cluster's real secrets bundle, and only a throwaway one is available (" + head.Bundle.Why + ")"}}
	}

	// Before any node is read: the options the review did not declare, and outside its
	// windows a cluster is left alone.
	ch, err := applyChoices(opts, head.Cluster)
	if err != nil {
		return nil, nil, nil, err
	}

	outside, err := maintenanceWindow(d, head.Cluster, opts.IgnoreWindow, opts.DryRun)
	if err != nil {
		return nil, nil, nil, err
	}

	res, st, err := planFrom(ctx, d, live, head, dialer)
	if err != nil {
		return nil, nil, nil, err
	}

	if err := refuseErrors(d, res, "the desired state has errors (listed above)"); err != nil {
		return nil, nil, nil, err
	}

	st.window, st.choices = outside, ch

	return res, st, dialer, nil
}

// review asks opts.Review which plan was reviewed and puts it in opts. It returns the
// cluster it loaded to name (nil without Review), so that it is loaded once.
func review(ctx context.Context, d *Deps, opts *ApplyOptions) (*cluster.Cluster, error) {
	if opts.Review == nil {
		return nil, nil
	}

	c, err := LoadCluster(d, opts.Dir)
	if err != nil {
		return nil, err
	}

	hash, base, err := opts.Review(ctx, c.Spec.Cluster.Name)
	if err != nil {
		return nil, err
	}

	if hash != "" {
		opts.PlanHash = hash

		if opts.ReviewedAgainst == "" {
			opts.ReviewedBase = base
		}
	}

	return c, nil
}

// reviewedPlan recomputes the reviewed plan, against the reviewed base, when one is named
// (nil otherwise). Its findings include the version path (a skipped floor, a downgrade)
// that the live plan cannot judge: a merge past them is still refused.
func reviewedPlan(ctx context.Context, d *Deps, opts ApplyOptions, head *Repo) (*plan.Plan, error) {
	base := opts.ReviewedBase + opts.ReviewedAgainst
	if base == "" {
		return nil, nil
	}

	reviewed, _, err := planFrom(ctx, d, PlanOptions{Dir: opts.Dir, Base: opts.ReviewedBase, Against: opts.ReviewedAgainst, Offline: true}, head, nil)
	if err != nil {
		return nil, fmt.Errorf("the reviewed plan (against %s): %w", base, err)
	}

	if err := refuseErrors(d, reviewed, "the reviewed plan (against "+base+") has errors (listed above)"); err != nil {
		return nil, err
	}

	return reviewed.Plan, nil
}

// refuseErrors lists the findings of a plan with errors as a note and refuses for why.
func refuseErrors(d *Deps, res *PlanResult, why string) error {
	if !finding.HasErrors(res.Findings) {
		return nil
	}

	var buf bytes.Buffer
	if err := report.FindingsText(&buf, res.Findings, res.Nodes); err != nil {
		return err
	}

	d.note(buf.String())

	return &RefusedError{Reasons: []string{why}}
}

// steps pairs every planned node with its address, desired config and running version.
func steps(p *plan.Plan, st *planned) ([]rollout.Step, error) {
	address := map[string]string{}
	for _, n := range st.head.Cluster.Spec.Nodes {
		address[n.Name] = n.Address
	}

	desired := make([]rollout.Desired, 0, len(st.head.Nodes))

	for _, n := range st.head.Nodes {
		if n.Err != nil {
			return nil, fmt.Errorf("node %s does not render: %w", n.Name, n.Err)
		}

		data, err := n.Machine.Bytes()
		if err != nil {
			return nil, fmt.Errorf("encode the config of node %s: %w", n.Name, err)
		}

		desired = append(desired, rollout.Desired{Name: n.Name, Address: address[n.Name], Config: data, Version: st.head.Cluster.Spec.TalosVersion})
	}

	return rollout.Steps(p, st.current.Nodes, desired)
}

// prepare does what the nodes need from outside before any of them is touched: the
// factory knows every schematic, and Proxmox storage holds the boot images. Its notes go
// beside the output, which stays the apply report. A failure refuses the apply.
func prepare(ctx context.Context, d *Deps, opts ApplyOptions, c *cluster.Cluster) (*ApplyResult, error) {
	out := &ApplyResult{}

	if opts.Register {
		// Registering is idempotent (the factory keys schematics by content), so a dry
		// run registers too: it is how the IDs in the installers are checked.
		if err := RegisterSchematics(ctx, d, c); err != nil {
			return nil, &RefusedError{Reasons: []string{"the schematics could not be registered with the Image Factory:"}, Err: err}
		}

		out.Registered = true
		d.note(registeredNote(c))
	}

	if !opts.ProxmoxImages {
		return out, nil
	}

	if c.Spec.ProxmoxAPI == nil {
		d.note("boot images: skipped, talops.yaml has no proxmox: section\n")

		return out, nil
	}

	isos, err := ProxmoxImages(ctx, d, ProxmoxImagesOptions{Dir: opts.Dir, DryRun: opts.DryRun, Register: !out.Registered})
	if err != nil {
		return nil, &RefusedError{Reasons: []string{"the boot images in Proxmox storage could not be checked:"}, Err: err}
	}

	var buf bytes.Buffer
	if err := report.WriteProxmoxImages(&buf, report.FormatText, isos); err != nil {
		return nil, err
	}

	d.note(buf.String())

	out.Images = isos

	if isos.Summary.Failed > 0 {
		return nil, &RefusedError{Reasons: []string{"some boot images could not be put in Proxmox storage (listed above)"}}
	}

	return out, nil
}

func orDefault(v, def time.Duration) time.Duration {
	if v <= 0 {
		return def
	}

	return v
}

// progressOf is the one stream of an apply's progress: the caller's, else a line per event
// on the notes (stderr), the end of the rollout saying nothing.
func progressOf(d *Deps, opts ApplyOptions) func(rollout.Progress) {
	if opts.Progress != nil {
		return opts.Progress
	}

	return func(p rollout.Progress) {
		if !p.End {
			d.note(p.String() + "\n")
		}
	}
}
