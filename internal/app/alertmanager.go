package app

import (
	"context"
	"errors"

	"github.com/talops/talops/internal/alertmanager"
	"github.com/talops/talops/internal/cluster"
	"github.com/talops/talops/internal/rollout"
)

// alerts is the Alertmanager talops.yaml's alertmanager: section names, as the rollout
// consults it (nil: no section, or a dry run, which changes nothing to gate).
func alerts(d *Deps, c *cluster.Cluster, dryRun bool) (rollout.Alerts, bool, error) {
	a := c.Spec.Alertmanager
	if a == nil || dryRun {
		return nil, false, nil
	}

	if d.Alertmanager == nil {
		return nil, false, errors.New("talops.yaml's alertmanager: section names an Alertmanager, and none may be reached from here")
	}

	client, err := d.Alertmanager(a.URL, a.Matchers)
	if err != nil {
		return nil, false, err
	}

	return alertsOf{client}, a.Silence, nil
}

// alertsOf is the Alertmanager's API as the rollout asks it.
type alertsOf struct{ c *alertmanager.Client }

func (a alertsOf) Firing(ctx context.Context) ([]rollout.Alert, error) {
	got, err := a.c.Firing(ctx)
	if err != nil {
		return nil, err
	}

	out := make([]rollout.Alert, len(got))
	for i, al := range got {
		out[i] = rollout.Alert{Labels: al.Labels}
	}

	return out, nil
}

func (a alertsOf) Silence(ctx context.Context, s rollout.Silence) (string, error) {
	ms := make([]alertmanager.Matcher, len(s.Matchers))
	for i, m := range s.Matchers {
		ms[i] = alertmanager.Matcher{Name: m.Name, Value: m.Value, IsRegex: m.Regex, IsEqual: true}
	}

	return a.c.Silence(ctx, alertmanager.Silence{ID: s.ID, Matchers: ms, StartsAt: s.StartsAt, EndsAt: s.EndsAt, Comment: s.Comment})
}

func (a alertsOf) Expire(ctx context.Context, id string) error { return a.c.Expire(ctx, id) }
