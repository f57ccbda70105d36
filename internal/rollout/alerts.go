package rollout

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/talops/talops/internal/talos"
)

// Alerts is the Alertmanager a rollout consults (internal/alertmanager speaks its API):
// the alerts that hold it, and the silences of the node it changes.
type Alerts interface {
	// Firing lists the active alerts, neither silenced nor inhibited, that the gate's
	// matchers select.
	Firing(ctx context.Context) ([]Alert, error)
	// Silence creates the silence (ID ""), or extends the one with its ID, and returns
	// the silence's ID (Alertmanager may answer with a new one).
	Silence(ctx context.Context, s Silence) (string, error)
	// Expire ends the silence with this ID.
	Expire(ctx context.Context, id string) error
}

// Alert is one firing alert: its labels (annotations may hold anything, and are never
// read).
type Alert struct {
	Labels map[string]string
}

// Silence is one silence of a node while its step runs.
type Silence struct {
	// ID is the silence to extend ("": a new one).
	ID       string
	Matchers []SilenceMatcher
	// StartsAt is when the silence was first created (kept when it is extended).
	StartsAt, EndsAt time.Time
	Comment          string
}

// SilenceMatcher is one matcher of a silence: the label equals Value, or matches it as a
// regular expression.
type SilenceMatcher struct {
	Name, Value string
	Regex       bool
}

// DefaultSilenceFor is how far ahead a node's silence ends (0 SilenceFor): it is renewed
// at half of it while the node's step runs, so a talops killed mid-run leaves a silence
// that ends on its own within minutes.
const DefaultSilenceFor = 5 * time.Minute

// nodeSilences are the silences of the node a step changes: one of its node-exporter
// style instance (its address, with any port), one of its Kubernetes Node name.
func nodeSilences(s Step) [][]SilenceMatcher {
	name := s.KubeNode
	if name == "" {
		name = s.Node.Name
	}

	var out [][]SilenceMatcher
	if s.Address != "" {
		out = append(out, []SilenceMatcher{{Name: "instance", Value: regexp.QuoteMeta(s.Address) + "(:.*)?", Regex: true}})
	}

	return append(out, []SilenceMatcher{{Name: "node", Value: name}})
}

// checkAlerts waits, up to the gate's timeout, until no alert the matchers select fires;
// when says where the rollout stands ("before k8s-node2"). Its progress lines and its
// error name each alert by its alertname and labels.
func (o Options) checkAlerts(ctx context.Context, when string) error {
	if o.Alerts == nil {
		return nil
	}

	var said time.Time

	start := o.now()

	err := poll(ctx, o, func(ctx context.Context) error {
		alerts, err := o.Alerts.Firing(ctx)
		if err == nil && len(alerts) > 0 {
			err = errors.New(firing(alerts))
		}

		if now := o.now(); err != nil && o.Progress != nil && (said.IsZero() || now.Sub(said) >= orHeartbeat(o.Heartbeat)) {
			line := fmt.Sprintf("alerts %s: waiting up to %s (%v)", when, o.GateTimeout, err)
			if !said.IsZero() {
				line = fmt.Sprintf("alerts %s: still waiting, %s so far (%v)", when, now.Sub(start).Round(time.Second), err)
			}

			said = now

			o.Progress(Line(line))
		}

		return err
	})
	if err != nil {
		return fmt.Errorf("alerts held the rollout %s: %w", when, err)
	}

	return nil
}

// firing names the alerts: alertname{label="value", ...}, the first three and a count.
func firing(alerts []Alert) string {
	names := make([]string, 0, len(alerts))

	for _, a := range alerts {
		var labels []string

		for _, k := range slices.Sorted(maps.Keys(a.Labels)) {
			if k != "alertname" {
				labels = append(labels, fmt.Sprintf("%s=%q", k, a.Labels[k]))
			}
		}

		names = append(names, a.Labels["alertname"]+"{"+strings.Join(labels, ", ")+"}")
	}

	slices.Sort(names)

	if len(names) > 3 {
		names = append(names[:3], fmt.Sprintf("and %d more", len(names)-3))
	}

	return "firing: " + strings.Join(names, "; ")
}

// silenced holds the silences of a step's node until release is called: created now,
// renewed at half of SilenceFor, expired by release. An error creating one expires those
// created and says why: the node must not be touched.
func (o Options) silenced(ctx context.Context, s Step, say func(string)) (release func(), err error) {
	if o.Alerts == nil || !o.Silence || o.DryRun || !changes(s) {
		return func() {}, nil
	}

	for_ := o.silenceFor()
	sets := nodeSilences(s)
	ids := make([]string, 0, len(sets))

	var mu sync.Mutex

	expire := func() {
		mu.Lock()
		defer mu.Unlock()

		ectx, cancel := context.WithTimeout(context.WithoutCancel(ctx), o.callTimeout())
		defer cancel()

		for _, id := range ids {
			if err := o.Alerts.Expire(ectx, id); err != nil {
				say("the silence " + id + " could not be expired, it ends on its own within " + for_.String() + ": " + talos.OneLine(err))
			}
		}

		ids = nil
	}

	start := o.now()

	for _, m := range sets {
		id, err := o.Alerts.Silence(ctx, Silence{Matchers: m, StartsAt: start, EndsAt: start.Add(for_), Comment: o.SilenceComment})
		if err != nil {
			expire()

			return nil, fmt.Errorf("the Alertmanager silence of %s could not be created: %s", s.Node.Name, talos.OneLine(err))
		}

		ids = append(ids, id)
	}

	say("silenced in Alertmanager while it changes")

	done := make(chan struct{})

	var wg sync.WaitGroup

	wg.Go(func() {
		tick := time.NewTicker(for_ / 2)
		defer tick.Stop()

		for {
			select {
			case <-done:
				return
			case <-tick.C:
			}

			mu.Lock()
			o.extend(ctx, ids, sets, start, for_, say)
			mu.Unlock()
		}
	})

	return func() {
		close(done)
		wg.Wait()
		expire()
	}, nil
}

// extend moves the end of each silence for_ ahead, keeping the ID Alertmanager answers
// with; one that cannot be extended is said, and ends on its own.
func (o Options) extend(ctx context.Context, ids []string, sets [][]SilenceMatcher, start time.Time, for_ time.Duration, say func(string)) {
	for i, id := range ids {
		nid, err := o.Alerts.Silence(ctx, Silence{ID: id, Matchers: sets[i], StartsAt: start, EndsAt: o.now().Add(for_), Comment: o.SilenceComment})
		if err != nil {
			say("the silence could not be extended: " + talos.OneLine(err))

			continue
		}

		ids[i] = nid
	}
}

// silenceFor is SilenceFor, or DefaultSilenceFor when not set.
func (o Options) silenceFor() time.Duration {
	if o.SilenceFor <= 0 {
		return DefaultSilenceFor
	}

	return o.SilenceFor
}

// callTimeout is CallTimeout, or talos.DefaultTimeout when not set.
func (o Options) callTimeout() time.Duration {
	if o.CallTimeout <= 0 {
		return talos.DefaultTimeout
	}

	return o.CallTimeout
}
