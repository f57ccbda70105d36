//go:build realkube

package kube_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	"github.com/talops/talops/internal/kube"
)

// realKube starts the real kube-apiserver and etcd the realkube scripts build, with the
// alpha scheduling API that Kubernetes 1.37 removes served, so that a test can hold objects
// of a removed API.
func realKube(t *testing.T) *rest.Config {
	t.Helper()

	assets := os.Getenv("KUBEBUILDER_ASSETS")
	if assets == "" {
		work := os.Getenv("REALKUBE_WORK")
		if work == "" {
			work = "/tmp/realkube"
		}

		assets = filepath.Join(work, "bin")
	}

	if _, err := os.Stat(filepath.Join(assets, "kube-apiserver")); err != nil {
		t.Fatalf("no kube-apiserver in %s: run bash /work/shared/realkube/build.sh all (or set KUBEBUILDER_ASSETS)", assets)
	}

	env := &envtest.Environment{BinaryAssetsDirectory: assets}
	env.ControlPlane.GetAPIServer().Configure().
		Append("runtime-config", "scheduling.k8s.io/v1alpha2=true").
		Append("feature-gates", "GenericWorkload=true")

	cfg, err := env.Start()
	if err != nil {
		t.Fatalf("start kube-apiserver: %v", err)
	}

	t.Cleanup(func() {
		if err := env.Stop(); err != nil {
			t.Errorf("stop kube-apiserver: %v", err)
		}
	})

	return cfg
}

