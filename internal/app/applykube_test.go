package app

import (
	"context"
	"encoding/base64"
	"errors"
	"github.com/talops/talops/internal/applied"
	"github.com/talops/talops/internal/cluster"
	"github.com/talops/talops/internal/health"
	"io/fs"
	"strings"
	"testing"
	"time"

	"github.com/talops/talops/internal/kube"
	"github.com/talops/talops/internal/mask"
	"github.com/talops/talops/internal/plan"
	"github.com/talops/talops/internal/rollout"
	"github.com/talops/talops/internal/talos"
)

// clientKey is the key material of the test kubeconfig; it must never be printed.
const clientKey = "-----BEGIN EC PRIVATE KEY-----\nMHcCAQEEIBxm9k1secretsecretsecretsecretsecretAoGCCqGSM49\n-----END EC PRIVATE KEY-----\n"

var testKubeconfig = []byte("apiVersion: v1\nkind: Config\nclusters:\n- name: lab\n  cluster:\n    server: https://10.0.20.100:6443\nusers:\n- name: admin@lab\n  user:\n    client-certificate-data: Y2VydA==\n    client-key-data: " + base64.StdEncoding.EncodeToString([]byte(clientKey)) + "\n")

// fakeKube is a narrow fake of the cluster's Kubernetes API: Nodes fails with down, Lock
// with locked; calls lists what it was asked, in order.
type fakeKube struct {
	down, locked error
	calls        []string
	// addresses are the InternalIPs of its Nodes, by name.
	addresses map[string][]string
	// releaseCtx is the error of the context the lock was released with, when it was.
	releaseCtx error
	// lost is what Lock was told to call when the lock is lost.
	lost func(error)
}

func (k *fakeKube) Drain(_ context.Context, node string, _ time.Duration, _ func(string)) error {
	k.calls = append(k.calls, "drain "+node)

	return nil
}

func (k *fakeKube) Uncordon(_ context.Context, node string) error {
	k.calls = append(k.calls, "uncordon "+node)

	return nil
}

func (k *fakeKube) DeleteNode(_ context.Context, node string) error {
	k.calls = append(k.calls, "delete "+node)

	return nil
}

func (k *fakeKube) Nodes(context.Context) ([]string, error) {
	k.calls = append(k.calls, "nodes")

	return []string{"k8s-master"}, k.down
}

func (k *fakeKube) InternalIPs(context.Context) (map[string][]string, error) {
	k.calls = append(k.calls, "internal IPs")

	return k.addresses, k.down
}

// HealthObjects finds no object: no test here has health checks.
func (k *fakeKube) HealthObjects(context.Context, health.Check) ([]health.Object, error) {
	return nil, nil
}

// ReadProgress finds no earlier rollout; WriteProgress keeps nothing.
func (k *fakeKube) ReadProgress(context.Context, string) (*applied.Progress, error) { return nil, nil }

func (k *fakeKube) WriteProgress(context.Context, string, applied.Progress) error { return nil }

func (k *fakeKube) Lock(_ context.Context, cluster, holder string, lost func(error)) (func(context.Context) error, error) {
	k.calls = append(k.calls, "lock "+cluster+" for "+holder)
	k.lost = lost

	if k.locked != nil {
		return nil, k.locked
	}

	return func(ctx context.Context) error {
		k.calls = append(k.calls, "release "+cluster)
		k.releaseCtx = ctx.Err()

		return nil
	}, nil
}

// kubeconfigNodes is a narrow fake of control planes that give their admin kubeconfig
// over the Talos API, except those in down.
type kubeconfigNodes struct{ down map[string]bool }

func (d kubeconfigNodes) Dial(_ context.Context, address string) (talos.Node, error) {
	if d.down[address] {
		return nil, errors.New("connection refused")
	}

	return kubeconfigNode{}, nil
}

func (kubeconfigNodes) DialMaintenance(context.Context, string) (talos.Maintenance, error) {
	return nil, errors.New("no node is in maintenance mode")
}

type kubeconfigNode struct {
	talos.Node // any other call is a test failure (nil interface panics)
}

func (kubeconfigNode) Kubeconfig(context.Context) ([]byte, error) { return testKubeconfig, nil }
func (kubeconfigNode) Close() error                               { return nil }

// kubeDeps are Deps with a Kubernetes client k (given the kubeconfig it was made from),
// notes and masks recorded.
type kubeDeps struct {
	d     *Deps
	notes strings.Builder
	m     *mask.Masker
	given []byte
}

