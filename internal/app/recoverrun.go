package app

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"filippo.io/age"

	"github.com/talops/talops/internal/backup"
	"github.com/talops/talops/internal/secrets/sops"
	"github.com/talops/talops/internal/talos"
)

// runCluster verifies the backup, then takes the plan's nodes in order through their
// actions: the first control plane gets etcd restored from the backup, the others join it.
func (r *recovery) runCluster(ctx context.Context) error {
	ids, err := sops.IdentitiesFromEnv(r.d.Getenv, r.d.ReadFile)
	if err != nil {
		return err
	}

	if len(ids) == 0 {
		return errors.New("no age identity to decrypt the backup with: set SOPS_AGE_KEY_FILE or SOPS_AGE_KEY, or keep the key in sops' default key file")
	}

	if r.d.ReadSnapshot == nil {
		return errors.New("app: no snapshot reader (Deps.ReadSnapshot)")
	}

	m := r.manifest
	fail := func(format string, args ...any) error {
		return &VerifyError{Name: m.Name, Reason: fmt.Sprintf(format, args...)}
	}

	r.say("", "verifying backup %s (%s)", m.Name, r.store)

	contents, err := drill(ctx, r.d, r.store, m, ids, fail)
	if err != nil {
		return err
	}

	r.say("", "backup %s verified: revision %d, %d keys, etcd reads it", m.Name, contents.Revision, contents.Keys)

	for i, rn := range r.plan.Nodes {
		p := r.nodes[i]

		for _, action := range rn.Actions {
			if err := r.act(ctx, p, action, ids); err != nil {
				return fmt.Errorf("recover %s: %s: %w", p.node.Name, action, err)
			}
		}

		if slices.Contains(rn.Actions, backup.ActionBootstrap) {
			r.anchor = p
		}
	}

	return nil
}

// act takes one action on a node; each checks first whether it is done already.
func (r *recovery) act(ctx context.Context, p probed, action string, ids []age.Identity) error {
	r.say(p.node.Name, "%s", action)

	switch action {
	case backup.ActionRemoveMember:
		return r.removeMember(ctx, p)
	case backup.ActionReset:
		return r.reset(ctx, p)
	case backup.ActionConfigure:
		return r.configure(ctx, p)
	case backup.ActionUpload:
		return r.upload(ctx, p, ids)
	case backup.ActionBootstrap:
		return r.bootstrap(ctx, p)
	case backup.ActionWaitHealthy:
		return r.waitHealthy(ctx, p)
	case backup.ActionJoin:
		return r.join(ctx, p)
	default:
		return fmt.Errorf("app: no such recovery action %q", action)
	}
}

func (r *recovery) say(node, format string, args ...any) {
	prefix := "recover: "
	if node != "" {
		prefix += node + ": "
	}

	r.d.note(prefix + fmt.Sprintf(format, args...) + "\n")
}

// stopWaiting ends a wait at once with its error: asking again cannot help.
type stopWaiting struct{ err error }

func (s *stopWaiting) Error() string { return s.err.Error() }

// waitFor asks check until it passes, for the gate's timeout, pausing between the asks.
func (r *recovery) waitFor(ctx context.Context, what string, check func(ctx context.Context) error) error {
	timeout := orDefault(r.d.GateTimeout, defaultGateTimeout)

	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()

	for {
		err := check(ctx)
		if err == nil {
			return nil
		}

		var stop *stopWaiting
		if errors.As(err, &stop) {
			return stop.err
		}

		if serr := sleep(ctx, r.d, orDefault(r.d.GateInterval, defaultGateInterval)); serr != nil {
			return fmt.Errorf("%s: gave up after %s: %w", what, timeout, err)
		}
	}
}

// call runs f on the node over mTLS, within the Talos timeout.
func (r *recovery) call(ctx context.Context, p probed, f func(ctx context.Context, n talos.Node) error) error {
	cctx, cancel := context.WithTimeout(ctx, orDefault(r.d.TalosTimeout, talos.DefaultTimeout))
	defer cancel()

	n, err := r.dl.Dial(cctx, p.node.Address)
	if err != nil {
		return err
	}
	defer n.Close() //nolint:errcheck // the calls' errors matter

	return f(cctx, n)
}

// answersTLS reports whether the node runs a config: it answers over mTLS.
func (r *recovery) answersTLS(ctx context.Context, p probed) bool {
	return r.call(ctx, p, func(ctx context.Context, n talos.Node) error {
		_, err := n.Version(ctx)

		return err
	}) == nil
}

