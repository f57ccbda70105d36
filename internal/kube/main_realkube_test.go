//go:build realkube

package kube_test

import (
	"os"
	"testing"

	"github.com/talops/talops/internal/kube"
	"github.com/talops/talops/internal/kube/kubetest"
)

// kubeEnv is the one kube-apiserver of this package's tests; each test uses its own
// namespaces, node names and cluster names on it.
var kubeEnv kubetest.Shared

func TestMain(m *testing.M) { os.Exit(kubeEnv.Run(m)) }

// client is the adapter over the shared server's admin kubeconfig, as apply builds it.
func client(t *testing.T) (*kube.Client, *kubetest.Env) {
	t.Helper()

	env := kubeEnv.Env(t)

	c, err := kube.New(env.Kubeconfig)
	if err != nil {
		t.Fatalf("client from the admin kubeconfig: %v", err)
	}

	return c, env
}
