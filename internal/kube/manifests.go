package kube

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"syscall"
	"time"

	"github.com/siderolabs/go-retry/retry"
	"github.com/siderolabs/talos/pkg/machinery/textdiff"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/yaml"
)

// The bootstrap manifests' sync is talops' own over the dynamic client, the one talosctl
// upgrade-k8s runs (go-kubernetes' manifests and ssa packages) without what those link for
// it: kubectl, cli-runtime, kustomize, controller-runtime and fluxcd's ssa (docs/performance.md
// weighs them). It keeps their requests, field manager, inventory and log lines; a Secret's
// values never reach a diff.

// manifestsClient is the connection of one sync: the dynamic client and the mapper, over
// one HTTP client.
type manifestsClient struct{ *api }

func newManifestsClient(cfg *rest.Config) (*manifestsClient, error) {
	a, err := newAPI(cfg)
	if err != nil {
		return nil, err
	}

	return &manifestsClient{a}, nil
}

// resource is the client of the object's resource, mapped from its own apiVersion and
// kind by what the cluster serves; a namespaced one in the object's namespace.
func (m *manifestsClient) resource(ctx context.Context, obj *unstructured.Unstructured) (dynamic.ResourceInterface, error) {
	mapping, err := m.mapper.mapping(ctx, obj.GroupVersionKind())
	if err != nil {
		return nil, fmt.Errorf("map %s: %w", manifestPath(obj), err)
	}

	if mapping.namespaced {
		return m.dyn.Resource(mapping.resource).Namespace(obj.GetNamespace()), nil
	}

	return m.dyn.Resource(mapping.resource), nil
}

// SyncManifests applies the bootstrap manifests (kube-proxy, CoreDNS, the CNI…) to the
// cluster as talosctl upgrade-k8s does for releases before server-side apply inventories
// (go-kubernetes' manifests.SyncWithLog): each object created, or updated when a dry-run
// update differs from it; then it waits for the Deployments and DaemonSets it changed to
// roll out. With dryRun it only logs the diffs. log gets one line per step.
func SyncManifests(ctx context.Context, cfg *rest.Config, objects []*unstructured.Unstructured, dryRun bool, log func(string)) error {
	if err := syncManifests(ctx, cfg, objects, dryRun, log); err != nil {
		return fmt.Errorf("sync the bootstrap manifests: %w", err)
	}

	return nil
}

func syncManifests(ctx context.Context, cfg *rest.Config, objects []*unstructured.Unstructured, dryRun bool, log func(string)) error {
	m, err := newManifestsClient(cfg)
	if err != nil {
		return err
	}
	defer m.close()

	log("updating manifests")

	var updated []*unstructured.Unstructured

	for _, obj := range objects {
		diff, changed, err := m.updateRetrying(ctx, obj, dryRun)
		if err != nil {
			return err
		}

		log(" > processing manifest " + manifestPath(obj))

		switch {
		case !changed:
			log(" < no changes")
		case dryRun:
			log(diff)
			log(" < dry run, change skipped")
		default:
			log(diff)
			log(" < applied successfully")

			updated = append(updated, obj)
		}
	}

	if dryRun {
		return nil
	}

	log("waiting for all manifests to be applied")

	return m.waitRollouts(ctx, updated, log)
}

// updateRetrying is update retried for up to 3 minutes while the API server is
// unavailable or the object changes under it, as talosctl does.
func (m *manifestsClient) updateRetrying(ctx context.Context, obj *unstructured.Unstructured, dryRun bool) (diff string, changed bool, err error) {
	err = retry.Constant(3*time.Minute, retry.WithUnits(10*time.Second)).RetryWithContext(ctx, func(ctx context.Context) error {
		var err error

		diff, changed, err = m.update(ctx, obj, dryRun)
		if retryable(err) || apierrors.IsConflict(err) {
			return retry.ExpectedError(err)
		}

		return err
	})

	return diff, changed, err
}

// waitRollouts waits, one at a time, for the updated Deployments and DaemonSets to roll
// out; the other objects need no wait.
func (m *manifestsClient) waitRollouts(ctx context.Context, updated []*unstructured.Unstructured, log func(string)) error {
	for _, obj := range updated {
		gk := obj.GroupVersionKind().GroupKind()
		if gk.Group != "apps" || (gk.Kind != "Deployment" && gk.Kind != "DaemonSet") {
			continue
		}

		log(" > waiting for " + manifestPath(obj))

		// talosctl's waits: 3 minutes for a Deployment, 5 for a DaemonSet.
		wait := 3 * time.Minute
		if gk.Kind == "DaemonSet" {
			wait = 5 * time.Minute
		}

		if err := m.waitAllReady(ctx, []*unstructured.Unstructured{obj}, wait, 10*time.Second); err != nil {
			return err
		}
	}

	return nil
}

