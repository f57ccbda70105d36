package kube

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/siderolabs/go-retry/retry"
	"github.com/siderolabs/talos/pkg/machinery/constants"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/rest"
)

// inventoryAnnotation marks an object with the inventory that owns it (kubectl's and
// cli-utils' key, which go-kubernetes' ssa writes).
const inventoryAnnotation = "config.k8s.io/owning-inventory"

// waitInterval is how often a server-side sync looks whether what it applied is
// reconciled (talosctl's).
const waitInterval = 2 * time.Second

// The actions of a server-side apply, as go-kubernetes' ssa (fluxcd's) logs them.
const (
	created    = "created"
	configured = "configured"
	unchanged  = "unchanged"
)

// SyncManifestsSSA applies the bootstrap manifests by server-side apply, as talosctl
// upgrade-k8s does for clusters whose nodes all run Talos 1.13 or later (go-kubernetes'
// ssa with fluxcd's resource manager): Talos' field manager ("talos"), forcing ownership of
// the fields it applies, and its inventory (the ConfigMap
// kube-system/talos-bootstrap-manifests-inventory, whose name every object it applies
// carries in config.k8s.io/owning-inventory), adopting objects no inventory owns yet and
// refusing those another one does. Namespaces, CRDs and ClusterRoles go first and are
// waited for, then classes, then ConfigMaps and Secrets, then what mounts them; an
// object the cluster already has as the manifest says is not applied again. Then it
// waits up to timeout for what changed to be reconciled. talops prunes nothing: an object
// dropped from the manifests stays until removed by hand. With dryRun it only logs what
// would change, and writes nothing, the inventory included.
func SyncManifestsSSA(ctx context.Context, cfg *rest.Config, objects []*unstructured.Unstructured, dryRun bool, timeout time.Duration, log func(string)) error {
	m, err := newManifestsClient(cfg)
	if err != nil {
		return fmt.Errorf("server-side apply: %w", err)
	}
	defer m.close()

	inv, err := m.readInventory(ctx, !dryRun)
	if err != nil {
		return fmt.Errorf("server-side apply: %w", err)
	}

	if err := markInventory(objects, inv.name); err != nil {
		return err
	}

	if dryRun {
		return m.logPlan(ctx, objects, log)
	}

	changes, applyErr := m.applyStaged(ctx, objects, timeout)

	for _, c := range changes {
		switch c.action {
		case created, configured:
			log(" < " + c.action + " " + c.subject)
			log(c.diff)

			inv.add(c.obj)
		default:
			log(" > skipped " + c.subject + ": no changes")

			inv.add(c.obj)
		}
	}

	// What was applied is recorded even when a later object failed, as talosctl does.
	if err := errors.Join(applyErr, inv.write(ctx)); err != nil {
		return fmt.Errorf("apply the bootstrap manifests: %w", err)
	}

	log("waiting for kubernetes objects to be fully reconciled")

	if err := m.waitAllReady(ctx, appliedObjects(changes), timeout, waitInterval); err != nil {
		return fmt.Errorf("wait for the bootstrap manifests: %w", err)
	}

	log("done")

	return nil
}

// markInventory writes the inventory's name into every object's owning-inventory
// annotation, and refuses an object whose manifest already names another inventory.
func markInventory(objects []*unstructured.Unstructured, name string) error {
	for _, obj := range objects {
		a := obj.GetAnnotations()
		if a == nil {
			a = map[string]string{}
		}

		if owner, ok := a[inventoryAnnotation]; ok && owner != name {
			return fmt.Errorf("apply the bootstrap manifests: %s already has an inventory annotation", manifestPath(obj))
		}

		a[inventoryAnnotation] = name
		obj.SetAnnotations(a)
	}

	return nil
}

// logPlan is the dry run of a server-side sync: one line per object saying what its
// apply would do, and nothing written.
func (m *manifestsClient) logPlan(ctx context.Context, objects []*unstructured.Unstructured, log func(string)) error {
	for _, obj := range objects {
		c, err := m.plan(ctx, obj)
		if err != nil {
			return fmt.Errorf("diff the bootstrap manifests: %w", err)
		}

		log(c.action + " " + c.subject)
	}

	return nil
}

// appliedObjects are the objects the sync created or configured: those to wait for.
func appliedObjects(changes []change) []*unstructured.Unstructured {
	var out []*unstructured.Unstructured

	for _, c := range changes {
		if c.action == created || c.action == configured {
			out = append(out, c.obj)
		}
	}

	return out
}

// change is what a server-side apply does, or would do, to one object.
type change struct {
	obj     *unstructured.Unstructured
	action  string // created, configured, unchanged
	subject string // Kind/namespace/name
	diff    string
}

// subject names an object as fluxcd's ssa does: "ConfigMap/kube-system/kube-proxy".
func subject(obj *unstructured.Unstructured) string {
	if ns := obj.GetNamespace(); ns != "" {
		return obj.GetKind() + "/" + ns + "/" + obj.GetName()
	}

	return obj.GetKind() + "/" + obj.GetName()
}

