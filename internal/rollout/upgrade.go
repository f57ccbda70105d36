package rollout

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/talops/talops/internal/schematic"
	"github.com/talops/talops/internal/talos"
)

// ErrOldImage says a node came back from an upgrade on another image than the one
// installed: its new image failed to boot and it fell back.
var ErrOldImage = errors.New("the node did not boot the new image")

func (t *Target) describe() string {
	if t.SchematicID == "" {
		return "Talos " + t.Version
	}

	return fmt.Sprintf("Talos %s, schematic %s", t.Version, short(t.SchematicID))
}

func short(id string) string {
	if len(id) > 12 {
		return id[:12]
	}

	return id
}

// upgradePlan says how a node will be upgraded, for a dry run.
func upgradePlan(s Step) string {
	how := "pull the installer, upgrade with LifecycleService, reboot"
	if !talos.LifecycleAPI(s.Version) {
		how = "upgrade with the legacy MachineService.Upgrade, which reboots the node"
	}

	return fmt.Sprintf("upgrade it from Talos %s to %s (%s)", s.Version, s.Upgrade.describe(), how)
}

// upgrade installs the target image, has the node boot it and checks that it runs it. It
// returns what the node showed once it runs the new image, and whether its VM had to be
// reset to come back.
func upgrade(ctx context.Context, d talos.Dialer, s Step, o Options, before health, say func(string)) (health, bool, error) {
	if err := install(ctx, d, s, o); err != nil {
		return health{}, false, err
	}

	// Any version: a node that fell back to its old image is told apart below.
	after, reset, err := rebootGate(ctx, d, s, o, before, gateWant{rebooted: true}, say)
	if err != nil {
		return health{}, reset, upgradeGateError{fmt.Errorf("waiting for the node to boot the new image: %w", err)}
	}

	cctx, cancel := context.WithTimeout(ctx, o.CallTimeout)
	defer cancel()

	n, err := d.Dial(cctx, s.Address)
	if err != nil {
		return health{}, reset, err
	}
	defer n.Close() //nolint:errcheck // read-only

	v, err := n.Version(cctx)
	if err != nil {
		return health{}, reset, fmt.Errorf("read version after the upgrade: %w", err)
	}

	id, err := n.SchematicID(cctx)
	if err != nil {
		return health{}, reset, fmt.Errorf("read schematic after the upgrade: %w", err)
	}

	if v != s.Upgrade.Version || !sameSchematic(id, s.Upgrade.SchematicID) {
		got := Target{Version: v, SchematicID: id}

		return health{}, reset, fmt.Errorf("%w: it came back on %s, not %s", ErrOldImage, got.describe(), s.Upgrade.describe())
	}

	return after, reset, nil
}

// upgradeGateError is an upgrade whose image was installed and booted, and whose health
// gate then failed: the one failure --rollback undoes.
type upgradeGateError struct{ err error }

func (e upgradeGateError) Error() string { return e.err.Error() }
func (e upgradeGateError) Unwrap() error { return e.err }

// sameSchematic compares what a node reports with the target's schematic: a node
// installed from an image that is not the factory's reports none, which is the vanilla
// schematic's content.
func sameSchematic(reported, target string) bool {
	return reported == target || reported == "" && target == schematic.VanillaID
}

// install has the node install the target image and reboot into it: LifecycleService
// (after a pre-pull) then a reboot from Talos 1.13, the legacy call before, which reboots
// by itself.
func install(ctx context.Context, d talos.Dialer, s Step, o Options) error {
	timeout := o.UpgradeTimeout
	if timeout <= 0 {
		timeout = o.GateTimeout
	}

	uctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()

	n, err := d.Dial(uctx, s.Address)
	if err != nil {
		return fmt.Errorf("connect: %w", err)
	}
	defer n.Close() //nolint:errcheck // the calls' errors matter

	image := s.Upgrade.Image

	// The install runs on the node: cut short here, it may still finish there.
	unfinished := func(what string, err error) error {
		if uctx.Err() != nil && ctx.Err() == nil {
			return fmt.Errorf("%s did not finish within %s (--install-timeout): the node may still install %s, which its next reboot would boot: %w", what, timeout, s.Upgrade.describe(), err)
		}

		return fmt.Errorf("%s: %w", what, err)
	}

	if !talos.LifecycleAPI(s.Version) {
		if err := n.LegacyUpgrade(uctx, image); err != nil {
			return unfinished("MachineService.Upgrade", err)
		}

		return nil
	}

	if err := n.PullImage(uctx, image); err != nil {
		return unfinished("the pull of the installer", err)
	}

	if err := n.Upgrade(uctx, image); err != nil {
		return unfinished("LifecycleService.Upgrade", err)
	}

	cctx, cancel2 := context.WithTimeout(ctx, o.CallTimeout)
	defer cancel2()

	if err := n.Reboot(cctx); err != nil {
		return fmt.Errorf("installed, not booted: the next reboot boots %s; the reboot: %w", s.Upgrade.describe(), err)
	}

	return nil
}

// etcdGate waits until every control plane's etcd member is healthy and each lists as
// many voting members as there are control planes.
func etcdGate(ctx context.Context, d talos.Dialer, members []Step, o Options) error {
	return etcdGateListing(ctx, d, members, 0, o)
}

// etcdGateListing is etcdGate where etcd may still list up to dead members that do not
// answer (before a dead control plane's member is removed).
func etcdGateListing(ctx context.Context, d talos.Dialer, members []Step, dead int, o Options) error {
	return pollFor(ctx, o, "etcd to be healthy on every control plane", func(ctx context.Context) error {
		for _, m := range members {
			if err := etcdMember(ctx, d, m, len(members), dead, o); err != nil {
				return fmt.Errorf("%s: %w", m.Node.Name, err)
			}
		}

		return nil
	})
}

func etcdMember(ctx context.Context, d talos.Dialer, m Step, want, dead int, o Options) error {
	cctx, cancel := context.WithTimeout(ctx, o.CallTimeout)
	defer cancel()

	n, err := d.Dial(cctx, m.Address)
	if err != nil {
		return err
	}
	defer n.Close() //nolint:errcheck // read-only

	list, err := n.EtcdMembers(cctx)
	if err != nil {
		return fmt.Errorf("list etcd members: %w", err)
	}

	voters, learners := 0, 0

	for _, mem := range list {
		if mem.Learner {
			learners++
		} else {
			voters++
		}
	}

	if voters < want || voters > want+dead || learners > 0 {
		return fmt.Errorf("etcd lists %d voting members and %d learners, want %d voting members (one per control plane)", voters, learners, want)
	}

	errs, err := n.EtcdErrors(cctx)
	if err != nil {
		return fmt.Errorf("read etcd status: %w", err)
	}

	if len(errs) > 0 {
		return fmt.Errorf("etcd member reports: %s", strings.Join(errs, "; "))
	}

	return nil
}