// update creates the object, or updates it when a dry-run update of it differs from what
// the cluster has (go-kubernetes' updateManifest); it returns the diff and whether the
// object differed.
func (m *manifestsClient) update(ctx context.Context, obj *unstructured.Unstructured, dryRun bool) (string, bool, error) {
	r, err := m.resource(ctx, obj)
	if err != nil {
		return "", false, err
	}

	current, err := r.Get(ctx, obj.GetName(), metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		diff, err := manifestDiff(nil, obj)
		if err != nil || dryRun {
			return diff, true, err
		}

		_, err = r.Create(ctx, obj, metav1.CreateOptions{})

		return diff, true, err
	}

	if err != nil {
		return "", false, err
	}

	obj.SetResourceVersion(current.GetResourceVersion())

	would, err := r.Update(ctx, obj, metav1.UpdateOptions{DryRun: []string{metav1.DryRunAll}})
	if err != nil {
		return "", false, err
	}

	for _, o := range []*unstructured.Unstructured{current, would} {
		forUpdateDiff(o)
	}

	diff, err := manifestDiff(current, would)
	if err != nil || diff == "" || dryRun {
		return diff, diff != "", err
	}

	_, err = r.Update(ctx, obj, metav1.UpdateOptions{})

	return diff, true, err
}

// forUpdateDiff drops what the server writes itself, so the diff of an update shows only
// what the manifest changes (go-kubernetes' getResourceDiff).
func forUpdateDiff(o *unstructured.Unstructured) {
	for _, key := range []string{"uid", "resourceVersion", "generation", "creationTimestamp", "deletionTimestamp", "deletionGracePeriodSeconds", "managedFields", "finalizers", "selfLink", "ownerReferences"} {
		unstructured.RemoveNestedField(o.Object, "metadata", key)
	}

	if a := o.GetAnnotations(); a != nil {
		for k := range a {
			if strings.Contains(k, "kubernetes.io/") {
				delete(a, k)
			}
		}

		if len(a) == 0 {
			a = nil
		}

		o.SetAnnotations(a)
	}

	if o.GetKind() == "ServiceAccount" {
		unstructured.RemoveNestedField(o.Object, "secrets")
	}
}

// manifestPath names an object as talosctl's sync logs it: "apps/v1.Deployment/kube-system/coredns".
func manifestPath(obj *unstructured.Unstructured) string {
	gvk := obj.GroupVersionKind()

	gv := gvk.Version
	if gv == "" {
		gv = "v1"
	}

	if gvk.Group != "" {
		gv = gvk.Group + "/" + gv
	}

	name := obj.GetName()
	if ns := obj.GetNamespace(); ns != "" {
		name = ns + "/" + name
	}

	return gv + "." + gvk.Kind + "/" + name
}

// manifestDiff is the unified diff of two versions of an object as YAML ("" when equal);
// either may be nil. A Secret's values are masked: the diff is printed.
func manifestDiff(a, b *unstructured.Unstructured) (string, error) {
	var (
		ya, yb []byte
		path   string
	)

	for _, side := range []struct {
		obj, before *unstructured.Unstructured
		out         *[]byte
	}{{a, nil, &ya}, {b, a, &yb}} {
		if side.obj == nil {
			continue
		}

		path = manifestPath(side.obj)

		out, err := yaml.Marshal(masked(side.obj, side.before).Object)
		if err != nil {
			return "", fmt.Errorf("encode %s: %w", path, err)
		}

		*side.out = out
	}

	return textdiff.DiffWithCustomPaths(string(ya), string(yb), "a/"+path, "b/"+path)
}

// masked is the object with a Secret's values replaced by a mark: "***", or "*** (changed)"
// where before (nil: none) has another value under the key. The diff shows which keys a
// sync changes, never a value.
func masked(obj, before *unstructured.Unstructured) *unstructured.Unstructured {
	if obj.GetKind() != "Secret" || obj.GroupVersionKind().Group != "" {
		return obj
	}

	out := obj.DeepCopy()

	for _, field := range []string{"data", "stringData"} {
		values, ok, _ := unstructured.NestedMap(out.Object, field)
		if !ok {
			continue
		}

		var old map[string]any
		if before != nil {
			old, _, _ = unstructured.NestedMap(before.Object, field)
		}

		for k, v := range values {
			prev, had := old[k]

			values[k] = "***"
			if had && fmt.Sprint(prev) != fmt.Sprint(v) {
				values[k] = "*** (changed)"
			}
		}

		_ = unstructured.SetNestedMap(out.Object, values, field)
	}

	// kubectl's record of the last apply holds the values too.
	unstructured.RemoveNestedField(out.Object, "metadata", "annotations", "kubectl.kubernetes.io/last-applied-configuration")

	return out
}

// retryable tells an error that passes (the API server restarting, a connection reset)
// from one that will not: go-kubernetes' IsRetryableError, which talosctl's sync retries
// on (less net.Error's deprecated Temporary), kept here because its package links
// client-go's whole Clientset.
func retryable(err error) bool {
	if apierrors.IsTimeout(err) || apierrors.IsServerTimeout(err) || apierrors.IsInternalError(err) {
		return true
	}

	for _, passing := range []error{io.EOF, io.ErrUnexpectedEOF, syscall.ECONNREFUSED, syscall.ECONNRESET} {
		if errors.Is(err, passing) {
			return true
		}
	}

	var netErr net.Error

	return errors.As(err, &netErr) && netErr.Timeout()
}