func newKubeDeps(k *fakeKube, env map[string]string) *kubeDeps {
	kd := &kubeDeps{}
	kd.d = &Deps{
		Outside: Outside{
			Getenv:   func(name string) string { return env[name] },
			Hostname: func() (string, error) { return "build-host", nil },
			Rand:     nonceReader{},
			ReadFile: func(name string) ([]byte, error) {
				if name == "kc.yaml" {
					return testKubeconfig, nil
				}

				return nil, fs.ErrNotExist
			},
			Kube: func(kubeconfig []byte) (Kube, error) {
				kd.given = kubeconfig

				return k, nil
			},
		},
		Note:   func(text string) { kd.notes.WriteString(text) },
		Mask:   func(values ...string) { kd.m = mask.New(append(kd.m.Values(), values...)...) },
		Masker: func() *mask.Masker { return kd.m },
	}

	return kd
}

func kubeStep(name string, role cluster.Role, action plan.Action) rollout.Step {
	return rollout.Step{Node: plan.Node{Name: name, Role: role, Action: action}, Address: name}
}

var runningCluster = []rollout.Step{kubeStep("k8s-master", "controlplane", plan.Update), kubeStep("k8s-node1", "worker", plan.Reboot)}

func TestApplyKube_WhenThereIsNoAPIToAskApplyGoesOnWithANote(t *testing.T) {
	tests := []struct {
		name     string
		k        *fakeKube
		noKube   bool
		opts     ApplyOptions
		dialer   kubeconfigNodes
		todo     []rollout.Step
		note     string
		asked    bool
		wantAPI  bool
		lockless string
	}{
		{
			name: "TheAdminKubeconfigOfARunningControlPlaneOpensTheAPI",
			k:    &fakeKube{}, todo: runningCluster, asked: true, wantAPI: true,
		},
		{
			name: "WithNoLockARunningClusterWhoseAPIDoesNotAnswerGoesOnAndIsRecorded",
			k:    &fakeKube{down: errors.New("dial tcp 10.0.20.100:6443: connect: connection refused")}, todo: runningCluster, asked: true, opts: ApplyOptions{NoLock: true},
			note:     "Kubernetes API not reachable yet: nodes are not drained and no apply lock is taken (dial tcp 10.0.20.100:6443: connect: connection refused); --no-lock goes on\n",
			lockless: "--no-lock: the Kubernetes API did not answer (dial tcp 10.0.20.100:6443: connect: connection refused)",
		},
		{
			name: "WithNoLockNoControlPlaneGivingItsKubeconfigGoesOn",
			k:    &fakeKube{}, todo: runningCluster, dialer: kubeconfigNodes{down: map[string]bool{"k8s-master": true}}, opts: ApplyOptions{NoLock: true},
			note:     "Kubernetes API not reachable yet: nodes are not drained and no apply lock is taken (no control plane gave its kubeconfig: k8s-master: connection refused); --no-lock goes on\n",
			lockless: "--no-lock: the Kubernetes API did not answer (no control plane gave its kubeconfig: k8s-master: connection refused)",
		},
		{
			name: "ANewClusterHasNoAPIYet",
			k:    &fakeKube{}, todo: []rollout.Step{kubeStep("k8s-master", "controlplane", plan.Create)},
			note: "Kubernetes API not reachable yet: nodes are not drained and no apply lock is taken (a new cluster)\n",
		},
		{
			name:   "NoClientToMakeOne",
			noKube: true, todo: runningCluster,
			note: "Kubernetes API not reachable yet: nodes are not drained and no apply lock is taken (no Kubernetes client)\n",
		},
		{
			name: "ADryRunNeedsNone",
			k:    &fakeKube{}, todo: runningCluster, opts: ApplyOptions{DryRun: true},
		},
		{
			name: "NothingToChangeNeedsNone",
			k:    &fakeKube{}, todo: []rollout.Step{kubeStep("k8s-master", "controlplane", plan.Noop), func() rollout.Step { s := kubeStep("k8s-node1", "worker", plan.Update); s.NotSelected = true; return s }()},
		},
	}

	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			kd := newKubeDeps(tt.k, nil)
			if tt.noKube {
				kd.d.Kube = nil
			}

			got, lockless, err := applyKube(context.Background(), kd.d, tt.opts, tt.dialer, tt.todo)
			if err != nil {
				t.Fatal(err)
			}

			if lockless != tt.lockless {
				t.Errorf("lockless %q, want %q", lockless, tt.lockless)
			}

			if (got != nil) != tt.wantAPI {
				t.Errorf("API %v, want one: %t", got, tt.wantAPI)
			}

			if kd.notes.String() != tt.note {
				t.Errorf("notes %q, want %q", kd.notes.String(), tt.note)
			}

			if (kd.given != nil) != tt.asked {
				t.Errorf("a client was made: %t, want %t", kd.given != nil, tt.asked)
			}
		})
	}
}