func TestUpgrade_AgainstARealAPIServer(t *testing.T) {
	cfg := realKube(t)
	cs := kubernetes.NewForConfigOrDie(cfg)

	kc, err := kube.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}

	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()

	t.Run("KubeletVersionIsWhatTheNodeReports", func(t *testing.T) {
		node, err := cs.CoreV1().Nodes().Create(ctx, &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "cp-1"}}, metav1.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}

		// No kubelet: write the status it would.
		node.Status.NodeInfo.KubeletVersion = "v1.36.2"
		node.Status.Conditions = []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionFalse, LastHeartbeatTime: metav1.Now(), LastTransitionTime: metav1.Now()}}

		if node, err = cs.CoreV1().Nodes().UpdateStatus(ctx, node, metav1.UpdateOptions{}); err != nil {
			t.Fatal(err)
		}

		if v, ready, err := kc.KubeletVersion(ctx, "cp-1"); err != nil || v != "v1.36.2" || ready {
			t.Fatalf("KubeletVersion = %q ready %v, %v; want v1.36.2, not ready", v, ready, err)
		}

		node.Status.Conditions[0].Status = corev1.ConditionTrue
		if _, err = cs.CoreV1().Nodes().UpdateStatus(ctx, node, metav1.UpdateOptions{}); err != nil {
			t.Fatal(err)
		}

		if _, ready, err := kc.KubeletVersion(ctx, "cp-1"); err != nil || !ready {
			t.Fatalf("a Ready Node reads not ready (%v)", err)
		}

		if _, _, err := kc.KubeletVersion(ctx, "nowhere"); err == nil || !strings.Contains(err.Error(), "nowhere") {
			t.Errorf("a missing Node: err = %v", err)
		}
	})

	t.Run("RemovedAPIWithObjectsIsListed", func(t *testing.T) {
		if got, err := kube.RemovedAPIsInUse(ctx, cfg, "v1.36.2", "v1.37.0"); err != nil || len(got) != 0 {
			t.Fatalf("before any object: %q, %v", got, err)
		}

		workloads := schema.GroupVersionResource{Group: "scheduling.k8s.io", Version: "v1alpha2", Resource: "workloads"}
		w := &unstructured.Unstructured{Object: map[string]any{
			"apiVersion": "scheduling.k8s.io/v1alpha2", "kind": "Workload",
			"metadata": map[string]any{"name": "training", "namespace": "default"},
			"spec": map[string]any{"podGroupTemplates": []any{map[string]any{
				"name": "workers", "schedulingPolicy": map[string]any{"basic": map[string]any{}},
			}}},
		}}

		if _, err := dynamic.NewForConfigOrDie(cfg).Resource(workloads).Namespace("default").Create(ctx, w, metav1.CreateOptions{}); err != nil {
			t.Fatalf("create a Workload: %v", err)
		}

		got, err := kube.RemovedAPIsInUse(ctx, cfg, "v1.36.2", "v1.37.0")
		if err != nil {
			t.Fatal(err)
		}

		if strings.Join(got, ";") != "workloads.v1alpha2.scheduling.k8s.io: 1 object" {
			t.Errorf("removed APIs in use = %q", got)
		}

		// A patch move removes nothing.
		if got, err := kube.RemovedAPIsInUse(ctx, cfg, "v1.36.2", "v1.36.4"); err != nil || len(got) != 0 {
			t.Errorf("1.36.2 → 1.36.4: %q, %v", got, err)
		}
	})

	t.Run("ManifestsAreAppliedAndADryRunChangesNothing", func(t *testing.T) {
		cm := &unstructured.Unstructured{Object: map[string]any{
			"apiVersion": "v1", "kind": "ConfigMap",
			"metadata": map[string]any{"name": "coredns", "namespace": "kube-system"},
			"data":     map[string]any{"Corefile": ".:53 { forward . /etc/resolv.conf }"},
		}}

		var log []string

		if err := kube.SyncManifests(ctx, cfg, []*unstructured.Unstructured{cm.DeepCopy()}, true, func(l string) { log = append(log, l) }); err != nil {
			t.Fatal(err)
		}

		if _, err := cs.CoreV1().ConfigMaps("kube-system").Get(ctx, "coredns", metav1.GetOptions{}); err == nil {
			t.Fatal("a dry run created the ConfigMap")
		}

		if err := kube.SyncManifests(ctx, cfg, []*unstructured.Unstructured{cm.DeepCopy()}, false, func(l string) { log = append(log, l) }); err != nil {
			t.Fatal(err)
		}

		got, err := cs.CoreV1().ConfigMaps("kube-system").Get(ctx, "coredns", metav1.GetOptions{})
		if err != nil || got.Data["Corefile"] != ".:53 { forward . /etc/resolv.conf }" {
			t.Fatalf("ConfigMap after the sync: %v, %v", got, err)
		}

		if !strings.Contains(strings.Join(log, "\n"), "coredns") {
			t.Errorf("the log names no manifest:\n%s", strings.Join(log, "\n"))
		}
	})

	t.Run("ManifestsByServerSideApplyUnderTalosInventory", func(t *testing.T) {
		cm := &unstructured.Unstructured{Object: map[string]any{
			"apiVersion": "v1", "kind": "ConfigMap",
			"metadata": map[string]any{"name": "kube-proxy", "namespace": "kube-system"},
			"data":     map[string]any{"mode": "iptables"},
		}}

		var log []string

		say := func(l string) { log = append(log, l) }

		if err := kube.SyncManifestsSSA(ctx, cfg, []*unstructured.Unstructured{cm.DeepCopy()}, true, 30*time.Second, say); err != nil {
			t.Fatal(err)
		}

		if _, err := cs.CoreV1().ConfigMaps("kube-system").Get(ctx, "kube-proxy", metav1.GetOptions{}); err == nil {
			t.Fatal("a dry run created the ConfigMap")
		}

		if err := kube.SyncManifestsSSA(ctx, cfg, []*unstructured.Unstructured{cm.DeepCopy()}, false, 30*time.Second, say); err != nil {
			t.Fatal(err)
		}

		got, err := cs.CoreV1().ConfigMaps("kube-system").Get(ctx, "kube-proxy", metav1.GetOptions{})
		if err != nil || got.Data["mode"] != "iptables" {
			t.Fatalf("ConfigMap after the sync: %v, %v", got, err)
		}

		managers := []string{}
		for _, f := range got.ManagedFields {
			managers = append(managers, f.Manager+"/"+string(f.Operation))
		}

		if !slices.Contains(managers, "talos/Apply") {
			t.Errorf("field managers %q, want talos by server-side apply", managers)
		}

		if _, err := cs.CoreV1().ConfigMaps("kube-system").Get(ctx, "talos-bootstrap-manifests-inventory", metav1.GetOptions{}); err != nil {
			t.Errorf("no Talos inventory after the sync: %v", err)
		}
	})

	t.Run("ServerSideApplyAgainChangesNothingAndTheInventoryListsWhatItApplied", func(t *testing.T) {
		manifests := func() []*unstructured.Unstructured {
			return []*unstructured.Unstructured{
				{Object: map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "metadata": map[string]any{"name": "addon", "namespace": "addons"}, "data": map[string]any{"k": "v"}}},
				{Object: map[string]any{"apiVersion": "v1", "kind": "Namespace", "metadata": map[string]any{"name": "addons"}}},
				{Object: map[string]any{"apiVersion": "v1", "kind": "Secret", "metadata": map[string]any{"name": "bootstrap-token-abcdef", "namespace": "kube-system"}, "stringData": map[string]any{"token-secret": "0123456789abcdef"}}},
			}
		}

		var log []string

		say := func(l string) { log = append(log, l) }

		// The namespace comes after what is in it: the sync applies it first.
		if err := kube.SyncManifestsSSA(ctx, cfg, manifests(), false, 30*time.Second, say); err != nil {
			t.Fatal(err)
		}

		first := strings.Join(log, "\n")
		for _, want := range []string{" < created Namespace/addons", " < created ConfigMap/addons/addon", " < created Secret/kube-system/bootstrap-token-abcdef", "done"} {
			if !strings.Contains(first, want) {
				t.Errorf("first sync's log has no %q:\n%s", want, first)
			}
		}

		log = nil

		if err := kube.SyncManifestsSSA(ctx, cfg, manifests(), false, 30*time.Second, say); err != nil {
			t.Fatal(err)
		}

		second := strings.Join(log, "\n")
		for _, want := range []string{" > skipped Namespace/addons: no changes", " > skipped ConfigMap/addons/addon: no changes"} {
			if !strings.Contains(second, want) {
				t.Errorf("second sync's log has no %q:\n%s", want, second)
			}
		}

		if strings.Contains(first+second, "0123456789abcdef") {
			t.Errorf("the log shows the Secret's value:\n%s\n%s", first, second)
		}

		inv, err := cs.CoreV1().ConfigMaps("kube-system").Get(ctx, "talos-bootstrap-manifests-inventory", metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}

		for _, key := range []string{"addons_addon__ConfigMap", "_addons__Namespace", "kube-system_kube-proxy__ConfigMap", "kube-system_bootstrap-token-abcdef__Secret"} {
			if _, ok := inv.Data[key]; !ok {
				t.Errorf("inventory %v: no %q", inv.Data, key)
			}
		}

		cm, err := cs.CoreV1().ConfigMaps("addons").Get(ctx, "addon", metav1.GetOptions{})
		if err != nil || cm.Annotations["config.k8s.io/owning-inventory"] != "talos-bootstrap-manifests-inventory" {
			t.Errorf("the applied ConfigMap's annotations: %v, %v", cm.Annotations, err)
		}
	})

	t.Run("AnObjectAnotherInventoryOwnsIsRefused", func(t *testing.T) {
		theirs := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{
			Name: "flannel", Namespace: "kube-system",
			Annotations: map[string]string{"config.k8s.io/owning-inventory": "someone-else"},
		}, Data: map[string]string{"net": "10.244.0.0/16"}}
		if _, err := cs.CoreV1().ConfigMaps("kube-system").Create(ctx, theirs, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}

		ours := &unstructured.Unstructured{Object: map[string]any{
			"apiVersion": "v1", "kind": "ConfigMap",
			"metadata": map[string]any{"name": "flannel", "namespace": "kube-system"},
			"data":     map[string]any{"net": "10.200.0.0/16"},
		}}

		err := kube.SyncManifestsSSA(ctx, cfg, []*unstructured.Unstructured{ours}, false, 30*time.Second, func(string) {})
		if err == nil || !strings.Contains(err.Error(), "someone-else") {
			t.Errorf("sync over another inventory's object = %v, want a refusal naming it", err)
		}

		got, _ := cs.CoreV1().ConfigMaps("kube-system").Get(ctx, "flannel", metav1.GetOptions{})
		if got.Data["net"] != "10.244.0.0/16" {
			t.Errorf("the other inventory's ConfigMap was changed: %v", got.Data)
		}
	})

}
