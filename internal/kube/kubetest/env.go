// Package kubetest runs a real kube-apiserver and etcd for tests, through
// controller-runtime's envtest over the binaries ../shared/realkube builds, and makes the
// objects a kubelet or a controller would (Ready nodes, Running pods, PDB status), since
// there is neither.
//
// A test package shares one server (startup takes seconds) by holding a Shared and
// running its tests through it:
//
//	var kubeEnv kubetest.Shared
//
//	func TestMain(m *testing.M) { os.Exit(kubeEnv.Run(m)) }
//
//	func TestSomething(t *testing.T) { env := kubeEnv.Env(t) ... }
//
// and gives each test its own namespaces and node names.
package kubetest

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
)

// Env is a running kube-apiserver with an admin's access to it.
type Env struct {
	// Kubeconfig is an admin kubeconfig for the server (system:masters).
	Kubeconfig []byte
	// Config is the same admin's REST config.
	Config *rest.Config
	// Clientset talks to the server as that admin.
	Clientset kubernetes.Interface

	env *envtest.Environment
}

// AssetsDir is where the kube-apiserver and etcd binaries are looked for:
// $KUBEBUILDER_ASSETS, else ${REALKUBE_WORK:-${TMPDIR:-/tmp}/realkube}/bin (where
// realkube's build.sh puts them).
func AssetsDir(getenv func(string) string) string {
	if dir := getenv("KUBEBUILDER_ASSETS"); dir != "" {
		return dir
	}

	work := getenv("REALKUBE_WORK")
	if work == "" {
		tmp := getenv("TMPDIR")
		if tmp == "" {
			tmp = "/tmp"
		}

		work = filepath.Join(tmp, "realkube")
	}

	return filepath.Join(work, "bin")
}

func start(getenv func(string) string) (*Env, error) {
	dir := AssetsDir(getenv)
	for _, bin := range []string{"kube-apiserver", "etcd"} {
		if _, err := os.Stat(filepath.Join(dir, bin)); err != nil {
			return nil, fmt.Errorf("no %s in %s: run `bash ../shared/realkube/build.sh all` (or set KUBEBUILDER_ASSETS)", bin, dir)
		}
	}

	env := &envtest.Environment{BinaryAssetsDirectory: dir}

	cfg, err := env.Start()
	if err != nil {
		return nil, fmt.Errorf("start kube-apiserver from %s: %w", dir, err)
	}

	e, err := connect(env, cfg)
	if err != nil {
		return nil, errors.Join(err, env.Stop())
	}

	return e, nil
}

// connect makes the admin user a kubeconfig stands for, as a cluster's admin kubeconfig would.
func connect(env *envtest.Environment, cfg *rest.Config) (*Env, error) {
	admin, err := env.AddUser(envtest.User{Name: "talops-test-admin", Groups: []string{"system:masters"}}, cfg)
	if err != nil {
		return nil, fmt.Errorf("add admin user: %w", err)
	}

	kubeconfig, err := admin.KubeConfig()
	if err != nil {
		return nil, fmt.Errorf("admin kubeconfig: %w", err)
	}

	cs, err := kubernetes.NewForConfig(admin.Config())
	if err != nil {
		return nil, fmt.Errorf("admin clientset: %w", err)
	}

	return &Env{Kubeconfig: kubeconfig, Config: admin.Config(), Clientset: cs, env: env}, nil
}

func (e *Env) stop() error {
	return e.env.Stop()
}
