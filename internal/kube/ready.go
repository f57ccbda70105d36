package kube

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// errFailed marks an object that will not become ready by waiting (a Deployment past its
// progress deadline, a CRD whose names were refused): the wait stops at once.
var errFailed = errors.New("failed")

// reconciled tells whether the object is what its controller was asked for, with kstatus'
// rules (the readiness talosctl's server-side sync waits for through fluxcd) for the kinds
// bootstrap manifests hold: Deployments, DaemonSets, StatefulSets, CRDs, and the generic
// rules (observedGeneration, the Reconciling and Stalled conditions) for any other. why
// says what is still awaited; an error wrapping errFailed says waiting will not help.
func reconciled(u *unstructured.Unstructured) (ok bool, why string, err error) {
	if u.GetDeletionTimestamp() != nil {
		return false, "it is being deleted", nil
	}

	if og, found, _ := unstructured.NestedInt64(u.Object, "status", "observedGeneration"); found && og < u.GetGeneration() {
		return false, fmt.Sprintf("its controller has not seen generation %d yet", u.GetGeneration()), nil
	}

	if c := condition(u, "Stalled"); c == "True" {
		return false, "", fmt.Errorf("%w: it is stalled", errFailed)
	}

	if c := condition(u, "Reconciling"); c == "True" {
		return false, "it is reconciling", nil
	}

	gvk := u.GroupVersionKind()

	switch {
	case gvk.Group == "apps" && gvk.Kind == "Deployment":
		if reason(u, "Progressing") == "ProgressDeadlineExceeded" {
			return false, "", fmt.Errorf("%w: its progress deadline passed", errFailed)
		}

		want := replicas(u)

		return counts(want, []count{
			{"updated", status(u, "updatedReplicas")},
			{"available", status(u, "availableReplicas")},
			{"ready", status(u, "readyReplicas")},
		}, status(u, "replicas"), "replicas")
	case gvk.Group == "apps" && gvk.Kind == "DaemonSet":
		return counts(status(u, "desiredNumberScheduled"), []count{
			{"updated", status(u, "updatedNumberScheduled")},
			{"scheduled", status(u, "currentNumberScheduled")},
			{"available", status(u, "numberAvailable")},
			{"ready", status(u, "numberReady")},
		}, -1, "pods")
	case gvk.Group == "apps" && gvk.Kind == "StatefulSet":
		if cur, upd := statusString(u, "currentRevision"), statusString(u, "updateRevision"); cur != upd {
			return false, fmt.Sprintf("revision %s still rolls out over %s", upd, cur), nil
		}

		return counts(replicas(u), []count{
			{"updated", status(u, "updatedReplicas")},
			{"ready", status(u, "readyReplicas")},
		}, -1, "replicas")
	case gvk.Group == "apiextensions.k8s.io" && gvk.Kind == "CustomResourceDefinition":
		if condition(u, "NamesAccepted") == "False" {
			return false, "", fmt.Errorf("%w: its names were not accepted", errFailed)
		}

		if condition(u, "Established") != "True" {
			return false, "it is not established yet", nil
		}
	}

	return true, "", nil
}

type count struct {
	what string
	n    int64
}

// counts is ready when every count reaches want and total (unless -1) is no more than it.
func counts(want int64, cs []count, total int64, noun string) (bool, string, error) {
	for _, c := range cs {
		if c.n < want {
			return false, fmt.Sprintf("%d of %d %s %s", c.n, want, noun, c.what), nil
		}
	}

	if total > want {
		return false, fmt.Sprintf("%d old %s still terminating", total-want, noun), nil
	}

	return true, "", nil
}

func replicas(u *unstructured.Unstructured) int64 {
	if n, found, _ := unstructured.NestedInt64(u.Object, "spec", "replicas"); found {
		return n
	}

	return 1
}

func status(u *unstructured.Unstructured, field string) int64 {
	n, _, _ := unstructured.NestedInt64(u.Object, "status", field)

	return n
}

func statusString(u *unstructured.Unstructured, field string) string {
	s, _, _ := unstructured.NestedString(u.Object, "status", field)

	return s
}

// condition is the status of the object's condition of that type, "" when it has none.
func condition(u *unstructured.Unstructured, typ string) string {
	s, _ := conditionOf(u, typ)

	return s
}

func reason(u *unstructured.Unstructured, typ string) string {
	_, r := conditionOf(u, typ)

	return r
}

func conditionOf(u *unstructured.Unstructured, typ string) (status, reason string) {
	conds, _, _ := unstructured.NestedSlice(u.Object, "status", "conditions")

	for _, c := range conds {
		m, ok := c.(map[string]any)
		if !ok || m["type"] != typ {
			continue
		}

		s, _ := m["status"].(string)
		r, _ := m["reason"].(string)

		return s, r
	}

	return "", ""
}

// waitAllReady waits until every object is reconciled, looking every interval, up to
// timeout; the error names what is not and why.
func (m *manifestsClient) waitAllReady(ctx context.Context, objects []*unstructured.Unstructured, timeout, interval time.Duration) error {
	if len(objects) == 0 {
		return nil
	}

	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()

	for {
		var pending []string

		for _, obj := range objects {
			why, err := m.ready(ctx, obj)
			if err != nil {
				return fmt.Errorf("%s: %w", subject(obj), err)
			}

			if why != "" {
				pending = append(pending, subject(obj)+" ("+why+")")
			}
		}

		if len(pending) == 0 {
			return nil
		}

		select {
		case <-ctx.Done():
			return fmt.Errorf("not reconciled in %s: %s: %w", timeout, strings.Join(pending, "; "), ctx.Err())
		case <-time.After(interval):
		}
	}
}

// ready is "" when the object is reconciled, else what it waits for; an error that
// passes (the API briefly away) is something to wait for too.
func (m *manifestsClient) ready(ctx context.Context, obj *unstructured.Unstructured) (string, error) {
	r, err := m.resource(ctx, obj)
	if err != nil {
		return "", err
	}

	u, err := r.Get(ctx, obj.GetName(), metav1.GetOptions{})

	switch {
	case apierrors.IsNotFound(err):
		return "it is not there yet", nil
	case err != nil && (retryable(err) || ctx.Err() != nil):
		return "the API did not answer: " + err.Error(), nil
	case err != nil:
		return "", err
	}

	ok, why, err := reconciled(u)
	if err != nil || ok {
		return "", err
	}

	return why, nil
}