func TestApplyKube_KubeconfigKeyIsMaskedBeforeTheClientIsMade(t *testing.T) {
	for _, opts := range []ApplyOptions{{}, {Kubeconfig: "kc.yaml"}} {
		kd := newKubeDeps(&fakeKube{}, nil)

		if _, _, err := applyKube(context.Background(), kd.d, opts, kubeconfigNodes{}, runningCluster); err != nil {
			t.Fatal(err)
		}

		if string(kd.given) != string(testKubeconfig) {
			t.Errorf("--kubeconfig %q: the client was made from %q", opts.Kubeconfig, kd.given)
		}

		encoded := base64.StdEncoding.EncodeToString([]byte(clientKey))
		printed := kd.m.String("key " + encoded + " line MHcCAQEEIBxm9k1secretsecretsecretsecretsecretAoGCCqGSM49")

		if strings.Contains(printed, encoded) || strings.Contains(printed, "secretsecret") {
			t.Errorf("--kubeconfig %q: the key survives the masker: %q", opts.Kubeconfig, printed)
		}
	}
}

func TestApplyKube_AKubeconfigFileThatCannotBeReadRefuses(t *testing.T) {
	kd := newKubeDeps(&fakeKube{}, nil)

	_, _, err := applyKube(context.Background(), kd.d, ApplyOptions{Kubeconfig: "missing.yaml"}, kubeconfigNodes{}, runningCluster)

	var refused *RefusedError
	if !errors.As(err, &refused) || !errors.Is(err, fs.ErrNotExist) || !strings.Contains(err.Error(), "read missing.yaml") {
		t.Errorf("err %v, want a refusal naming the file", err)
	}
}

func TestLockApply_AnotherHolderRefusesTheApplyNamingItAndSinceWhen(t *testing.T) {
	since := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	k := &fakeKube{locked: &kube.LockedError{Cluster: "homelab", Holder: "github-actions lab/infra run 42 (alice)", Since: since, Expires: since.Add(time.Minute)}}
	kd := newKubeDeps(k, nil)

	release, _, err := lockApply(context.Background(), kd.d, k, "homelab")

	var (
		refused *RefusedError
		locked  *kube.LockedError
	)

	if release != nil || !errors.As(err, &refused) || !errors.As(err, &locked) {
		t.Fatalf("release %v, err %v: want a refusal wrapping the LockedError", release != nil, err)
	}

	want := "apply refused, no node was changed:\nanother apply of this cluster is running:\ncluster homelab is being applied by github-actions lab/infra run 42 (alice) since 2026-12-01T12:00:00Z"
	if !strings.HasPrefix(err.Error(), want) {
		t.Errorf("refusal:\n%s\nwant it to start with:\n%s", err, want)
	}
}

func TestLockApply_AFailingLockRefusesWithTheCause(t *testing.T) {
	cause := errors.New("leases.coordination.k8s.io is forbidden")
	k := &fakeKube{locked: cause}

	_, _, err := lockApply(context.Background(), newKubeDeps(k, nil).d, k, "homelab")

	var refused *RefusedError
	if !errors.As(err, &refused) || !errors.Is(err, cause) {
		t.Errorf("err %v, want a refusal wrapping the cause", err)
	}
}

func TestLockApply_ReleaseGivesTheLockBackEvenWhenTheApplyWasInterrupted(t *testing.T) {
	k := &fakeKube{}

	ctx, cancel := context.WithCancel(context.Background())

	release, _, err := lockApply(ctx, newKubeDeps(k, map[string]string{"USER": "alice"}).d, k, "homelab")
	if err != nil {
		t.Fatal(err)
	}

	cancel()
	release()

	want := []string{"lock homelab for alice@build-host #01020304", "release homelab"}
	if strings.Join(k.calls, "\n") != strings.Join(want, "\n") || k.releaseCtx != nil {
		t.Errorf("calls %q, release context %v; want %q on a live context", k.calls, k.releaseCtx, want)
	}
}

