package app

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/siderolabs/talos/pkg/machinery/config/configloader"

	"github.com/talops/talops/internal/kube"
	"github.com/talops/talops/internal/plan"
	"github.com/talops/talops/internal/rollout"
)

func TestUpgradeKubernetes_RefusesBeforeReachingAnyNode(t *testing.T) {
	upgrade := func(refused ...string) *plan.Plan {
		return &plan.Plan{Kubernetes: &plan.KubernetesUpgrade{From: "v1.35.2", To: "v1.36.4", Refused: refused, Steps: []plan.KubernetesStep{{Component: plan.K8sPreflight, Nodes: []string{"cp-1"}}}}}
	}

	api := func(context.Context, func(context.Context) ([]byte, error)) (KubernetesAPI, error) {
		return nil, errors.New("not reached")
	}

	for _, tc := range []struct {
		name string
		p    *plan.Plan
		opts ApplyOptions
		d    *Deps
		want string
	}{
		{"PlannedRefusal", upgrade("node cp-1 runs Talos v1.11.5, which does not support Kubernetes v1.36.4"), ApplyOptions{}, &Deps{KubernetesAPI: api}, "node cp-1 runs Talos v1.11.5"},
		{"SomeNodesOnly", upgrade(), ApplyOptions{Nodes: []string{"cp-1"}}, &Deps{KubernetesAPI: api}, "apply it without --nodes"},
		{"NoKubernetesAPI", upgrade(), ApplyOptions{}, &Deps{}, "no Kubernetes API may be reached"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// A nil dialer: any attempt to reach a node panics the test.
			_, err := upgradeKubernetes(context.Background(), tc.d, tc.opts, tc.p, &planned{}, nil, nil, nil, nil)

			var refused *RefusedError
			if !errors.As(err, &refused) || !strings.Contains(strings.Join(refused.Reasons, "; "), tc.want) {
				t.Errorf("err = %v, want a refusal saying %q", err, tc.want)
			}
		})
	}
}

func TestUpgradeKubernetes_PlanWithoutOneLeavesTheStepsAsTheyAre(t *testing.T) {
	steps := []rollout.Step{{Node: plan.Node{Name: "cp-1", Action: plan.Update}}}

	got, err := upgradeKubernetes(context.Background(), &Deps{}, ApplyOptions{}, &plan.Plan{}, &planned{}, steps, nil, nil, nil)
	if err != nil || len(got) != 1 || got[0].Node.Action != plan.Update {
		t.Errorf("steps %+v, %v", got, err)
	}
}

func TestEveryNodeAtLeast113_DecidesTheServerSideApply(t *testing.T) {
	cfg := &planned{current: plan.State{TalosVersion: "v1.13.9", Nodes: []plan.NodeState{{Name: "a"}, {Name: "b"}}}}

	running, err := configloader.NewFromBytes([]byte("version: v1alpha1\nmachine:\n  type: worker\n"))
	if err != nil {
		t.Fatal(err)
	}

	for _, tc := range []struct {
		name     string
		versions []string
		want     bool
	}{
		{"AllOn113", []string{"", "v1.14.1"}, true},
		{"OneOn112", []string{"v1.12.9", ""}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st := *cfg
			st.current.Nodes = nil

			for i, v := range tc.versions {
				st.current.Nodes = append(st.current.Nodes, plan.NodeState{Name: cfg.current.Nodes[i].Name, TalosVersion: v, Config: running})
			}

			if got := everyNodeAtLeast113(&st); got != tc.want {
				t.Errorf("everyNodeAtLeast113 = %v, want %v", got, tc.want)
			}
		})
	}
}

// A Kubernetes upgrade stops for a lock another apply took, not for one that lapsed while
// the API server it upgrades restarted.
func TestTakenOver_StopsForATakeoverNotForALapse(t *testing.T) {
	lapsed := &kube.LapsedError{Err: errors.New("could not be renewed")}
	taken := errors.New("the apply lock of cluster lab was taken over by laptop while held")

	for _, tc := range []struct {
		name string
		lost error
		want error
	}{
		{"held", nil, nil},
		{"lapsed", lapsed, nil},
		{"taken over", taken, taken},
	} {
		if got := takenOver(func() error { return tc.lost })(); !errors.Is(got, tc.want) || (got == nil) != (tc.want == nil) {
			t.Errorf("%s: stop = %v, want %v", tc.name, got, tc.want)
		}
	}

	if takenOver(nil) != nil {
		t.Error("no stop given, one made")
	}
}