// reset wipes the node's config and data and waits for it in maintenance mode. Not
// graceful: a graceful reset leaves etcd first, which a member outside quorum cannot.
func (r *recovery) reset(ctx context.Context, p probed) error {
	if r.inMaintenance(ctx, p) {
		return nil
	}

	err := r.call(ctx, p, func(ctx context.Context, n talos.Node) error {
		return n.Reset(ctx, talos.ResetOptions{Reboot: true, Wipe: talos.WipeToMaintenance})
	})
	if err != nil {
		return err
	}

	return r.waitFor(ctx, "the node to boot into maintenance mode", func(ctx context.Context) error {
		if r.inMaintenance(ctx, p) {
			return nil
		}

		return errors.New("not in maintenance mode yet")
	})
}

func (r *recovery) inMaintenance(ctx context.Context, p probed) bool {
	cctx, cancel := context.WithTimeout(ctx, orDefault(r.d.TalosTimeout, talos.DefaultTimeout))
	defer cancel()

	return answersMaintenance(cctx, r.dl, p.node.Address)
}

// configure sends the node its rendered config over the maintenance API, only while it
// says it waits there, then waits for its mTLS API: a node that runs a config already is
// left as it is.
func (r *recovery) configure(ctx context.Context, p probed) error {
	if r.answersTLS(ctx, p) {
		return nil
	}

	cctx, cancel := context.WithTimeout(ctx, orDefault(r.d.TalosTimeout, talos.DefaultTimeout))
	defer cancel()

	m, err := r.dl.DialMaintenance(cctx, p.node.Address)
	if err != nil {
		return err
	}
	defer m.Close() //nolint:errcheck // the calls' errors matter

	st, err := m.Status(cctx)
	if err != nil {
		return fmt.Errorf("read the node's stage over the maintenance API: %w", err)
	}

	if st.Stage != talos.StageMaintenance {
		return fmt.Errorf("the node is in stage %s, neither in maintenance mode nor answering over mTLS", st.Stage)
	}

	if _, err := m.Apply(cctx, r.configs[p.node.Name], false); err != nil {
		return fmt.Errorf("send its config over the maintenance API: %w", err)
	}

	return r.waitFor(ctx, "its Talos API to answer over mTLS", func(ctx context.Context) error {
		if r.answersTLS(ctx, p) {
			return nil
		}

		return errors.New("its Talos API does not answer over mTLS yet")
	})
}

// etcdRuns reports whether the node's etcd member is healthy: restored before.
func (r *recovery) etcdRuns(ctx context.Context, p probed) bool {
	return r.call(ctx, p, func(ctx context.Context, n talos.Node) error { return memberHealth(ctx, r.d, n) }) == nil
}

// upload streams the backup's snapshot, decrypted, to the node (EtcdRecover), hashing it on
// the way: what was sent is what the manifest says. machined takes it once its etcd
// service is ready for it.
func (r *recovery) upload(ctx context.Context, p probed, ids []age.Identity) error {
	if r.etcdRuns(ctx, p) {
		r.say(p.node.Name, "etcd runs already: restored by an earlier run")

		return nil
	}

	return r.waitFor(ctx, "etcd to take the snapshot", func(ctx context.Context) error {
		n, err := r.dl.Dial(ctx, p.node.Address)
		if err != nil {
			return err
		}
		defer n.Close() //nolint:errcheck // the calls' errors matter

		err = r.send(ctx, n, ids)

		switch {
		case err == nil:
			return nil
		case errors.Is(err, talos.ErrNotReadyForRecovery), talos.Unavailable(err):
			return err
		default:
			return &stopWaiting{err}
		}
	})
}

func (r *recovery) send(ctx context.Context, n talos.Node, ids []age.Identity) error {
	m := r.manifest

	sealed, err := r.store.Get(ctx, m.Snapshot)
	if err != nil {
		return err
	}
	defer sealed.Close() //nolint:errcheck // read-only

	plain, err := age.Decrypt(sealed, ids...)
	if err != nil {
		return fmt.Errorf("decrypt the snapshot: %w", err)
	}

	hash := sha256.New()
	size := &counter{}

	if err := n.EtcdRecover(ctx, io.TeeReader(plain, io.MultiWriter(hash, size))); err != nil {
		return err
	}

	if size.n != m.Size || hex.EncodeToString(hash.Sum(nil)) != m.SHA256 {
		return &VerifyError{Name: m.Name, Reason: "its snapshot changed after it was verified: what was uploaded is not what the manifest says"}
	}

	return nil
}

