package rollout_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/talops/talops/internal/plan"
	"github.com/talops/talops/internal/rollout"
	"github.com/talops/talops/internal/talos"
)

// journal is what the nodes and Kubernetes were asked, in one order.
type journal struct {
	mu     sync.Mutex
	events []string
}

func (j *journal) add(format string, args ...any) {
	j.mu.Lock()
	defer j.mu.Unlock()

	j.events = append(j.events, fmt.Sprintf(format, args...))
}

func (j *journal) list() []string {
	j.mu.Lock()
	defer j.mu.Unlock()

	return slices.Clone(j.events)
}

// rebootingNodes is a narrow fake of Talos 1.14 workers: a reboot starts a new boot (on
// the image an upgrade installed), and a node in sick stays not ready once rebooted.
type rebootingNodes struct {
	j    *journal
	mu   sync.Mutex
	boot map[string]int
	// version is what each node runs; pending what its next boot runs.
	version, pending map[string]string
	sick             map[string]bool
}

func newRebootingNodes(j *journal) *rebootingNodes {
	return &rebootingNodes{j: j, boot: map[string]int{}, version: map[string]string{}, pending: map[string]string{}, sick: map[string]bool{}}
}

func (d *rebootingNodes) Dial(ctx context.Context, address string) (talos.Node, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}

	return &rebootingNode{d: d, address: address}, nil
}

func (d *rebootingNodes) DialMaintenance(context.Context, string) (talos.Maintenance, error) {
	return nil, errors.New("no node is in maintenance mode")
}

type rebootingNode struct {
	talos.Node // any call not overridden here is a test failure (nil interface panics)

	d       *rebootingNodes
	address string
}

func (n *rebootingNode) Close() error { return nil }

func (n *rebootingNode) Version(context.Context) (string, error) {
	n.d.mu.Lock()
	defer n.d.mu.Unlock()

	if v := n.d.version[n.address]; v != "" {
		return v, nil
	}

	return "v1.14.1", nil
}

func (n *rebootingNode) SchematicID(context.Context) (string, error) { return "", nil }

func (n *rebootingNode) BootID(context.Context) (string, error) {
	n.d.mu.Lock()
	defer n.d.mu.Unlock()

	return fmt.Sprintf("boot-%d", n.d.boot[n.address]), nil
}

func (n *rebootingNode) Status(context.Context) (talos.Status, error) {
	n.d.mu.Lock()
	defer n.d.mu.Unlock()

	if n.d.sick[n.address] && n.d.boot[n.address] > 0 {
		return talos.Status{Stage: "booting", Ready: false}, nil
	}

	return talos.Status{Stage: "running", Ready: true}, nil
}

func (n *rebootingNode) MachineConfig(context.Context) ([]byte, error) { return []byte("desired"), nil }

func (n *rebootingNode) Apply(_ context.Context, _ []byte, mode talos.Mode, dryRun bool) (talos.Applied, error) {
	if dryRun {
		n.d.j.add("dry-run %s", n.address)
	} else {
		n.d.j.add("apply %s (%s)", n.address, mode)
	}

	return talos.Applied{Mode: "NO_REBOOT"}, nil
}

func (n *rebootingNode) Reboot(context.Context) error {
	n.d.j.add("reboot %s", n.address)

	n.d.mu.Lock()
	defer n.d.mu.Unlock()

	n.d.boot[n.address]++
	if v := n.d.pending[n.address]; v != "" {
		n.d.version[n.address] = v
	}

	return nil
}

func (n *rebootingNode) PullImage(_ context.Context, image string) error {
	n.d.j.add("pull %s %s", n.address, image)

	return nil
}

func (n *rebootingNode) Upgrade(_ context.Context, image string) error {
	n.d.j.add("upgrade %s %s", n.address, image)

	n.d.mu.Lock()
	defer n.d.mu.Unlock()

	_, n.d.pending[n.address], _ = strings.Cut(image, ":")

	return nil
}

// recordingKube is a narrow fake of the Kubernetes side: drains and uncordons go into
// the journal; a drain of a node in refuse fails with its error.
type recordingKube struct {
	j      *journal
	refuse map[string]error
	// stuck is the error of an uncordon of each node in it.
	stuck map[string]error
	// pods is what a drain says it evicts.
	pods int
}

