package cli_test

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
)

// --no-drain widens what the reviewed plan said: with its hash, and no drain: false in the
// reviewed talops.yaml, apply refuses before the lock, a drain or a node call.
func TestApply_NoDrainTheReviewedPlanDidNotDeclareIsRefusedWithNoNodeTouched(t *testing.T) {
	l := newApplyLab(t, nil, nil)
	addMotd(l)

	k := &labKube{l: l}
	kubeconfig := withKube(t, l, k)

	refused(t, l, "talops: --no-drain: the reviewed plan did not allow rebooting and upgrading nodes without a drain: declare apply.drain: false in talops.yaml and have it reviewed\n",
		"--kubeconfig", kubeconfig, "--plan-hash", l.planHash(t), "--no-drain")

	if len(k.events) != 0 {
		t.Errorf("Kubernetes calls %q", k.events)
	}
}

// The same --no-drain passes once the reviewed talops.yaml declares it: the node reboots
// without a drain, and the report records the option as given and declared.
func TestApply_NoDrainDeclaredInTheReviewedTalopsYAMLRebootsWithoutADrain(t *testing.T) {
	l := newApplyLab(t, map[string]string{"USER": "alice"}, nil)
	addMotd(l)
	l.files["talops.yaml"] = append(l.files["talops.yaml"], []byte("apply:\n  drain: false\n")...)

	k := &labKube{l: l}
	kubeconfig := withKube(t, l, k)

	if err := l.apply("--kubeconfig", kubeconfig, "--plan-hash", l.planHash(t), "--no-drain", "--format", "json"); err != nil {
		t.Fatalf("apply: %v\n%s", err, l.h.stderr.String())
	}

	want := []string{"lock homelab for alice@build-host", "release homelab after 1 node calls"}
	if !slices.Equal(k.events, want) || l.nodes["k8s-node4"].Boots() != 1 {
		t.Errorf("Kubernetes calls %q, boots %d", k.events, l.nodes["k8s-node4"].Boots())
	}

	var r struct {
		Options []struct {
			Flag, Key       string
			Given, Declared bool
		}
	}
	if err := json.Unmarshal(l.h.stdout.Bytes(), &r); err != nil {
		t.Fatal(err)
	}

	if len(r.Options) != 1 || r.Options[0].Flag != "--no-drain" || r.Options[0].Key != "drain: false" || !r.Options[0].Given || !r.Options[0].Declared {
		t.Errorf("options recorded: %+v", r.Options)
	}
}

// Without a reviewed plan nothing was reviewed to widen: --no-drain works as before, and
// the report says it was given and not declared.
func TestApply_NoDrainWithoutAReviewedPlanIsRecorded(t *testing.T) {
	l := newApplyLab(t, map[string]string{"USER": "alice"}, nil)
	addMotd(l)

	k := &labKube{l: l}

	if err := l.apply("--kubeconfig", withKube(t, l, k), "--no-drain", "--nodes", "k8s-node4"); err != nil {
		t.Fatalf("apply: %v\n%s", err, l.h.stderr.String())
	}

	for _, line := range []string{"option --no-drain: given, not declared in talops.yaml (no reviewed plan was enforced)\n", "option --nodes k8s-node4: given\n"} {
		if !strings.Contains(l.h.stdout.String(), line) {
			t.Errorf("report lacks %q:\n%s", line, l.h.stdout.String())
		}
	}
}