// plan dry-runs the object's server-side apply and compares the result with what the
// cluster has (fluxcd's Diff): an object the server cannot take yet (its namespace or
// CRD comes in the same sync) would be created.
func (m *manifestsClient) plan(ctx context.Context, obj *unstructured.Unstructured) (change, error) {
	c := change{obj: obj, subject: subject(obj)}

	var live, would *unstructured.Unstructured

	err := retry.Constant(30*time.Second, retry.WithUnits(5*time.Second)).RetryWithContext(ctx, func(ctx context.Context) error {
		var err error

		live, would, err = m.dryRun(ctx, obj)
		if retryable(err) {
			return retry.ExpectedError(err)
		}

		return err
	})

	switch {
	case err != nil && (apierrors.IsNotFound(err) || meta.IsNoMatchError(err)):
		c.action = created
	case err != nil:
		return c, fmt.Errorf("apply dry run failed for %s: %w", c.subject, err)
	case live == nil:
		c.action = created
	case drifted(live, would):
		c.action = configured
	default:
		c.action = unchanged

		return c, nil
	}

	if c.action == created {
		diff, err := manifestDiff(nil, obj)
		c.diff = diff

		return c, err
	}

	// The adoption rule of talosctl's sync: the inventory takes an object no inventory
	// owns, never one another owns.
	if owner, ok := live.GetAnnotations()[inventoryAnnotation]; ok && owner != obj.GetAnnotations()[inventoryAnnotation] {
		return c, fmt.Errorf("%s belongs to inventory %q, not %q", manifestPath(obj), owner, obj.GetAnnotations()[inventoryAnnotation])
	}

	for _, o := range []*unstructured.Unstructured{live, would} {
		unstructured.RemoveNestedField(o.Object, "metadata", "managedFields")
	}

	diff, err := manifestDiff(live, would)
	c.diff = diff

	return c, err
}

// dryRun is the object as the cluster has it (nil: it has not) and as a server-side apply
// would leave it.
func (m *manifestsClient) dryRun(ctx context.Context, obj *unstructured.Unstructured) (live, would *unstructured.Unstructured, err error) {
	r, err := m.resource(ctx, obj)
	if err != nil {
		return nil, nil, err
	}

	live, err = r.Get(ctx, obj.GetName(), metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		live = nil
	} else if err != nil {
		return nil, nil, err
	}

	would, err = m.patch(ctx, obj, true)
	if err != nil {
		return live, nil, err
	}

	if would.GetResourceVersion() == "" {
		live = nil
	}

	return live, would, nil
}

// patch server-side applies the object as Talos' field manager, forcing ownership of its
// fields (what fluxcd's ssa does for talosctl).
func (m *manifestsClient) patch(ctx context.Context, obj *unstructured.Unstructured, dryRun bool) (*unstructured.Unstructured, error) {
	r, err := m.resource(ctx, obj)
	if err != nil {
		return nil, err
	}

	data, err := obj.MarshalJSON()
	if err != nil {
		return nil, fmt.Errorf("encode %s: %w", manifestPath(obj), err)
	}

	force := true
	opts := metav1.PatchOptions{FieldManager: constants.KubernetesFieldManagerName, Force: &force}

	if dryRun {
		opts.DryRun = []string{metav1.DryRunAll}
	}

	return r.Patch(ctx, obj.GetName(), types.ApplyPatchType, data, opts)
}

// drifted tells whether a server-side apply would change the object (fluxcd's hasDrifted):
// its labels, annotations, or anything outside metadata and status. (fluxcd also mends a
// HorizontalPodAutoscaler's dry run for Kubernetes before 1.27, which Talos no longer runs
// and whose bootstrap manifests hold none.)
func drifted(live, would *unstructured.Unstructured) bool {
	if !maps.Equal(live.GetLabels(), would.GetLabels()) || !maps.Equal(live.GetAnnotations(), would.GetAnnotations()) {
		return true
	}

	strip := func(u *unstructured.Unstructured) map[string]any {
		o := maps.Clone(u.Object)
		delete(o, "metadata")
		delete(o, "status")

		return o
	}

	return !equality.Semantic.DeepEqual(strip(live), strip(would))
}

// stage orders the objects as fluxcd's ApplyAllStaged does with talosctl's options:
// definitions (CRDs, Namespaces, ClusterRoles) first, classes, then ConfigMaps and Secrets,
// then the rest.
func stage(obj *unstructured.Unstructured) int {
	gvk := obj.GroupVersionKind()

	switch {
	case gvk.Group == "apiextensions.k8s.io" && gvk.Kind == "CustomResourceDefinition",
		gvk.Group == "" && gvk.Kind == "Namespace",
		gvk.Group == "rbac.authorization.k8s.io" && gvk.Kind == "ClusterRole":
		return 0
	case strings.HasSuffix(gvk.Kind, "Class"):
		return 1
	case gvk.Group == "" && (gvk.Kind == "ConfigMap" || gvk.Kind == "Secret"):
		return 2
	default:
		return 3
	}
}

