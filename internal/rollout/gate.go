package rollout

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/siderolabs/talos/pkg/machinery/config/configloader"
	"github.com/siderolabs/talos/pkg/machinery/config/encoder"

	"github.com/talops/talops/internal/talos"
)

// health is what a node showed at one look: its boot and its machine status.
type health struct {
	boot   string
	status talos.Status
}

// gateWant is what a node must show after a change, besides being no less healthy.
type gateWant struct {
	// rebooted: the node must have booted again since the look before.
	rebooted bool
	// version is the Talos version it must answer with ("" for any).
	version string
	// config, when set, is the machine config it must run.
	config []byte
	// newNode: the node had no state before (it was in maintenance mode): it must be
	// booting or running, whatever conditions it still waits for.
	newNode bool
}

// observe is the look before a change: it waits until the node's API answers with the
// version the plan knows (any stage or readiness: the gate after demands no more than
// the node had).
func observe(ctx context.Context, d talos.Dialer, s Step, o Options) (health, error) {
	var h health

	err := pollFor(ctx, o, "the node to answer", func(ctx context.Context) error {
		var err error

		h, err = look(ctx, d, s.Address, o, gateWant{version: s.Version})

		return err
	})

	return h, err
}

// gate waits until the node shows want and is no less healthy than before: a node that
// was running and ready must be so again; one that was not (a new node, a cluster still
// without its CNI) must not have gone back a stage or gained an unmet condition.
func gate(ctx context.Context, d talos.Dialer, s Step, o Options, before health, want gateWant) (health, error) {
	var h health

	err := pollFor(ctx, o, "the node to come back healthy", func(ctx context.Context) error {
		var err error

		if h, err = look(ctx, d, s.Address, o, want); err != nil {
			return err
		}

		if want.rebooted && h.boot == before.boot {
			return errSameBoot
		}

		if want.newNode {
			if stageRank[h.status.Stage] == 0 {
				return fmt.Errorf("machine stage %s%s", h.status.Stage, unmet(h.status.Unmet))
			}

			return nil
		}

		return noWorse(before.status, h.status)
	})

	return h, err
}

var errSameBoot = errors.New("the node has not rebooted yet")

// look reads the node's boot, version, status and, when want names one, its config.
func look(ctx context.Context, d talos.Dialer, address string, o Options, want gateWant) (health, error) {
	cctx, cancel := context.WithTimeout(ctx, o.CallTimeout)
	defer cancel()

	n, err := d.Dial(cctx, address)
	if err != nil {
		return health{}, err
	}
	defer n.Close() //nolint:errcheck // read-only

	var h health

	if h.boot, err = n.BootID(cctx); err != nil {
		return health{}, fmt.Errorf("read boot ID: %w", err)
	}

	v, err := n.Version(cctx)
	if err != nil {
		return health{}, fmt.Errorf("read version: %w", err)
	}

	if want.version != "" && v != want.version {
		return health{}, fmt.Errorf("the node runs Talos %s, want %s", v, want.version)
	}

	if h.status, err = n.Status(cctx); err != nil {
		return health{}, fmt.Errorf("read machine status: %w", err)
	}

	if want.config != nil {
		running, err := n.MachineConfig(cctx)
		if err != nil {
			return health{}, fmt.Errorf("read machine config: %w", err)
		}

		if !sameConfig(running, want.config) {
			return health{}, errors.New("the node does not run the config talops applied")
		}
	}

	return h, nil
}

// stageRank orders the stages a healthy node passes through; the others rank lowest.
var stageRank = map[string]int{"booting": 1, "running": 2}

// noWorse says what is worse about now than before, nil when nothing is.
func noWorse(before, now talos.Status) error {
	if before.Running() {
		if now.Running() {
			return nil
		}

		return fmt.Errorf("machine stage %s, ready %t%s", now.Stage, now.Ready, unmet(now.Unmet))
	}

	if stageRank[now.Stage] < stageRank[before.Stage] {
		return fmt.Errorf("machine stage %s, was %s before the change%s", now.Stage, before.Stage, unmet(now.Unmet))
	}

	var added []talos.Condition

	for _, c := range now.Unmet {
		if !slices.ContainsFunc(before.Unmet, func(b talos.Condition) bool { return b.Name == c.Name }) {
			added = append(added, c)
		}
	}

	if len(added) > 0 {
		return fmt.Errorf("machine stage %s, newly%s", now.Stage, unmet(added))
	}

	return nil
}