func (k *recordingKube) Drain(_ context.Context, node string, timeout time.Duration, progress func(string)) error {
	k.j.add("drain %s (%s)", node, timeout)

	if err := k.refuse[node]; err != nil {
		return err
	}

	progress(fmt.Sprintf("draining (%d pods)", k.pods))

	return nil
}

func (k *recordingKube) Uncordon(_ context.Context, node string) error {
	k.j.add("uncordon %s", node)

	return k.stuck[node]
}

func (k *recordingKube) DeleteNode(_ context.Context, node string) error {
	k.j.add("delete node %s", node)

	return nil
}

// worker is a worker on Talos 1.14 whose config changes (with a reboot when reboot).
func worker(name string, reboot bool) rollout.Step {
	return rollout.Step{
		Node:    plan.Node{Name: name, Role: "worker", Action: plan.Update, ConfigChanged: true, NeedsReboot: reboot},
		Address: name, Config: []byte("desired"), Version: "v1.14.1",
	}
}

func upgraded(s rollout.Step) rollout.Step {
	s.Node.ConfigChanged, s.Node.NeedsReboot = false, false
	s.Upgrade = &rollout.Target{Image: "factory.talos.dev/installer:v1.14.2", Version: "v1.14.2"}

	return s
}

var drainOptions = rollout.Options{Mode: talos.ModeAuto, Parallel: 1, CallTimeout: time.Second, GateTimeout: 300 * time.Millisecond, GateInterval: 5 * time.Millisecond}

