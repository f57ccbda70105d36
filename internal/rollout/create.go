package rollout

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/talops/talops/internal/talos"
)

// create sends a new node its first config over the maintenance API, only once the node
// says it waits in maintenance mode, then waits for its mTLS API to answer with that
// config and version; the first control plane of a new cluster is then bootstrapped.
func (st *stepper) create() NodeResult {
	if st.controlPlane() && len(st.members) > 0 {
		if err := etcdGate(st.ctx, st.d, st.members, st.o); err != nil {
			return st.fail("etcd not healthy before a control plane joins", err)
		}
	}

	m, err := st.d.DialMaintenance(st.ctx, st.s.Address)
	if err != nil {
		return st.fail("connect to the maintenance API", err)
	}
	defer m.Close() //nolint:errcheck // the calls' errors matter

	cctx, cancel := context.WithTimeout(st.ctx, st.o.CallTimeout)
	defer cancel()

	stage, err := m.Status(cctx)
	if err != nil {
		return st.fail("read the node's stage over the maintenance API", err)
	}

	if stage.Stage != talos.StageMaintenance {
		return st.fail("not sent", fmt.Errorf("the node is in stage %s, not maintenance: talops sends a config without mTLS only to a node waiting for its first one", stage.Stage))
	}

	st.say("sending its first config over the maintenance API")

	applied, err := m.Apply(cctx, st.s.Config, st.o.DryRun)
	if err != nil {
		return st.fail("send the first config over the maintenance API", err)
	}

	st.res.Warnings = applied.Warnings

	if st.o.DryRun {
		detail := "the node is in maintenance mode and accepts its first config"
		if st.s.Bootstrap {
			detail += "; talops would bootstrap etcd on it"
		}

		return st.outcome(DryRun, detail)
	}

	// A new node has no "before" to compare with: it must answer over mTLS with its
	// config and version, booting or running, whatever it still waits for.
	after, err := gate(st.ctx, st.d, st.s, st.o, health{status: talos.Status{Stage: "booting"}}, gateWant{version: st.s.Version, config: st.s.Config, newNode: true})
	if err != nil {
		return st.fail("first config sent, then the health gate", err)
	}

	detail := notReady("configured from maintenance mode, healthy", after)

	if st.s.Bootstrap {
		st.say("bootstrapping etcd")

		if err := bootstrap(st.ctx, st.d, st.s, st.o); err != nil {
			return st.fail("first config sent, then the bootstrap", err)
		}

		detail += "; etcd bootstrapped"
	}

	return st.finish(detail, "configured from maintenance mode, then")
}

// bootstrap starts etcd on the first control plane of a new cluster, exactly once: not
// when its etcd lists members already, and never when the node says its etcd has data
// before talops asked. It waits while the node says bootstrapping is not possible yet
// (time not in sync, services starting).
func bootstrap(ctx context.Context, d talos.Dialer, s Step, o Options) error {
	// A call of ours that got no answer may still have started etcd: the node's "etcd has
	// data" that follows is that start, not an earlier cluster.
	unanswered := false

	return pollFor(ctx, o, "etcd to bootstrap", func(ctx context.Context) error {
		n, err := d.Dial(ctx, s.Address)
		if err != nil {
			return err
		}
		defer n.Close() //nolint:errcheck // the calls' errors matter

		if members := etcdMembers(ctx, n, o); len(members) > 0 && !unanswered {
			return stop(fmt.Errorf("etcd already lists %d members: the cluster was bootstrapped before", len(members)))
		}

		cctx, cancel := context.WithTimeout(ctx, o.CallTimeout)
		defer cancel()

		err = n.Bootstrap(cctx)

		switch {
		case err == nil:
			return nil
		case errors.Is(err, talos.ErrBootstrapped) && unanswered:
			return nil
		case errors.Is(err, talos.ErrBootstrapped):
			return stop(err)
		case deadline(err) || talos.Unavailable(err):
			unanswered = true

			return err
		case talos.NotYet(err):
			return err // not yet: time sync, services starting
		default:
			return stop(err)
		}
	})
}

// etcdMembers lists the node's etcd members, nil when its etcd does not answer (not
// started: the member list waits for it, so the wait is short).
func etcdMembers(ctx context.Context, n talos.Node, o Options) []talos.EtcdMember {
	cctx, cancel := context.WithTimeout(ctx, min(o.CallTimeout, 3*time.Second))
	defer cancel()

	members, err := n.EtcdMembers(cctx)
	if err != nil {
		return nil
	}

	return members
}
