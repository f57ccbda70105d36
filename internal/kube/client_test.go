package kube_test

import (
	"context"
	"errors"
	"net"
	"strings"
	"testing"
	"time"

	"k8s.io/client-go/rest"

	"github.com/talops/talops/internal/app"
	"github.com/talops/talops/internal/kube"
)

// The adapter is what apply's seam asks for.
var _ app.Kube = (*kube.Client)(nil)

func TestNew_ABrokenKubeconfigIsRefusedWithoutQuotingIt(t *testing.T) {
	t.Parallel()

	const secret = "c2VjcmV0LWtleS1tYXRlcmlhbA=="

	for name, kubeconfig := range map[string]string{
		"not yaml":        "client-key-data: " + secret + "\n\t: [",
		"no cluster":      "apiVersion: v1\nkind: Config\nusers:\n- name: admin\n  user:\n    client-key-data: " + secret + "\n",
		"empty":           "",
		"bad certificate": "apiVersion: v1\nkind: Config\nclusters:\n- name: c\n  cluster: {server: 'https://127.0.0.1:6443', certificate-authority-data: " + secret + "}\ncontexts:\n- name: c\n  context: {cluster: c, user: admin}\ncurrent-context: c\nusers:\n- name: admin\n  user: {client-key-data: " + secret + "}\n",
	} {
		_, err := kube.New([]byte(kubeconfig))
		if err == nil {
			t.Errorf("%s: New accepted it", name)

			continue
		}

		if strings.Contains(err.Error(), secret) {
			t.Errorf("%s: the error quotes the kubeconfig: %v", name, err)
		}
	}
}

func TestReachable_NoServerListeningIsAnErrorSoon(t *testing.T) {
	t.Parallel()

	// A port that was free a moment ago: nothing answers there.
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}

	addr := l.Addr().String()
	_ = l.Close()

	c, err := kube.NewForConfig(&rest.Config{Host: "https://" + addr})
	if err != nil {
		t.Fatal(err)
	}

	start := time.Now()

	if err := c.Reachable(context.Background()); err == nil {
		t.Fatal("Reachable found an API where nothing listens")
	}

	if took := time.Since(start); took > 10*time.Second {
		t.Errorf("Reachable took %s to give up", took)
	}
}

func TestLock_NoHolderIsRefusedBeforeAnyRequest(t *testing.T) {
	t.Parallel()

	// Nothing listens on this address: an attempt to reach it would fail differently.
	c, err := kube.NewForConfig(&rest.Config{Host: "https://127.0.0.1:1"})
	if err != nil {
		t.Fatal(err)
	}

	_, err = c.Lock(context.Background(), "lab", "", nil)

	var locked *kube.LockedError
	if err == nil || errors.As(err, &locked) || strings.Contains(err.Error(), "127.0.0.1") {
		t.Errorf("Lock without a holder = %v, want a refusal that asks nothing of the server", err)
	}
}