func TestRun_DrainAroundEveryDisruption(t *testing.T) {
	timedOut := fmt.Errorf("evict pod web-0: %w", context.DeadlineExceeded)

	tests := []struct {
		name   string
		steps  []rollout.Step
		mode   talos.Mode
		dryRun bool
		noKube bool
		// noDrain: --no-drain, with a Kubernetes API.
		noDrain bool
		refuse  map[string]error
		stuck   map[string]error
		sick    string
		want    []string
		// outcome and detail (a part of it) of the first node; cordoned: the report says so.
		outcome  rollout.Outcome
		detail   string
		cordoned bool
	}{
		{
			name:  "ConfigChangeNeedingARebootIsDrainedFirstAndUncordonedAfterItsGate",
			steps: []rollout.Step{worker("k8s-node1", true)},
			want:  []string{"drain k8s-node1 (5m0s)", "apply k8s-node1 (auto)", "reboot k8s-node1", "uncordon k8s-node1"},

			outcome: rollout.Applied, detail: "applied, rebooted, healthy",
		},
		{
			name:  "UpgradeIsDrainedBeforeTheInstallAndUncordonedAfterItsGate",
			steps: []rollout.Step{upgraded(worker("k8s-node1", false))},
			want: []string{
				"drain k8s-node1 (5m0s)", "pull k8s-node1 factory.talos.dev/installer:v1.14.2",
				"upgrade k8s-node1 factory.talos.dev/installer:v1.14.2", "reboot k8s-node1", "uncordon k8s-node1",
			},

			outcome: rollout.Applied, detail: "upgraded to Talos v1.14.2, rebooted, healthy",
		},
		{
			name: "UpgradeWithAConfigChangeIsDrainedOnce",
			steps: []rollout.Step{func() rollout.Step {
				s := upgraded(worker("k8s-node1", true))
				s.Node.ConfigChanged, s.Node.NeedsReboot = true, true
				return s
			}()},
			want: []string{
				"drain k8s-node1 (5m0s)", "pull k8s-node1 factory.talos.dev/installer:v1.14.2",
				"upgrade k8s-node1 factory.talos.dev/installer:v1.14.2", "reboot k8s-node1",
				"apply k8s-node1 (auto)", "reboot k8s-node1", "uncordon k8s-node1",
			},

			outcome: rollout.Applied, detail: "upgraded to Talos v1.14.2, rebooted; config applied, rebooted, healthy",
		},
		{
			name:  "LiveChangeIsNotDrained",
			steps: []rollout.Step{worker("k8s-node1", false)},
			want:  []string{"apply k8s-node1 (auto)"},

			outcome: rollout.Applied, detail: "applied live, healthy",
		},
		{
			name:  "StagedChangeIsNotDrained",
			steps: []rollout.Step{worker("k8s-node1", true)},
			mode:  talos.ModeStaged,
			want:  []string{"apply k8s-node1 (staged)"},

			outcome: rollout.Applied, detail: "staged",
		},
		{
			name:  "TryModeIsNotDrained",
			steps: []rollout.Step{worker("k8s-node1", true)},
			mode:  talos.ModeTry,
			want:  []string{"apply k8s-node1 (try)"},

			outcome: rollout.Applied, detail: "try mode",
		},
		{
			name:   "DrainThatTimesOutStopsTheRolloutWithTheNodeUntouchedAndUncordoned",
			steps:  []rollout.Step{worker("k8s-node1", true), worker("k8s-node2", true)},
			refuse: map[string]error{"k8s-node1": timedOut},
			want:   []string{"drain k8s-node1 (5m0s)", "uncordon k8s-node1"},

			outcome: rollout.Failed, detail: "drain did not finish in 5m0s: evict pod web-0: context deadline exceeded; its config was not applied",
		},
		{
			name:   "DrainRefusedBeforeAnUpgradeSaysItWasNotUpgraded",
			steps:  []rollout.Step{upgraded(worker("k8s-node1", false))},
			refuse: map[string]error{"k8s-node1": errors.New("cannot evict pod web-0: disruption budget web needs 1 healthy pod")},
			want:   []string{"drain k8s-node1 (5m0s)", "uncordon k8s-node1"},

			outcome: rollout.Failed, detail: "drain: cannot evict pod web-0: disruption budget web needs 1 healthy pod; it was not upgraded",
		},
		{
			name:  "GateFailureLeavesTheNodeCordonedAndTheReportSaysSo",
			steps: []rollout.Step{worker("k8s-node1", true), worker("k8s-node2", true)},
			sick:  "k8s-node1",
			want:  []string{"drain k8s-node1 (5m0s)", "apply k8s-node1 (auto)", "reboot k8s-node1"},

			outcome: rollout.Failed, detail: "the node stays cordoned (kubectl uncordon k8s-node1 once it is healthy)", cordoned: true,
		},
		{
			name:  "AnUncordonThatFailsFailsTheNodeAndStopsTheRollout",
			steps: []rollout.Step{worker("k8s-node1", true), worker("k8s-node2", true)},
			stuck: map[string]error{"k8s-node1": errors.New("nodes \"k8s-node1\" is forbidden")},
			want:  []string{"drain k8s-node1 (5m0s)", "apply k8s-node1 (auto)", "reboot k8s-node1", "uncordon k8s-node1"},

			outcome: rollout.Failed, detail: "applied, rebooted, healthy; then uncordon node k8s-node1: nodes \"k8s-node1\" is forbidden: the node stays cordoned", cordoned: true,
		},
		{
			name:   "DrainRefusedWhoseUncordonFailsToo",
			steps:  []rollout.Step{worker("k8s-node1", true)},
			refuse: map[string]error{"k8s-node1": errors.New("cannot evict pod web-0")},
			stuck:  map[string]error{"k8s-node1": errors.New("connection refused")},
			want:   []string{"drain k8s-node1 (5m0s)", "uncordon k8s-node1"},

			outcome: rollout.Failed, detail: "drain: cannot evict pod web-0; its config was not applied; it stays cordoned, the uncordon failed: uncordon node k8s-node1: connection refused", cordoned: true,
		},
		{
			name:   "NoKubernetesAPIRebootsWithoutADrain",
			steps:  []rollout.Step{worker("k8s-node1", true)},
			noKube: true,
			want:   []string{"apply k8s-node1 (auto)", "reboot k8s-node1"},

			outcome: rollout.Applied, detail: "applied, rebooted, healthy",
		},
		{
			name:    "NoDrainRebootsWithoutADrainThoughThereIsAnAPI",
			steps:   []rollout.Step{worker("k8s-node1", true)},
			noDrain: true,
			want:    []string{"apply k8s-node1 (auto)", "reboot k8s-node1"},

			outcome: rollout.Applied, detail: "applied, rebooted, healthy",
		},
		{
			name:   "DryRunDrainsNothingAndSaysItWould",
			steps:  []rollout.Step{worker("k8s-node1", true), upgraded(worker("k8s-node2", false))},
			dryRun: true,
			want:   []string{"dry-run k8s-node1"},

			outcome: rollout.DryRun, detail: "talops would reboot it; talops would drain it first",
		},
		{
			name:  "TheNodeObjectDrainedIsTheKubernetesNodeName",
			steps: []rollout.Step{func() rollout.Step { s := worker("k8s-node1", true); s.KubeNode = "node1.lab.example"; return s }()},
			want:  []string{"drain node1.lab.example (5m0s)", "apply k8s-node1 (auto)", "reboot k8s-node1", "uncordon node1.lab.example"},

			outcome: rollout.Applied, detail: "applied, rebooted, healthy",
		},
	}

	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			j := &journal{}
			d := newRebootingNodes(j)
			d.sick[tt.sick] = true

			o := drainOptions
			o.DryRun, o.NoDrain = tt.dryRun, tt.noDrain

			if tt.mode != "" {
				o.Mode = tt.mode
			}

			if !tt.noKube {
				o.Kube = &recordingKube{j: j, refuse: tt.refuse, stuck: tt.stuck, pods: 3}
			}

			rep := rollout.Run(context.Background(), d, "lab", "hash", tt.steps, o)

			if got := j.list(); !slices.Equal(got, tt.want) {
				t.Errorf("events:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(tt.want, "\n"))
			}

			first := rep.Nodes[0]
			if first.Outcome != tt.outcome || !strings.Contains(first.Detail, tt.detail) || first.Cordoned != tt.cordoned {
				t.Errorf("%s: %s, cordoned %t, %q; want %s, cordoned %t, detail with %q", first.Name, first.Outcome, first.Cordoned, first.Detail, tt.outcome, tt.cordoned, tt.detail)
			}

			if tt.outcome == rollout.Failed && len(rep.Nodes) > 1 && rep.Nodes[1].Outcome != rollout.NotAttempted {
				t.Errorf("the rollout went on after a failure: %s %s", rep.Nodes[1].Name, rep.Nodes[1].Outcome)
			}
		})
	}
}