// bootstrap starts etcd from the uploaded snapshot, exactly once: a node whose etcd runs
// was restored before. A call of ours that got no answer may have started it: the "etcd
// has data" that follows is that start.
func (r *recovery) bootstrap(ctx context.Context, p probed) error {
	if r.etcdRuns(ctx, p) {
		return nil
	}

	unanswered := false

	return r.waitFor(ctx, "etcd to start from the snapshot", func(ctx context.Context) error {
		err := r.call(ctx, p, func(ctx context.Context, n talos.Node) error { return n.BootstrapRecover(ctx) })

		switch {
		case err == nil:
			return nil
		case errors.Is(err, talos.ErrBootstrapped) && unanswered:
			return nil
		case errors.Is(err, talos.ErrBootstrapped):
			return &stopWaiting{fmt.Errorf("%w: its etcd holds data of its own; reset it (talosctl reset --graceful=false --reboot --system-labels-to-wipe STATE --system-labels-to-wipe EPHEMERAL) and run recover again", err)}
		case errors.Is(err, context.DeadlineExceeded) || talos.TimedOut(err) || talos.Unavailable(err):
			unanswered = true

			return err
		case talos.NotYet(err):
			return err
		default:
			return &stopWaiting{err}
		}
	})
}

// waitHealthy waits for the node's etcd member to be healthy, then for the node to be
// ready: its services up and, where Kubernetes runs, the API server and its Node Ready
// (Talos' own readiness says so).
func (r *recovery) waitHealthy(ctx context.Context, p probed) error {
	if err := r.waitFor(ctx, "its etcd member to be healthy", func(ctx context.Context) error {
		return r.call(ctx, p, func(ctx context.Context, n talos.Node) error { return memberHealth(ctx, r.d, n) })
	}); err != nil {
		return err
	}

	r.say(p.node.Name, "etcd healthy; waiting for the node to be ready")

	return r.waitFor(ctx, "the node to be ready", func(ctx context.Context) error {
		return r.call(ctx, p, func(ctx context.Context, n talos.Node) error {
			st, err := n.Status(ctx)
			if err != nil {
				return err
			}

			if !st.Running() {
				return fmt.Errorf("stage %s, ready %v%s", st.Stage, st.Ready, unmet(st))
			}

			return nil
		})
	})
}

func unmet(st talos.Status) string {
	var out []string
	for _, c := range st.Unmet {
		out = append(out, c.Name+": "+c.Reason)
	}

	if len(out) == 0 {
		return ""
	}

	return " (" + strings.Join(out, "; ") + ")"
}

// join waits for the node to be a voting etcd member, as the member it joined lists it,
// then for the node to be healthy and ready.
func (r *recovery) join(ctx context.Context, p probed) error {
	if err := r.waitFor(ctx, "the node to join etcd", func(ctx context.Context) error {
		return r.call(ctx, r.anchor, func(ctx context.Context, n talos.Node) error {
			members, err := n.EtcdMembers(ctx)
			if err != nil {
				return err
			}

			i := slices.IndexFunc(members, func(m talos.EtcdMember) bool { return isMember(p.node, m) })

			switch {
			case i < 0:
				return fmt.Errorf("%s does not list it as an etcd member yet", r.anchor.node.Name)
			case members[i].Learner:
				return errors.New("a learner, not yet a voting member")
			}

			return nil
		})
	}); err != nil {
		return err
	}

	return r.waitHealthy(ctx, p)
}

// removeMember removes the node's stale member from etcd, asked of a healthy member: a
// member that is gone already is done.
func (r *recovery) removeMember(ctx context.Context, p probed) error {
	return r.call(ctx, r.anchor, func(ctx context.Context, n talos.Node) error {
		members, err := n.EtcdMembers(ctx)
		if err != nil {
			return fmt.Errorf("list etcd members on %s: %w", r.anchor.node.Name, err)
		}

		i := slices.IndexFunc(members, func(m talos.EtcdMember) bool { return isMember(p.node, m) })
		if i < 0 {
			return nil
		}

		if err := n.EtcdRemoveMember(ctx, members[i].ID); err != nil {
			return fmt.Errorf("remove its etcd member %x on %s: %w", members[i].ID, r.anchor.node.Name, err)
		}

		return nil
	})
}
