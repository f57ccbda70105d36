package kube

import (
	"context"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"

	"github.com/talops/talops/internal/health"
)

// HealthObjects reads the objects a health check names, any kind the cluster serves
// (custom resources included), by the resource its discovery maps the kind to.
func (c *Client) HealthObjects(ctx context.Context, hc health.Check) ([]health.Object, error) {
	gv, err := schema.ParseGroupVersion(hc.APIVersion)
	if err != nil {
		return nil, fmt.Errorf("apiVersion %q: %w", hc.APIVersion, err)
	}

	mapping, err := c.api.mapper.mapping(ctx, gv.WithKind(hc.Kind))
	if err != nil {
		// A kind installed since the mapper last asked (a CRD) is found on the next read.
		c.api.mapper.reset()

		if meta.IsNoMatchError(err) {
			return nil, fmt.Errorf("the cluster serves no %s in %s", hc.Kind, hc.APIVersion)
		}

		return nil, fmt.Errorf("map %s %s: %w", hc.APIVersion, hc.Kind, err)
	}

	var ri dynamic.ResourceInterface = c.api.dyn.Resource(mapping.resource)
	if mapping.namespaced && hc.Namespace != "" {
		ri = c.api.dyn.Resource(mapping.resource).Namespace(hc.Namespace)
	}

	if hc.ObjectName != "" {
		obj, err := ri.Get(ctx, hc.ObjectName, metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			return nil, nil
		}

		if err != nil {
			return nil, fmt.Errorf("read %s: %w", hc.Objects(), err)
		}

		return []health.Object{object(obj)}, nil
	}

	list, err := ri.List(ctx, metav1.ListOptions{LabelSelector: hc.Selector})
	if err != nil {
		return nil, fmt.Errorf("list %s: %w", hc.Objects(), err)
	}

	out := make([]health.Object, 0, len(list.Items))
	for i := range list.Items {
		out = append(out, object(&list.Items[i]))
	}

	return out, nil
}

// object names an object namespace/name (name alone when cluster-scoped).
func object(u *unstructured.Unstructured) health.Object {
	name := u.GetName()
	if ns := u.GetNamespace(); ns != "" {
		name = ns + "/" + name
	}

	return health.Object{Name: name, Content: u.Object}
}
