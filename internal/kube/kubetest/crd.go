package kubetest

import (
	"context"
	"strings"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
)

var crdResource = schema.GroupVersionResource{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"}

// CRD installs a namespaced custom resource of kind in group at version v1 (its plural
// is the kind in lower case with an s), any fields allowed, and waits until the server
// serves it (one already installed is kept). It returns the resource, for Object.
func (e *Env) CRD(t testing.TB, group, kind string) schema.GroupVersionResource {
	t.Helper()

	ctx, cancel := context.WithTimeout(context.Background(), fixtureTimeout)
	defer cancel()

	plural := strings.ToLower(kind) + "s"
	gvr := schema.GroupVersionResource{Group: group, Version: "v1", Resource: plural}

	crd := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "apiextensions.k8s.io/v1",
		"kind":       "CustomResourceDefinition",
		"metadata":   map[string]any{"name": plural + "." + group},
		"spec": map[string]any{
			"group": group,
			"scope": "Namespaced",
			"names": map[string]any{"kind": kind, "plural": plural, "singular": strings.ToLower(kind), "listKind": kind + "List"},
			"versions": []any{map[string]any{
				"name": "v1", "served": true, "storage": true,
				"schema": map[string]any{"openAPIV3Schema": map[string]any{"type": "object", "x-kubernetes-preserve-unknown-fields": true}},
			}},
		},
	}}

	dyn := e.dynamic(t)

	if _, err := dyn.Resource(crdResource).Create(ctx, crd, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatalf("create CRD %s: %v", crd.GetName(), err)
	}

	for {
		got, err := dyn.Resource(crdResource).Get(ctx, crd.GetName(), metav1.GetOptions{})
		if err == nil && established(got) {
			return gvr
		}

		select {
		case <-ctx.Done():
			t.Fatalf("CRD %s never established: %v", crd.GetName(), err)
		case <-time.After(100 * time.Millisecond):
		}
	}
}

func established(crd *unstructured.Unstructured) bool {
	conditions, _, _ := unstructured.NestedSlice(crd.Object, "status", "conditions")
	for _, c := range conditions {
		m, _ := c.(map[string]any)
		if m["type"] == "Established" && m["status"] == "True" {
			return true
		}
	}

	return false
}

// Object creates or replaces an object of a custom resource (its content as JSON) and
// returns it as the server stored it.
func (e *Env) Object(t testing.TB, gvr schema.GroupVersionResource, content map[string]any) *unstructured.Unstructured {
	t.Helper()

	ctx, cancel := context.WithTimeout(context.Background(), fixtureTimeout)
	defer cancel()

	u := &unstructured.Unstructured{Object: content}
	ri := e.dynamic(t).Resource(gvr).Namespace(u.GetNamespace())

	cur, err := ri.Get(ctx, u.GetName(), metav1.GetOptions{})
	if err == nil {
		u.SetResourceVersion(cur.GetResourceVersion())

		out, err := ri.Update(ctx, u, metav1.UpdateOptions{})
		if err != nil {
			t.Fatalf("update %s %s: %v", gvr.Resource, u.GetName(), err)
		}

		return out
	}

	out, err := ri.Create(ctx, u, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("create %s %s: %v", gvr.Resource, u.GetName(), err)
	}

	return out
}

func (e *Env) dynamic(t testing.TB) dynamic.Interface {
	t.Helper()

	dyn, err := dynamic.NewForConfig(e.Config)
	if err != nil {
		t.Fatal(err)
	}

	return dyn
}