func unmet(cs []talos.Condition) string {
	if len(cs) == 0 {
		return ""
	}

	parts := make([]string, len(cs))
	for i, c := range cs {
		parts[i] = c.Name
		if c.Reason != "" {
			parts[i] += " (" + c.Reason + ")"
		}
	}

	return " unmet: " + strings.Join(parts, ", ")
}

// sameConfig reports whether two machine configs are the same documents: the node may
// encode the one it took differently from the bytes it was sent.
func sameConfig(a, b []byte) bool {
	if bytes.Equal(a, b) {
		return true
	}

	ca, erra := canonical(a)
	cb, errb := canonical(b)

	return erra == nil && errb == nil && bytes.Equal(ca, cb)
}

func canonical(data []byte) ([]byte, error) {
	cfg, err := configloader.NewFromBytes(data)
	if err != nil {
		return nil, err
	}

	return cfg.EncodeBytes(encoder.WithComments(encoder.CommentsDisabled))
}

// dryRunSummary is the node's verdict on a dry run, without its diff: the diff is of
// the whole config, secrets included.
func dryRunSummary(details string) string {
	if details == "" {
		return ""
	}

	if strings.Contains(details, "No changes.") {
		return "no changes"
	}

	changed := 0

	for line := range strings.SplitSeq(details, "\n") {
		if (strings.HasPrefix(line, "+") || strings.HasPrefix(line, "-")) && !strings.HasPrefix(line, "+++") && !strings.HasPrefix(line, "---") {
			changed++
		}
	}

	if changed == 0 {
		return ""
	}

	return fmt.Sprintf("%d lines of its config would change", changed)
}

// poll calls try every GateInterval until it succeeds or GateTimeout passes; the error
// is the last one try gave before the deadline. Interrupted, it says so with the time it
// really waited.
func poll(ctx context.Context, o Options, try func(context.Context) error) error {
	return pollFor(ctx, o, "", try)
}

// pollFor is poll that, on the node's progress line, says once in a while what it still
// waits for and how long it has: a reboot or an install may take minutes.
func pollFor(ctx context.Context, o Options, what string, try func(context.Context) error) error {
	gctx, cancel := context.WithTimeout(ctx, o.GateTimeout)
	defer cancel()

	start := o.now()
	said := start

	var last error

	for {
		err := try(gctx)
		if err == nil {
			return nil
		}

		if now := o.now(); o.waiting != nil && now.Sub(said) >= orHeartbeat(o.Heartbeat) {
			said = now
			o.waiting(stillWaiting(what, now.Sub(start), err.Error()))
		}

		var p permanent
		if errors.As(err, &p) {
			return p.err
		}

		// A try cut short by the deadline says less than the one before it.
		if last == nil || !deadline(err) {
			last = err
		}

		select {
		case <-gctx.Done():
			if ctx.Err() != nil {
				return fmt.Errorf("interrupted after %s: %w", o.now().Sub(start).Round(time.Second), last)
			}

			return fmt.Errorf("after %s: %w", o.GateTimeout, last)
		case <-time.After(o.GateInterval):
		}
	}
}

// permanent is an error that waiting longer does not mend: poll returns it at once.
type permanent struct{ err error }

func (p permanent) Error() string { return p.err.Error() }

// stop marks err as permanent for poll.
func stop(err error) error { return permanent{err} }

// deadline reports whether err is a call cut short by its context's deadline.
func deadline(err error) bool {
	return errors.Is(err, context.DeadlineExceeded) || talos.TimedOut(err)
}

// DefaultHeartbeat is how often a long wait says it is still waiting.
const DefaultHeartbeat = 30 * time.Second

// orHeartbeat is h, or DefaultHeartbeat when h is not set.
func orHeartbeat(h time.Duration) time.Duration {
	if h <= 0 {
		return DefaultHeartbeat
	}

	return h
}

// stillWaiting is the line of a wait that goes on: "still waiting for the node to come
// back healthy: 1m0s so far (machine stage booting)"; last is the last look ("": none said).
func stillWaiting(what string, elapsed time.Duration, last string) string {
	if what == "" {
		what = "the node"
	}

	line := fmt.Sprintf("still waiting for %s: %s so far", what, elapsed.Round(time.Second))
	if last != "" {
		line += " (" + last + ")"
	}

	return line
}
