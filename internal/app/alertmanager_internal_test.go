package app

import (
	"net/http"
	"testing"

	"github.com/talops/talops/internal/alertmanager"
	"github.com/talops/talops/internal/cluster"
)

func TestAlerts_ASectionNoAlertmanagerCanBeReachedFromIsRefusedUnlessNothingChanges(t *testing.T) {
	c := &cluster.Cluster{Spec: cluster.Spec{Alertmanager: &cluster.Alertmanager{URL: "http://am:9093", Silence: true}}}

	if _, _, err := alerts(&Deps{}, c, false); err == nil {
		t.Error("an Alertmanager none may be reached from is not refused")
	}

	if a, _, err := alerts(&Deps{}, c, true); a != nil || err != nil {
		t.Errorf("a run that changes nothing: %v, %v; want no Alertmanager asked", a, err)
	}

	d := &Deps{Outside: Outside{Alertmanager: func(u string, m []string) (*alertmanager.Client, error) {
		return alertmanager.New(u, m, http.DefaultClient)
	}}}

	if a, silence, err := alerts(d, c, false); a == nil || !silence || err != nil {
		t.Errorf("alerts %v, silence %v, err %v: want the Alertmanager, silencing", a, silence, err)
	}

	if a, _, err := alerts(d, &cluster.Cluster{}, false); a != nil || err != nil {
		t.Errorf("no section: %v, %v; want none", a, err)
	}
}