func TestHolder_NamesTheWorkflowRunOrTheUserAndHost(t *testing.T) {
	tests := []struct {
		name     string
		env      map[string]string
		hostname func() (string, error)
		want     string
	}{
		{
			name: "GitHubActionsNamesTheRepositoryRunAndActor",
			env:  map[string]string{"GITHUB_ACTIONS": "true", "GITHUB_REPOSITORY": "lab/infra", "GITHUB_RUN_ID": "42", "GITHUB_ACTOR": "alice", "USER": "runner"},
			want: "github-actions lab/infra run 42 (alice)",
		},
		{
			name: "ALaptopNamesTheUserAndHost",
			env:  map[string]string{"USER": "bob"},
			want: "bob@build-host",
		},
		{
			name:     "AnUnknownHostIsSaidSo",
			env:      map[string]string{"LOGNAME": "carol"},
			hostname: func() (string, error) { return "", errors.New("no hostname") },
			want:     "carol@unknown",
		},
	}

	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := newKubeDeps(&fakeKube{}, tt.env).d
			if tt.hostname != nil {
				d.Hostname = tt.hostname
			}

			if got, err := holder(d); err != nil || got != tt.want+" #01020304" {
				t.Errorf("holder %q, %v; want %q and the nonce", got, err, tt.want)
			}
		})
	}
}

// nonceReader reads 1, 2, 3, 4 and on: every nonce of a test is 01020304.
type nonceReader struct{}

func (nonceReader) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = byte(i + 1)
	}

	return len(p), nil
}

func TestApplyKube_ARunningClusterWhoseAPIDoesNotAnswerIsRefused(t *testing.T) {
	for _, tt := range []struct {
		name   string
		k      *fakeKube
		dialer kubeconfigNodes
		why    string
	}{
		{"TheAPIDoesNotAnswer", &fakeKube{down: errors.New("dial tcp 10.0.20.100:6443: connect: connection refused")}, kubeconfigNodes{}, "dial tcp 10.0.20.100:6443: connect: connection refused"},
		{"NoControlPlaneGivesItsKubeconfig", &fakeKube{}, kubeconfigNodes{down: map[string]bool{"k8s-master": true}}, "no control plane gave its kubeconfig: k8s-master: connection refused"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			kd := newKubeDeps(tt.k, nil)

			got, _, err := applyKube(context.Background(), kd.d, ApplyOptions{}, tt.dialer, runningCluster)

			var refused *RefusedError
			if got != nil || !errors.As(err, &refused) {
				t.Fatalf("API %v, err %v: want a refusal", got, err)
			}

			for _, want := range []string{"does not answer (" + tt.why + ")", "apply --no-lock goes on without the lock"} {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("refusal %q lacks %q", err, want)
				}
			}
		})
	}
}

func TestHolder_TwoRunsOfOneUserOnOneHostAreTwoHolders(t *testing.T) {
	d := newKubeDeps(&fakeKube{}, map[string]string{"USER": "bob"}).d
	d.Rand = nil // crypto/rand, as a real run

	a, errA := holder(d)
	b, errB := holder(d)

	if errA != nil || errB != nil || a == b || !strings.HasPrefix(a, "bob@build-host #") {
		t.Errorf("holders %q and %q (%v, %v): want two of bob@build-host", a, b, errA, errB)
	}
}

func TestLockApply_ALostLockIsToldOnceAndSaidInANote(t *testing.T) {
	k := &fakeKube{}
	kd := newKubeDeps(k, nil)

	release, lost, err := lockApply(context.Background(), kd.d, k, "homelab")
	if err != nil {
		t.Fatal(err)
	}
	defer release()

	if lost() != nil {
		t.Fatal("a held lock reads as lost")
	}

	k.lost(errors.New("the apply lock of cluster homelab could not be renewed since 2026-12-01T12:00:00Z"))

	if err := lost(); err == nil || !strings.Contains(err.Error(), "could not be renewed") {
		t.Errorf("lost() = %v", err)
	}

	if !strings.Contains(kd.notes.String(), "the apply lock of homelab was lost (the apply lock of cluster homelab could not be renewed since 2026-12-01T12:00:00Z): the apply stops at its next safe point") {
		t.Errorf("notes %q", kd.notes.String())
	}
}
