package kube

import (
	"context"
	"fmt"

	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"
)

// kindOf is a built-in kind talops reads and writes as its k8s.io/api struct T: the
// resource that serves it and its name.
type kindOf[T any] struct {
	resource schema.GroupVersionResource
	name     string
}

var (
	nodeKind      = kindOf[corev1.Node]{schema.GroupVersionResource{Version: "v1", Resource: "nodes"}, "Node"}
	podKind       = kindOf[corev1.Pod]{schema.GroupVersionResource{Version: "v1", Resource: "pods"}, "Pod"}
	configMapKind = kindOf[corev1.ConfigMap]{schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}, "ConfigMap"}
	pdbKind       = kindOf[policyv1.PodDisruptionBudget]{schema.GroupVersionResource{Group: "policy", Version: "v1", Resource: "poddisruptionbudgets"}, "PodDisruptionBudget"}
	leaseKind     = kindOf[coordinationv1.Lease]{schema.GroupVersionResource{Group: "coordination.k8s.io", Version: "v1", Resource: "leases"}, "Lease"}
)

// The resources only read for whether an object exists, or written as unstructured
// objects: no struct needed (apps/v1's would be linked for DaemonSets alone).
var (
	namespaceResource = schema.GroupVersionResource{Version: "v1", Resource: "namespaces"}
	daemonSetResource = schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "daemonsets"}
)

// typedResource reads and writes the objects of one kind as their k8s.io/api struct T,
// converted from and to the dynamic client's unstructured objects: the requests and errors
// of client-go's typed clients. Not those clients: each imports
// k8s.io/client-go/kubernetes/scheme, which registers every API group of k8s.io/api, and
// with it the apply configurations, the discovery and OpenAPI clients and gnostic-models,
// some 16 MB of the binary for the five kinds talops reads as structs (docs/performance.md).
type typedResource[T any] struct {
	ri dynamic.ResourceInterface
	// kind is written into the objects sent, as client-go's encoder does.
	kind schema.GroupVersionKind
}

// in is the kind's objects in the namespace ("": cluster-scoped, or all namespaces for a
// list), through the dynamic client.
func (k kindOf[T]) in(dyn dynamic.Interface, namespace string) typedResource[T] {
	var ri dynamic.ResourceInterface = dyn.Resource(k.resource)
	if namespace != "" {
		ri = dyn.Resource(k.resource).Namespace(namespace)
	}

	return typedResource[T]{ri: ri, kind: k.resource.GroupVersion().WithKind(k.name)}
}

func (r typedResource[T]) get(ctx context.Context, name string) (*T, error) {
	u, err := r.ri.Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return nil, err
	}

	return r.from(u)
}

func (r typedResource[T]) list(ctx context.Context, opts metav1.ListOptions) ([]T, error) {
	list, err := r.ri.List(ctx, opts)
	if err != nil {
		return nil, err
	}

	out := make([]T, len(list.Items))
	for i := range list.Items {
		if err := r.decode(&list.Items[i], &out[i]); err != nil {
			return nil, err
		}
	}

	return out, nil
}

func (r typedResource[T]) create(ctx context.Context, obj *T) (*T, error) {
	u, err := toUnstructured(obj, r.kind)
	if err != nil {
		return nil, err
	}

	created, err := r.ri.Create(ctx, u, metav1.CreateOptions{})
	if err != nil {
		return nil, err
	}

	return r.from(created)
}

// update writes the object; the resourceVersion it carries makes a write over a newer
// version a conflict.
func (r typedResource[T]) update(ctx context.Context, obj *T) (*T, error) {
	u, err := toUnstructured(obj, r.kind)
	if err != nil {
		return nil, err
	}

	updated, err := r.ri.Update(ctx, u, metav1.UpdateOptions{})
	if err != nil {
		return nil, err
	}

	return r.from(updated)
}

func (r typedResource[T]) patch(ctx context.Context, name string, pt types.PatchType, data []byte) error {
	_, err := r.ri.Patch(ctx, name, pt, data, metav1.PatchOptions{})

	return err
}

func (r typedResource[T]) delete(ctx context.Context, name string, opts metav1.DeleteOptions) error {
	return r.ri.Delete(ctx, name, opts)
}

func (r typedResource[T]) from(u *unstructured.Unstructured) (*T, error) {
	out := new(T)
	if err := r.decode(u, out); err != nil {
		return nil, err
	}

	return out, nil
}

func (r typedResource[T]) decode(u *unstructured.Unstructured, out *T) error {
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, out); err != nil {
		return fmt.Errorf("decode %s %s: %w", r.kind.Kind, u.GetName(), err)
	}

	return nil
}

// toUnstructured is a k8s.io/api struct as the dynamic client sends it, of the kind given.
func toUnstructured(obj any, kind schema.GroupVersionKind) (*unstructured.Unstructured, error) {
	m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
	if err != nil {
		return nil, fmt.Errorf("encode a %s: %w", kind.Kind, err)
	}

	u := &unstructured.Unstructured{Object: m}
	u.SetGroupVersionKind(kind)

	return u, nil
}
