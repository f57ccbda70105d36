package rollout_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/talops/talops/internal/applied"
	"github.com/talops/talops/internal/rollout"
)

// fakeAlertmanager is a hand-written Alertmanager: the alerts that fire, and the silences
// created, extended and expired.
type fakeAlertmanager struct {
	mu       sync.Mutex
	firing   []rollout.Alert
	active   map[string]rollout.Silence // by ID
	created  []rollout.Silence
	expired  []string
	failNext error
	n        int
}

func (f *fakeAlertmanager) setFiring(a ...rollout.Alert) {
	f.mu.Lock()
	defer f.mu.Unlock()

	f.firing = a
}

func (f *fakeAlertmanager) Firing(context.Context) ([]rollout.Alert, error) {
	f.mu.Lock()
	defer f.mu.Unlock()

	return slices.Clone(f.firing), nil
}

func (f *fakeAlertmanager) Silence(_ context.Context, s rollout.Silence) (string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()

	if err := f.failNext; err != nil {
		return "", err
	}

	if f.active == nil {
		f.active = map[string]rollout.Silence{}
	}

	if s.ID == "" {
		f.n++
		s.ID = "s" + string(rune('0'+f.n))
		f.created = append(f.created, s)
	}

	f.active[s.ID] = s

	return s.ID, nil
}

func (f *fakeAlertmanager) Expire(_ context.Context, id string) error {
	f.mu.Lock()
	defer f.mu.Unlock()

	delete(f.active, id)
	f.expired = append(f.expired, id)

	return nil
}

// silencing lists the values of the active silences' matchers.
func (f *fakeAlertmanager) silencing() []string {
	f.mu.Lock()
	defer f.mu.Unlock()

	var out []string
	for _, s := range f.active {
		for _, m := range s.Matchers {
			out = append(out, m.Name+"="+m.Value)
		}
	}

	slices.Sort(out)

	return out
}

var nodeDown = rollout.Alert{Labels: map[string]string{"alertname": "KubeNodeNotReady", "node": "w9", "severity": "critical"}}

func TestRun_AFiringAlertHoldsTheRolloutBeforeTheFirstNodeNamingIt(t *testing.T) {
	d := &healthyNodes{}
	am := &fakeAlertmanager{}
	am.setFiring(nodeDown)

	var lines []string

	o := options
	o.Alerts, o.GateTimeout = am, 40*time.Millisecond
	o.Progress = func(p rollout.Progress) { lines = append(lines, p.What) }

	r := rollout.Run(context.Background(), d, "lab", "hash", workers("w1", "w2"), o)

	if len(d.applied) != 0 {
		t.Errorf("applied %v, want none", d.applied)
	}

	want := `alerts held the rollout before w1: after 40ms: firing: KubeNodeNotReady{node="w9", severity="critical"}`
	if r.Stopped != want {
		t.Errorf("stopped %q\nwant    %q", r.Stopped, want)
	}

	if r.Nodes[0].Outcome != applied.NotAttempted {
		t.Errorf("outcomes %+v", r.Nodes)
	}

	if len(lines) == 0 || !strings.HasPrefix(lines[0], "alerts before w1: waiting up to 40ms (firing: KubeNodeNotReady{") {
		t.Errorf("progress %q, want the wait said with the alert", lines)
	}
}

func TestRun_AnAlertResolvedWithinTheGateTimeoutLetsTheRolloutGoOn(t *testing.T) {
	d := &healthyNodes{}
	am := &fakeAlertmanager{}

	// The first node's change fires an alert, resolved a moment later.
	d.onApply = func(address string) {
		if address == "w1" {
			am.setFiring(nodeDown)
			time.AfterFunc(30*time.Millisecond, func() { am.setFiring() })
		}
	}

	o := options
	o.Alerts, o.GateTimeout = am, 5*time.Second

	r := rollout.Run(context.Background(), d, "lab", "hash", workers("w1", "w2"), o)

	if r.Stopped != "" || !slices.Equal(d.applied, []string{"w1", "w2"}) {
		t.Errorf("stopped %q, applied %v: want both applied", r.Stopped, d.applied)
	}
}

func TestRun_EachChangedNodeIsSilencedDuringItsStepAndTheSilenceExpiredAfter(t *testing.T) {
	for _, tc := range []struct {
		name string
		fail bool
	}{{"applied", false}, {"failed", true}} {
		t.Run(tc.name, func(t *testing.T) {
			d := &healthyNodes{}
			am := &fakeAlertmanager{}

			var during []string

			d.onApply = func(string) {
				during = am.silencing()
				if tc.fail {
					panic("the node's step fails")
				}
			}

			o := options
			o.Alerts, o.Silence = am, true

			r := rollout.Run(context.Background(), d, "lab", "hash", workers("w1"), o)

			want := []string{`instance=w1(:.*)?`, "node=w1"}
			if !slices.Equal(during, want) {
				t.Errorf("silenced during the step %q, want %q", during, want)
			}

			if got := am.silencing(); len(got) != 0 {
				t.Errorf("still silenced after the step: %q", got)
			}

			if len(am.expired) != 2 {
				t.Errorf("expired %q, want both silences", am.expired)
			}

			if c := am.created; len(c) != 2 || c[0].Comment != "talops apply of cluster lab, plan hash" || !c[0].Matchers[0].Regex {
				t.Errorf("created %+v", c)
			}

			if tc.fail != (r.Nodes[0].Outcome == applied.Failed) {
				t.Errorf("outcome %s", r.Nodes[0].Outcome)
			}
		})
	}
}

func TestRun_ASilenceThatCannotBeCreatedLeavesTheNodeUntouched(t *testing.T) {
	d := &healthyNodes{}
	am := &fakeAlertmanager{failNext: errors.New("503 Service Unavailable")}

	o := options
	o.Alerts, o.Silence = am, true

	r := rollout.Run(context.Background(), d, "lab", "hash", workers("w1", "w2"), o)

	if len(d.applied) != 0 {
		t.Errorf("applied %v, want none", d.applied)
	}

	want := "not touched: the Alertmanager silence of w1 could not be created: 503 Service Unavailable"
	if r.Nodes[0].Outcome != applied.Failed || r.Nodes[0].Detail != want {
		t.Errorf("node %+v, want failed: %s", r.Nodes[0], want)
	}
}

func TestRun_ASilenceIsExtendedWhileTheStepLasts(t *testing.T) {
	d := &healthyNodes{}
	am := &fakeAlertmanager{}

	var ends []time.Time

	d.onApply = func(string) {
		am.mu.Lock()
		first := am.active["s1"].EndsAt
		am.mu.Unlock()

		time.Sleep(60 * time.Millisecond)

		am.mu.Lock()
		ends = []time.Time{first, am.active["s1"].EndsAt}
		am.mu.Unlock()
	}

	o := options
	o.Alerts, o.Silence, o.SilenceFor = am, true, 40*time.Millisecond

	rollout.Run(context.Background(), d, "lab", "hash", workers("w1"), o)

	if len(ends) != 2 || !ends[1].After(ends[0]) {
		t.Errorf("ends %v, want the silence extended while the step ran", ends)
	}
}
