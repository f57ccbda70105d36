package action_test

import (
	"context"
	"encoding/base64"
	"errors"
	"github.com/talops/talops/internal/applied"
	"github.com/talops/talops/internal/health"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/talops/talops/internal/action"
	"github.com/talops/talops/internal/app"
)

// kubeInputKey is the client key of the kubeconfig input: it must never be printed.
const kubeInputKey = "MHcCAQEEIActionKubeconfigInputKeyNeverPrinted0000"

// actionKube is a narrow fake of the lab's Kubernetes API: it records the lock and the
// drains, in order.
type actionKube struct {
	mu     sync.Mutex
	events []string
}

func (k *actionKube) add(event string) {
	k.mu.Lock()
	defer k.mu.Unlock()

	k.events = append(k.events, event)
}

func (k *actionKube) Drain(_ context.Context, node string, timeout time.Duration, _ func(string)) error {
	k.add("drain " + node + " within " + timeout.String())

	return nil
}

func (k *actionKube) Uncordon(_ context.Context, node string) error {
	k.add("uncordon " + node)

	return nil
}

func (k *actionKube) DeleteNode(_ context.Context, node string) error {
	k.add("delete " + node)

	return nil
}

func (k *actionKube) Nodes(context.Context) ([]string, error) { return labNodes, nil }

// InternalIPs has nothing to say: every lab node says its own name.
func (k *actionKube) InternalIPs(context.Context) (map[string][]string, error) { return nil, nil }

// HealthObjects finds no object: no test here has health checks.
func (k *actionKube) HealthObjects(context.Context, health.Check) ([]health.Object, error) {
	return nil, nil
}

// ReadProgress finds no earlier rollout; WriteProgress keeps nothing.
func (k *actionKube) ReadProgress(context.Context, string) (*applied.Progress, error) {
	return nil, nil
}

func (k *actionKube) WriteProgress(context.Context, string, applied.Progress) error { return nil }

func (k *actionKube) Lock(_ context.Context, cluster, holder string, _ func(error)) (func(context.Context) error, error) {
	k.add("lock " + cluster + " for " + withoutNonce(holder))

	return func(context.Context) error {
		k.add("release " + cluster)

		return nil
	}, nil
}

// nonceRe is a lock holder ending in its run's nonce.
var nonceRe = regexp.MustCompile(`^(.*) #[0-9a-f]{8}$`)

// withoutNonce is holder without the nonce every holder must end in (a holder without one
// is recorded as such, and fails the comparison).
func withoutNonce(holder string) string {
	if m := nonceRe.FindStringSubmatch(holder); m != nil {
		return m[1]
	}

	return holder + " (no nonce)"
}

func TestApply_TheKubeconfigInputLocksTheClusterForTheRunAndEachNodeIsAGroupOfTheLog(t *testing.T) {
	l := newApplyLab(t)
	l.review(t)

	kubeconfig := "apiVersion: v1\nkind: Config\nusers:\n- name: admin@homelab\n  user:\n    client-key-data: " + base64.StdEncoding.EncodeToString([]byte(kubeInputKey)) + "\n"

	r := l.runner(t, map[string]string{"kubeconfig": kubeconfig, "drain-timeout": "7m"})
	r.env["GITHUB_RUN_ID"], r.env["GITHUB_ACTOR"] = "42", "alice"
	r.deps.Now = func() time.Time { return time.Unix(0, 0) }

	k := &actionKube{}
	r.deps.Kube = func(data []byte) (app.Kube, error) {
		if string(data) != strings.TrimSpace(kubeconfig) {
			t.Errorf("the client was made from %q", data)
		}

		return k, nil
	}

	if err := action.Run(context.Background(), r.deps, []string{"apply"}); err != nil {
		t.Fatalf("apply: %v\n%s", err, r.stdout.String())
	}

	if want := "lock homelab for github-actions lab/infra run 42 (alice)\nrelease homelab"; strings.Join(k.events, "\n") != want {
		t.Errorf("Kubernetes calls:\n%s\nwant:\n%s", strings.Join(k.events, "\n"), want)
	}

	var want strings.Builder

	for i, name := range labNodes {
		prefix := "[" + string(rune('1'+i)) + "/5] " + name
		want.WriteString("::group::" + prefix + "\n" +
			prefix + ": sending its config (mode auto)\n" +
			prefix + ": waiting for its health gate\n" +
			prefix + ": applied after 0s\n" +
			"::endgroup::\n")
	}

	log := r.stdout.String()

	start, end := strings.Index(log, "::group::"), strings.LastIndex(log, "::endgroup::\n")
	if start < 0 || end < 0 || log[start:end+len("::endgroup::\n")] != want.String() {
		t.Errorf("the step's log:\n%s\nwant the progress grouped as:\n%s", log, want.String())
	}

	// The report comes after the last group, not inside it.
	if report := strings.Index(log, "Apply: homelab"); report >= 0 && report < end {
		t.Errorf("the report is inside a node's group:\n%s", log)
	}

	// The key reaches the runner's masking only, in ::add-mask:: commands.
	var printed, masked []string

	for _, line := range strings.Split(log+r.stderr.String()+r.file(t, "GITHUB_STEP_SUMMARY")+r.file(t, "GITHUB_OUTPUT"), "\n") {
		switch {
		case strings.HasPrefix(line, "::add-mask::"):
			masked = append(masked, strings.TrimPrefix(line, "::add-mask::"))
		case strings.Contains(line, kubeInputKey):
			printed = append(printed, line)
		}
	}

	if len(printed) > 0 || !slices.Contains(masked, kubeInputKey) {
		t.Errorf("the kubeconfig input's key was printed (%q) or not masked with the runner (%q)", printed, masked)
	}
}

func TestApply_ADrainTimeoutInputThatIsNoDurationIsAUsageError(t *testing.T) {
	l := newApplyLab(t)

	r := l.runner(t, map[string]string{"drain-timeout": "five minutes"})

	err := action.Run(context.Background(), r.deps, []string{"apply"})

	var usage *app.UsageError
	if !errors.As(err, &usage) || !strings.Contains(err.Error(), `input drain-timeout must be a positive duration (5m, 90s), got "five minutes"`) {
		t.Errorf("err %v", err)
	}

	if len(l.journal.Entries()) != 0 {
		t.Errorf("node calls: %q", l.journal.Entries())
	}
}
