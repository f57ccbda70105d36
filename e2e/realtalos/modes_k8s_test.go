//go:build realtalos && k8s

package realtalos

// harnessModes are the harness's build modes the tests need: a real etcd, and with the k8s
// tag the Kubernetes mode (a real kubelet and control plane, built from source).
var harnessModes = []string{"ETCD=1", "K8S=1"}