// slowKube is a drain that gives up as kubectl's does, with an error of its own, after
// the timeout passed on the rollout's clock.
type slowKube struct {
	recordingKube
	clock *time.Time
}

func (k *slowKube) Drain(_ context.Context, node string, timeout time.Duration, _ func(string)) error {
	k.j.add("drain %s (%s)", node, timeout)
	*k.clock = k.clock.Add(timeout)

	return errors.New("global timeout reached: " + timeout.String())
}

func TestRun_ADrainThatTookItsTimeoutDidNotFinishWhateverItsError(t *testing.T) {
	j := &journal{}
	clock := time.Unix(0, 0)

	o := drainOptions
	o.DrainTimeout = 90 * time.Second
	o.Now = func() time.Time { return clock }
	o.Kube = &slowKube{recordingKube: recordingKube{j: j}, clock: &clock}

	rep := rollout.Run(context.Background(), newRebootingNodes(j), "lab", "hash", []rollout.Step{worker("k8s-node1", true)}, o)

	want := "drain did not finish in 1m30s: global timeout reached: 1m30s; its config was not applied"
	if got := rep.Nodes[0]; got.Outcome != rollout.Failed || got.Detail != want {
		t.Errorf("k8s-node1: %s %q, want failed %q", got.Outcome, got.Detail, want)
	}

	if got := j.list(); !slices.Equal(got, []string{"drain k8s-node1 (1m30s)", "uncordon k8s-node1"}) {
		t.Errorf("events %q", got)
	}
}

func TestRun_DrainProgressIsTypedPerNode(t *testing.T) {
	j := &journal{}

	var got []string

	o := drainOptions
	o.Kube = &recordingKube{j: j, pods: 3}
	o.Now = func() time.Time { return time.Unix(0, 0) }
	o.Progress = func(p rollout.Progress) { got = append(got, p.Heading()+" | "+p.What) }

	rollout.Run(context.Background(), newRebootingNodes(j), "lab", "hash", []rollout.Step{worker("k8s-node1", false), worker("k8s-node2", true)}, o)

	want := []string{
		"[1/2] k8s-node1 | sending its config (mode auto)",
		"[1/2] k8s-node1 | waiting for its health gate",
		"[1/2] k8s-node1 | applied after 0s",
		"[2/2] k8s-node2 | draining (up to 5m0s)",
		"[2/2] k8s-node2 | draining (3 pods)",
		"[2/2] k8s-node2 | sending its config (mode auto)",
		"[2/2] k8s-node2 | rebooting it",
		"[2/2] k8s-node2 | waiting for its health gate",
		"[2/2] k8s-node2 | uncordoned",
		"[2/2] k8s-node2 | applied after 0s",
	}

	if !slices.Equal(got, want) {
		t.Errorf("progress:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
