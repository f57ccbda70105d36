package kube

import (
	"context"
	"encoding/json"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/talops/talops/internal/applied"
)

// progressKey is the ConfigMap key that holds the rollout's progress as JSON.
const progressKey = "progress.json"

// ReadProgress reads what the last apply of the cluster left of its rollout, from the
// ConfigMap beside the apply lock (kube-system, named as the Lease); nil when there is none.
func (c *Client) ReadProgress(ctx context.Context, cluster string) (*applied.Progress, error) {
	cm, err := configMapKind.in(c.api.dyn, leaseNamespace).get(ctx, LeaseName(cluster))
	if apierrors.IsNotFound(err) {
		return nil, nil
	}

	if err != nil {
		return nil, fmt.Errorf("read the rollout's progress: %w", err)
	}

	var p applied.Progress
	if err := json.Unmarshal([]byte(cm.Data[progressKey]), &p); err != nil {
		// A record that does not read is no record: the rollout starts from the beginning.
		return nil, nil //nolint:nilerr // an unreadable record resumes nothing
	}

	return &p, nil
}

// WriteProgress records the rollout's progress for the next apply.
func (c *Client) WriteProgress(ctx context.Context, cluster string, p applied.Progress) error {
	data, err := json.Marshal(p)
	if err != nil {
		return fmt.Errorf("encode the rollout's progress: %w", err)
	}

	cm := &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Name: LeaseName(cluster), Namespace: leaseNamespace, Labels: map[string]string{"app.kubernetes.io/managed-by": "talops"}},
		Data:       map[string]string{progressKey: string(data)},
	}

	cms := configMapKind.in(c.api.dyn, leaseNamespace)

	_, err = cms.update(ctx, cm)
	if apierrors.IsNotFound(err) {
		_, err = cms.create(ctx, cm)
	}

	if err != nil {
		return fmt.Errorf("record the rollout's progress: %w", err)
	}

	return nil
}
