package rollout_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/talops/talops/internal/rollout"
)

// TestRun_ANodeThatDoesNotComeBackIsResetOnceThroughProxmox: with ResetVM, a node that is
// not healthy after its reboot (or its upgrade) is reset once and passes a second gate; a
// node still sick after the reset fails, reset once only; without ResetVM nothing is reset.
func TestRun_ANodeThatDoesNotComeBackIsResetOnceThroughProxmox(t *testing.T) {
	t.Parallel()

	for _, tc := range []struct {
		name string
		step rollout.Step
		// cures is whether a reset brings the node back.
		cures, withReset bool
		want             rollout.Outcome
		resets           int
	}{
		{"a reboot that hangs, cured by the reset", worker("w1", true), true, true, rollout.Applied, 1},
		{"an upgrade that hangs, cured by the reset", upgraded(worker("w1", false)), true, true, rollout.Applied, 1},
		{"still sick after the reset", worker("w1", true), false, true, rollout.Failed, 1},
		{"without --proxmox-reset", worker("w1", true), true, false, rollout.Failed, 0},
		{"a live change never needs one", worker("w1", false), true, true, rollout.Applied, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()

			j := &journal{}
			d := newRebootingNodes(j)
			d.sick["w1"] = true

			o := drainOptions

			var resets []string

			if tc.withReset {
				o.ResetVM = func(_ context.Context, node string) error {
					resets = append(resets, node)
					j.add("proxmox reset %s", node)

					d.mu.Lock()
					defer d.mu.Unlock()

					d.boot["w1"]++
					d.sick["w1"] = !tc.cures

					return nil
				}
			}

			r := rollout.Run(context.Background(), d, "lab", "hash", []rollout.Step{tc.step}, o)
			res := r.Nodes[0]

			if res.Outcome != tc.want || len(resets) != tc.resets || res.ProxmoxReset != (tc.resets > 0) {
				t.Fatalf("outcome %s (%s), resets %q, ProxmoxReset %v; want %s after %d resets", res.Outcome, res.Detail, resets, res.ProxmoxReset, tc.want, tc.resets)
			}

			if tc.want == rollout.Applied && tc.resets > 0 && !strings.Contains(res.Detail, "reset through Proxmox once") {
				t.Errorf("detail %q does not say the VM was reset", res.Detail)
			}

			if tc.want == rollout.Failed && tc.resets > 0 && !strings.Contains(res.Detail, "after a reset of its VM through Proxmox either") {
				t.Errorf("detail %q does not say the reset did not help", res.Detail)
			}

			if tc.resets > 0 {
				events := j.list()
				if i := slices.Index(events, "proxmox reset w1"); i < 1 || !strings.HasPrefix(events[i-1], "reboot w1") && !strings.HasPrefix(events[i-1], "upgrade w1") {
					t.Errorf("the reset does not follow the reboot or upgrade: %q", events)
				}
			}
		})
	}
}

// TestRun_AFailedResetIsReportedWithTheGate: a reset Proxmox refuses leaves the node
// failed with both causes.
func TestRun_AFailedResetIsReportedWithTheGate(t *testing.T) {
	t.Parallel()

	d := newRebootingNodes(&journal{})
	d.sick["w1"] = true

	o := drainOptions
	o.ResetVM = func(context.Context, string) error { return errors.New("VM 201 is not running") }

	r := rollout.Run(context.Background(), d, "lab", "hash", []rollout.Step{worker("w1", true)}, o)
	if res := r.Nodes[0]; res.Outcome != rollout.Failed || !strings.Contains(res.Detail, "the reset of its VM through Proxmox failed: VM 201 is not running") || res.ProxmoxReset {
		t.Errorf("outcome %s: %s (ProxmoxReset %v)", res.Outcome, res.Detail, res.ProxmoxReset)
	}
}
