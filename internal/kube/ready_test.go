package kube

import (
	"errors"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

func TestReconciled_WhatTheSyncWaitsFor(t *testing.T) {
	t.Parallel()

	obj := func(apiVersion, kind string, generation int64, spec, status map[string]any) *unstructured.Unstructured {
		u := &unstructured.Unstructured{Object: map[string]any{
			"apiVersion": apiVersion, "kind": kind,
			"metadata": map[string]any{"name": "x", "namespace": "kube-system", "generation": generation},
		}}
		if spec != nil {
			u.Object["spec"] = spec
		}

		if status != nil {
			u.Object["status"] = status
		}

		return u
	}

	tests := []struct {
		name    string
		obj     *unstructured.Unstructured
		wantOK  bool
		wantWhy string
		failed  bool
	}{
		{
			name:   "a ConfigMap is there, so done",
			obj:    obj("v1", "ConfigMap", 0, nil, nil),
			wantOK: true,
		},
		{
			name:    "a Deployment its controller has not seen yet",
			obj:     obj("apps/v1", "Deployment", 2, map[string]any{"replicas": int64(2)}, map[string]any{"observedGeneration": int64(1), "updatedReplicas": int64(2), "availableReplicas": int64(2), "readyReplicas": int64(2), "replicas": int64(2)}),
			wantWhy: "its controller has not seen generation 2 yet",
		},
		{
			name:    "a Deployment half rolled out",
			obj:     obj("apps/v1", "Deployment", 2, map[string]any{"replicas": int64(2)}, map[string]any{"observedGeneration": int64(2), "updatedReplicas": int64(1), "availableReplicas": int64(2), "readyReplicas": int64(2), "replicas": int64(3)}),
			wantWhy: "1 of 2 replicas updated",
		},
		{
			name:    "a Deployment whose old replica still terminates",
			obj:     obj("apps/v1", "Deployment", 2, nil, map[string]any{"observedGeneration": int64(2), "updatedReplicas": int64(1), "availableReplicas": int64(1), "readyReplicas": int64(1), "replicas": int64(2)}),
			wantWhy: "1 old replicas still terminating",
		},
		{
			name: "a Deployment past its progress deadline fails",
			obj: obj("apps/v1", "Deployment", 1, nil, map[string]any{"observedGeneration": int64(1), "conditions": []any{
				map[string]any{"type": "Progressing", "status": "False", "reason": "ProgressDeadlineExceeded"},
			}}),
			failed: true,
		},
		{
			name:   "a Deployment rolled out",
			obj:    obj("apps/v1", "Deployment", 3, map[string]any{"replicas": int64(2)}, map[string]any{"observedGeneration": int64(3), "updatedReplicas": int64(2), "availableReplicas": int64(2), "readyReplicas": int64(2), "replicas": int64(2)}),
			wantOK: true,
		},
		{
			name:    "a DaemonSet with a pod not ready",
			obj:     obj("apps/v1", "DaemonSet", 1, nil, map[string]any{"observedGeneration": int64(1), "desiredNumberScheduled": int64(3), "updatedNumberScheduled": int64(3), "currentNumberScheduled": int64(3), "numberAvailable": int64(3), "numberReady": int64(2)}),
			wantWhy: "2 of 3 pods ready",
		},
		{
			name:   "a DaemonSet on every node",
			obj:    obj("apps/v1", "DaemonSet", 1, nil, map[string]any{"observedGeneration": int64(1), "desiredNumberScheduled": int64(3), "updatedNumberScheduled": int64(3), "currentNumberScheduled": int64(3), "numberAvailable": int64(3), "numberReady": int64(3)}),
			wantOK: true,
		},
		{
			name:    "a StatefulSet between revisions",
			obj:     obj("apps/v1", "StatefulSet", 1, nil, map[string]any{"observedGeneration": int64(1), "currentRevision": "a", "updateRevision": "b"}),
			wantWhy: "revision b still rolls out over a",
		},
		{
			name:    "a CRD not established",
			obj:     obj("apiextensions.k8s.io/v1", "CustomResourceDefinition", 1, nil, map[string]any{}),
			wantWhy: "it is not established yet",
		},
		{
			name: "a CRD whose names were refused fails",
			obj: obj("apiextensions.k8s.io/v1", "CustomResourceDefinition", 1, nil, map[string]any{"conditions": []any{
				map[string]any{"type": "NamesAccepted", "status": "False"},
			}}),
			failed: true,
		},
		{
			name: "any kind that says it reconciles",
			obj: obj("example.com/v1", "Widget", 1, nil, map[string]any{"conditions": []any{
				map[string]any{"type": "Reconciling", "status": "True"},
			}}),
			wantWhy: "it is reconciling",
		},
	}

	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()

			ok, why, err := reconciled(tt.obj)
			if tt.failed != errors.Is(err, errFailed) || (!tt.failed && err != nil) {
				t.Fatalf("err = %v, want failed %v", err, tt.failed)
			}

			if ok != tt.wantOK || why != tt.wantWhy {
				t.Errorf("reconciled = %v %q, want %v %q", ok, why, tt.wantOK, tt.wantWhy)
			}
		})
	}
}