// applyStaged applies the objects stage by stage; the definitions and classes are waited
// for before the next stage (a namespace must exist, a CRD be established, before what is
// in or of it). It returns the changes made until an error.
func (m *manifestsClient) applyStaged(ctx context.Context, objects []*unstructured.Unstructured, timeout time.Duration) ([]change, error) {
	var changes []change

	for st := range 4 {
		var batch []change

		for _, obj := range objects {
			if stage(obj) != st {
				continue
			}

			c, err := m.applyOne(ctx, obj)
			if err != nil {
				return changes, err
			}

			batch = append(batch, c)
		}

		changes = append(changes, batch...)

		if st > 1 || len(batch) == 0 {
			continue
		}

		// A CRD just applied maps its kinds only once discovery is asked again.
		m.mapper.reset()

		var wait []*unstructured.Unstructured
		for _, c := range batch {
			wait = append(wait, c.obj)
		}

		if err := m.waitAllReady(ctx, wait, timeout, waitInterval); err != nil {
			return changes, err
		}
	}

	return changes, nil
}

// applyOne applies one object unless the cluster already has it as the manifest says,
// retrying errors that pass (talosctl retries for 3 minutes).
func (m *manifestsClient) applyOne(ctx context.Context, obj *unstructured.Unstructured) (change, error) {
	var c change

	err := retry.Constant(3*time.Minute, retry.WithUnits(10*time.Second)).RetryWithContext(ctx, func(ctx context.Context) error {
		var err error

		c, err = m.plan(ctx, obj)
		if err == nil && c.action != unchanged {
			_, err = m.patch(ctx, obj, false)
		}

		if retryable(err) {
			return retry.ExpectedError(err)
		}

		return err
	})
	if err != nil {
		return c, fmt.Errorf("%s apply failed: %w", c.subject, err)
	}

	return c, nil
}

// inventory is the ConfigMap that lists what talosctl's and talops' syncs applied, one
// data key per object ("namespace_name_group_Kind", cli-utils' ObjMetadata format, with
// an RBAC object's colons as "__").
type inventory struct {
	m         *manifestsClient
	namespace string
	name      string
	keys      map[string]bool
}

// readInventory reads Talos' inventory; with create, the namespace and the ConfigMap are
// created when missing (as go-kubernetes' ssa does), else a missing one is empty.
func (m *manifestsClient) readInventory(ctx context.Context, create bool) (*inventory, error) {
	inv := &inventory{m: m, namespace: constants.KubernetesInventoryNamespace, name: constants.KubernetesBootstrapManifestsInventoryName, keys: map[string]bool{}}

	cms := m.dyn.Resource(configMapKind.resource).Namespace(inv.namespace)

	cm, err := cms.Get(ctx, inv.name, metav1.GetOptions{})

	switch {
	case apierrors.IsNotFound(err) && create:
		nss := m.dyn.Resource(namespaceResource)

		ns := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "Namespace", "metadata": map[string]any{"name": inv.namespace}}}
		if _, err := nss.Create(ctx, ns, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
			return nil, fmt.Errorf("create the inventory's namespace: %w", err)
		}

		empty := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "metadata": map[string]any{"name": inv.name, "namespace": inv.namespace}}}
		if _, err := cms.Create(ctx, empty, metav1.CreateOptions{}); err != nil {
			return nil, fmt.Errorf("create the inventory: %w", err)
		}

		return inv, nil
	case apierrors.IsNotFound(err):
		return inv, nil
	case err != nil:
		return nil, fmt.Errorf("read the inventory: %w", err)
	}

	data, _, _ := unstructured.NestedStringMap(cm.Object, "data")
	for k := range data {
		inv.keys[k] = true
	}

	return inv, nil
}

// add records the object in the inventory.
func (inv *inventory) add(obj *unstructured.Unstructured) {
	gk := obj.GroupVersionKind().GroupKind()

	name := obj.GetName()
	if gk.Group == "rbac.authorization.k8s.io" && slices.Contains([]string{"Role", "ClusterRole", "RoleBinding", "ClusterRoleBinding"}, gk.Kind) {
		name = strings.ReplaceAll(name, ":", "__")
	}

	inv.keys[obj.GetNamespace()+"_"+name+"_"+gk.Group+"_"+gk.Kind] = true
}

// write replaces the inventory's data with its keys.
func (inv *inventory) write(ctx context.Context) error {
	data := make(map[string]any, len(inv.keys))
	for k := range inv.keys {
		data[k] = ""
	}

	cm := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "v1", "kind": "ConfigMap",
		"metadata": map[string]any{"name": inv.name, "namespace": inv.namespace},
		"data":     data,
	}}

	cms := inv.m.dyn.Resource(configMapKind.resource).Namespace(inv.namespace)
	if _, err := cms.Update(ctx, cm, metav1.UpdateOptions{}); err != nil {
		return fmt.Errorf("update the inventory: %w", err)
	}

	return nil
}
