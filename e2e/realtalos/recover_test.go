//go:build realtalos && k8s

package realtalos

import (
	"context"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"filippo.io/age"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/talops/talops/internal/backupstore/s3test"
)

// The drill, on a real node with its real etcd, kubelet and API server: a ConfigMap is
// written, talops backs etcd up to a real S3-compatible server, the machine is lost (it boots again with nothing, into
// maintenance mode, as a replaced disk does), and talops recover brings the cluster back
// from the backup: the ConfigMap is there again and the Node is Ready, its kubelet
// reporting after the recovery.
func TestRecover_TheClusterComesBackFromItsBackupAfterTheMachineIsLost(t *testing.T) {
	id, err := age.GenerateX25519Identity()
	if err != nil {
		t.Fatal(err)
	}

	k := bootKubeAt(t, "rec-drill", "127.0.88.1")
	ctx := context.Background()

	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "rec-drill", Namespace: podNamespace}, Data: map[string]string{"written": "before the backup"}}
	if _, err := k.kube.CoreV1().ConfigMaps(podNamespace).Create(ctx, cm, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}

	// The backup goes to a real S3-compatible server (versitygw, on loopback), as it would
	// go to a bucket off the cluster.
	s3 := s3test.Start(t)
	dest := "s3://" + s3.Bucket + "/homelab"
	env := []string{"SOPS_AGE_KEY=" + id.String()}

	for k, v := range s3.Env() {
		env = append(env, k+"="+v)
	}

	if r := talopsRun(t, env, "backup", "--dir", k.dir, "--talosconfig", k.admin, "--to", dest, "--s3-endpoint", s3.Endpoint, "--recipient", id.Recipient().String()); r.code != 0 {
		t.Fatalf("backup: exit %d", r.code)
	}

	// Written after the backup: the recovery loses it.
	late := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "rec-late", Namespace: podNamespace}}
	if _, err := k.kube.CoreV1().ConfigMaps(podNamespace).Create(ctx, late, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}

	// The machine is lost: it boots again with no state at all, waiting in maintenance mode.
	script(t, time.Minute, "stop.sh", k.node.name)
	script(t, 3*time.Minute, "start.sh", "-k", k.address+":6443", k.node.name, k.node.endpoint())

	// The sandbox pulls nothing: the images go in as soon as the node runs its config again.
	ictx, cancel := context.WithTimeout(ctx, 5*time.Minute)
	defer cancel()

	imported := make(chan error, 1)

	go func() {
		imported <- importKubeImages(ictx, k.node, k.admin)
	}()

	began := time.Now()

	r := talopsRun(t, env, "recover", "--dir", k.dir, "--talosconfig", k.admin, "--from", dest, "--s3-endpoint", s3.Endpoint, "--latest", "--yes")
	took := time.Since(began)

	if err := <-imported; err != nil {
		t.Errorf("import the images: %v", err)
	}

	if r.code != 0 || !strings.Contains(r.stdout, "Recovered in ") {
		t.Fatalf("recover: exit %d", r.code)
	}

	t.Logf("the recovery took %s (talops recover, from maintenance mode to the node ready)", took.Round(time.Second))

	for _, step := range []string{"apply its config", "upload the snapshot", "bootstrap etcd from it", "wait until healthy"} {
		if !strings.Contains(r.stderr, "recover: cp1: "+step+"\n") {
			t.Errorf("no progress for the step %q", step)
		}
	}

	var got *corev1.ConfigMap

	eventually(t, "the ConfigMap written before the backup to be read back", 3*time.Minute, func() bool {
		got, err = k.kube.CoreV1().ConfigMaps(podNamespace).Get(ctx, "rec-drill", metav1.GetOptions{})

		return err == nil
	})

	if got.Data["written"] != "before the backup" {
		t.Errorf("the ConfigMap came back as %v", got.Data)
	}

	if _, err := k.kube.CoreV1().ConfigMaps(podNamespace).Get(ctx, "rec-late", metav1.GetOptions{}); err == nil {
		t.Error("the ConfigMap written after the backup is there: etcd was not restored from the backup")
	}

	// Ready, as the kubelet of the recovered node reports it: the Ready condition the
	// backup holds is older than the recovery.
	eventually(t, "the Node Ready, reported after the recovery", 3*time.Minute, func() bool {
		n, err := k.kube.CoreV1().Nodes().Get(ctx, k.hostname, metav1.GetOptions{})
		if err != nil {
			return false
		}

		for _, c := range n.Status.Conditions {
			if c.Type == corev1.NodeReady {
				return c.Status == corev1.ConditionTrue && c.LastHeartbeatTime.After(began)
			}
		}

		return false
	})
}

// importKubeImages puts the etcd, kubelet, pause and control plane images into the node
// once it runs its config again (rtclient k8s without its bootstrap: talops recovers etcd).
func importKubeImages(ctx context.Context, n node, talosconfig string) error {
	rtclient := filepath.Join(work, "bin", "rtclient")

	for ctx.Err() == nil {
		if exec.CommandContext(ctx, rtclient, "version", "-addr", n.endpoint(), "-talosconfig", talosconfig).Run() == nil {
			out, err := exec.CommandContext(ctx, rtclient, "k8s", "-addr", n.endpoint(), "-talosconfig", talosconfig, "-bootstrap=false",
				"-etcd", filepath.Join(work, "images", "etcd.tar"), "-pause", filepath.Join(work, "images", "pause.tar"),
				"-images", filepath.Join(work, "images", "k8s-"+k8sVersion)).CombinedOutput()
			if err != nil {
				return &importError{err: err, out: string(tail(out))}
			}

			return nil
		}

		time.Sleep(500 * time.Millisecond)
	}

	return ctx.Err()
}

type importError struct {
	err error
	out string
}

func (e *importError) Error() string { return e.err.Error() + "\n" + e.out }
